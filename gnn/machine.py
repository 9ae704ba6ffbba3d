# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The machine's checks (packages, extras, NVIDIA driver, GPU, TensorRT), one line naming all that
is missing; the plugin's kernel; a run's GPU buffers and timing. Each imports what it needs."""

from __future__ import annotations

import ctypes
import importlib.metadata
import importlib.util
import logging
import math
import os
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gnn.cli import (EXTRAS, MIN_TENSORRT_AOT, NETWORKX_GRAPHS, Bounds, EnvironmentProblem,
                     InputError, InputOptions, KernelFailure, MissingExtra, MissingPackage, NoGpu,
                     dotted, joined)

# The version floors (--aot's is in gnn/cli.py, for --help):
MIN_TENSORRT = (10, 3)  # IPluginV3OneBuildV2.get_aliased_input, ALIASED_PLUGIN_IO_10_03
MIN_POLYGRAPHY = (0, 50, 3)  # TensorRT 11 support; CreateConfig(progress_monitor=...); logging
MIN_CUDA_PYTHON = (12, 9, 1)  # cuda-bindings depends on cuda-pathfinder from 12.9.1 on CUDA 12
MIN_CUDA_PATHFINDER = (1, 2, 3)  # find_nvidia_header_directory, public from 1.2.3
# PyPI alone serves base.txt; TensorRT's libraries come only from NVIDIA's index or its container.
BASE_INSTALL = "python3 -m pip install -r requirements/base.txt"
TENSORRT_INSTALL = ("python3 -m pip install -r requirements.txt (from NVIDIA's index, "
                    "pypi.nvidia.com), or NVIDIA's TensorRT container (docs/install.md)")
BASE_PACKAGES = (("numpy", "NumPy"), ("cupy", "CuPy"), ("cuda.bindings", "cuda-python"),
                 ("polygraphy", "Polygraphy"))
# (distribution, module, floor, the line for an older one), checked in order once all import.
FLOORS = (
    ("cuda-bindings", "cuda.bindings", MIN_CUDA_PYTHON,
     "cuda-python {version} is too old: kernels/cuda_calls.py imports cuda.pathfinder, which comes "
     "with cuda-python >= {floor} (CUDA 12) or 13 (CUDA 13): " + BASE_INSTALL),
    ("cuda-pathfinder", "cuda.pathfinder", MIN_CUDA_PATHFINDER,
     "cuda-pathfinder {version} is too old: need >= {floor} (find_nvidia_header_directory): "
     + BASE_INSTALL),
    ("polygraphy", "polygraphy", MIN_POLYGRAPHY,
     "Polygraphy {version} is too old: pip install 'polygraphy>={floor}'"),
)
DRIVER_LIBRARY = "libcuda.so.1"  # the NVIDIA driver's user-space library, the one CuPy loads
DRIVER_BRANCHES = {12: 525, 13: 580}  # the first Linux driver branch of each CUDA major version
TRT_ALIGNMENT = 256  # bytes: TensorRT's requirement for every address set on a context
WARMUP = 10

log = logging.getLogger("aliased_io_plugin")


def problems_of(*checks: Callable[[], object]) -> list[EnvironmentProblem]:
    """Run every check, collecting each problem rather than stopping at the first."""
    found = []
    for check in checks:
        try:
            check()
        except EnvironmentProblem as problem:
            found.append(problem)
    return found


def all_at_once(problems: list[EnvironmentProblem]) -> EnvironmentProblem:
    """One problem naming them all, of the first one's kind (which sets the exit status)."""
    return type(problems[0])("; ".join(map(str, problems)))


# -- packages ------------------------------------------------------------------------------------

def at_least(version: str, floor: tuple[int, ...]) -> bool:
    """Whether ``version`` meets ``floor`` in pip's order (0.50.3rc1 before 0.50.3), else (no
    packaging, or a version it cannot parse) by the release numbers alone."""
    try:
        from packaging.version import Version

        return Version(version) >= Version(dotted(floor))
    except (ImportError, ValueError):
        numbers = re.match(r"\d+(?:\.\d+)*", version)
        return numbers is not None and tuple(map(int, numbers.group().split("."))) >= floor


