"""The plugin's kernel, made ready before any TensorRT work: compiled with NVRTC for this GPU (or
read from the disk cache), so that a compile problem is one line with its own exit status rather
than a failure inside TensorRT's build. Only the standard library is imported at module level."""

from __future__ import annotations

import logging
import time

from gnn.errors import KernelFailure, MissingPackage

log = logging.getLogger("aliased_io_plugin")


def prepare_kernel(precision: str, aot: bool = False) -> str:
    """Compile (or load from the disk cache) the plugin's kernel now, before any TensorRT work;
    for --aot, the PTX that the engine will hold, loaded once here as TensorRT will load it.
    Returns the line that says what was done."""
    from qdp import aot_kernel
    from kernels import launcher

    try:
        if aot:
            start = time.perf_counter()
            kernel = aot_kernel.load(precision, "int32")
            return (f"Kernel: PTX of {aot_kernel.kernel_name(precision, 'int32')} for the engine, compiled "
                    f"with NVRTC and loaded in {time.perf_counter() - start:.1f} s ({kernel.max_blocks} blocks at most)")
        return launcher.prepare(precision, "int32").describe()
    except launcher.HeadersNotFound as missing:
        raise MissingPackage(str(missing)) from None
    except aot_kernel.PtxTooNew as too_new:  # its own fix: an older NVRTC or a newer driver
        raise KernelFailure(f"--aot: {too_new}") from None
    except launcher.KernelError as error:
        raise KernelFailure(compile_failure(str(error))) from None


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
