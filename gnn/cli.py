# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The command line of ``aliased_io_plugin.py``: the flags, checked into one frozen
:class:`Options`; the failures a run may meet, each one line on stderr with its own exit status;
and the log. It imports nothing of gnn/ and no NumPy, so that ``--help`` and flag errors work with
nothing installed and every other module may raise these failures."""

from __future__ import annotations

import argparse
import enum
import errno
import functools
import logging
import os
import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from kernels import DEFAULT as DEFAULT_KERNEL
from kernels import FLOATS, KERNELS

# -- the failures, each a line and an exit status -----------------------------------------------


class InputError(ValueError):
    """Bad user input; the message is one line meant for the user."""


class EnvironmentProblem(RuntimeError):
    """Something this machine lacks; the line ends with ``what_runs`` here anyway."""

    what_runs = ""


class MissingPackage(EnvironmentProblem):
    """A required package (or the CUDA headers NVRTC needs) is missing or too old."""

    what_runs = ("`bash run_tests.sh` needs neither TensorRT nor NVIDIA's index: it installs its "
                 "test packages from PyPI and runs the tests this machine can run")


class MissingExtra(MissingPackage):
    """networkx or matplotlib, which a flag asked for: leaving the flag out is the other answer."""

    what_runs = ""


class NoGpu(EnvironmentProblem):
    """No usable CUDA GPU: no driver, a driver too old, or no device."""

    what_runs = "Without a GPU, `bash run_tests.sh` runs the sample's tests that need none"


class OutputFailure(RuntimeError):
    """A file whose path passed the checks could not be written (a full disk, a device)."""


class KernelFailure(RuntimeError):
    """The scatter-add kernel could not be compiled or loaded."""


class TensorRTFailure(RuntimeError):
    """TensorRT refused a stage: ``build``, ``deserialize`` or ``execute``."""

    def __init__(self, stage: str, detail: str) -> None:
        super().__init__(f"TensorRT failed to {stage} the engine: {detail}")


class Exit(enum.IntEnum):
    OK, MISMATCH, BAD_INPUT, MISSING_PACKAGE, NO_GPU, TENSORRT, KERNEL, OUTPUT = range(8)


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
EXIT_OF = {InputError: Exit.BAD_INPUT, MissingPackage: Exit.MISSING_PACKAGE, NoGpu: Exit.NO_GPU,
           KernelFailure: Exit.KERNEL, OutputFailure: Exit.OUTPUT}
SEVERAL_MISSING = ("When several things are missing, one line names them all; the exit status is "
                   "that\nof the first, in the order of the checks: packages (3), the GPU (4), "
                   "TensorRT (3).")


def quote_path(path: str, limit: int = 120) -> str:
    """A path for a one-line message: quoted (a newline shows as \\n), a long one shortened."""
    shown = repr(path if len(path) <= limit else path[: limit // 2] + "..." + path[-limit // 3:])
    # A byte of a name that is not UTF-8 (repr() writes \udcff, after pairs of \\) as given: \xff.
    return re.sub(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])", r"\1\\x\2", shown)


def gib(size: int) -> str:
    if size >= (1 << 30) / 10:
        return f"{size / (1 << 30):.1f} GiB"
    return f"{size / (1 << 20):.1f} MiB"


def joined(words: list[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    if len(words) > 1:
        return f"{', '.join(words[:-1])} and {words[-1]}"
    return " and ".join(words)


def dotted(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def file_in_the_way(path: str) -> str:
    """The first part of ``path``, from the root down, that exists and is not a directory."""
    parts = [*reversed(Path(path).parents), Path(path)]
    return str(next((part for part in parts if part.exists() and not part.is_dir()), path))


# -- what the flags offer, the floors the messages name, and the flags as typed values ---------

BUILTIN_GRAPHS = ("karate", "les-miserables", "florentine")
NETWORKX_GRAPHS = ("les-miserables", "florentine")  # ship with networkx, an optional extra
DEGREE_MODELS = ("uniform", "powerlaw")
DEFAULT_NODE_FEATURES = "[1.0,3.0,5.0,7.0]"
DEFAULT_EDGES = "[[0,1],[1,2],[2,3],[3,0],[0,2],[1,3]]"
EXTRAS = "requirements/extras.txt"
# --aot's TensorRT floor, which --help names (gnn/machine.py holds the other floors):
MIN_TENSORRT_AOT = (10, 9)  # tensorrt.plugin.aot_impl (QuickPluginCreationRequest in the bindings)
MAX_FEATURES = MAX_CLASSES = 1 << 16
MAX_ITERATIONS = 1_000_000
MAX_SEED = (1 << 63) - 1
MIN_DEFAULT_BOUND = 16
MAX_BOUND = (1 << 31) - 1  # int32 indices and counts


@dataclass(frozen=True)
class GraphChoice:
    """Where the graph comes from: ``graph``, ``edge_file`` or ``synthetic``, else the literals."""

    graph: str | None = None
    edge_file: str | None = None
    feature_file: str | None = None
    synthetic: tuple[int, int, int] | None = None
    degrees: str | None = None
    node_features: str | None = None
    edges: str | None = None
    num_features: int | None = None

    def source_flag(self) -> str:
        if self.synthetic:
            return "--synthetic"
        if self.edge_file:
            return f"--edge-file {quote_path(self.edge_file)}"
        return f"--graph {self.graph}" if self.graph else "--node-features/--edges"

    def feature_flag(self) -> str:
        if self.feature_file:
            return f"--feature-file {quote_path(self.feature_file)}"
        return self.source_flag() if self.synthetic or self.graph else "--node-features"

    def has_random_features(self) -> bool:
        """Whether the graph gets --num-features seeded random features (it has none of its own)."""
        return self.graph in NETWORKX_GRAPHS or bool(self.edge_file and not self.feature_file)


@dataclass(frozen=True)
class InputOptions:
    graph: GraphChoice
    precision: str = "fp32"
    precision_typed: bool = True  # False: no --precision given; messages call it the default
    num_classes: int | None = None
    initial_x: str | None = None  # None: the graph's own default
    max_nodes: int | None = None
    max_edges: int | None = None
    seed: int | None = None  # None: a random one, printed
    draw_graph: str | None = None
    rounding: str = "run"  # how the kernel rounds X + the sums: model.ROUNDINGS


@dataclass(frozen=True)
class Options:
    """Every flag of a run but -v, typed and checked against each other (the paths: at the run)."""

    inputs: InputOptions
    engine: str | None = None
    iterations: int = 0
    cuda_graph: bool = False
    aliased: bool = True  # False: --no-alias
    aot: bool = False
    kernel: str = "fast"  # --kernel: the class-based plugin's kernel (kernels.KERNELS)
    validate: bool = False

    @property
    def precision(self) -> str:
        return self.inputs.precision

    @property
    def exact_bounds(self) -> bool:
        """The user set the profile's bounds, so a saved engine must have exactly these."""
        return self.inputs.max_nodes is not None or self.inputs.max_edges is not None


