# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The command line of ``aliased_io_plugin.py``: its flags, its help and its exit codes (what a run
prints is ``gnn/report.py``'s).

The flags become one typed, frozen :class:`gnn.options.Options` (:func:`options_from`); no stage
sees argparse. Every failure a stage raises (``gnn/errors.py``) becomes one line on stderr and an
:class:`Exit` code (:func:`exit_status`), which ``--help`` lists; so does output that cannot be
written, --help's included. No NumPy is imported until a run needs it, so ``--help`` and flag
errors work with nothing installed.
"""

from __future__ import annotations

import argparse
import enum
import errno
import os
import re
import shlex
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from gnn import logs
from gnn.choices import (BUILTIN_GRAPHS, DEFAULT_EDGES, DEFAULT_NODE_FEATURES, DEGREE_MODELS, KERNEL_NAMES,
                         NETWORKX_GRAPHS, PRECISION_NAMES)
from gnn.environment import EXTRAS, MIN_TENSORRT_AOT, dotted
from gnn.errors import (EnvironmentProblem, InputError, KernelFailure, MissingPackage, NoGpu,
                        OutputFailure, TensorRTFailure, quote_path)
from gnn.options import GraphChoice, InputOptions, Options, check_flags, typed_int
from gnn.profile_bounds import MIN_DEFAULT_BOUND



class Exit(enum.IntEnum):
    """The exit status: the verdict of a run."""

    OK = 0
    MISMATCH = 1
    BAD_INPUT = 2
    MISSING_PACKAGE = 3
    NO_GPU = 4
    TENSORRT = 5
    KERNEL = 6
    OUTPUT = 7


EXIT_MEANINGS = {
    Exit.OK: "ok (with --validate: matched the reference)",
    Exit.MISMATCH: "validation failed",
    Exit.BAD_INPUT: "bad input (one line names it)",
    Exit.MISSING_PACKAGE: "a required package is missing or too old",
    Exit.NO_GPU: "no usable CUDA GPU (no NVIDIA driver, a driver too old, or no device)",
    Exit.TENSORRT: "TensorRT failed to build, deserialize or execute (-v shows why)",
    Exit.KERNEL: "the scatter-add kernel failed to compile or load",
    Exit.OUTPUT: "the output could not be written (closed pipe, full disk)",
}
SEVERAL_MISSING = ("When several things are missing, one line names them all; the exit status is that\n"
                   "of the first, in the order of the checks: packages (3), the GPU (4), TensorRT (3).")
PROG = "aliased_io_plugin.py"
HELP_WIDTH = 78  # what argparse uses on an 80-column terminal (COLUMNS - 2)

class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line on stderr (exit 2), without the usage dump,
    and refuses a flag given twice (argparse would keep the last value without a word)."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        for kind in (None, "store", "store_true"):
            self.register("action", kind, _given_once(self._registry_get("action", kind)))

    def error(self, message: str) -> NoReturn:
        sys.exit(_fail(_in_our_words(message), Exit.BAD_INPUT))

    def print_help(self, file: Any = None) -> None:
        # argparse's own drops a failed write and exits 0: a full disk or closed pipe is exit 7.
        out = file or sys.stdout
        out.write(self.format_help())
        out.flush()


# argparse's words for --validate=yes name its internals ("ignored explicit argument"); for -vv=1
# the value it quotes keeps the '=' (it reads -v, then v=1).
_GIVEN_A_VALUE = re.compile(r"argument (?:\S+/)?(\S+): ignored explicit argument (['\"])=?(.*)")


def _in_our_words(message: str) -> str:
    given = _GIVEN_A_VALUE.fullmatch(message)
    return f"{given[1]} takes no value, got {given[2]}{given[3]}" if given else message


def _given_once(action: type[argparse.Action]) -> type[argparse.Action]:
    class GivenOnce(action):  # type: ignore[valid-type, misc]
        def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
            given = namespace.__dict__.setdefault("_given", set())  # per parse, so every parse starts afresh
            if self.dest in given:
                parser.error(f"{option_string}: given more than once; give each flag once")
            given.add(self.dest)
            super().__call__(parser, namespace, values, option_string)
    return GivenOnce


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Show real defaults (not None/False), keep the epilog's example lines as written, and wrap at
    one width on every terminal, so that --help prints what docs/usage.md shows."""

    def __init__(self, prog: str, **settings: Any) -> None:
        super().__init__(prog, **{**settings, "width": HELP_WIDTH})

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


# The examples --help prints; docs/usage.md shows them and the tests run every one as written.
# Those that need the optional extras are labelled where they are listed (needs_extras).
EXAMPLES = (
    "python3 aliased_io_plugin.py --precision fp16 --validate",
    "python3 aliased_io_plugin.py --node-features '[[1,2],[3,4],[5,6]]' --edges '[[0,1],[2,1]]' --validate",
    "python3 aliased_io_plugin.py --graph karate --validate --draw-graph karate.png",
    "python3 aliased_io_plugin.py --edge-file graphs/example_edges.csv --feature-file graphs/example_features.npy --validate",
    "python3 aliased_io_plugin.py --synthetic 200000 4000000 16 --degrees powerlaw --precision fp16 --validate",
    "python3 aliased_io_plugin.py --graph karate --engine karate.plan --iterations 200 --cuda-graph",
    "python3 aliased_io_plugin.py --graph karate --engine karate_copy.plan --iterations 200 --no-alias",
)

