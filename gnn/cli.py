"""The command line's plumbing for ``aliased_io_plugin.py``: flags, environment checks, exit
codes and printing. The story (inputs, network, build, run, validate) is in that file.

Every failure becomes one line on stderr and an :class:`Exit` code (``--help`` lists them from
``EXIT_MEANINGS``, docs/usage.md's table starts with the same texts). The checks run in the order
that fails fastest and cheapest: flags, NumPy and the inputs, the other packages of
requirements/base.txt (CuPy, cuda-python, Polygraphy), the GPU, the precision on that GPU, the
kernel, then TensorRT. What is missing is named all at once in one line (:data:`SEVERAL_MISSING`),
so that one round of installing fixes it.

This module imports no NumPy until a run needs it: ``--help`` and flag errors work with nothing
installed, and a missing NumPy is reported like any other missing package.
"""

from __future__ import annotations

import argparse
import ctypes
import enum
import errno
import importlib
import logging
import os
import secrets
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from gnn import memory_budget
from gnn.choices import (BUILTIN_GRAPHS, DEFAULT_EDGES, DEFAULT_NODE_FEATURES, DEGREE_MODELS, NETWORKX_GRAPHS,
                         PRECISION_NAMES)
from gnn.engine_spec import MIN_DEFAULT_BOUND, Bounds, EngineSpec, choose_bounds
from gnn.errors import InputError, TensorRTFailure, quote_path

if TYPE_CHECKING:
    import numpy as np

    from gnn.graph_inputs import Graph
    from gnn.graph_sources import LabelledGraph
    from gnn.model import RunInputs, RunResult
    from gnn.trt_network import Aggregation


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

MIN_TENSORRT = (10, 3)  # IPluginV3OneBuildV2.get_aliased_input + PreviewFeature.ALIASED_PLUGIN_IO_10_03
MIN_TENSORRT_AOT = (10, 9)  # tensorrt.plugin.aot_impl (QuickPluginCreationRequest in the bindings)
MIN_POLYGRAPHY = (0, 50, 3)  # TensorRT 11 support; CreateConfig(progress_monitor=...); logging hand-off
MIN_CUDA_PYTHON = (12, 6)  # the cuda.bindings namespace
# PyPI alone serves base.txt; TensorRT's libraries come only from NVIDIA's index or its container.
BASE_INSTALL = "python3 -m pip install -r requirements/base.txt"
TENSORRT_INSTALL = ("python3 -m pip install -r requirements.txt (from NVIDIA's index, pypi.nvidia.com), "
                    "or NVIDIA's TensorRT container (docs/install.md)")
EXTRAS = "requirements/extras.txt"
# What every run imports besides TensorRT (requirements/base.txt), and how each is called.
BASE_PACKAGES = (("numpy", "NumPy"), ("cupy", "CuPy"), ("cuda.bindings", "cuda-python"), ("polygraphy", "Polygraphy"))
DRIVER_LIBRARY = "libcuda.so.1"  # the NVIDIA driver's user-space library, the one CuPy loads
DRIVER_BRANCHES = {12: 525, 13: 580}  # the first Linux driver branch of each CUDA major version
ADJACENCY_MAX_NODES = 16  # larger graphs get a degree summary instead of an N x N matrix
MAX_DRAW_NODES = 300  # a picture of more nodes is unreadable and slow to lay out
MAX_FEATURES = MAX_CLASSES = 1 << 16
MAX_ITERATIONS = 1_000_000
MAX_SEED = (1 << 63) - 1

log = logging.getLogger("aliased_io_plugin")


class EnvironmentProblem(RuntimeError):
    """A missing package or GPU; carries the exit code and a one-line message."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def problems_of(*checks: Callable[[], object]) -> list[EnvironmentProblem]:
    """Run every check, collecting what each reports rather than stopping at the first."""
    found = []
    for check in checks:
        try:
            check()
        except EnvironmentProblem as problem:
            found.append(problem)
    return found


def all_at_once(problems: list[EnvironmentProblem]) -> EnvironmentProblem:
    """One problem naming them all (SEVERAL_MISSING), with the first one's exit code."""
    return EnvironmentProblem("; ".join(map(str, problems)), problems[0].exit_code)


