# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The plugin's kernel, made ready before any TensorRT work: compiled with NVRTC for this GPU and
loaded, so that a compile problem is one line with its own exit status rather than a failure inside
TensorRT's build. The plugin's own compile during the build then finds it in the in-process cache,
and the engine carries the result. Only the standard library is imported at module level."""

from __future__ import annotations

import logging
import time

from gnn.errors import KernelFailure, MissingPackage

log = logging.getLogger("aliased_io_plugin")


def prepare_kernel(precision: str, aot: bool = False, name: str = "fast") -> str:
    """Compile and load the plugin's kernel ``name`` now, before any TensorRT work; for --aot, the PTX that
    the engine will hold, loaded once here as TensorRT will load it. Returns the line that says what was done."""
    import kernels
    from kernels import cuda_calls, scatter_add_aot

    try:
        cuda_calls.find_cuda_include_dir()  # NVRTC's headers come from a package: their absence is exit 3
    except cuda_calls.KernelError as missing:
        raise MissingPackage(str(missing)) from None
    make_device_current()
    start = time.perf_counter()
    try:
        if aot:
            loaded = scatter_add_aot.load(precision, "int32")
            return (f"Kernel: PTX of {scatter_add_aot.KERNEL_NAME} ({precision}, int32) for the engine, compiled "
                    f"with NVRTC and loaded in {time.perf_counter() - start:.1f} s ({loaded.fit} blocks at most)")
        kernel = kernels.choose(name)
        code = kernel.compile(float_type=precision, index_type="int32", arch=kernels.current_arch())
        kernel.load(code)
    except scatter_add_aot.PtxTooNew as too_new:  # its own fix: an older NVRTC or a newer driver
        raise KernelFailure(f"--aot: {too_new}") from None
    except cuda_calls.KernelError as error:
        raise KernelFailure(compile_failure(str(error))) from None
    source = f"{kernels.KERNELS[name]}.cu"  # each kernel's module sits beside its .cu of the same name
    return (f"Kernel: compiled {source} for {code.arch} with NVRTC in "
            f"{time.perf_counter() - start:.1f} s; the engine stores it")


def make_device_current() -> None:
    """The sample runs on CUDA device 0 (CUDA_VISIBLE_DEVICES chooses which GPU that is). CuPy makes its
    primary context current, the context TensorRT and Polygraphy then use, so the plugin's kernel is
    compiled for and loaded into the GPU the engine runs on."""
    import cupy as cp

    cp.cuda.Device(0).use()
    cp.cuda.runtime.free(0)  # creates the context now, not at the first allocation


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