EXTRAS_LABEL = f"# needs {EXTRAS}"


def needs_extras(command: str) -> bool:
    """Whether a command needs the optional extras (networkx, matplotlib): pictures, and the graphs
    that ship with networkx. tests/test_hostile_inputs.py runs every example with them hidden."""
    words = shlex.split(command, comments=True)
    return "--draw-graph" in words or any(graph in words for graph in NETWORKX_GRAPHS)


def labelled(command: str) -> str:
    return f"{command}  {EXTRAS_LABEL}" if needs_extras(command) else command


EPILOG = ("examples:\n" + "\n".join(f"  {labelled(example)}" for example in EXAMPLES)
          + "\nexit status:\n" + "\n".join(f"  {int(code)} {meaning}" for code, meaning in EXIT_MEANINGS.items())
          + "\n" + SEVERAL_MISSING)


def build_parser() -> argparse.ArgumentParser:
    # No prefixes (--prec for --precision): a flag added later must not change what an old command line means.
    parser = _Parser(prog=PROG, formatter_class=_HelpFormatter, epilog=EPILOG, allow_abbrev=False,
                     description="Run a tiny GNN whose scatter-add is an in-place (aliased I/O) TensorRT plugin.")
    parser.add_argument("--precision", default="fp32", choices=PRECISION_NAMES, help="type of X, features, weights")
    parser.add_argument("--node-features",
                        help=f"list of numbers (F = 1) or of equal-length lists (F > 1), one per node "
                             f"(default {DEFAULT_NODE_FEATURES}; NVIDIA's sample spells it --node_features, "
                             f"also accepted)")
    parser.add_argument("--edges", help=f"list of [source, target] pairs, 0-based node ids (default {DEFAULT_EDGES})")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--graph", choices=BUILTIN_GRAPHS,
                        help="a built-in real graph, both edge directions: karate (ships here), les-miserables, "
                             "florentine (ship with networkx, an optional extra)")
    source.add_argument("--edge-file", metavar="PATH",
                        help="edge list: .npy of shape [E, 2], or CSV / TSV / whitespace text, '#' comments")
    source.add_argument("--synthetic", nargs=3, type=int, metavar=("N", "E", "F"),
                        help="a seeded random graph with N nodes, E edges, F features")
    parser.add_argument("--feature-file", metavar="PATH",
                        help="node features for --edge-file, one row per node: .npy of shape [N] or [N, F], or "
                             "CSV / TSV / whitespace text, '#' comments")
    parser.add_argument("--degrees", choices=DEGREE_MODELS,
                        help="in-degree model of --synthetic: uniform (default) or powerlaw (a few very hot nodes)")
    parser.add_argument("--num-features", type=typed_int, metavar="F",
                        help="seeded random features per node (default 4) for --graph les-miserables/florentine "
                             "and --edge-file without --feature-file")
    parser.add_argument("--num-classes", type=typed_int,
                        help="number of classes of the classifier (default 3; the karate club has its 2 factions; "
                             "--num_classes also accepted)")
    parser.add_argument("--initial-x", choices=("zeros", "features"),
                        help="where X starts before the plugin adds the neighbours into it in place: zeros (mean "
                             "of the neighbours; the default) or each node's own features (the karate club's default)")
    parser.add_argument("--max-nodes", type=int, metavar="N",
                        help=f"largest N the engine's optimization profile accepts (default: next power of two "
                             f">= N, at least {MIN_DEFAULT_BOUND})")
    parser.add_argument("--max-edges", type=int, metavar="E",
                        help=f"largest E the engine's optimization profile accepts (default: next power of two "
                             f">= E, at least {MIN_DEFAULT_BOUND})")
    parser.add_argument("--engine", metavar="PATH",
                        help="load the engine from PATH if it fits this run, else build it and save it there")
    parser.add_argument("--iterations", type=typed_int, default=0, metavar="N",
                        help="also time N steady-state inferences (CUDA events, after warm-up)")
    parser.add_argument("--cuda-graph", action="store_true", help="with --iterations: also time a CUDA graph replay")
    parser.add_argument("--no-alias", action="store_true",
                        help="plugin output 0 is a separate buffer (the plugin copies X first): to measure what aliasing saves")
    parser.add_argument("--aot", action="store_true",
                        help="use the quickly deployable plugin (QDP) route: the kernel is compiled ahead of time into "
                             "the engine, built to run without Python (trtexec, C++; not run by us: "
                             f"docs/aot_route.md); needs TensorRT >= {dotted(MIN_TENSORRT_AOT)}")
    parser.add_argument("--kernel", default=KERNEL_NAMES[0], choices=KERNEL_NAMES,
                        help="the plugin's kernel; reference: the obvious one, to see what the fast one buys")
    parser.add_argument("--validate", action="store_true", help="compare with a NumPy float64 reference; exit 1 on mismatch")
    parser.add_argument("--seed", type=typed_int,
                        help="seeds the random class weights, random node features (--graph "
                             "les-miserables/florentine, --edge-file without --feature-file) and "
                             "--synthetic graphs; printed where one of them uses it")
    parser.add_argument("--draw-graph", metavar="PNG",
                        help=f"also draw the input graph to this PNG (needs networkx, matplotlib: {EXTRAS})")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more logging: -v TensorRT's and Polygraphy's messages, -vv TensorRT VERBOSE")
    # NVIDIA's spellings, hidden: Python 3.13 prints aliases differently, and docs/usage.md is --help.
    parser.add_argument("--node_features", dest="node_features", help=argparse.SUPPRESS)
    parser.add_argument("--num_classes", dest="num_classes", type=typed_int, help=argparse.SUPPRESS)
    return parser