def load_tensorrt(aot: bool = False) -> Any:
    """TensorRT, imported and its version checked; raises MissingPackage."""
    try:
        import tensorrt as trt

        version = trt.__version__  # absent from a namespace package: tensorrt-stubs alone
    except (ImportError, AttributeError):
        raise MissingPackage(f"TensorRT is not installed: {TENSORRT_INSTALL}") from None
    aliasing = hasattr(trt.PreviewFeature, "ALIASED_PLUGIN_IO_10_03")
    if not at_least(version, MIN_TENSORRT) or not aliasing:
        raise MissingPackage(f"TensorRT {version} is too old: aliased plugin I/O needs >= "
                             f"{dotted(MIN_TENSORRT)}")
    ahead_of_time = hasattr(trt, "QuickPluginCreationRequest")
    if aot and (not at_least(version, MIN_TENSORRT_AOT) or not ahead_of_time):
        raise MissingPackage(f"TensorRT {version} is too old for --aot: ahead-of-time plugins need "
                             f">= {dotted(MIN_TENSORRT_AOT)}")
    return trt


def runtime_name(trt: Any) -> str:
    """"TensorRT 10.13.2"; another runtime imported as `tensorrt` (tests/rtx_cli.py) by its name."""
    name = getattr(trt, "__name__", "tensorrt")
    if name == "tensorrt":
        return f"TensorRT {trt.__version__}"
    return f"{name} {trt.__version__} (not TensorRT)"


def _installed(module: str, imported: bool = True) -> bool:
    """Whether ``module`` imports, or where not ``imported``, whether Python finds it."""
    try:
        if not imported:
            return importlib.util.find_spec(module) is not None
        importlib.import_module(module)
    except ModuleNotFoundError as error:  # CuPy without NumPy: NumPy's absence, named on its own
        return error.name == "numpy" and module != "numpy"
    except (ImportError, ValueError):  # a broken install; a sys.modules entry without __spec__
        return False
    return True


