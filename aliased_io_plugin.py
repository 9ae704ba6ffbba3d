#!/usr/bin/env python3
"""A one-layer graph neural network whose aggregation is an in-place TensorRT plugin (the CLI).

The plugin (``scatter_add_plugin.py``) adds each edge's source features into its target's row
of ``X`` *in place*: its output 0 is aliased to its input 0. The network then divides by the
in-degree, multiplies by class weights, and applies ReLU and SoftMax:

    X[t] += features[s] for every edge s -> t          (plugin, in place; counts = in-degree)
    means  = X / max(counts, 1)                         (Cast, ElementWise MAX and DIV)
    probs  = softmax_over_classes(relu(W @ means^T))    (MatMul, ReLU, SoftMax)

This file is the command line only: flags, environment checks, exit codes and printing. The
network and engine live in ``gnn_engine.py``, running it in ``engine_runner.py``, inputs and
validation in ``gnn_model.py``.

Exit status (also in --help and the README):
  0 ran, and with --validate matched the reference    1 validation failed
  2 bad input (one line names it)                     3 a required package is missing or too old
  4 no usable CUDA GPU                                5 TensorRT failed to build, deserialize or execute
  6 the scatter-add kernel failed to compile or load
"""

from __future__ import annotations

import argparse
import logging
import secrets
import sys
from dataclasses import dataclass
from typing import Any, NoReturn

EXIT_OK, EXIT_MISMATCH, EXIT_BAD_INPUT, EXIT_MISSING_PACKAGE, EXIT_NO_GPU, EXIT_TENSORRT, EXIT_KERNEL = range(7)
PROG = "aliased_io_plugin.py"

try:  # everything below needs NumPy: a missing one is exit 3 with the fix, not a traceback
    import numpy as np
except ImportError:
    print(f"{PROG}: error: NumPy is not installed: python3 -m pip install -r requirements.txt", file=sys.stderr)
    sys.exit(EXIT_MISSING_PACKAGE)

import graph_sources  # noqa: E402
import precisions  # noqa: E402
from engine_runner import TensorRTFailure  # noqa: E402
from engine_spec import EngineSpec, choose_bounds  # noqa: E402
from gnn_model import RunInputs, RunResult, describe_in_place, make_run_inputs, validate  # noqa: E402
from graph_inputs import (  # noqa: E402
    DEFAULT_EDGES,
    DEFAULT_NODE_FEATURES,
    Graph,
    InputError,
    adjacency_lines,
    check_num_classes,
    check_representable,
    parse_graph,
)
from graph_sources import LabelledGraph, MissingExtra  # noqa: E402

MIN_TENSORRT = (10, 3)  # IPluginV3OneBuildV2.get_aliased_input + PreviewFeature.ALIASED_PLUGIN_IO_10_03
MIN_POLYGRAPHY = (0, 50, 3)  # TensorRT 11 support; CreateConfig(progress_monitor=...); logging hand-off
MIN_CUDA_PYTHON = (12, 6)  # the cuda.bindings namespace
INSTALL = "python3 -m pip install -r requirements.txt"
ADJACENCY_MAX_NODES = 16  # larger graphs get a degree summary instead of an N x N matrix

log = logging.getLogger("aliased_io_plugin")


class EnvironmentProblem(RuntimeError):
    """A missing package or GPU; carries the exit code and a one-line message."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line on stderr (exit 2), without the usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Show real defaults (not None/False), and keep the epilog's example lines as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)


EPILOG = """examples:
  python3 aliased_io_plugin.py --precision fp16 --validate
  python3 aliased_io_plugin.py --node_features '[[1,2],[3,4],[5,6]]' --edges '[[0,1],[2,1]]' --validate
  python3 aliased_io_plugin.py --graph karate --validate
  python3 aliased_io_plugin.py --synthetic 200000 4000000 16 --degrees powerlaw --precision fp16
  python3 aliased_io_plugin.py --graph karate --engine karate.plan --iterations 200 --cuda-graph