def options_from(args: argparse.Namespace) -> Options:
    """The flags as one typed, frozen value, checked (InputError names the first bad flag)."""
    graph = GraphChoice(graph=args.graph, edge_file=args.edge_file, feature_file=args.feature_file,
                        synthetic=tuple(args.synthetic) if args.synthetic else None, degrees=args.degrees,
                        node_features=args.node_features, edges=args.edges, num_features=args.num_features)
    typed = getattr(args, "_given", set())  # the flags given, as _given_once records them
    inputs = InputOptions(graph=graph, precision=args.precision,
                          precision_typed="precision" in typed, num_classes=args.num_classes,
                          initial_x=args.initial_x, max_nodes=args.max_nodes, max_edges=args.max_edges,
                          seed=args.seed, draw_graph=args.draw_graph)
    options = Options(inputs=inputs, engine=args.engine, iterations=args.iterations, cuda_graph=args.cuda_graph,
                      aliased=not args.no_alias, aot=args.aot, kernel=args.kernel, validate=args.validate,
                      verbose=args.verbose)
    check_flags(options)
    return options


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    if sys.stdout is None:  # started with stdout closed (>&-): print() would drop every line
        sys.exit(_fail("cannot write the output: stdout is closed", Exit.OUTPUT))
    try:
        args = build_parser().parse_args(argv)
    except OSError as error:  # --help could not be written
        sys.exit(_output_failed(error))
    logs.configure(args.verbose)
    return args


# -- the exit status ---------------------------------------------------------------------------

# The exit status of each kind of failure a stage raises (gnn/errors.py).
EXIT_OF = ((InputError, Exit.BAD_INPUT), (MissingPackage, Exit.MISSING_PACKAGE), (NoGpu, Exit.NO_GPU),
           (KernelFailure, Exit.KERNEL), (OutputFailure, Exit.OUTPUT))


def exit_status(run: Callable[[], int], verbose: int) -> int:
    """Run the sample; every failure it raises becomes one line on stderr and its exit code."""
    try:
        code = run()
        sys.stdout.flush()
        return code
    except (InputError, MissingPackage, NoGpu, KernelFailure, OutputFailure) as failure:
        ending = f". {failure.what_runs}" if isinstance(failure, EnvironmentProblem) and failure.what_runs else ""
        return _fail(f"{failure}{ending}", next(code for kind, code in EXIT_OF if isinstance(failure, kind)))
    except TensorRTFailure as failure:
        hint = "" if verbose else " (run again with -v for TensorRT's own messages)"
        return _fail(f"{failure}{hint}", Exit.TENSORRT)
    except MemoryError:  # past the estimate (gnn/memory_budget.py): still one line; 1 is a mismatch
        return _fail("out of memory: this run needs more than this process may use", Exit.BAD_INPUT)
    except OSError as error:  # print() failed: a closed pipe or a full disk
        return _output_failed(error)


def _output_failed(error: OSError) -> int:
    """stdout could not take what was printed: exit 7, with a line unless the reader closed the
    pipe."""
    if error.filename is not None or error.errno not in _OUTPUT_ERRNOS:
        raise error
    if error.errno != errno.EPIPE:  # a closed pipe is the reader's choice (`| head`): no line
        _fail(f"cannot write the output: {os.strerror(error.errno)}", Exit.OUTPUT)
    return quiet_exit()


def _fail(message: str, code: int) -> int:
    """One line on stderr; exit 7 where stderr cannot take it either (closed, or a full disk)."""
    if sys.stderr is None:  # closed at start: print() would write the line to stdout instead
        return Exit.OUTPUT
    try:
        print(f"{PROG}: error: {message}", file=sys.stderr, flush=True)
    except OSError:
        # Else Python's own flush of stderr at exit fails too, and changes the status to 120.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())
        return Exit.OUTPUT
    return code


_OUTPUT_ERRNOS = (errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EBADF)


def quiet_exit() -> int:
    """Leave without a traceback, and without Python's own failed flush of stdout at exit."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return Exit.OUTPUT