@dataclass(frozen=True)
class Bounds:
    """The optimization profile's maxima; the minimum is 1 and the optimum the graph at hand."""

    max_nodes: int
    max_edges: int


def default_bound(size: int) -> int:
    """The next power of two >= size (at least 16), so that similar graphs fit without a rebuild."""
    return max(MIN_DEFAULT_BOUND, 1 << max(size - 1, 0).bit_length())


def choose_bounds(num_nodes: int, num_edges: int, max_nodes: int | None,
                  max_edges: int | None) -> Bounds:
    """Profile maxima from the flags (or defaults); the graph must fit them."""
    bounds = Bounds(default_bound(num_nodes) if max_nodes is None else max_nodes,
                    default_bound(num_edges) if max_edges is None else max_edges)
    for flag, bound, size, what in (("--max-nodes", bounds.max_nodes, num_nodes, "nodes"),
                                    ("--max-edges", bounds.max_edges, num_edges, "edges")):
        if not 1 <= bound <= MAX_BOUND:  # a default past 2^30 nodes or edges (a flag: parsed)
            raise InputError(f"{flag}: must be between 1 and 2^31 - 1, got {bound}")
        if size > bound:
            raise InputError(f"{flag}: the graph has {size} {what}, more than the profile's "
                             f"maximum {bound}")
    return bounds


