#!/usr/bin/env python3
"""A one-layer graph neural network whose aggregation is an in-place TensorRT plugin.

The plugin (``scatter_add_plugin.py``) adds each edge's source features into its target's row
of ``X`` *in place*: its output 0 is aliased to its input 0. The network then divides by the
in-degree, multiplies by class weights, and applies ReLU and SoftMax:

    X[t] += features[s] for every edge s -> t          (plugin, in place; counts = in-degree)
    means  = X / max(counts, 1)                         (Cast, ElementWise MAX and DIV)
    probs  = softmax_over_classes(relu(W @ means^T))    (MatMul, ReLU, SoftMax)

Exit status: 0 success (and validation passed), 1 validation failed, 2 bad input,
3 a required package is missing or too old, 4 no usable CUDA GPU.
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

import gnn_reference as ref
import graph_sources
from engine_spec import Bounds, EngineSpec, choose_bounds, read_sidecar, stale_reason, write_sidecar
from graph_inputs import (
    DEFAULT_EDGES,
    DEFAULT_NODE_FEATURES,
    Graph,
    InputError,
    adjacency_lines,
    check_num_classes,
    check_representable,
    parse_graph,
)
from graph_sources import LabelledGraph, MissingExtra

if TYPE_CHECKING:
    import tensorrt as trt

EXIT_OK, EXIT_MISMATCH, EXIT_BAD_INPUT, EXIT_MISSING_PACKAGE, EXIT_NO_GPU = 0, 1, 2, 3, 4
MIN_TENSORRT = (10, 3)  # IPluginV3OneBuildV2.get_aliased_input + PreviewFeature.ALIASED_PLUGIN_IO_10_03
MIN_POLYGRAPHY_FOR_TRT11 = (0, 50, 3)  # older versions read ILayer.precision_is_set, gone in TRT 11
MIN_CUDA_PYTHON = (12, 6)  # the cuda.bindings namespace
# trt.Weights points into this array without owning it; a module constant outlives every build.
_ONE = np.ones((1, 1), dtype=np.float32)

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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="aliased_io_plugin.py",
        description="Run a tiny GNN whose scatter-add is an in-place (aliased I/O) TensorRT plugin.",
        formatter_class=_HelpFormatter,
        epilog=(
            "examples:\n"
            "  python3 aliased_io_plugin.py --precision fp16 --validate\n"
            "  python3 aliased_io_plugin.py --node_features '[[1,2],[3,4],[5,6]]' --edges '[[0,1],[2,1]]' --validate\n"
            "  python3 aliased_io_plugin.py --draw-graph my_graph.png --seed 7\n"
            "  python3 aliased_io_plugin.py --graph karate --validate\n"
            "  python3 aliased_io_plugin.py --edge-file edges.csv --feature-file features.npy --validate\n"
            "  python3 aliased_io_plugin.py --synthetic 200000 4000000 16 --degrees powerlaw --precision fp16\n"
            "  python3 aliased_io_plugin.py --graph karate --engine karate.plan --iterations 200 --cuda-graph\n"
            "exit status: 0 ok, 1 validation failed, 2 bad input, 3 missing/old package, 4 no CUDA GPU"
        ),
    )
    parser.add_argument("--precision", default="fp32", choices=ref.PRECISIONS, help="type of X, features, weights")
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
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging; -vv for TensorRT VERBOSE")
    return parser


@dataclass(frozen=True)
class RunInputs:
    """What the engine is fed, already rounded to the run's precision (as float64)."""

    x: np.ndarray  # [N, F]
    src: np.ndarray  # [E, F] = features[edge sources]
    idx: np.ndarray  # [E] int32 = edge targets
    weights: np.ndarray  # [C, F]
    features: np.ndarray  # [N, F]


