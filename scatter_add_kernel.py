"""Compile, cache and launch the scatter-add kernel in ``kernels/scatter_add.cu``.

This module is the kernel launcher shared by the TensorRT plugin and by everything that runs
the kernel outside TensorRT (tests, benchmarks). It never imports ``tensorrt``.

Entry points:
  * :func:`get_kernel` - compile once per (source, GPU architecture, headers) and load once
    per (CUDA context, variant); returns a :class:`ScatterAddKernel`.
  * :meth:`ScatterAddKernel.launch` - raw device pointers, a CUDA stream handle (int).
    This is what the plugin's ``enqueue`` calls: no compile, no allocation, no sync.
  * :func:`scatter_add` - the same on CuPy arrays, for use outside TensorRT.
"""

from __future__ import annotations

import ctypes
import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import cuda.bindings.driver as driver
import cuda.bindings.nvrtc as nvrtc

KERNEL_SOURCE = Path(__file__).with_name("kernels") / "scatter_add.cu"
# Must match CHUNK and WARPS_PER_BLOCK in the .cu file (launch geometry).
EDGES_PER_WARP = 32
WARPS_PER_BLOCK = 8

FLOAT_TYPES = ("fp32", "fp16", "bf16")
INDEX_TYPES = ("int32", "int64")
_FLOAT_SUFFIX = {"fp32": "f32", "fp16": "f16", "bf16": "bf16"}
_INDEX_SUFFIX = {"int32": "i32", "int64": "i64"}
ITEMSIZE = {"fp32": 4, "fp16": 2, "bf16": 2}

_ARG_TYPES = (
    ctypes.c_void_p,  # dst (aliased with X)
    ctypes.c_void_p,  # src
    ctypes.c_void_p,  # idx
    ctypes.c_void_p,  # counts
    ctypes.c_longlong,  # n_edges
    ctypes.c_longlong,  # n_nodes
    ctypes.c_int,  # n_feat
)


class KernelError(RuntimeError):
    """A CUDA, NVRTC or header-discovery failure, with a message meant for the user."""


def _check(result: tuple[Any, ...], what: str) -> Any:
    """Unwrap a cuda-python ``(status, *values)`` tuple, raising on a non-success status."""
    status, *values = result
    if int(status) != 0:
        name = status.name if hasattr(status, "name") else str(status)
        raise KernelError(f"{what} failed: {name}")
    return values[0] if len(values) == 1 else tuple(values)


def kernel_name(float_type: str, index_type: str) -> str:
    """The extern "C" entry point for one (float type, index type) variant."""
    if float_type not in FLOAT_TYPES or index_type not in INDEX_TYPES:
        raise ValueError(f"unsupported kernel variant {float_type}/{index_type}")
    return f"scatter_add_{_FLOAT_SUFFIX[float_type]}_{_INDEX_SUFFIX[index_type]}"


def find_cuda_include_dir() -> str:
    """Directory holding ``cuda_fp16.h`` and ``cuda_bf16.h`` for NVRTC.

    Order: ``CUDA_PATH``/``CUDA_HOME`` if set (an explicit system toolkit wins), then
    ``cuda.pathfinder`` (the ``nvidia-cuda-runtime`` wheel, conda, then system locations).
    """
    candidates: list[str] = []
    for var in ("CUDA_PATH", "CUDA_HOME"):
        if os.environ.get(var):
            candidates.append(os.path.join(os.environ[var], "include"))
    try:
        from cuda.pathfinder import find_nvidia_header_directory

        found = find_nvidia_header_directory("cudart")
        if found:
            candidates.append(found)
    except ImportError:  # cuda-pathfinder ships with cuda-python >= 12.9; older installs lack it
        pass
    candidates.append("/usr/local/cuda/include")
    for directory in candidates:
        if os.path.isfile(os.path.join(directory, "cuda_fp16.h")):
            return directory
    raise KernelError(
        "cuda_fp16.h not found: pip install nvidia-cuda-runtime (CUDA 13) or "
        "nvidia-cuda-runtime-cu12, or set CUDA_PATH to a CUDA toolkit"
    )