# -- the checks that need nothing but the flags ----------------------------------------------------


def check_flags(options: Options) -> None:
    """Raise InputError for the first flag out of range, contradicting another, or ignored."""
    choice = options.inputs.graph
    check_graph_choice(choice, options.inputs.num_classes)
    if choice.synthetic and not 1 <= choice.synthetic[2] <= MAX_FEATURES:
        raise InputError(f"--synthetic: F must be between 1 and {MAX_FEATURES}, got "
                         f"{choice.synthetic[2]}")
    if options.cuda_graph and options.iterations < 1:
        raise InputError("--cuda-graph: needs --iterations N (N >= 1)")
    if options.aot and not options.aliased:
        raise InputError("--no-alias: not with --aot (the ahead-of-time kernel always works in "
                         "place)")
    if options.aot and options.kernel != "fast":
        raise InputError(f"--kernel {options.kernel}: not with --aot (its engine holds the fast "
                         f"kernel)")
    for flag, path in (("--edge-file", choice.edge_file), ("--feature-file", choice.feature_file)):
        if path is not None and not path.strip():
            raise InputError(f"{flag} {quote_path(path)}: an empty path; give a file name")


def check_graph_choice(choice: GraphChoice, num_classes: int | None) -> None:
    """One source of the graph, and only the flags that source uses."""
    literal = choice.node_features is not None or choice.edges is not None
    chosen = [flag for flag, value in (("--graph", choice.graph), ("--edge-file", choice.edge_file),
                                       ("--synthetic", choice.synthetic)) if value is not None]
    if literal and chosen:
        raise InputError(f"{chosen[0]}: cannot be combined with --node-features / --edges")
    if choice.feature_file is not None and choice.edge_file is None:
        raise InputError("--feature-file: only with --edge-file")
    if choice.degrees is not None and choice.synthetic is None:
        raise InputError("--degrees: only with --synthetic")
    if choice.num_features is not None and not choice.has_random_features():
        karate = (" (the karate club's features are one-hot, F = 34)"
                  if choice.graph == "karate" else "")
        raise InputError(f"--num-features: only for --graph les-miserables/florentine and "
                         f"--edge-file without --feature-file{karate}")
    if choice.graph == "karate" and num_classes not in (None, 2):
        raise InputError(f"--num-classes: the karate club has 2 factions, got {num_classes}")


# -- the parser ----------------------------------------------------------------------------------