def make_run_inputs(graph: Graph, num_classes: int, precision: str, seed: int) -> RunInputs:
    """Round features and random weights to ``precision`` so engine and reference see the same values."""
    rng = np.random.default_rng(seed)
    features = ref.round_to(graph.features, precision)
    weights = ref.round_to(rng.standard_normal((num_classes, graph.num_features)), precision)
    # Edges sorted by target, once, on the host: the kernel's fast, deterministic path for sorted
    # input (README, "Performance"). Any order gives the same sums; a static graph pays this once.
    edges = graph.edges[np.argsort(graph.edges[:, 1], kind="stable")]
    return RunInputs(
        x=np.zeros_like(features),
        src=np.ascontiguousarray(features[edges[:, 0]]),
        idx=np.ascontiguousarray(edges[:, 1], dtype=np.int32),
        weights=weights,
        features=features,
    )


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def load_tensorrt() -> Any:
    """Import TensorRT and check its version; raises :class:`EnvironmentProblem` (exit 3)."""
    missing = EnvironmentProblem("TensorRT is not installed: pip install 'tensorrt>=10.3' (see README)", EXIT_MISSING_PACKAGE)
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


def check_packages(trt_version: str) -> None:
    """Polygraphy, CuPy and cuda-python at versions that work with this TensorRT."""
    try:
        import polygraphy
    except ImportError:
        raise EnvironmentProblem("Polygraphy is not installed: pip install 'polygraphy>=0.50.3'", EXIT_MISSING_PACKAGE) from None
    if _version(trt_version)[0] >= 11 and _version(polygraphy.__version__) < MIN_POLYGRAPHY_FOR_TRT11:
        raise EnvironmentProblem(
            f"Polygraphy {polygraphy.__version__} cannot build with TensorRT {trt_version}: pip install 'polygraphy>=0.50.3'",
            EXIT_MISSING_PACKAGE,
        )
    try:
        import cupy  # noqa: F401
    except ImportError:
        raise EnvironmentProblem("CuPy is not installed: pip install cupy-cuda13x (or cupy-cuda12x)", EXIT_MISSING_PACKAGE) from None
    try:
        import cuda.bindings
    except ImportError:
        raise EnvironmentProblem("cuda-python is not installed: pip install 'cuda-python>=12.6'", EXIT_MISSING_PACKAGE) from None
    if _version(cuda.bindings.__version__) < MIN_CUDA_PYTHON:
        raise EnvironmentProblem(f"cuda-python {cuda.bindings.__version__} is too old: need >= 12.6", EXIT_MISSING_PACKAGE)


def check_gpu() -> str:
    """Name of CUDA device 0; raises :class:`EnvironmentProblem` (exit 4) when there is none."""
    import cupy as cp

    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise EnvironmentProblem("no CUDA GPU found", EXIT_NO_GPU)
        name = cp.cuda.runtime.getDeviceProperties(0)["name"]
    except cp.cuda.runtime.CUDARuntimeError as error:
        raise EnvironmentProblem(f"no usable CUDA GPU ({error})", EXIT_NO_GPU) from None
    return name.decode() if isinstance(name, bytes) else str(name)


def trt_dtype(trt_module: Any, precision: str) -> trt.DataType:
    return {"fp32": trt_module.float32, "fp16": trt_module.float16, "bf16": trt_module.bfloat16}[precision]