exit status: 0 ok, 1 validation failed, 2 bad input, 3 missing/old package, 4 no CUDA GPU,
  5 TensorRT failed (build, deserialize or execute; -v shows why), 6 kernel compile/load failed"""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, formatter_class=_HelpFormatter, epilog=EPILOG,
                     description="Run a tiny GNN whose scatter-add is an in-place (aliased I/O) TensorRT plugin.")
    parser.add_argument("--precision", default="fp32", choices=precisions.NAMES, help="type of X, features, weights")
    parser.add_argument("--node_features", help=f"list of numbers (F = 1) or of equal-length lists (F > 1), one per "
                        f"node (default {DEFAULT_NODE_FEATURES})")
    parser.add_argument("--edges", help=f"list of [source, target] pairs, 0-based node ids (default {DEFAULT_EDGES})")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--graph", choices=graph_sources.BUILTIN_GRAPHS,
                        help="a built-in real graph, both edge directions: karate (ships here), les-miserables, "
                             "florentine (ship with networkx, an optional extra)")
    source.add_argument("--edge-file", metavar="PATH",
                        help="edge list: .npy of shape [E, 2], or CSV / TSV / whitespace text, '#' comments")
    source.add_argument("--synthetic", nargs=3, type=int, metavar=("N", "E", "F"),
                        help="a seeded random graph with N nodes, E edges, F features")
    parser.add_argument("--feature-file", metavar="PATH", help="node features for --edge-file: .npy of shape [N] or [N, F]")
    parser.add_argument("--degrees", default="uniform", choices=graph_sources.DEGREE_MODELS,
                        help="in-degree model of --synthetic (powerlaw: a few very hot nodes)")
    parser.add_argument("--num-features", type=int, default=4, metavar="F",
                        help="features per node (seeded random) for --graph, and --edge-file without --feature-file")
    parser.add_argument("--num_classes", type=int, default=3, help="number of classes of the classifier")
    parser.add_argument("--max-nodes", type=int, metavar="N",
                        help="largest N the engine's optimization profile accepts (default: next power of two >= N)")
    parser.add_argument("--max-edges", type=int, metavar="E",
                        help="largest E the engine's optimization profile accepts (default: next power of two >= E)")
    parser.add_argument("--engine", metavar="PATH",
                        help="load the engine from PATH if it fits this run, else build it and save it there")
    parser.add_argument("--iterations", type=int, default=0, metavar="N",
                        help="also time N steady-state inferences (CUDA events, after warm-up)")
    parser.add_argument("--cuda-graph", action="store_true", help="with --iterations: also time a CUDA graph replay")
    parser.add_argument("--no-alias", action="store_true",
                        help="plugin output 0 is a separate buffer (the plugin copies X first): to measure what aliasing saves")
    parser.add_argument("--validate", action="store_true", help="compare with a NumPy float64 reference; exit 1 on mismatch")
    parser.add_argument("--seed", type=int, help="seed for the class weights (printed when not given)")
    parser.add_argument("--draw-graph", metavar="PNG", help="also draw the input graph to this PNG (needs networkx, matplotlib)")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more logging: -v TensorRT's and Polygraphy's messages, -vv TensorRT VERBOSE")
    return parser


# -- what the machine has ------------------------------------------------------------------

def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def load_tensorrt() -> Any:
    """Import TensorRT and check its version; raises :class:`EnvironmentProblem` (exit 3)."""
    missing = EnvironmentProblem(f"TensorRT is not installed: {INSTALL} (README: Quick start)", EXIT_MISSING_PACKAGE)
    try:
        import tensorrt as trt_module
    except ImportError:
        raise missing from None
    version = getattr(trt_module, "__version__", None)
    if version is None:  # a `tensorrt` namespace package without the library, e.g. tensorrt-stubs alone
        raise missing
    if _version(version) < MIN_TENSORRT or not hasattr(trt_module.PreviewFeature, "ALIASED_PLUGIN_IO_10_03"):
        raise EnvironmentProblem(f"TensorRT {version} is too old: aliased plugin I/O needs >= 10.3", EXIT_MISSING_PACKAGE)
    return trt_module


def check_polygraphy() -> None:
    try:
        import polygraphy
    except ImportError:
        raise EnvironmentProblem(f"Polygraphy is not installed: {INSTALL}", EXIT_MISSING_PACKAGE) from None
    if _version(polygraphy.__version__) < MIN_POLYGRAPHY:
        raise EnvironmentProblem(f"Polygraphy {polygraphy.__version__} is too old: pip install 'polygraphy>=0.50.3'",
                                 EXIT_MISSING_PACKAGE)


def check_cuda_packages() -> None:
    """CuPy and cuda-python, which the GPU check and the kernel need."""
    try:
        import cupy  # noqa: F401
    except ImportError:
        raise EnvironmentProblem(f"CuPy is not installed: {INSTALL} (cupy-cuda13x, or cupy-cuda12x on CUDA 12)",
                                 EXIT_MISSING_PACKAGE) from None
    try:
        import cuda.bindings
    except ImportError:
        raise EnvironmentProblem(f"cuda-python is not installed: {INSTALL}", EXIT_MISSING_PACKAGE) from None
    if _version(cuda.bindings.__version__) < MIN_CUDA_PYTHON:
        raise EnvironmentProblem(f"cuda-python {cuda.bindings.__version__} is too old: need >= 12.6", EXIT_MISSING_PACKAGE)


@dataclass(frozen=True)
class Gpu:
    name: str
    compute_capability: tuple[int, int]


def check_gpu() -> Gpu:
    """CUDA device 0; raises :class:`EnvironmentProblem` (exit 4) when there is none."""
    import cupy as cp

    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise EnvironmentProblem("no CUDA GPU found", EXIT_NO_GPU)
        props = cp.cuda.runtime.getDeviceProperties(0)
    except cp.cuda.runtime.CUDARuntimeError as error:
        raise EnvironmentProblem(f"no usable CUDA GPU ({error})", EXIT_NO_GPU) from None
    name = props["name"]
    return Gpu(name.decode() if isinstance(name, bytes) else str(name), (int(props["major"]), int(props["minor"])))


def check_precision_supported(precision: str, gpu: Gpu) -> None:
    """TensorRT has no bf16 before Ampere: refuse before building rather than fail inside it."""
    reason = precisions.unsupported_reason(precision, gpu.compute_capability)
    if reason is not None:
        raise InputError(f"--precision {precision}: {reason} ({gpu.name}); use fp16 or fp32")


def prepare_kernel(precision: str) -> str:
    """Compile (or load from the disk cache) the plugin's kernel now, before any TensorRT work."""
    import scatter_add_kernel

    try:
        return scatter_add_kernel.prepare(precision, "int32").describe()
    except scatter_add_kernel.HeadersNotFound as missing:
        raise EnvironmentProblem(str(missing), EXIT_MISSING_PACKAGE) from None
    except scatter_add_kernel.KernelError as error:
        first, *log_lines = str(error).splitlines() or [""]
        for line in log_lines:
            log.info("%s", line)
        compiler_error = next((line.strip() for line in log_lines if ": error" in line), "")
        raise EnvironmentProblem(
            f"the scatter-add kernel could not be compiled or loaded: {first.rstrip(':')}"
            f"{': ' + compiler_error if compiler_error else ''} (a GPU newer than NVRTC needs "
            f"'pip install -U nvidia-cuda-nvrtc'; -v shows the whole log)", EXIT_KERNEL) from None


