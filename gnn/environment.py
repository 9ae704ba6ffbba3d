# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""What the machine has: the packages of requirements/base.txt, the NVIDIA driver, a CUDA GPU, the
precision on that GPU, and TensorRT.

Each check raises :class:`MissingPackage` or :class:`NoGpu` with one line that says what to
install or why no GPU can be used. The checks collect what they find rather than stopping at the
first (:func:`problems_of`), and :func:`all_at_once` names it all in one line, so that one round of
installing fixes it. Only the standard library is imported at module level: NumPy, CuPy and
TensorRT are imported by the check that needs them.
"""

from __future__ import annotations

import ctypes
import importlib
import logging
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from gnn.errors import EnvironmentProblem, InputError, MissingPackage, NoGpu

# The floors below are the only place they are written in code; the README's Quick start states them,
# the messages and --help are made from them, and tests/test_version_floors.py holds the docs to them.
MIN_TENSORRT = (10, 3)  # IPluginV3OneBuildV2.get_aliased_input + PreviewFeature.ALIASED_PLUGIN_IO_10_03
MIN_TENSORRT_AOT = (10, 9)  # tensorrt.plugin.aot_impl (QuickPluginCreationRequest in the bindings)
MIN_POLYGRAPHY = (0, 50, 3)  # TensorRT 11 support; CreateConfig(progress_monitor=...); logging hand-off
# cuda.bindings.{driver,nvrtc} and cuda.pathfinder, which kernels/cuda_calls.py imports: cuda-bindings
# depends on cuda-pathfinder from 12.9.1 on the CUDA 12 line (every CUDA 13 release has it).
MIN_CUDA_PYTHON = (12, 9, 1)
MIN_CUDA_PATHFINDER = (1, 2, 3)  # find_nvidia_header_directory, public from 1.2.3
# PyPI alone serves base.txt; TensorRT's libraries come only from NVIDIA's index or its container.
BASE_INSTALL = "python3 -m pip install -r requirements/base.txt"
TENSORRT_INSTALL = ("python3 -m pip install -r requirements.txt (from NVIDIA's index, pypi.nvidia.com), "
                    "or NVIDIA's TensorRT container (docs/install.md)")
EXTRAS = "requirements/extras.txt"
# What every run imports besides TensorRT (requirements/base.txt), and how each is called.
BASE_PACKAGES = (("numpy", "NumPy"), ("cupy", "CuPy"), ("cuda.bindings", "cuda-python"), ("polygraphy", "Polygraphy"))
DRIVER_LIBRARY = "libcuda.so.1"  # the NVIDIA driver's user-space library, the one CuPy loads
DRIVER_BRANCHES = {12: 525, 13: 580}  # the first Linux driver branch of each CUDA major version

log = logging.getLogger("aliased_io_plugin")


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
    """One problem naming them all, of the first one's kind (which sets the exit status)."""
    return type(problems[0])("; ".join(map(str, problems)))


def stop_if(problems: list[EnvironmentProblem]) -> None:
    if problems:
        raise all_at_once(problems)


# -- packages ------------------------------------------------------------------------------

def dotted(version: tuple[int, ...]) -> str:
    """``(10, 3)`` -> ``"10.3"``, as messages and documents write a floor."""
    return ".".join(map(str, version))


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def load_tensorrt(aot: bool = False) -> Any:
    """Import TensorRT and check its version; raises :class:`MissingPackage`."""
    missing = MissingPackage(f"TensorRT is not installed: {TENSORRT_INSTALL}")
    try:
        import tensorrt as trt_module
    except ImportError:
        raise missing from None
    version = getattr(trt_module, "__version__", None)
    if version is None:  # a `tensorrt` namespace package without the library, e.g. tensorrt-stubs alone
        raise missing
    if _version(version) < MIN_TENSORRT or not hasattr(trt_module.PreviewFeature, "ALIASED_PLUGIN_IO_10_03"):
        raise MissingPackage(f"TensorRT {version} is too old: aliased plugin I/O needs >= {dotted(MIN_TENSORRT)}")
    if aot and (_version(version) < MIN_TENSORRT_AOT or not hasattr(trt_module, "QuickPluginCreationRequest")):
        raise MissingPackage(f"TensorRT {version} is too old for --aot: ahead-of-time plugins need "
                             f">= {dotted(MIN_TENSORRT_AOT)}")
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
    return [MissingPackage(f"{not_installed(missing)}: {BASE_INSTALL}")]


def not_installed(names: list[str]) -> str:
    """``"NumPy is not installed"``, ``"CuPy, cuda-python and Polygraphy are not installed"``."""
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{listed} {'is' if len(names) == 1 else 'are'} not installed"