def build_network(network: trt.INetworkDefinition, num_features: int, num_classes: int, precision: str,
                  aliased: bool = True) -> None:
    """plugin -> cast counts -> clamp >= 1 -> DIV -> MatMul(W, means^T) -> ReLU -> SoftMax(classes).

    N and E are dynamic (-1, bounded by the optimization profile); F and C are fixed. Outputs
    ``means [N, F]`` and ``probs [C, N]``, cast to float32 so that every precision returns
    NumPy-readable values (the widening cast is exact).
    """
    import tensorrt as trt

    from scatter_add_plugin import ScatterAddPlugin

    dt = trt_dtype(trt, precision)
    x = network.add_input("X", dt, trt.Dims([-1, num_features]))
    src = network.add_input("src", dt, trt.Dims([-1, num_features]))
    idx = network.add_input("idx", trt.int32, trt.Dims([-1]))
    weights = network.add_input("W", dt, trt.Dims([num_classes, num_features]))

    plugin = network.add_plugin_v3([x, src, idx], [], ScatterAddPlugin(aliased))
    counts = network.add_cast(plugin.get_output(1), dt).get_output(0)
    one_f32 = network.add_constant(trt.Dims([1, 1]), trt.Weights(_ONE)).get_output(0)
    one = network.add_cast(one_f32, dt).get_output(0)
    # A node with no incoming edge keeps its X: divide by max(count, 1), never by 0.
    degree = network.add_elementwise(counts, one, trt.ElementWiseOperation.MAX).get_output(0)
    # DIV, not FLOOR_DIV: a mean is not an integer (NVIDIA's sample floors it).
    means = network.add_elementwise(plugin.get_output(0), degree, trt.ElementWiseOperation.DIV).get_output(0)
    logits = network.add_matrix_multiply(weights, trt.MatrixOperation.NONE, means, trt.MatrixOperation.TRANSPOSE)
    relu = network.add_activation(logits.get_output(0), trt.ActivationType.RELU)
    softmax = network.add_softmax(relu.get_output(0))
    softmax.axes = 1 << 0  # over classes (axis 0 of [C, N]); explicit rather than the default rule

    for name, tensor in (("means", means), ("probs", softmax.get_output(0))):
        output = network.add_cast(tensor, trt.float32).get_output(0)
        output.name = name
        network.mark_output(output)


def profile_shapes(inputs: RunInputs, bounds: Bounds) -> dict[str, tuple[tuple[int, ...], ...]]:
    """(min, opt, max) of every input: N and E from 1 to the bounds, optimized for this graph."""
    (n, f), e, c = inputs.x.shape, inputs.idx.shape[0], inputs.weights.shape[0]
    return {
        "X": ((1, f), (n, f), (bounds.max_nodes, f)),
        "src": ((1, f), (e, f), (bounds.max_edges, f)),
        "idx": ((1,), (e,), (bounds.max_edges,)),
        "W": ((c, f), (c, f), (c, f)),
    }


def build_engine(inputs: RunInputs, precision: str, bounds: Bounds | None = None, aliased: bool = True) -> Any:
    """Strongly typed network + aliasing preview feature + one profile, built with Polygraphy."""
    import tensorrt as trt
    from polygraphy.backend.trt import CreateConfig, Profile, create_network, engine_from_network

    import scatter_add_plugin

    n, e = inputs.x.shape[0], inputs.idx.shape[0]
    bounds = bounds or Bounds(n, e)
    scatter_add_plugin.register()  # before engine_from_network deserializes the engine
    builder, network = create_network(strongly_typed=True)
    build_network(network, inputs.x.shape[1], inputs.weights.shape[0], precision, aliased)
    profile = Profile()
    for name, (low, opt, high) in profile_shapes(inputs, bounds).items():
        profile.add(name, min=low, opt=opt, max=high)
    config = CreateConfig(profiles=[profile], preview_features=[trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03])
    return engine_from_network((builder, network), config=config)


def engine_spec(trt_module: Any, gpu: str, inputs: RunInputs, precision: str, bounds: Bounds,
                aliased: bool) -> EngineSpec:
    """What this run needs of an engine (see engine_spec.py); ``gpu`` is :func:`check_gpu`'s name."""
    import cupy as cp

    import scatter_add_plugin

    device = cp.cuda.Device()
    return EngineSpec(
        tensorrt=trt_module.__version__, gpu=gpu, compute_capability=str(device.compute_capability),
        precision=precision, num_features=int(inputs.x.shape[1]), num_classes=int(inputs.weights.shape[0]),
        max_nodes=bounds.max_nodes, max_edges=bounds.max_edges, aliased=aliased,
        plugin=f"{scatter_add_plugin.PLUGIN_NAME} {scatter_add_plugin.PLUGIN_VERSION}",
    )


