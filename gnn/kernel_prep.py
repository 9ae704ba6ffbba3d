"""The plugin's kernel, made ready before any TensorRT work: compiled with NVRTC for this GPU (or
read from the disk cache), so that a compile problem is one line with its own exit status rather
than a failure inside TensorRT's build. Only the standard library is imported at module level."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from gnn.errors import KernelFailure, MissingPackage

if TYPE_CHECKING:
    from kernels.launcher import Cubin

log = logging.getLogger("aliased_io_plugin")


def prepare_kernel(precision: str, aot: bool = False) -> str:
    """Compile (or load from the disk cache) the plugin's kernel now, before any TensorRT work;
    for --aot, the PTX that the engine will hold, loaded once here as TensorRT will load it.
    Returns the line that says what was done."""
    from kernels import launcher
    from qdp import aot_kernel

    try:
        launcher.find_cuda_include_dir()  # NVRTC's headers come from a package: their absence is exit 3
    except launcher.KernelError as missing:
        raise MissingPackage(str(missing)) from None
    try:
        if aot:
            start = time.perf_counter()
            kernel = aot_kernel.load(precision, "int32")
            return (f"Kernel: PTX of {aot_kernel.kernel_name(precision, 'int32')} for the engine, compiled "
                    f"with NVRTC and loaded in {time.perf_counter() - start:.1f} s ({kernel.fit} blocks at most)")
        return load_kernel(precision, "int32")
    except aot_kernel.PtxTooNew as too_new:  # its own fix: an older NVRTC or a newer driver
        raise KernelFailure(f"--aot: {too_new}") from None
    except launcher.KernelError as error:
        raise KernelFailure(compile_failure(str(error))) from None


def load_kernel(float_type: str, index_type: str) -> str:
    """Load the type pair's kernels into the current context now, and say how the cubin was obtained (not
    counting the context's own creation, which any GPU program pays)."""
    from kernels import cubin_cache, launcher

    _, device = launcher.current_context()
    start = time.perf_counter()
    launcher.get_kernel(float_type, index_type)
    seconds, arch = time.perf_counter() - start, launcher.device_arch(device)
    return describe(arch, seconds, launcher.cubin_for(arch, (float_type, index_type)), cubin_cache.cache_dir())


def describe(arch: str, seconds: float, cubin: Cubin, cache: Path | None) -> str:
    """One line: where the cubin came from (``cache``: the cache directory, None when it is turned off)."""
    from kernels import cubin_cache, launcher

    if cubin.from_cache:
        return f"Kernel: loaded for {arch} from the cache {cache} in {seconds * 1e3:.0f} ms"
    where = (f"cached in {cache}" if cubin.stored else f"{cubin_cache.ENV_VAR} is empty: not cached"
             if cache is None else f"could not write the cache {cache}")
    return f"Kernel: compiled {launcher.KERNEL_SOURCE.name} for {arch} with NVRTC in {seconds:.1f} s ({where})"


def compile_failure(message: str) -> str:
    """The one line for a kernel that did not compile or load: NVRTC's first error; the whole log
    goes to the -v log."""
    first, *log_lines = message.splitlines() or [""]
    for line in log_lines:
        log.info("%s", line)
    compiler_error = next((line.strip() for line in log_lines if ": error" in line), "")
    return (f"the scatter-add kernel could not be compiled or loaded: {first.rstrip(':')}"
            f"{': ' + compiler_error if compiler_error else ''} (a GPU newer than NVRTC needs "
            f"'pip install -U nvidia-cuda-nvrtc'; -v shows the whole log)")