def check_versions() -> None:
    import cuda.bindings
    import polygraphy

    problem = cuda_python_problem(cuda.bindings.__version__) or pathfinder_problem()
    if problem:
        raise MissingPackage(problem)
    if _version(polygraphy.__version__) < MIN_POLYGRAPHY:
        raise MissingPackage(f"Polygraphy {polygraphy.__version__} is too old: pip install 'polygraphy>=0.50.3'")


def cuda_python_problem(version: str) -> str | None:
    """Why this cuda-bindings version cannot serve the sample, or None."""
    if _version(version) >= MIN_CUDA_PYTHON:
        return None
    return (f"cuda-python {version} is too old: kernels/cuda_calls.py imports cuda.pathfinder, which comes with "
            f"cuda-python >= {dotted(MIN_CUDA_PYTHON)} (CUDA 12) or 13 (CUDA 13): {BASE_INSTALL}")


def pathfinder_problem() -> str | None:
    """Why cuda.pathfinder cannot find the CUDA headers for NVRTC, or None: an old cuda-pathfinder
    lacks the call kernels/cuda_calls.py makes."""
    try:
        import cuda.pathfinder as pathfinder
    except ImportError:
        return f"cuda-pathfinder is not installed: {BASE_INSTALL}"
    if hasattr(pathfinder, "find_nvidia_header_directory"):
        return None
    return (f"cuda-pathfinder {getattr(pathfinder, '__version__', '(version unknown)')} is too old: need >= "
            f"{dotted(MIN_CUDA_PATHFINDER)} (find_nvidia_header_directory): {BASE_INSTALL}")


def check_numpy_first(aot: bool, extras: Sequence[EnvironmentProblem]) -> None:
    """The inputs need NumPy, and ``extras`` are the missing optional packages the flags ask for
    (gnn/extras.py): without any of them, stop before the inputs, naming all else missing too."""
    if extras or not _installed("numpy"):
        others = problems_of(check_driver, lambda: load_tensorrt(aot))
        stop_if([*package_problems(), *extras, *others])


# -- the driver and the GPU ------------------------------------------------------------------

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
    """An NVIDIA driver new enough for CuPy's CUDA, and a device it sees; else :class:`NoGpu`."""
    problem = driver_problem(probe_driver(), cupy_cuda_major())
    if problem is not None:
        raise NoGpu(problem)


@dataclass(frozen=True)
class Gpu:
    name: str
    compute_capability: tuple[int, int]


def find_gpu() -> Gpu:
    """CUDA device 0, once the packages and the driver allow it; raises naming everything
    missing so far."""
    stop_if(package_problems() + problems_of(check_driver))
    return check_gpu()


def check_gpu() -> Gpu:
    """CUDA device 0 as CuPy sees it, once :func:`check_driver` has passed (else :class:`NoGpu`)."""
    import cupy as cp

    try:
        props = cp.cuda.runtime.getDeviceProperties(0)
    except cp.cuda.runtime.CUDARuntimeError as error:
        raise NoGpu(f"no usable CUDA GPU: the NVIDIA driver is loaded, but CuPy says {error}") from None
    name = props["name"]
    return Gpu(name.decode() if isinstance(name, bytes) else str(name), (int(props["major"]), int(props["minor"])))


def check_precision_supported(precision: str, gpu: Gpu) -> None:
    """TensorRT has no bf16 before Ampere: refuse before building rather than fail inside it."""
    from gnn import precisions

    reason = precisions.unsupported_reason(precision, gpu.compute_capability)
    if reason is not None:
        raise InputError(f"--precision {precision}: {reason} ({gpu.name}); use fp16 or fp32")


def usable_gpu(precision: str, aot: bool) -> Gpu:
    """The packages, the driver, CUDA device 0 and the precision on it, before any TensorRT work.
    Where packages or the GPU are missing, TensorRT is looked for at once, so that the one line
    names everything missing."""
    try:
        gpu = find_gpu()
    except EnvironmentProblem as problem:
        raise all_at_once([problem, *problems_of(lambda: load_tensorrt(aot))]) from None
    check_precision_supported(precision, gpu)
    return gpu


def gpu_problem() -> str | None:
    """Why this process cannot use CUDA device 0, in the GPU check's own words, or None (CuPy must
    be installed). The tests' GPU skip reasons come from here, so they name the cause the CLI names."""
    try:
        check_driver()
        check_gpu()
    except NoGpu as problem:
        return str(problem)
    return None