def load_engine(path: str) -> Any | None:
    """Deserialize a saved engine (creator registered first); None if TensorRT refuses it."""
    import tensorrt as trt

    import scatter_add_plugin

    scatter_add_plugin.register()  # Python plugins are not in the engine: the creator must exist
    runtime = trt.Runtime(trt.Logger(trt.Logger.ERROR))
    with open(path, "rb") as file:
        return runtime.deserialize_cuda_engine(file.read())


def obtain_engine(path: str | None, inputs: RunInputs, spec: EngineSpec, exact_bounds: bool) -> Any:
    """Reuse the engine at ``path`` when it fits this run; otherwise build (and save) one."""
    n, e = inputs.x.shape[0], inputs.idx.shape[0]
    if path is not None and os.path.isfile(path):
        saved = read_sidecar(path)
        reason = stale_reason(saved, spec, n, e, exact_bounds)
        engine = load_engine(path) if saved is not None and reason is None else None
        if saved is not None and engine is not None:
            print(f"Loaded engine {path} (profile up to {saved.max_nodes} nodes, {saved.max_edges} edges)")
            return engine
        print(f"Rebuilding engine {path}: {reason or 'TensorRT could not deserialize it'}")
    print(f"Building engine: N up to {spec.max_nodes}, E up to {spec.max_edges}, F {spec.num_features}, "
          f"{spec.precision}, aliasing {'on' if spec.aliased else 'off'} ...", flush=True)
    start = time.perf_counter()
    engine = build_engine(inputs, spec.precision, spec.bounds, spec.aliased)
    print(f"Engine build time: {time.perf_counter() - start:.2f} s")
    if path is not None:
        with open(path, "wb") as file:
            file.write(engine.serialize())
        write_sidecar(path, spec)
        print(f"Saved engine to {path} (and its description to {path}.json)")
    return engine


@dataclass(frozen=True)
class RunResult:
    means: np.ndarray
    probs: np.ndarray
    x_changed_in_place: bool | None  # None: cannot tell (all sums are zero)
    inference_ms: float


def upload(inputs: RunInputs, precision: str) -> dict[str, Any]:
    """The engine's inputs as CuPy device arrays in the run's precision (bf16 as uint16 bits)."""
    import cupy as cp

    stored = {
        "X": ref.to_storage(inputs.x, precision),
        "src": ref.to_storage(inputs.src, precision),
        "idx": inputs.idx,
        "W": ref.to_storage(inputs.weights, precision),
    }
    device = {name: cp.asarray(array) for name, array in stored.items()}
    cp.cuda.get_current_stream().synchronize()  # uploads finished before TensorRT's stream reads them
    return device


def run_engine(engine: Any, inputs: RunInputs, precision: str) -> RunResult:
    """Run once from device buffers we own, and report whether TensorRT wrote into our X."""
    import cupy as cp
    from polygraphy.backend.trt import TrtRunner
    from polygraphy.cuda import DeviceView
    from polygraphy.datatype import DataType

    dtype = {"fp32": DataType.FLOAT32, "fp16": DataType.FLOAT16, "bf16": DataType.BFLOAT16}[precision]
    device = upload(inputs, precision)
    feed = {
        name: DeviceView(array.data.ptr, array.shape, DataType.INT32 if name == "idx" else dtype)
        for name, array in device.items()
    }
    with TrtRunner(engine) as runner:  # sets the input shapes from the feed: N and E are dynamic
        outputs = runner.infer(feed, copy_outputs_to_host=True)
        inference_ms = (runner.last_inference_time() or 0.0) * 1e3
    # X starts at zero, so any in-place write by the plugin shows unless every sum is zero too.
    changed: bool | None = None if not inputs.src.any() else bool(cp.asnumpy(device["X"]).view(np.uint8).any())
    return RunResult(np.asarray(outputs["means"]), np.asarray(outputs["probs"]), changed, inference_ms)