def stop_if(problems: list[EnvironmentProblem]) -> None:
    if problems:
        raise all_at_once(problems)


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line on stderr (exit 2), without the usage dump."""

    def error(self, message: str) -> NoReturn:
        self.exit(Exit.BAD_INPUT, f"{self.prog}: error: {message}\n")


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Show real defaults (not None/False), and keep the epilog's example lines as written."""

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
    parser = _Parser(prog=PROG, formatter_class=_HelpFormatter, epilog=EPILOG,
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
    parser.add_argument("--feature-file", metavar="PATH", help="node features for --edge-file: .npy of shape [N] or [N, F]")
    parser.add_argument("--degrees", choices=DEGREE_MODELS,
                        help="in-degree model of --synthetic: uniform (default) or powerlaw (a few very hot nodes)")
    parser.add_argument("--num-features", type=int, metavar="F",
                        help="seeded random features per node (default 4) for --graph les-miserables/florentine "
                             "and --edge-file without --feature-file")
    parser.add_argument("--num-classes", type=int,
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
    parser.add_argument("--iterations", type=int, default=0, metavar="N",
                        help="also time N steady-state inferences (CUDA events, after warm-up)")
    parser.add_argument("--cuda-graph", action="store_true", help="with --iterations: also time a CUDA graph replay")
    parser.add_argument("--no-alias", action="store_true",
                        help="plugin output 0 is a separate buffer (the plugin copies X first): to measure what aliasing saves")
    parser.add_argument("--aot", action="store_true",
                        help="use the QDP route: the plugin's kernel is compiled ahead of time into the engine, which "
                             "is built to run without Python (trtexec, C++; not run by us: docs/aot_route.md); "
                             "needs TensorRT >= 10.9")
    parser.add_argument("--validate", action="store_true", help="compare with a NumPy float64 reference; exit 1 on mismatch")
    parser.add_argument("--seed", type=int, help="seeds the random class weights, random node features (--graph "
                        "les-miserables/florentine, --edge-file without --feature-file) and --synthetic graphs; "
                        "printed when not given")
    parser.add_argument("--draw-graph", metavar="PNG",
                        help=f"also draw the input graph to this PNG (needs networkx, matplotlib: {EXTRAS})")
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more logging: -v TensorRT's and Polygraphy's messages, -vv TensorRT VERBOSE")
    # NVIDIA's spellings, hidden: Python 3.13 prints aliases differently, and docs/usage.md is --help.
    parser.add_argument("--node_features", dest="node_features", help=argparse.SUPPRESS)
    parser.add_argument("--num_classes", dest="num_classes", type=int, help=argparse.SUPPRESS)
    return parser


# -- what the machine has ------------------------------------------------------------------

def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def load_tensorrt(aot: bool = False) -> Any:
    """Import TensorRT and check its version; raises :class:`EnvironmentProblem` (exit 3)."""
    missing = EnvironmentProblem(f"TensorRT is not installed: {TENSORRT_INSTALL}", Exit.MISSING_PACKAGE)
    try:
        import tensorrt as trt_module
    except ImportError:
        raise missing from None
    version = getattr(trt_module, "__version__", None)
    if version is None:  # a `tensorrt` namespace package without the library, e.g. tensorrt-stubs alone
        raise missing
    if _version(version) < MIN_TENSORRT or not hasattr(trt_module.PreviewFeature, "ALIASED_PLUGIN_IO_10_03"):
        raise EnvironmentProblem(f"TensorRT {version} is too old: aliased plugin I/O needs >= 10.3", Exit.MISSING_PACKAGE)
    if aot and (_version(version) < MIN_TENSORRT_AOT or not hasattr(trt_module, "QuickPluginCreationRequest")):
        raise EnvironmentProblem(f"TensorRT {version} is too old for --aot: ahead-of-time plugins need >= 10.9",
                                 Exit.MISSING_PACKAGE)
    return trt_module


def runtime_name(trt_module: Any) -> str:
    """"TensorRT 10.13.2", or the module's own name when a test loaded another runtime under
    the name `tensorrt` (tests/rtx_cli.py: TensorRT-RTX), so that no output calls it TensorRT."""
    name = getattr(trt_module, "__name__", "tensorrt")
    return f"TensorRT {trt_module.__version__}" if name == "tensorrt" else f"{name} {trt_module.__version__} (not TensorRT)"


def _cupy_cache_fallback() -> None:
    """CuPy creates ~/.cupy when it is imported; with a read-only home, give it a temporary one."""
    if "CUPY_CACHE_DIR" in os.environ:
        return
    try:
        os.makedirs(os.path.join(os.path.expanduser("~"), ".cupy"), exist_ok=True)
    except OSError:
        os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cupy-cache-")
        log.info("home directory not writable: CuPy's kernel cache is in %s", os.environ["CUPY_CACHE_DIR"])


def _installed(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        # CuPy cannot be imported without NumPy: that is NumPy's absence, named on its own.
        return error.name == "numpy" and module != "numpy"
    except ImportError:
        return False
    return True


def package_problems() -> list[EnvironmentProblem]:
    """requirements/base.txt's packages: those missing, named together, or those too old."""
    _cupy_cache_fallback()
    missing = [name for module, name in BASE_PACKAGES if not _installed(module)]
    if not missing:
        return problems_of(check_versions)
    return [EnvironmentProblem(f"{not_installed(missing)}: {BASE_INSTALL}", Exit.MISSING_PACKAGE)]


def not_installed(names: list[str]) -> str:
    """``"NumPy is not installed"``, ``"CuPy, cuda-python and Polygraphy are not installed"``."""
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{listed} {'is' if len(names) == 1 else 'are'} not installed"


def check_versions() -> None:
    import cuda.bindings
    import polygraphy

    if _version(cuda.bindings.__version__) < MIN_CUDA_PYTHON:
        raise EnvironmentProblem(f"cuda-python {cuda.bindings.__version__} is too old: need >= 12.6", Exit.MISSING_PACKAGE)
    if _version(polygraphy.__version__) < MIN_POLYGRAPHY:
        raise EnvironmentProblem(f"Polygraphy {polygraphy.__version__} is too old: pip install 'polygraphy>=0.50.3'",
                                 Exit.MISSING_PACKAGE)


def check_numpy_first(aot: bool) -> None:
    """The inputs need NumPy: without it, stop before them, naming everything else missing too."""
    if not _installed("numpy"):
        stop_if(package_problems() + problems_of(check_driver, lambda: load_tensorrt(aot)))


@dataclass(frozen=True)
class Driver:
    """What the NVIDIA driver reports, read through ctypes: no CUDA package is needed, and CuPy's
    cudaErrorInsufficientDriver cannot tell a missing driver from an old one."""

    missing: str | None = None  # why the driver library could not be loaded
    version: int = 0  # cuDriverGetVersion: 13000 is CUDA 13.0
    init_error: str | None = None  # the name of cuInit's (or cuDeviceGetCount's) error
    devices: int = 0
    visible_devices: str | None = None  # CUDA_VISIBLE_DEVICES, which can hide every device


def probe_driver() -> Driver:
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    try:
        libcuda = ctypes.CDLL(DRIVER_LIBRARY)
    except OSError as error:
        return Driver(missing=str(error), visible_devices=visible)
    version, count = ctypes.c_int(0), ctypes.c_int(0)
    libcuda.cuDriverGetVersion(ctypes.byref(version))  # needs no cuInit
    status = libcuda.cuInit(0)
    if status == 0:
        status = libcuda.cuDeviceGetCount(ctypes.byref(count))
    error = _cuda_error_name(libcuda, status) if status else None
    return Driver(version=version.value, init_error=error, devices=count.value, visible_devices=visible)


def _cuda_error_name(libcuda: ctypes.CDLL, status: int) -> str:
    name = ctypes.c_char_p()
    if libcuda.cuGetErrorName(status, ctypes.byref(name)) != 0 or not name.value:
        return f"CUresult {status}"
    return name.value.decode()


def driver_problem(driver: Driver, cuda_major: int | None) -> str | None:
    """The one-line cause when this driver cannot run CuPy's CUDA (``cuda_major``; None: unknown,
    CuPy is missing) on a GPU, else None. The most basic cause first: no driver, no device, then
    a driver too old."""
    branch = DRIVER_BRANCHES.get(cuda_major or 0)
    newer = f" (r{branch} or newer)" if branch else ""
    if driver.missing is not None:
        wanted = f" for CUDA {cuda_major}{newer}" if cuda_major else ""
        return f"no NVIDIA driver ({DRIVER_LIBRARY} cannot be loaded): the sample needs an NVIDIA GPU and its driver{wanted}"
    if driver.init_error not in (None, "CUDA_ERROR_NO_DEVICE"):
        return f"no usable CUDA GPU: the NVIDIA driver's cuInit failed with {driver.init_error}"
    if driver.devices < 1:
        hidden = f" (CUDA_VISIBLE_DEVICES is {driver.visible_devices!r})" if driver.visible_devices is not None else ""
        return f"no CUDA GPU found: the NVIDIA driver sees no device{hidden}"
    major, minor = divmod(driver.version, 1000)
    if cuda_major is not None and major < cuda_major:
        return (f"NVIDIA driver too old: it supports CUDA {major}.{minor // 10}, and CuPy here is built for "
                f"CUDA {cuda_major}: update the driver{newer}")
    return None


def cupy_cuda_major() -> int | None:
    """The CUDA major version CuPy was built for (its runtime is linked in), or None without CuPy."""
    try:
        import cupy
    except ImportError:
        return None
    return int(cupy.cuda.runtime.runtimeGetVersion()) // 1000


def check_driver() -> None:
    """An NVIDIA driver new enough for CuPy's CUDA, and a device it sees; else exit 4."""
    problem = driver_problem(probe_driver(), cupy_cuda_major())
    if problem is not None:
        raise EnvironmentProblem(problem, Exit.NO_GPU)


@dataclass(frozen=True)
class Gpu:
    name: str
    compute_capability: tuple[int, int]


def find_gpu() -> Gpu:
    """CUDA device 0, once the packages and the driver allow it; raises :class:`EnvironmentProblem`
    naming everything missing so far (exit 3 or 4)."""
    stop_if(package_problems() + problems_of(check_driver))
    return check_gpu()


def check_gpu() -> Gpu:
    """CUDA device 0 as CuPy sees it, once :func:`check_driver` has passed (else exit 4)."""
    import cupy as cp

    try:
        props = cp.cuda.runtime.getDeviceProperties(0)
    except cp.cuda.runtime.CUDARuntimeError as error:
        raise EnvironmentProblem(f"no usable CUDA GPU: the NVIDIA driver is loaded, but CuPy says {error}",
                                 Exit.NO_GPU) from None
    name = props["name"]
    return Gpu(name.decode() if isinstance(name, bytes) else str(name), (int(props["major"]), int(props["minor"])))


def check_precision_supported(precision: str, gpu: Gpu) -> None:
    """TensorRT has no bf16 before Ampere: refuse before building rather than fail inside it."""
    from gnn import precisions

    reason = precisions.unsupported_reason(precision, gpu.compute_capability)
    if reason is not None:
        raise InputError(f"--precision {precision}: {reason} ({gpu.name}); use fp16 or fp32")


def prepare_kernel(precision: str, aot: bool = False) -> str:
    """Compile (or load from the disk cache) the plugin's kernel now, before any TensorRT work;
    for --aot, the PTX that the engine will hold, loaded once here as TensorRT will load it."""
    from gnn import kernel_report
    from kernels import launcher
    from qdp import aot_kernel

    try:
        if aot:
            start = time.perf_counter()
            kernel = aot_kernel.load(precision, "int32")
            return (f"Kernel: PTX of {aot_kernel.kernel_name(precision, 'int32')} for the engine, compiled "
                    f"with NVRTC and loaded in {time.perf_counter() - start:.1f} s ({kernel.fit} blocks at most)")
        return kernel_report.prepare(precision, "int32")
    except kernel_report.HeadersNotFound as missing:
        raise EnvironmentProblem(str(missing), Exit.MISSING_PACKAGE) from None
    except aot_kernel.PtxTooNew as too_new:  # its own fix: an older NVRTC or a newer driver
        raise EnvironmentProblem(f"--aot: {too_new}", Exit.KERNEL) from None
    except launcher.KernelError as error:
        first, *log_lines = str(error).splitlines() or [""]
        for line in log_lines:
            log.info("%s", line)
        compiler_error = next((line.strip() for line in log_lines if ": error" in line), "")
        raise EnvironmentProblem(
            f"the scatter-add kernel could not be compiled or loaded: {first.rstrip(':')}"
            f"{': ' + compiler_error if compiler_error else ''} (a GPU newer than NVRTC needs "
            f"'pip install -U nvidia-cuda-nvrtc'; -v shows the whole log)", Exit.KERNEL) from None


def print_graph(graph: Graph) -> None:
    import numpy as np

    from gnn.graph_inputs import adjacency_lines

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
    import numpy as np

    print(f"Class probabilities [classes x nodes] = {probs.shape[0]} x {probs.shape[1]}:")
    with np.printoptions(precision=4, suppress=True, linewidth=120):
        print(probs)


def draw(graph: Graph, path: str, source: LabelledGraph) -> None:
    if graph.num_nodes > MAX_DRAW_NODES:
        raise InputError(f"--draw-graph: the graph has {graph.num_nodes} nodes; pictures are limited to "
                         f"{MAX_DRAW_NODES} (more are unreadable)")
    try:
        from gnn.graph_picture import draw_graph
    except ImportError:
        raise EnvironmentProblem(f"--draw-graph needs networkx and matplotlib: python3 -m pip install -r {EXTRAS}",
                                 Exit.MISSING_PACKAGE) from None
    try:
        draw_graph(graph, path, source.labels, source.label_names)
    except OSError as error:
        raise InputError(f"--draw-graph {quote_path(path)}: cannot write it ({error.strerror or error})") from None
    print(f"Drew the input graph to {quote_path(path)}")


def configure_logging(verbosity: int) -> None:
    """Python logging on stderr; Polygraphy (and through it TensorRT's logger) routed into it.

    At the default verbosity TensorRT and Polygraphy stay silent: a failure is reported as the
    driver's one line, which points at -v for their own messages.
    """
    level = logging.WARNING if verbosity == 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.captureWarnings(True)  # Python warnings (matplotlib's among them) through this log
    if verbosity == 0:  # e.g. "Matplotlib created a temporary cache directory": noise for this sample
        logging.getLogger("matplotlib").setLevel(logging.ERROR)
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
    from gnn import graph_sources
    from gnn.graph_inputs import parse_graph

    num_features = 4 if args.num_features is None else args.num_features
    if args.graph == "karate":
        return graph_sources.karate_club()
    if args.graph is not None:
        return graph_sources.networkx_graph(args.graph, num_features, seed)
    if args.edge_file is not None:
        return graph_sources.graph_from_files(args.edge_file, args.feature_file, num_features, seed)
    if args.synthetic is not None:
        n, e, f = args.synthetic
        return graph_sources.synthetic_graph(n, e, f, args.degrees or "uniform", seed)
    return graph_sources.LabelledGraph(parse_graph(args.node_features or DEFAULT_NODE_FEATURES,
                                                   args.edges or DEFAULT_EDGES))


def check_flag_combinations(args: argparse.Namespace) -> None:
    """A flag that would be ignored is an error, so that what was asked is what runs."""
    literal = args.node_features is not None or args.edges is not None
    chosen = [flag for flag, value in (("--graph", args.graph), ("--edge-file", args.edge_file),
                                       ("--synthetic", args.synthetic)) if value is not None]
    if literal and chosen:
        raise InputError(f"{chosen[0]}: cannot be combined with --node-features / --edges")
    if args.feature_file is not None and args.edge_file is None:
        raise InputError("--feature-file: only with --edge-file")
    if args.degrees is not None and args.synthetic is None:
        raise InputError("--degrees: only with --synthetic")
    random_features = args.graph in NETWORKX_GRAPHS or (args.edge_file and not args.feature_file)
    if args.num_features is not None and not random_features:
        raise InputError("--num-features: only for --graph les-miserables/florentine and --edge-file without "
                         "--feature-file (the karate club's features are one-hot, F = 34)")
    if args.graph == "karate" and args.num_classes not in (None, 2):
        raise InputError(f"--num-classes: the karate club has 2 factions, got {args.num_classes}")


def check_run_flags(args: argparse.Namespace) -> None:
    check_flag_combinations(args)
    for flag, value, low, high in (("--num-features", args.num_features, 1, MAX_FEATURES),
                                   ("--num-classes", args.num_classes, 1, MAX_CLASSES),
                                   ("--iterations", args.iterations, 0, MAX_ITERATIONS),
                                   ("--seed", args.seed, 0, MAX_SEED)):
        if value is not None and not low <= value <= high:
            raise InputError(f"{flag}: must be between {low} and {high}, got {value}")
    if args.synthetic is not None and not 1 <= args.synthetic[2] <= MAX_FEATURES:
        raise InputError(f"--synthetic: F must be between 1 and {MAX_FEATURES}, got {args.synthetic[2]}")
    if args.cuda_graph and args.iterations < 1:
        raise InputError("--cuda-graph: needs --iterations N (N >= 1)")
    if args.aot and args.no_alias:
        raise InputError("--no-alias: not with --aot (the ahead-of-time kernel always works in place)")
    for flag, path in (("--engine", args.engine), ("--draw-graph", args.draw_graph)):
        if path is not None:
            check_output_path(flag, path)


def check_output_path(flag: str, path: str) -> None:
    """Fail before any work, not after a long build, when an output cannot be written."""
    where = f"{flag} {quote_path(path)}"
    try:
        parent = os.path.dirname(os.path.abspath(path))
        if os.path.isdir(path):
            raise InputError(f"{where}: is a directory")
        if not os.path.isdir(parent):
            raise InputError(f"{where}: the directory {quote_path(parent)} does not exist")
        if len(os.path.basename(path).encode()) > os.pathconf(parent, "PC_NAME_MAX"):
            raise InputError(f"{where}: {os.strerror(errno.ENAMETOOLONG)}")
        target = path if os.path.exists(path) else parent
        if not os.access(target, os.W_OK):
            raise InputError(f"{where}: not writable")
    except OSError as error:  # a name too long, a loop of links, ...
        raise InputError(f"{where}: {error.strerror or error}") from None


def check_memory(args: argparse.Namespace, graph: Graph, num_classes: int) -> None:
    """The whole run's host memory, before the large arrays exist (gnn/memory_budget.py)."""
    from gnn import precisions

    source = ("--synthetic" if args.synthetic else f"--edge-file {quote_path(args.edge_file)}" if args.edge_file
              else f"--graph {args.graph}" if args.graph else "--node-features/--edges")
    needed = memory_budget.host_bytes(graph.num_nodes, graph.num_edges, graph.num_features, num_classes,
                                      precisions.get(args.precision).itemsize)
    memory_budget.ensure_fits(f"{source} with --num-classes {num_classes} (N = {graph.num_nodes}, "
                              f"E = {graph.num_edges}, F = {graph.num_features})", needed)


def check_gpu_memory(inputs: RunInputs, precision: str) -> None:
    import cupy as cp

    from gnn import precisions
    from kernels import plan

    (n, f), e, c = inputs.x.shape, inputs.idx.shape[0], inputs.weights.shape[0]
    needed = memory_budget.device_bytes(n, e, f, c, precisions.get(precision).itemsize,
                                        plan.workspace_size(precision, (f, f), (e, e)))
    memory_budget.ensure_fits(f"the graph (N = {n}, E = {e}, F = {f}, C = {c})", needed,
                              available=int(cp.cuda.Device().mem_info[0]), kind="GPU memory")


def feature_source(args: argparse.Namespace) -> str:
    if args.feature_file:
        return f"--feature-file {quote_path(args.feature_file)}"
    return "--synthetic" if args.synthetic else f"--graph {args.graph}" if args.graph else "--node-features"


def make_inputs(args: argparse.Namespace, source: LabelledGraph, num_classes: int, seed: int) -> RunInputs:
    """The engine's inputs: X where --initial-x says, weights fitted on the leaders or random."""
    import numpy as np

    from gnn.model import fit_weights, make_run_inputs

    graph = source.graph
    x0 = graph.features if (args.initial_x or source.initial_x) == "features" else None
    weights = None
    if source.leaders and source.labels is not None:
        weights = fit_weights(graph, graph.features if x0 is not None else np.zeros_like(graph.features),
                              source.labels, source.leaders, num_classes)
        print(f"Class weights: fitted in float64 (least squares) on members "
              f"{' and '.join(map(str, source.leaders))} only; every other member is a prediction")
    return make_run_inputs(graph, num_classes, args.precision, seed, x0=x0, weights=weights)


def prepare_environment(precision: str, aot: bool) -> tuple[Any, Gpu]:
    """Everything that needs no TensorRT first (packages, GPU, precision, kernel), then TensorRT.
    Where packages or the GPU are missing, TensorRT is looked for at once, so that the one line
    names everything missing."""
    try:
        gpu = find_gpu()
    except EnvironmentProblem as problem:
        raise all_at_once([problem, *problems_of(lambda: load_tensorrt(aot))]) from None
    check_precision_supported(precision, gpu)
    print(prepare_kernel(precision, aot))
    trt_module = load_tensorrt(aot)
    print(f"{runtime_name(trt_module)} on {gpu.name}, precision {precision}")
    return trt_module, gpu


def prepare_inputs(args: argparse.Namespace) -> tuple[LabelledGraph, RunInputs, Bounds]:
    """The graph, X and the class weights, each checked before anything large is allocated;
    and the profile bounds the engine is built for. The flags need no package; the rest needs NumPy."""
    check_run_flags(args)
    check_numpy_first(args.aot)
    from gnn.graph_inputs import check_representable
    from gnn.graph_sources import MissingExtra

    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    try:
        source = select_graph(args, seed)
    except MissingExtra as missing:
        raise EnvironmentProblem(str(missing), Exit.MISSING_PACKAGE) from None
    graph = source.graph
    num_classes = args.num_classes or (2 if source.leaders else 3)
    bounds = choose_bounds(graph.num_nodes, graph.num_edges, args.max_nodes, args.max_edges)
    check_memory(args, graph, num_classes)
    check_representable(graph, args.precision, feature_source(args))
    if args.draw_graph:
        draw(graph, args.draw_graph, source)
    print(f"Setting seed to: {seed}")
    print_graph(graph)
    return source, make_inputs(args, source, num_classes, seed), bounds


def engine_spec(args: argparse.Namespace, trt_module: Any, gpu: Gpu, inputs: RunInputs, bounds: Bounds,
                aggregation: Aggregation) -> EngineSpec:
    """What the engine is built for: a saved engine is reused only when all of it matches."""
    return EngineSpec(
        tensorrt=runtime_name(trt_module), gpu=gpu.name, compute_capability="".join(map(str, gpu.compute_capability)),
        precision=args.precision, num_features=inputs.x.shape[1], num_classes=inputs.weights.shape[0],
        max_nodes=bounds.max_nodes, max_edges=bounds.max_edges, aliased=not args.no_alias,
        plugin=aggregation.name, route="aot" if args.aot else "class")


def print_run(result: RunResult, source: LabelledGraph, aggregation: Aggregation, binding: str,
              timing: list[str]) -> None:
    from gnn import graph_sources

    print(f"Inference time: {result.inference_ms:.3f} ms (first run, CUDA events; {aggregation.enqueue})")
    print_probs(result.probs)
    if source.labels is not None:
        print("Predicted faction (argmax over classes) and the faction each member really joined:")
        print("\n".join(graph_sources.predicted_vs_true(result.probs, source.labels, source.label_names)))
    print(f"In place: {binding}")
    if timing:
        print("\n".join(timing))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    return args


def exit_status(run: Callable[[], int], verbose: int) -> int:
    """Run the sample; every failure it raises becomes one line on stderr and its exit code."""
    try:
        code = run()
        sys.stdout.flush()
        return code
    except InputError as error:
        return _fail(str(error), Exit.BAD_INPUT)
    except EnvironmentProblem as problem:
        return _fail(str(problem), problem.exit_code)
    except TensorRTFailure as failure:
        hint = "" if verbose else " (run again with -v for TensorRT's own messages)"
        return _fail(f"{failure}{hint}", Exit.TENSORRT)
    except OSError as error:  # print() failed: a closed pipe or a full disk; nowhere left to say so
        if error.filename is not None or error.errno not in _OUTPUT_ERRNOS:
            raise
        return quiet_exit()


def _fail(message: str, code: int) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return code


_OUTPUT_ERRNOS = (errno.EPIPE, errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG)


def quiet_exit() -> int:
    """Nowhere to write: leave without a traceback (and without Python's own failed flush at exit)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return Exit.OUTPUT
