# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""NVRTC compiles ``scatter_add.cu`` for the build GPU; the plugin stores the result in the engine.

Only building an engine compiles: the plugin calls :func:`compile_kernel` in ``configure_plugin``, and
a deserialized engine loads the stored cubin (or its PTX) with the driver API alone (``kernel.py``).
So ``cuda.bindings.nvrtc`` is imported inside the functions here, never when the module loads: a
process that only runs engines needs no NVRTC and no CUDA headers.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import plan
from .kernel import Code, KernelError, ScatterAddKernel, check, current_device, device_arch, load

KERNEL_SOURCE = Path(__file__).with_name("scatter_add.cu")


def find_cuda_include_dir() -> str:
    """Where NVRTC finds cuda_fp16.h and cuda_bf16.h: CUDA_PATH/CUDA_HOME if set (an explicit toolkit wins),
    then cuda.pathfinder (the nvidia-cuda-runtime wheel, conda, system), then /usr/local/cuda."""
    from cuda.pathfinder import find_nvidia_header_directory

    candidates = [os.path.join(os.environ[v], "include") for v in ("CUDA_PATH", "CUDA_HOME") if os.environ.get(v)]
    candidates += [find_nvidia_header_directory("cudart") or "", "/usr/local/cuda/include"]
    for directory in candidates:
        if directory and os.path.isfile(os.path.join(directory, "cuda_fp16.h")):
            return directory
    raise KernelError("cuda_fp16.h not found for NVRTC: pip install nvidia-cuda-runtime (CUDA 13) or "
                      "nvidia-cuda-runtime-cu12, or set CUDA_PATH to a CUDA toolkit")


def compile_options(arch: str, include_dir: str, pairs: Sequence[tuple[str, str]] = ()) -> list[str]:
    """NVRTC options: plan.py's numbers and tile shapes, and the (float, index) pairs whose entries to emit."""
    return [f"--gpu-architecture={arch}", f"-I{include_dir}", "--std=c++17", "-lineinfo", *plan.defines(),
            *([plan.entries(pairs)] if pairs else [])]


def nvrtc_compile(source: Path, arch: str, options: list[str]) -> tuple[bytes, bytes]:
    """NVRTC-compile the file ``source``: (its cubin, empty for a virtual ``compute_XY`` arch; its PTX)."""
    import cuda.bindings.nvrtc as nvrtc

    program = check(nvrtc.nvrtcCreateProgram(source.read_bytes(), source.name.encode(), 0, [], []),
                    "nvrtcCreateProgram")
    try:
        (status,) = nvrtc.nvrtcCompileProgram(program, len(options), [o.encode() for o in options])
        if int(status) != 0:
            log = b" " * check(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
            check(nvrtc.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
            text = log.decode(errors="replace").strip(chr(0) + " ")
            raise KernelError(f"NVRTC failed compiling {source.name} for {arch}:\n{text}")

        def output(size_of: Any, get: Any) -> bytes:
            data = b" " * check(size_of(program), "nvrtc size query")
            check(get(program, data), "nvrtc output")
            return data

        cubin = output(nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN) if arch.startswith("sm_") else b""
        return cubin, output(nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX).rstrip(b"\0")
    finally:
        nvrtc.nvrtcDestroyProgram(program)


@functools.lru_cache(maxsize=None)
def compile_kernel(arch: str, float_type: str, index_type: str) -> Code:
    """The type pair's two entry points for ``arch`` (e.g. ``"sm_90"``), compiled once per process."""
    options = compile_options(arch, find_cuda_include_dir(), [(float_type, index_type)])
    cubin, ptx = nvrtc_compile(KERNEL_SOURCE, arch, options)
    return Code(float_type, index_type, arch, cubin, ptx)


def build(float_type: str, index_type: str) -> tuple[Code, ScatterAddKernel]:
    """The type pair's kernels compiled for the GPU of the current CUDA context, and loaded into it."""
    code = compile_kernel(device_arch(current_device()[1]), float_type, index_type)
    return code, load(code)