# -- the run ----------------------------------------------------------------------------------

def run_engine(engine: Any, inputs: RunInputs, precision: str, iterations: int,
               cuda_graph: bool) -> tuple[RunResult, list[str]]:
    """The validated first run, then the optional timing: one execution context, one stream."""
    import cupy as cp

    import engine_runner

    try:
        stream = cp.cuda.Stream(non_blocking=True)
        runner = engine_runner.EngineRunner(engine, engine_runner.upload(inputs, precision, stream), stream)
        result = runner.run_once()
        timing = engine_runner.time_engine(runner, iterations, cuda_graph).lines() if iterations else []
    except cp.cuda.runtime.CUDARuntimeError as error:  # a fault inside the engine surfaces at the next sync
        raise TensorRTFailure("execute", f"CUDA error {error}") from None
    return result, timing


def print_graph(graph: Graph) -> None:
    print(f"Graph: {graph.num_nodes} nodes, {graph.num_edges} edges, {graph.num_features} feature(s) per node")
    if graph.num_nodes > ADJACENCY_MAX_NODES:
        degree = np.bincount(graph.edges[:, 1], minlength=graph.num_nodes)
        print(f"In-degree: min {degree.min()}, mean {degree.mean():.2f}, max {degree.max()} "
              f"(node {int(degree.argmax())}); {int((degree == 0).sum())} node(s) without incoming edges")
        return
    print("Adjacency matrix (row = source, column = target, value = number of edges):")
    for line in adjacency_lines(graph):
        print("  " + line)


