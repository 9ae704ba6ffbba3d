"""Compile, cache and launch the scatter-add kernels in ``scatter_add.cu``; no ``tensorrt`` here.

:func:`get_kernel` compiles one type pair with NVRTC for the current GPU (or reads the cubin from the disk
cache, ``cubin_cache.py``) and loads it, once per CUDA context: the plugin calls it in ``on_shape_change``.
:meth:`ScatterAddKernel.launch` is what ``enqueue`` calls: up to three GPU operations on the given stream
(zero the counts, the kernel, the fix-up kernel), with no compile, allocation or sync, so that it can be
captured in a CUDA graph. Every size decision, from the -D options to the grids, comes from ``plan.py``.
"""

from __future__ import annotations

import ctypes
import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import cuda.bindings.driver as driver
import cuda.bindings.nvrtc as nvrtc

from kernels import cubin_cache, plan

KERNEL_SOURCE = Path(__file__).with_name("scatter_add.cu")
_P, _LL, _I = ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int
# The .cu file's PARAMS: dst, src, idx, counts, flags, pieces; n_edges, n_nodes; n_feat, then Launch.scalars().
ARG_TYPES = (_P,) * 6 + (_LL, _LL) + (_I,) * 7
ALL_PAIRS = tuple((f, i) for f in plan.FLOATS for i in plan.INDICES)
INCLUDED = ("cuda_fp16.h", "cuda_bf16.h")  # what the .cu includes (with their .hpp parts): in the cache key


class KernelError(RuntimeError):
    """A CUDA or NVRTC failure, with a message meant for the user."""


def check(result: tuple[Any, ...], what: str) -> Any:
    """Unwrap a cuda-python ``(status, *values)`` tuple, raising on a non-success status."""
    status, *values = result
    if int(status) != 0:
        raise KernelError(f"{what} failed: {getattr(status, 'name', status)}")
    return values[0] if len(values) == 1 else tuple(values)


# -- compiling ---------------------------------------------------------------------------------------------

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


def nvrtc_compile(source: str, arch: str, options: list[str], ptx: bool, headers: dict[str, str] | None = None,
                  name: str = KERNEL_SOURCE.name) -> bytes:
    """NVRTC-compile ``source`` (``headers``: files it includes by name) to PTX or a cubin."""
    headers = headers or {}
    program = check(nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), len(headers),
                                             [h.encode() for h in headers.values()], [n.encode() for n in headers]),
                    "nvrtcCreateProgram")
    size_of, get = (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX) if ptx else (nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN)
    try:
        (status,) = nvrtc.nvrtcCompileProgram(program, len(options), [o.encode() for o in options])
        if int(status) != 0:
            log = b" " * check(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
            check(nvrtc.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
            text = log.decode(errors="replace").strip(chr(0) + " ")
            raise KernelError(f"NVRTC failed compiling {name} for {arch}:\n{text}")
        output = b" " * check(size_of(program), "nvrtc size query")
        check(get(program, output), "nvrtc output")
        return output
    finally:
        nvrtc.nvrtcDestroyProgram(program)


@functools.lru_cache(maxsize=None)
def compile_cubin(source: str, arch: str, include_dir: str, pairs: tuple[tuple[str, str], ...]) -> bytes:
    """The cubin of ``source`` for ``arch`` with these type pairs' entries, compiled once per process."""
    return nvrtc_compile(source, arch, compile_options(arch, include_dir, pairs), ptx=False)


def nvrtc_version() -> tuple[int, int]:
    major, minor = check(nvrtc.nvrtcVersion(), "nvrtcVersion")
    return int(major), int(minor)


class Cubin(NamedTuple):
    code: bytes
    from_cache: bool  # read from the disk cache
    stored: bool  # compiled now, and written to the cache


@functools.lru_cache(maxsize=None)
def cubin_for(arch: str, pair: tuple[str, str]) -> Cubin:
    """One type pair's cubin for ``arch`` (e.g. ``"sm_90"``), once per process: from the disk cache when an
    entry matches every input of the compile, else compiled with NVRTC and stored."""
    source, include_dir = KERNEL_SOURCE.read_text(), find_cuda_include_dir()
    options, directory = compile_options(arch, include_dir, [pair]), cubin_cache.cache_dir()
    headers = {n: Path(include_dir, n).read_bytes() for n in os.listdir(include_dir) if n.startswith(INCLUDED)}
    key = cubin_cache.cache_key(source, arch, options, headers, nvrtc_version())
    cubin = cubin_cache.load(directory, key)
    if cubin is not None:
        return Cubin(cubin, True, False)
    cubin = compile_cubin(source, arch, include_dir, (pair,))
    return Cubin(cubin, False, cubin_cache.store(directory, key, cubin))


# -- loading and launching ---------------------------------------------------------------------------------

def current_context() -> tuple[Any, int]:
    """The current CUDA context and its device, making the device's primary context current if none is:
    TensorRT, CuPy and Polygraphy all use it, so what is loaded here serves their streams."""
    check(driver.cuInit(0), "cuInit")
    context = check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if int(context) == 0:
        context = check(driver.cuDevicePrimaryCtxRetain(check(driver.cuDeviceGet(0), "cuDeviceGet")),
                        "cuDevicePrimaryCtxRetain")
        check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    return context, int(check(driver.cuCtxGetDevice(), "cuCtxGetDevice"))


def device_attribute(device: int, name: str) -> int:
    attribute = getattr(driver.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}")
    return int(check(driver.cuDeviceGetAttribute(attribute, device), "cuDeviceGetAttribute"))


def device_arch(device: int) -> str:
    """``sm_XY`` for a CUDA device ordinal."""
    major, minor = (device_attribute(device, f"COMPUTE_CAPABILITY_{part}") for part in ("MAJOR", "MINOR"))
    return f"sm_{major}{minor}"


def blocks_that_fit(device: int) -> int:
    return plan.blocks_that_fit(device_attribute(device, "MULTIPROCESSOR_COUNT"))


class KernelParams:
    """Kernel arguments packed once: a ``void*[]`` whose entries point at values this object holds, so the
    arguments live as long as it does."""

    def __init__(self, values: tuple[int, ...], types: tuple[Any, ...]) -> None:
        self._values = [ctype(value) for value, ctype in zip(values, types, strict=True)]
        self._array = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in self._values])
        self.address = ctypes.addressof(self._array)


