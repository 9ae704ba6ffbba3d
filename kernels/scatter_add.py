# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Compile, load and launch ``scatter_add.cu`` with cuda-python (no ``tensorrt``); sizes come from ``plan.py``.
NVRTC is imported only to compile, at build time: running an engine needs no NVRTC and no CUDA headers."""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cuda.bindings.driver as driver
import cuda.bindings.runtime as runtime

from . import plan

KERNEL_SOURCE = Path(__file__).with_name("scatter_add.cu")
ENTRIES = ("scatter_add_zero", "scatter_add", "scatter_add_fixup", "scatter_add_recount")  # in launch order
_P, _LL, _I = ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int
# The .cu file's PARAMS: dst, src, idx, counts, flags, pieces; n_edges, n_nodes; n_feat, then Launch.scalars().
ARG_TYPES = (_P,) * 6 + (_LL, _LL) + (_I,) * 8


class KernelError(RuntimeError):
    """A CUDA or NVRTC failure, with a message meant for the user."""


@dataclass(frozen=True)
class Code:
    """One type pair's kernels compiled for ``arch`` (an ``sm_XY`` cubin), and the interface they expect."""

    float_type: str
    index_type: str
    arch: str
    cubin: bytes
    fingerprint: str


def check(result: tuple[Any, ...], what: str) -> Any:
    """Unwrap a cuda-python ``(status, *values)`` tuple, raising on a non-success status."""
    status, *values = result
    if int(status) != 0:
        raise KernelError(f"{what} failed: {getattr(status, 'name', status)}")
    return values[0] if len(values) == 1 else tuple(values)