def print_probs(probs: np.ndarray) -> None:
    print(f"Class probabilities [classes x nodes] = {probs.shape[0]} x {probs.shape[1]}:")
    with np.printoptions(precision=4, suppress=True, linewidth=120):
        print(probs)


def draw(graph: Graph, path: str) -> None:
    try:
        from graph_picture import draw_graph
    except ImportError:
        raise EnvironmentProblem("--draw-graph needs networkx and matplotlib: pip install -r requirements-extras.txt",
                                 EXIT_MISSING_PACKAGE) from None
    draw_graph(graph, path)
    print(f"Drew the input graph to {path}")


def configure_logging(verbosity: int) -> None:
    """Python logging on stderr; Polygraphy (and through it TensorRT's logger) routed into it.

    At the default verbosity TensorRT and Polygraphy stay silent: a failure is reported as the
    driver's one line, which points at -v for their own messages.
    """
    level = logging.WARNING if verbosity == 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        from polygraphy.logger import G_LOGGER
    except ImportError:
        return
    if hasattr(G_LOGGER, "use_python_logging_system"):  # else Polygraphy prints to stdout
        G_LOGGER.use_python_logging_system = True
        logging.getLogger("Polygraphy").setLevel(1)
    G_LOGGER.module_severity = {0: G_LOGGER.CRITICAL + 1, 1: G_LOGGER.INFO}.get(verbosity, G_LOGGER.EXTRA_VERBOSE)


def select_graph(args: argparse.Namespace, seed: int) -> LabelledGraph:
    """The graph the flags name; the literal flags are the default source."""
    literal = args.node_features is not None or args.edges is not None
    chosen = [flag for flag, value in (("--graph", args.graph), ("--edge-file", args.edge_file),
                                       ("--synthetic", args.synthetic)) if value is not None]
    if literal and chosen:
        raise InputError(f"{chosen[0]}: cannot be combined with --node_features / --edges")
    if args.feature_file is not None and args.edge_file is None:
        raise InputError("--feature-file: only with --edge-file")
    if args.num_features < 1:
        raise InputError(f"--num-features: must be a positive integer, got {args.num_features}")
    if args.graph == "karate":
        return graph_sources.karate_club(args.num_features, seed)
    if args.graph is not None:
        return graph_sources.networkx_graph(args.graph, args.num_features, seed)
    if args.edge_file is not None:
        return graph_sources.graph_from_files(args.edge_file, args.feature_file, args.num_features, seed)
    if args.synthetic is not None:
        n, e, f = args.synthetic
        return graph_sources.synthetic_graph(n, e, f, args.degrees, seed)
    return LabelledGraph(parse_graph(args.node_features or DEFAULT_NODE_FEATURES, args.edges or DEFAULT_EDGES))