def _nvrtc_log(program: Any) -> str:
    size = _check(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
    log = b" " * size
    _check(nvrtc.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
    return log.decode(errors="replace").rstrip("\x00").strip()


@functools.lru_cache(maxsize=None)
def compile_cubin(source: str, arch: str, include_dir: str) -> bytes:
    """NVRTC-compile ``source`` to a cubin for ``arch`` (e.g. ``"sm_90"``); cached per process.

    The source text itself is part of the cache key, so an edited .cu file recompiles.
    """
    program = _check(
        nvrtc.nvrtcCreateProgram(source.encode(), KERNEL_SOURCE.name.encode(), 0, [], []),
        "nvrtcCreateProgram",
    )
    options = [f"--gpu-architecture={arch}", f"-I{include_dir}", "--std=c++17", "-lineinfo"]
    try:
        (status,) = nvrtc.nvrtcCompileProgram(program, len(options), [o.encode() for o in options])
        if int(status) != 0:
            raise KernelError(f"NVRTC failed compiling {KERNEL_SOURCE} for {arch}:\n{_nvrtc_log(program)}")
        size = _check(nvrtc.nvrtcGetCUBINSize(program), "nvrtcGetCUBINSize")
        cubin = b" " * size
        _check(nvrtc.nvrtcGetCUBIN(program, cubin), "nvrtcGetCUBIN")
        return cubin
    finally:
        nvrtc.nvrtcDestroyProgram(program)


def _current_context() -> tuple[Any, int]:
    """The current CUDA context and its device, making the primary context current if none is.

    TensorRT, CuPy and Polygraphy all use the device's primary context through the runtime API,
    so the module loaded here is visible to the streams they hand us.
    """
    _check(driver.cuInit(0), "cuInit")
    context = _check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if int(context) == 0:
        device = _check(driver.cuDeviceGet(0), "cuDeviceGet")
        context = _check(driver.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
        _check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    device = _check(driver.cuCtxGetDevice(), "cuCtxGetDevice")
    return context, int(device)


def device_arch(device: int) -> str:
    """``sm_XY`` for a CUDA device ordinal."""
    attr = driver.CUdevice_attribute
    major = _check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "cuDeviceGetAttribute")
    minor = _check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "cuDeviceGetAttribute")
    return f"sm_{major}{minor}"


@dataclass(frozen=True)
class ScatterAddKernel:
    """One loaded kernel variant, ready to launch on any stream of its context."""

    function: Any
    float_type: str
    index_type: str
    arch: str

    def launch(
        self,
        x: int,
        dst: int,
        src: int,
        idx: int,
        counts: int,
        n_nodes: int,
        n_feat: int,
        n_edges: int,
        stream: int,
    ) -> None:
        """``dst = x; dst[idx[e]] += src[e]; counts = in-degree``, all enqueued on ``stream``.

        ``x == dst`` is the aliased (in-place) case. If the addresses differ, ``x`` is first
        copied into ``dst`` on the same stream, so the result is right either way. Zero-sized
        tensors may arrive as null pointers; nothing touches them.
        """
        row_bytes = n_feat * ITEMSIZE[self.float_type]
        if n_nodes > 0:
            if x != dst:
                _check(driver.cuMemcpyAsync(dst, x, n_nodes * row_bytes, stream), "cuMemcpyAsync")
            _check(driver.cuMemsetD32Async(counts, 0, n_nodes, stream), "cuMemsetD32Async")
        if n_edges == 0 or n_nodes == 0 or n_feat == 0:
            return
        warps = -(-n_edges // EDGES_PER_WARP)
        blocks = -(-warps // WARPS_PER_BLOCK)
        args = ((dst, src, idx, counts, n_edges, n_nodes, n_feat), _ARG_TYPES)
        _check(
            driver.cuLaunchKernel(self.function, blocks, 1, 1, WARPS_PER_BLOCK * 32, 1, 1, 0, stream, args, 0),
            "cuLaunchKernel",
        )


def get_kernel(float_type: str, index_type: str) -> ScatterAddKernel:
    """The kernel variant for the current context: compiled and loaded on first use only.

    Later calls cost one driver call and a dictionary lookup, so callers such as the plugin's
    ``on_shape_change`` (run whenever shapes or addresses change) may call it freely. Never call
    it from ``enqueue``.
    """
    context, device = _current_context()
    return _load_kernel(int(context), device, float_type, index_type)


@functools.lru_cache(maxsize=None)
def _load_kernel(context_handle: int, device: int, float_type: str, index_type: str) -> ScatterAddKernel:
    """Compile (cached per source, arch, headers) and load into one context; cached per context."""
    name = kernel_name(float_type, index_type)
    arch = device_arch(device)
    cubin = compile_cubin(KERNEL_SOURCE.read_text(), arch, find_cuda_include_dir())
    module = _check(driver.cuModuleLoadData(cubin), "cuModuleLoadData")
    function = _check(driver.cuModuleGetFunction(module, name.encode()), "cuModuleGetFunction")
    return ScatterAddKernel(function, float_type, index_type, arch)


def float_type_of(dtype: Any) -> str:
    """Map a NumPy/CuPy dtype (bf16 is stored as uint16 bits) to the kernel's float type name."""
    table = {np.dtype(np.float32): "fp32", np.dtype(np.float16): "fp16", np.dtype(np.uint16): "bf16"}
    try:
        return table[np.dtype(dtype)]
    except KeyError:
        raise ValueError(f"unsupported feature dtype {dtype}; use float32, float16 or uint16 (bf16 bits)") from None


def scatter_add(x: Any, src: Any, idx: Any, counts: Any, stream: Any = None, out: Any = None) -> Any:
    """Run the kernel on CuPy arrays: ``out = x`` (default: in place) plus the scatter-add.

    Args:
        x: ``[N, F]`` float32, float16, or uint16 holding bfloat16 bits.
        src: ``[E, F]`` same dtype as ``x``.
        idx: ``[E]`` int32 or int64 destination rows, 0-based; out-of-range entries are skipped.
        counts: ``[N]`` or ``[N, 1]`` int32, overwritten with the in-degree of each row.
        stream: a ``cupy.cuda.Stream`` (default: CuPy's current stream).
        out: destination ``[N, F]``; ``None`` means update ``x`` in place.

    Returns:
        The array that holds the result (``x`` itself when ``out`` is None).
    """
    import cupy as cp

    out = x if out is None else out
    n_nodes, n_feat = _check_arrays(x, src, idx, counts, out)
    index_type = "int32" if idx.dtype == np.int32 else "int64"
    stream = cp.cuda.get_current_stream() if stream is None else stream
    with cp.cuda.Device(x.device.id):
        kernel = get_kernel(float_type_of(x.dtype), index_type)
        kernel.launch(x.data.ptr, out.data.ptr, src.data.ptr, idx.data.ptr, counts.data.ptr,
                      n_nodes, n_feat, int(idx.shape[0]), stream.ptr)
    return out


def _check_arrays(x: Any, src: Any, idx: Any, counts: Any, out: Any) -> tuple[int, int]:
    """Shapes, dtypes, contiguity and alignment that the kernel relies on."""
    if x.ndim != 2 or src.ndim != 2 or idx.ndim != 1:
        raise ValueError("expected x [N, F], src [E, F] and idx [E]")
    n_nodes, n_feat = x.shape
    if src.shape[1] != n_feat or src.shape[0] != idx.shape[0]:
        raise ValueError(f"src {src.shape} does not match x {x.shape} and idx {idx.shape}")
    if out.shape != x.shape or out.dtype != x.dtype or src.dtype != x.dtype:
        raise ValueError("x, src and out must share one dtype, and out must have x's shape")
    if idx.dtype not in (np.int32, np.int64) or counts.dtype != np.int32 or counts.size != n_nodes:
        raise ValueError("idx must be int32/int64 and counts int32 with N elements")
    for name, a in (("x", x), ("src", src), ("idx", idx), ("counts", counts), ("out", out)):
        if not a.flags.c_contiguous or a.data.ptr % 4:
            raise ValueError(f"{name} must be C-contiguous and 4-byte aligned")
    return int(n_nodes), int(n_feat)