@functools.lru_cache(maxsize=1024)
def packed(values: tuple[int, ...], types: tuple[Any, ...] = ARG_TYPES) -> KernelParams:
    """Packing costs more host time than a launch; TensorRT repeats the same pointers and sizes."""
    return KernelParams(values, types)


@dataclass(frozen=True)
class ScatterAddKernel:
    """One type pair's two kernels, loaded in one context, ready to launch on any of its streams."""

    main: Any
    fixup: Any
    float_type: str
    fit: int  # blocks of `main` that fit on the GPU at once: more would only queue

    def launch(self, *, x: int, dst: int, src: int, idx: int, counts: int, n_nodes: int, n_feat: int, n_edges: int,
               workspace: int, stream: int) -> None:
        """``dst = x; dst[idx[e]] += src[e]; counts = in-degree``, all enqueued on ``stream``.

        ``x == dst`` is the aliased (in-place) case; if the addresses differ, x is first copied into dst on the
        same stream. ``workspace``: ``plan.workspace_size`` bytes or more, 256-byte aligned, any content.
        Zero-sized tensors may come as null pointers; nothing reads them.
        """
        if n_nodes == 0:
            return  # no output element exists; every index is out of range
        if (dst | src | idx) % 16:  # TensorRT's buffers are; a slice of someone else's may not be
            raise ValueError("dst, src and idx must be 16-byte aligned (the kernel makes 16-byte loads)")
        work = plan.launch(n_nodes, n_edges, n_feat, self.float_type, self.fit)
        if x != dst:
            size = n_nodes * n_feat * plan.FLOATS[self.float_type][1]
            check(driver.cuMemcpyAsync(dst, x, size, stream), "cuMemcpyAsync")
        check(driver.cuMemsetD32Async(counts, 0, n_nodes, stream), "cuMemsetD32Async")  # the kernels add into it
        if not work.blocks:
            return
        args = packed((dst, src, idx, counts, workspace, workspace + work.flag_bytes, n_edges, n_nodes, n_feat,
                       *work.scalars()))
        for function, blocks, threads in ((self.main, work.blocks, plan.BLOCK),
                                          (self.fixup, work.fix_blocks, plan.FIX_BLOCK)):
            if blocks:  # no fix-up for one span (no run crosses) or F = 0 (counts only)
                check(driver.cuLaunchKernel(function, blocks, 1, 1, threads, 1, 1, 0, stream, args.address, 0),
                      "cuLaunchKernel")


def get_kernel(float_type: str, index_type: str) -> ScatterAddKernel:
    """The type pair's kernels for the current context, compiled and loaded on first use only. Later calls are
    a driver call and a dictionary lookup (``on_shape_change`` may call freely); never call it from enqueue."""
    context, device = current_context()
    return _load_kernel(int(context), device, float_type, index_type)


@functools.lru_cache(maxsize=None)
def _load_kernel(context_handle: int, device: int, float_type: str, index_type: str) -> ScatterAddKernel:
    module = check(driver.cuModuleLoadData(cubin_for(device_arch(device), (float_type, index_type)).code),
                   "cuModuleLoadData")
    return kernel_from_module(module, float_type, index_type, device)


def kernel_from_module(module: Any, float_type: str, index_type: str, device: int) -> ScatterAddKernel:
    """The type pair's two entry points in a loaded module (the benchmarks load other builds of the .cu too)."""
    main, fixup = (check(driver.cuModuleGetFunction(module, plan.kernel_name(float_type, index_type, f).encode()),
                         "cuModuleGetFunction") for f in (False, True))
    return ScatterAddKernel(main, fixup, float_type, blocks_that_fit(device))