def check_run_flags(args: argparse.Namespace) -> None:
    check_num_classes(args.num_classes)
    if args.iterations < 0:
        raise InputError(f"--iterations: must be 0 or more, got {args.iterations}")
    if args.cuda_graph and args.iterations < 1:
        raise InputError("--cuda-graph: needs --iterations N (N >= 1)")


def prepare_environment(precision: str) -> tuple[Any, Gpu]:
    """Everything that needs no TensorRT first (packages, GPU, precision, kernel), then TensorRT."""
    check_cuda_packages()
    gpu = check_gpu()
    check_precision_supported(precision, gpu)
    print(prepare_kernel(precision))
    trt_module = load_tensorrt()
    check_polygraphy()
    print(f"TensorRT {trt_module.__version__} on {gpu.name}, precision {precision}")
    return trt_module, gpu


def run(args: argparse.Namespace) -> int:
    """Everything after argument parsing; raises InputError / EnvironmentProblem / TensorRTFailure."""
    check_run_flags(args)
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    try:
        source = select_graph(args, seed)
    except MissingExtra as missing:
        raise EnvironmentProblem(str(missing), EXIT_MISSING_PACKAGE) from None
    graph = source.graph
    bounds = choose_bounds(graph.num_nodes, graph.num_edges, args.max_nodes, args.max_edges)
    check_representable(graph, args.precision)
    if args.draw_graph:
        draw(graph, args.draw_graph)
    print(f"Setting seed to: {seed}")
    print_graph(graph)
    inputs = make_run_inputs(graph, args.num_classes, args.precision, seed)

    trt_module, gpu = prepare_environment(args.precision)
    import gnn_engine  # needs tensorrt: imported only once it is known to be there

    spec = EngineSpec(
        tensorrt=trt_module.__version__, gpu=gpu.name, compute_capability="".join(map(str, gpu.compute_capability)),
        precision=args.precision, num_features=graph.num_features, num_classes=args.num_classes,
        max_nodes=bounds.max_nodes, max_edges=bounds.max_edges, aliased=not args.no_alias,
        plugin=f"{gnn_engine.scatter_add_plugin.PLUGIN_NAME} {gnn_engine.scatter_add_plugin.PLUGIN_VERSION}")
    exact = args.max_nodes is not None or args.max_edges is not None
    engine = gnn_engine.obtain_engine(args.engine, inputs, spec, exact)
    result, timing = run_engine(engine, inputs, args.precision, args.iterations, args.cuda_graph)
    print(f"Inference time: {result.inference_ms:.3f} ms (first run, CUDA events; includes the plugin's Python enqueue)")
    print_probs(result.probs)
    if source.labels is not None:
        print("Predicted class (argmax over classes) and the real faction of each node:")
        print("\n".join(graph_sources.predicted_vs_true(result.probs, source.labels, source.label_names)))
    print(f"In place: {describe_in_place(result.x_changed_in_place, aliased=not args.no_alias)}")
    if timing:
        print("\n".join(timing))
    if args.validate:
        passed, lines = validate(result, inputs, graph, args.precision)
        print("\n".join(lines))
        return EXIT_OK if passed else EXIT_MISMATCH
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    try:
        return run(args)
    except InputError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except EnvironmentProblem as problem:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
        return problem.exit_code
    except TensorRTFailure as failure:
        hint = "" if args.verbose else " (run again with -v for TensorRT's own messages)"
        print(f"{PROG}: error: {failure}{hint}", file=sys.stderr)
        return EXIT_TENSORRT


if __name__ == "__main__":
    sys.exit(main())