def current_device() -> tuple[int, int]:
    """The current CUDA context (as an int) and its device. TensorRT makes its context current before it builds or
    deserializes; where none is (outside TensorRT), the CUDA runtime's current device's, 0 unless set."""
    check(driver.cuInit(0), "cuInit")
    if int(check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")) == 0:
        check(runtime.cudaFree(0), "cudaFree(0), making the runtime's current device current")
    context = check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
    return int(context), int(check(driver.cuCtxGetDevice(), "cuCtxGetDevice"))


def device_attribute(device: int, name: str) -> int:
    attribute = getattr(driver.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}")
    return int(check(driver.cuDeviceGetAttribute(attribute, device), "cuDeviceGetAttribute"))


def device_arch(device: int) -> str:
    """``sm_XY`` for a CUDA device ordinal."""
    major, minor = (device_attribute(device, f"COMPUTE_CAPABILITY_{part}") for part in ("MAJOR", "MINOR"))
    return f"sm_{major}{minor}"


def blocks_that_fit(device: int) -> int:
    """Blocks of the main kernel that fit on the GPU at once (its __launch_bounds__): more would only queue."""
    return plan.MIN_BLOCKS * device_attribute(device, "MULTIPROCESSOR_COUNT")


# ---- Compiling (build time only) ------------------------------------------------------------------------------
def find_cuda_include_dir() -> str:
    """Where NVRTC finds cuda_fp16.h: CUDA_PATH/CUDA_HOME if set, then cuda.pathfinder (the
    nvidia-cuda-runtime wheel, conda, system), then /usr/local/cuda."""
    from cuda.pathfinder import find_nvidia_header_directory

    candidates = [os.path.join(os.environ[v], "include") for v in ("CUDA_PATH", "CUDA_HOME") if os.environ.get(v)]
    candidates += [find_nvidia_header_directory("cudart") or "", "/usr/local/cuda/include"]
    for directory in candidates:
        if directory and os.path.isfile(os.path.join(directory, "cuda_fp16.h")):
            return directory
    raise KernelError("cuda_fp16.h not found for NVRTC: pip install nvidia-cuda-runtime (CUDA 13) or "
                      "nvidia-cuda-runtime-cu12, or set CUDA_PATH to a CUDA toolkit")


def defines(float_type: str, index_type: str) -> list[str]:
    """The -D options: the type pair, and plan.py's block sizes."""
    numbers = {"BLOCK": plan.BLOCK, "MIN_BLOCKS": plan.MIN_BLOCKS, "FIX_BLOCK": plan.FIX_BLOCK,
               "LOAD_BYTES": plan.LOAD_BYTES, "F1_EDGES": plan.F1_EDGES}
    return [f"-DSCATTER_T={plan.FLOATS[float_type][2]}", f"-DSCATTER_I={plan.INDICES[index_type][2]}",
            *(f"-DSCATTER_{name}={value}" for name, value in numbers.items())]


@functools.lru_cache(maxsize=None)
def fingerprint(float_type: str, index_type: str) -> str:
    """What a stored kernel expects of the code that launches it: its source (as LF lines), options and argument
    layout (by size: ctypes' names differ between platforms), the same on every machine."""
    layout = [ctypes.sizeof(t) if t is not _P else "p" for t in ARG_TYPES]
    text = KERNEL_SOURCE.read_bytes().replace(b"\r\n", b"\n") + repr((defines(float_type, index_type), layout,
                                                                      ENTRIES)).encode()
    return hashlib.sha256(text).hexdigest()[:16]


def nvrtc_compile(source: Path, arch: str, options: list[str]) -> bytes:
    """NVRTC-compile the file ``source``: a cubin for ``sm_XY``, PTX for a virtual ``compute_XY``."""
    import cuda.bindings.nvrtc as nvrtc

    program = check(nvrtc.nvrtcCreateProgram(source.read_bytes(), source.name.encode(), 0, [], []),
                    "nvrtcCreateProgram")
    options = [f"--gpu-architecture={arch}", f"-I{find_cuda_include_dir()}", "--std=c++17", "-lineinfo", *options]
    try:
        (status,) = nvrtc.nvrtcCompileProgram(program, len(options), [o.encode() for o in options])
        ok, cubin = int(status) == 0, arch.startswith("sm_")
        size_of, get = ((nvrtc.nvrtcGetProgramLogSize, nvrtc.nvrtcGetProgramLog) if not ok else
                        (nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN) if cubin else
                        (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX))
        data = b" " * check(size_of(program), "nvrtc size query")
        check(get(program, data), "nvrtc output")
    finally:
        nvrtc.nvrtcDestroyProgram(program)
    if not ok:
        text = data.decode(errors="replace").strip(chr(0) + " ")
        raise KernelError(f"NVRTC failed compiling {source.name} for {arch}:\n{text}")
    return data if cubin else data.rstrip(b"\0")


@functools.lru_cache(maxsize=None)
def compile_kernel(arch: str, float_type: str, index_type: str) -> Code:
    """The type pair's two entry points for ``arch`` (e.g. ``"sm_90"``), compiled once per process."""
    cubin = nvrtc_compile(KERNEL_SOURCE, arch, defines(float_type, index_type))
    return Code(float_type, index_type, arch, cubin, fingerprint(float_type, index_type))


def build(float_type: str, index_type: str) -> tuple[Code, ScatterAddKernel]:
    """The type pair's kernels compiled for the GPU of the current CUDA context, and loaded into it."""
    code = compile_kernel(device_arch(current_device()[1]), float_type, index_type)
    return code, load(code)


# ---- Loading and launching (no NVRTC) -----------------------------------------------------------------------
def load_functions(image: bytes, names: tuple[str, ...]) -> tuple[Any, ...]:
    """The entry points ``names`` of a cubin or PTX, loaded into the current context once per context (both
    routes use it): never call it from enqueue. A context's ID, unlike its handle, is never reused."""
    context, _ = current_device()
    return _load(int(check(driver.cuCtxGetId(driver.CUcontext(context)), "cuCtxGetId")), image, names)


@functools.lru_cache(maxsize=None)
def _load(context_id: int, image: bytes, names: tuple[str, ...]) -> tuple[Any, ...]:
    module = check(driver.cuModuleLoadData(image), "cuModuleLoadData")
    return tuple(check(driver.cuModuleGetFunction(module, name.encode()), "cuModuleGetFunction") for name in names)


def cubin_runs_on(built: str, here: str) -> bool:
    """A cubin runs on its own architecture and on later minor versions of it (sm_86's on sm_89)."""
    old, new = (int(arch.removeprefix("sm_")) for arch in (built, here))
    return old // 10 == new // 10 and old <= new


def load(code: Code) -> ScatterAddKernel:
    """``code``'s kernels in the current context (a hardware-compatible engine may meet another GPU)."""
    _, device = current_device()
    here = device_arch(device)
    if not cubin_runs_on(code.arch, here):
        raise KernelError(f"the kernel was compiled for {code.arch}, this GPU is {here}: rebuild the engine here")
    return ScatterAddKernel(load_functions(code.cubin, ENTRIES), code.float_type, blocks_that_fit(device))


@functools.lru_cache(maxsize=1024)  # packing costs more host time than a launch; TensorRT repeats the same values
def packed(values: tuple[int, ...], types: tuple[Any, ...] = ARG_TYPES) -> tuple[int, Any]:
    """Kernel arguments as a ``void*[]``: its address, and the ctypes objects it points into (kept alive here)."""
    held = [ctype(value) for value, ctype in zip(values, types, strict=True)]
    array = (ctypes.c_void_p * len(held))(*[ctypes.addressof(v) for v in held])
    return ctypes.addressof(array), (array, held)


@dataclass(frozen=True)
class ScatterAddKernel:
    """One type pair's kernels (ENTRIES), loaded in one context, ready to launch on any of its streams."""

    functions: tuple[Any, ...]
    float_type: str
    fit: int  # blocks of `main` that fit on the GPU at once: more would only queue

    def launch(self, *, x: int, dst: int, src: int, idx: int, counts: int, n_nodes: int, n_feat: int, n_edges: int,
               workspace: int, stream: int) -> None:
        """``dst = x; dst[idx[e]] += src[e]; counts = in-degree`` on ``stream`` (the .cu's contract), capturable: no
        compile, load, allocation or sync. Where ``x != dst`` (not aliased), x is first copied into dst."""
        if n_nodes == 0:
            return  # no output element exists; every index is out of range
        if (dst | src | idx) % 16:  # TensorRT's buffers are; a slice of someone else's may not be
            raise ValueError("dst, src and idx must be 16-byte aligned (16-byte loads, and vector atomics into dst)")
        work = plan.launch(n_nodes, n_edges, n_feat, self.float_type, self.fit)
        if x != dst:
            size = n_nodes * n_feat * plan.FLOATS[self.float_type][1]
            check(driver.cuMemcpyAsync(dst, x, size, stream), "cuMemcpyAsync")
        if not work.scratch:  # the kernels add into the counts; with the scratch, scatter_add_zero zeroes them
            check(driver.cuMemsetD32Async(counts, 0, n_nodes, stream), "cuMemsetD32Async")
        if not work.blocks:
            return
        args, _ = packed((dst, src, idx, counts, workspace, workspace + work.flag_bytes, n_edges, n_nodes, n_feat,
                          *work.scalars()))
        for function, (blocks, threads) in zip(self.functions, work.grids(), strict=True):
            if blocks:  # no fix-up for one span or F = 0 (counts only); zero and recount only with the scratch
                check(driver.cuLaunchKernel(function, blocks, 1, 1, threads, 1, 1, 0, stream, args, 0),
                      "cuLaunchKernel")