def package_problems() -> list[EnvironmentProblem]:
    """requirements/base.txt's packages: all those missing, named together, or one too old."""
    if "CUPY_CACHE_DIR" not in os.environ:  # CuPy makes ~/.cupy on import: a read-only home fails
        try:
            os.makedirs(os.path.join(os.path.expanduser("~"), ".cupy"), exist_ok=True)
        except OSError:
            os.environ["CUPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="cupy-cache-")
            log.info("home not writable: CuPy's cache is in %s", os.environ["CUPY_CACHE_DIR"])
    missing = [name for module, name in BASE_PACKAGES if not _installed(module)]
    if missing:
        return [MissingPackage(f"{not_installed(missing)}: {BASE_INSTALL}")]
    return problems_of(check_versions)


def not_installed(names: list[str]) -> str:
    verb = "is" if len(names) == 1 else "are"
    return f"{joined(names)} {verb} not installed"


def check_versions() -> None:
    """Raise if a package of FLOORS is below its floor (by pip's record, else the module's own)."""
    for distribution, module, floor, too_old in FLOORS:
        if not _installed(module):  # cuda-pathfinder: the others were imported already
            raise MissingPackage(f"{distribution} is not installed: {BASE_INSTALL}")
        try:
            version = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            version = str(getattr(importlib.import_module(module), "__version__", "0"))
        if not at_least(version, floor):
            raise MissingPackage(too_old.format(version=version, floor=dotted(floor)))


def missing_extras(options: InputOptions) -> list[MissingExtra]:
    """One problem naming the flags whose extras are not installed, or none."""
    asked = {}
    if options.graph.graph in NETWORKX_GRAPHS:
        asked[f"--graph {options.graph.graph}"] = ("networkx",)
    if options.draw_graph is not None:
        asked["--draw-graph"] = ("networkx", "matplotlib")
    wanted = dict.fromkeys(module for modules in asked.values() for module in modules)
    # Found, not imported: importing matplotlib alone takes a second.
    absent = [module for module in wanted if not _installed(module, imported=False)]
    flags = [flag for flag, modules in asked.items() if set(modules) & set(absent)]
    if not flags:
        return []
    need = "needs" if len(flags) == 1 else "need"
    return [MissingExtra(f"{joined(flags)} {need} {joined(absent)}: python3 -m pip "
                         f"install -r {EXTRAS}")]


def check_numpy_first(aot: bool, extras: Sequence[EnvironmentProblem]) -> None:
    """Without NumPy or the ``extras`` the flags ask for, stop before the inputs, naming all."""
    if extras or not _installed("numpy"):
        others = problems_of(check_driver, lambda: load_tensorrt(aot))
        raise all_at_once([*package_problems(), *extras, *others])


# -- the driver and the GPU ----------------------------------------------------------------------

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
    version = ctypes.c_int(0)
    count = ctypes.c_int(0)
    name = ctypes.c_char_p()
    libcuda.cuDriverGetVersion(ctypes.byref(version))  # needs no cuInit
    status = libcuda.cuInit(0)
    if status == 0:
        status = libcuda.cuDeviceGetCount(ctypes.byref(count))
    error = None
    if status:  # by its name where the driver knows it
        error = f"CUresult {status}"
        if libcuda.cuGetErrorName(status, ctypes.byref(name)) == 0 and name.value:
            error = name.value.decode()
    return Driver(version=version.value, init_error=error, devices=count.value,
                  visible_devices=visible)


def driver_problem(driver: Driver, cuda_major: int | None) -> str | None:
    """Why the driver cannot run CuPy's CUDA ``cuda_major`` on a GPU, or None; basics first."""
    branch = DRIVER_BRANCHES.get(cuda_major or 0)
    newer = f" (r{branch} or newer)" if branch else ""
    if driver.missing is not None:
        wanted = f" for CUDA {cuda_major}{newer}" if cuda_major else ""
        return (f"no NVIDIA driver ({DRIVER_LIBRARY} cannot be loaded): the sample needs an NVIDIA "
                f"GPU and its driver{wanted}")
    if driver.init_error not in (None, "CUDA_ERROR_NO_DEVICE"):
        return f"no usable CUDA GPU: the NVIDIA driver's cuInit failed with {driver.init_error}"
    if driver.devices < 1:
        hidden = ""
        if driver.visible_devices is not None:
            hidden = f" (CUDA_VISIBLE_DEVICES is {driver.visible_devices!r})"
        return f"no CUDA GPU found: the NVIDIA driver sees no device{hidden}"
    major, minor = divmod(driver.version, 1000)
    if cuda_major is not None and major < cuda_major:
        return (f"NVIDIA driver too old: it supports CUDA {major}.{minor // 10}, and CuPy here is "
                f"built for CUDA {cuda_major}: update the driver{newer}")
    return None


def check_driver() -> None:
    """Raise NoGpu unless the driver sees a device and is new enough for CuPy's CUDA runtime."""
    try:
        import cupy

        cuda_major = int(cupy.cuda.runtime.runtimeGetVersion()) // 1000
    except ImportError:
        cuda_major = None
    problem = driver_problem(probe_driver(), cuda_major)
    if problem is not None:
        raise NoGpu(problem)


@dataclass(frozen=True)
class Gpu:
    name: str
    compute_capability: tuple[int, int]


def check_gpu() -> Gpu:
    """CUDA device 0 as CuPy sees it, once :func:`check_driver` has passed."""
    import cupy as cp

    try:
        props = cp.cuda.runtime.getDeviceProperties(0)
    except cp.cuda.runtime.CUDARuntimeError as error:
        raise NoGpu(f"no usable CUDA GPU: the NVIDIA driver is loaded, but CuPy says "
                    f"{error}") from None
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    return Gpu(name, (int(props["major"]), int(props["minor"])))


def usable_gpu(precision: str, aot: bool) -> Gpu:
    """Check the packages, driver, CUDA device 0 and precision; one line names all that fail."""
    try:
        problems = package_problems() + problems_of(check_driver)
        if problems:
            raise all_at_once(problems)
        gpu = check_gpu()
    except EnvironmentProblem as problem:
        raise all_at_once([problem, *problems_of(lambda: load_tensorrt(aot))]) from None
    from gnn import model

    reason = model.unsupported_reason(precision, gpu.compute_capability)
    if reason is not None:  # TensorRT has no bf16 before Ampere: rejected before the build
        raise InputError(f"--precision {precision}: {reason} ({gpu.name}); use fp16 or fp32")
    return gpu


def free_gpu_memory() -> int:
    import cupy as cp

    return int(cp.cuda.Device().mem_info[0])


# -- the kernel ----------------------------------------------------------------------------------

def compile_kernel(precision: str, aot: bool, name: str) -> str:
    """Compile and load kernel ``name`` (for --aot, the engine's PTX); the line that says so."""
    import cupy as cp

    import kernels
    from kernels import cuda_calls, scatter_add_aot

    try:
        cuda_calls.find_cuda_include_dir()  # NVRTC's headers come from a package: exit 3 without
    except cuda_calls.KernelError as missing:
        raise MissingPackage(str(missing)) from None
    # CuPy makes device 0's primary context current, the one TensorRT then uses; free(0) makes it.
    cp.cuda.Device(0).use()
    cp.cuda.runtime.free(0)
    start = time.perf_counter()
    try:
        if aot:
            loaded = scatter_add_aot.load(precision, "int32")
            seconds = time.perf_counter() - start
            return (f"Kernel: PTX of {scatter_add_aot.KERNEL_NAME} ({precision}, int32) for the "
                    f"engine, compiled with NVRTC and loaded in {seconds:.1f} s ({loaded.fit} "
                    f"blocks at most)")
        kernel = kernels.choose(name)
        code = kernel.compile(float_type=precision, index_type="int32", arch=kernels.current_arch())
        kernel.load(code)
    except scatter_add_aot.PtxTooNew as too_new:  # its own fix: an older NVRTC or a newer driver
        raise KernelFailure(f"--aot: {too_new}") from None
    except cuda_calls.KernelError as error:
        raise KernelFailure(compile_failure(str(error))) from None
    return (f"Kernel: compiled the {name} kernel (kernels/{kernels.KERNELS[name]}.py) for "
            f"{code.arch} with NVRTC in {time.perf_counter() - start:.1f} s; the engine stores it")


def compile_failure(message: str) -> str:
    """The line for a kernel that did not compile or load: NVRTC's first error (-v logs it all)."""
    first, *log_lines = message.splitlines() or [""]
    for line in log_lines:
        log.info("%s", line)
    compiler_error = next((line.strip() for line in log_lines if ": error" in line), "")
    found = f": {compiler_error}" if compiler_error else ""
    return (f"the scatter-add kernel could not be compiled or loaded: {first.rstrip(':')}{found} "
            f"(a GPU newer than NVRTC needs 'pip install -U nvidia-cuda-nvrtc'; -v shows the whole "
            f"log)")


def kernel_fingerprint(name: str, precision: str, aot: bool) -> str:
    """The fingerprint of the kernel the engine stores; "" for --aot (the engine holds it whole)."""
    if aot:
        return ""
    import kernels

    return kernels.choose(name).fingerprint(float_type=precision, index_type="int32")


def kernel_workspace(name: str, precision: str, aot: bool, bounds: Bounds, num_features: int,
                     gpu: Gpu) -> int:
    """The plugin's workspace for the engine's profile on this GPU; the --aot kernel takes none."""
    if aot:
        return 0
    import kernels

    major, minor = gpu.compute_capability
    return kernels.choose(name).workspace_size(
        float_type=precision, index_type="int32", nodes=(1, bounds.max_nodes),
        edges=(1, bounds.max_edges), features=(num_features, num_features),
        arch=f"sm_{major}{minor}")


# -- the GPU buffers and timing of a run ---------------------------------------------------------

def check_bindable(name: str, array: Any) -> Any:
    """``array``, if TensorRT can bind it: C-contiguous, 256-byte aligned (CuPy's pool: 512)."""
    if not array.flags.c_contiguous or array.data.ptr % TRT_ALIGNMENT:
        raise ValueError(f"{name}: TensorRT needs a C-contiguous buffer aligned to {TRT_ALIGNMENT} "
                         f"bytes")
    return array


def upload(inputs: Any, precision: str, stream: Any) -> dict[str, Any]:
    """A model.RunInputs as CuPy arrays in the run's precision (bf16 as uint16), on ``stream``."""
    import cupy as cp

    from gnn import model

    host = {"X": model.to_storage(inputs.x, precision),
            "src": model.to_storage(inputs.src, precision), "idx": inputs.idx.astype("int32"),
            "W": model.to_storage(inputs.weights, precision)}
    with stream:
        return {name: check_bindable(name, cp.asarray(array)) for name, array in host.items()}


def allocate_outputs(shapes: Mapping[str, Sequence[int]], stream: Any) -> dict[str, Any]:
    import cupy as cp

    with stream:
        return {name: check_bindable(name, cp.empty(tuple(shape), dtype=cp.float32))
                for name, shape in shapes.items()}


def own_buffer(name: str, array: Any, stream: Any) -> Any:
    import cupy as cp

    with stream:
        return check_bindable(name, cp.empty_like(array))


def reset_x(x: Any, initial: Any, stream: Any) -> None:
    """``initial`` copied into ``x`` on ``stream``, device to device, ordered with the runs."""
    x.data.copy_from_device_async(initial.data, initial.nbytes, stream)


def elapsed_ms(stream: Any, call: Callable[[], object]) -> float:
    """Milliseconds of the GPU work ``call`` enqueues on ``stream``, by CUDA events, once done."""
    import cupy as cp

    start = cp.cuda.Event()
    end = cp.cuda.Event()
    start.record(stream)
    call()
    end.record(stream)
    end.synchronize()
    return float(cp.cuda.get_elapsed_time(start, end))


def timed(runner: Any, run: Callable[[], object], iterations: int) -> str:
    """Median and p90 of ``iterations`` runs, X restored before each, after WARMUP warm-up runs."""
    times = []
    for _ in range(WARMUP + iterations):
        runner.reset_x()
        times.append(elapsed_ms(runner.stream, run))
    counted = sorted(times[WARMUP:])
    p90 = counted[math.ceil(0.9 * iterations) - 1]
    return f"median {statistics.median(counted):.4f} ms, p90 {p90:.4f} ms"


def capture(runner: Any) -> Any:
    """One run captured as a CUDA graph (the plugin's enqueue only launches on its stream)."""
    runner.reset_x()
    runner.execute()  # a run outside capture first: TensorRT finishes its lazy setup here
    runner.stream.synchronize()
    runner.stream.begin_capture()
    try:
        runner.execute()
    finally:
        graph = runner.stream.end_capture()
    return graph


def time_engine(runner: Any, iterations: int, cuda_graph: bool) -> list[str]:
    """The timing lines: ``iterations`` runs, and with ``cuda_graph`` a captured run's replays."""
    times = timed(runner, runner.execute, iterations)
    lines = [f"Steady-state latency over {iterations} runs: {times} (CUDA events, after {WARMUP} "
             f"warm-up runs)"]
    if cuda_graph:
        graph = capture(runner)
        replays = timed(runner, lambda: graph.launch(runner.stream), iterations)
        lines.append(f"As a CUDA graph replay: {replays}")
    return lines