def validate(result: RunResult, inputs: RunInputs, graph: Graph, precision: str) -> bool:
    """Compare means and probabilities with the float64 reference; print errors and tolerance."""
    means, probs = ref.gnn_reference(inputs.x, inputs.features, graph.edges, inputs.weights)
    tolerance = ref.TOLERANCES[precision]
    passed = True
    for name, actual, expected in (("means", result.means, means), ("probs", result.probs, probs)):
        check = ref.compare(actual, expected, tolerance)
        passed &= check.passed
        print(f"  {name}: max abs error {check.max_abs_error:.3e} "
              f"(tolerance atol={tolerance.atol:g} + rtol={tolerance.rtol:g}*|ref|) "
              f"{'ok' if check.passed else f'MISMATCH at {check.worst_index}'}")
    print(f"Validation against the NumPy float64 reference {'PASSED' if passed else 'FAILED'} ({precision})")
    return passed


def describe_in_place(changed: bool | None, aliased: bool = True) -> str:
    """What TensorRT did with the network input X that feeds the aliased plugin input."""
    if not aliased:
        return "aliasing is off (--no-alias): the plugin copied X into a separate output first"
    if changed is None:
        return "cannot tell whether TensorRT wrote into our X buffer (every sum is zero)"
    if changed:
        return "TensorRT ran the plugin directly on our X buffer: it now holds X + the per-node sums"
    return "TensorRT left our X buffer unchanged (the plugin updated a copy TensorRT made)"


ADJACENCY_MAX_NODES = 16  # larger graphs get a degree summary instead of an N x N matrix


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
    level = logging.WARNING if verbosity == 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:  # Polygraphy routes TensorRT's logger through G_LOGGER
        from polygraphy.logger import G_LOGGER

        G_LOGGER.module_severity = {0: G_LOGGER.WARNING, 1: G_LOGGER.INFO}.get(verbosity, G_LOGGER.VERBOSE)
    except ImportError:
        pass


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


def run(args: argparse.Namespace) -> int:
    """Everything after argument parsing; raises InputError / EnvironmentProblem for the caller."""
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

    trt_module = load_tensorrt()
    check_packages(trt_module.__version__)
    gpu = check_gpu()
    print(f"TensorRT {trt_module.__version__} on {gpu}, precision {args.precision}")

    spec = engine_spec(trt_module, gpu, inputs, args.precision, bounds, aliased=not args.no_alias)
    exact = args.max_nodes is not None or args.max_edges is not None
    engine = obtain_engine(args.engine, inputs, spec, exact)
    result = run_engine(engine, inputs, args.precision)
    print(f"Inference time: {result.inference_ms:.3f} ms (first run, includes plugin launch from Python)")
    print_probs(result.probs)
    if source.labels is not None:
        print("Predicted class (argmax over classes) and the real faction of each node:")
        print("\n".join(graph_sources.predicted_vs_true(result.probs, source.labels, source.label_names)))
    print(f"In place: {describe_in_place(result.x_changed_in_place, aliased=not args.no_alias)}")
    if args.iterations:
        from engine_timing import time_engine

        timing = time_engine(engine, upload(inputs, args.precision), args.iterations, args.cuda_graph)
        print("\n".join(timing.lines()))
    if args.validate and not validate(result, inputs, graph, args.precision):
        return EXIT_MISMATCH
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    try:
        return run(args)
    except InputError as error:
        print(f"aliased_io_plugin.py: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except EnvironmentProblem as problem:
        print(f"aliased_io_plugin.py: error: {problem}", file=sys.stderr)
        return problem.exit_code


if __name__ == "__main__":
    sys.exit(main())