PROG = "aliased_io_plugin.py"


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error as one line (exit 2), refusing first what it would misread."""

    def refuse_misread(self, words: list[str]) -> None:
        """-validate (argparse: -v given 'alidate'), --validate=yes (argparse names its internals)
        and a flag given twice (argparse keeps the last without a word); --help ends the scan."""
        actions = self._option_string_actions
        given: set[str] = set()
        for word in words[:words.index("--")] if "--" in words else words:
            spelled, equals, value = word.partition("=")
            if not word.startswith("--"):
                if f"-{spelled}" in actions:
                    self.error(f"{spelled} is not a flag; -{spelled} is")
                spelled = spelled[:2]  # -vv: -v, twice
            action = actions.get(spelled)
            if action is None:
                continue
            if equals and action.nargs == 0:  # named by its long name, the last: -v, --verbose
                self.error(f"{action.option_strings[-1]} takes no value, got {value!r}")
            if action.dest == "help":
                return
            if action.dest in given and action.dest != "verbose":
                self.error(f"{spelled}: given more than once; give each flag once")
            given.add(action.dest)

    def error(self, message: str) -> NoReturn:
        sys.exit(_fail(message, Exit.BAD_INPUT))

    def print_help(self, file: Any = None) -> None:
        # argparse's own drops a failed write and exits 0: a full disk or closed pipe is exit 7.
        print(self.format_help(), end="", file=file, flush=True)


def bounded(parser: argparse.ArgumentParser, flag: str, low: int, high: int,
            said: str = "") -> Callable[[str], int]:
    """argparse's type for an integer flag from ``low`` to ``high`` (``said``: as messages write
    it), refusing a value as typed (int() also reads "+0" and "1_000_001")."""

    def convert(text: str) -> int:
        value = int(text)  # a ValueError is argparse's own "invalid int value: 'two'"
        if not low <= value <= high:
            parser.error(f"{flag}: must be between {low} and {said or high}, got {text}")
        return value

    convert.__name__ = "int"  # the type that argparse's message names
    return convert


# The examples --help prints; docs/usage.md shows them and the tests run every one as written.
EXAMPLES = tuple(f"python3 {PROG} {flags}" for flags in (
    "--precision fp16 --validate",
    "--node-features '[[1,2],[3,4],[5,6]]' --edges '[[0,1],[2,1]]' --validate",
    "--graph karate --validate --draw-graph karate.png",
    "--edge-file graphs/example_edges.csv --feature-file graphs/example_features.npy --validate",
    "--synthetic 200000 4000000 16 --degrees powerlaw --precision fp16 --validate",
    "--graph karate --engine karate.plan --iterations 200 --cuda-graph",
    "--graph karate --engine karate_copy.plan --iterations 200 --no-alias",
))
EXTRAS_LABEL = f"# needs {EXTRAS}"


def needs_extras(command: str) -> bool:
    words = shlex.split(command, comments=True)
    return "--draw-graph" in words or any(graph in words for graph in NETWORKX_GRAPHS)


EPILOG = "\n".join(["examples:",
                    *(f"  {command}  {EXTRAS_LABEL}" if needs_extras(command) else f"  {command}"
                      for command in EXAMPLES),
                    "exit status:",
                    *(f"  {int(code)} {meaning}" for code, meaning in EXIT_MEANINGS.items()),
                    SEVERAL_MISSING])


def build_parser() -> _Parser:
    # One width on every terminal, so that --help prints what docs/usage.md shows. No prefixes
    # (--prec for --precision): a flag added later must not change an old command line.
    fixed = functools.partial(argparse.RawDescriptionHelpFormatter, width=78)
    parser = _Parser(prog=PROG, epilog=EPILOG, allow_abbrev=False, formatter_class=fixed,
                     description="Run a tiny GNN whose scatter-add is an in-place (aliased I/O) "
                                 "TensorRT plugin.")
    add = parser.add_argument
    one_source = parser.add_mutually_exclusive_group().add_argument
    num_classes = bounded(parser, "--num-classes", 1, MAX_CLASSES)
    # No default: InputOptions.precision_typed tells a precision given from the default one.
    add("--precision", choices=FLOATS,
        help=f"type of X, features, weights and the plugin; fp32 after it (default: {FLOATS[0]})")
    add("--node-features",
        help=f"list of numbers (F = 1) or of equal-length lists (F > 1), one per node (default "
             f"{DEFAULT_NODE_FEATURES}; NVIDIA's sample spells it --node_features, also accepted)")
    add("--edges",
        help=f"list of [source, target] pairs, 0-based node ids (default {DEFAULT_EDGES})")
    one_source("--graph", choices=BUILTIN_GRAPHS,
               help="a built-in real graph, both edge directions: karate (ships here), "
                    "les-miserables, florentine (ship with networkx, an optional extra)")
    one_source("--edge-file", metavar="PATH",
               help="edge list: .npy of shape [E, 2], or CSV / TSV / whitespace text, '#' comments")
    one_source("--synthetic", nargs=3, type=int, metavar=("N", "E", "F"),
               help="a seeded random graph with N nodes, E edges, F features")
    add("--feature-file", metavar="PATH",
        help="node features for --edge-file, one row per node: .npy of shape [N] or [N, F], or "
             "CSV / TSV / whitespace text, '#' comments")
    add("--degrees", choices=DEGREE_MODELS,
        help="in-degree model of --synthetic: uniform (default) or powerlaw (a few very hot nodes)")
    add("--num-features", type=bounded(parser, "--num-features", 1, MAX_FEATURES), metavar="F",
        help="seeded random features per node (default 4) for --graph les-miserables/florentine "
             "and --edge-file without --feature-file")
    add("--num-classes", type=num_classes,
        help="number of classes of the classifier (default 3; the karate club has its 2 factions; "
             "--num_classes also accepted)")
    add("--initial-x", choices=("zeros", "features"),
        help="where X starts before the plugin adds the neighbours into it in place: zeros (mean "
             "of the neighbours; the default) or each node's own features (the karate club's "
             "default)")
    for flag, letter in (("--max-nodes", "N"), ("--max-edges", "E")):
        add(flag, type=bounded(parser, flag, 1, MAX_BOUND, "2^31 - 1"), metavar=letter,
            help=f"largest {letter} the engine's optimization profile accepts (default: next power "
                 f"of two >= {letter}, at least {MIN_DEFAULT_BOUND})")
    add("--engine", metavar="PATH",
        help="load the engine from PATH if it fits this run, else build it and save it there")
    add("--iterations", type=bounded(parser, "--iterations", 0, MAX_ITERATIONS), default=0,
        metavar="N", help="also time N steady-state inferences (CUDA events, after warm-up) "
                          "(default: %(default)s)")
    add("--cuda-graph", action="store_true",
        help="with --iterations: also time a CUDA graph replay")
    add("--no-alias", action="store_true",
        help="plugin output 0 is a separate buffer (the plugin copies X first): to measure what "
             "aliasing saves")
    add("--aot", action="store_true",
        help="use the quickly deployable plugin (QDP) route: the kernel is compiled ahead of time "
             "into the engine, built to run without Python (trtexec, C++; not run by us: "
             f"docs/aot_route.md); needs TensorRT >= {dotted(MIN_TENSORRT_AOT)}")
    add("--kernel", default=DEFAULT_KERNEL, choices=KERNELS,
        help="the plugin's kernel; reference: the obvious one, to see what the fast one buys "
             "(default: %(default)s)")
    add("--validate", action="store_true",
        help="compare with a NumPy float64 reference; exit 1 on mismatch")
    add("--seed", type=bounded(parser, "--seed", 0, MAX_SEED),
        help="seeds the random class weights, random node features (--graph "
             "les-miserables/florentine, --edge-file without --feature-file) and --synthetic "
             "graphs; printed where one of them uses it")
    add("--draw-graph", metavar="PNG",
        help=f"also draw the input graph to this PNG (needs networkx, matplotlib: {EXTRAS})")
    add("-v", "--verbose", action="count", default=0,
        help="more logging: -v TensorRT's and Polygraphy's messages, -vv TensorRT VERBOSE "
             "(default: %(default)s)")
    # NVIDIA's spellings, hidden: Python 3.13 prints aliases differently; docs/usage.md is --help.
    add("--node_features", dest="node_features", help=argparse.SUPPRESS)
    add("--num_classes", dest="num_classes", type=num_classes, help=argparse.SUPPRESS)
    return parser


def options_from(args: argparse.Namespace) -> Options:
    """The flags as one typed, frozen value, checked (InputError names the first bad flag)."""
    # How X + the sums are rounded (model.ROUNDINGS): "run" for the fast kernel and any you add.
    rounding = "edge" if args.kernel == "reference" else "run"
    if args.aot:
        rounding = "piece"
    graph = GraphChoice(graph=args.graph, edge_file=args.edge_file, feature_file=args.feature_file,
                        synthetic=tuple(args.synthetic) if args.synthetic else None,
                        degrees=args.degrees, node_features=args.node_features, edges=args.edges,
                        num_features=args.num_features)
    inputs = InputOptions(graph=graph, precision=args.precision or FLOATS[0],
                          precision_typed=args.precision is not None, num_classes=args.num_classes,
                          initial_x=args.initial_x, max_nodes=args.max_nodes,
                          max_edges=args.max_edges, seed=args.seed, draw_graph=args.draw_graph,
                          rounding=rounding)
    options = Options(inputs=inputs, engine=args.engine, iterations=args.iterations,
                      cuda_graph=args.cuda_graph, aliased=not args.no_alias, aot=args.aot,
                      kernel=args.kernel, validate=args.validate)
    check_flags(options)
    return options


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    if sys.stdout is None:  # started with stdout closed (>&-): print() would drop every line
        sys.exit(_fail("cannot write the output: stdout is closed", Exit.OUTPUT))
    parser = build_parser()
    try:
        parser.refuse_misread(sys.argv[1:] if argv is None else argv)
        args = parser.parse_args(argv)
    except OSError as error:  # --help could not be written
        sys.exit(_output_failed(error))
    configure_logging(args.verbose)
    return args


# -- the exit status and the log -----------------------------------------------------------------


def exit_status(run: Callable[[], int], verbose: int) -> int:
    """Run the sample; every failure it raises becomes one line on stderr and its exit code."""
    try:
        code = run()
        sys.stdout.flush()
        return code
    except TensorRTFailure as failure:
        hint = "" if verbose else " (run again with -v for TensorRT's own messages)"
        return _fail(f"{failure}{hint}", Exit.TENSORRT)
    except tuple(EXIT_OF) as failure:
        what_runs = getattr(failure, "what_runs", "")
        code = next(code for kind, code in EXIT_OF.items() if isinstance(failure, kind))
        return _fail(f"{failure}. {what_runs}" if what_runs else str(failure), code)
    except MemoryError:  # past the estimate (gnn/inputs.py): still one line; 1 is a mismatch
        return _fail("out of memory: this run needs more than this process may use", Exit.BAD_INPUT)
    except OSError as error:  # print() failed: a closed pipe or a full disk
        return _output_failed(error)


def _output_failed(error: OSError) -> int:
    """stdout refused the output: exit 7, and a line unless the reader (`| head`) closed it."""
    output_errnos = (errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EBADF)
    if error.filename is not None or error.errno not in output_errnos:
        raise error
    if error.errno != errno.EPIPE:
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
        return quiet_exit(sys.stderr)
    return code


def quiet_exit(stream: Any = None) -> int:
    """Exit 7, without Python's own failed flush at exit of ``stream`` (default stdout)."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), (stream or sys.stdout).fileno())
    return Exit.OUTPUT


def configure_logging(verbosity: int) -> None:
    """Python logging on stderr, Polygraphy's and TensorRT's routed into it, silent without -v."""
    level = {0: logging.WARNING, 1: logging.INFO}.get(verbosity, logging.DEBUG)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")  # on stderr
    logging.captureWarnings(True)  # Python warnings (matplotlib's among them) through this log
    if verbosity == 0:  # e.g. "Matplotlib created a temporary cache directory": noise here
        logging.getLogger("matplotlib").setLevel(logging.ERROR)
    try:
        from polygraphy.logger import G_LOGGER
    except ImportError:
        return
    if hasattr(G_LOGGER, "use_python_logging_system"):  # else Polygraphy prints to stdout
        G_LOGGER.use_python_logging_system = True
        logging.getLogger("Polygraphy").setLevel(1)
    G_LOGGER.module_severity = {0: G_LOGGER.CRITICAL + 1, 1: G_LOGGER.INFO}.get(verbosity,
                                                                             G_LOGGER.EXTRA_VERBOSE)
