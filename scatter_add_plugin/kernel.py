# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Load and launch the compiled scatter-add kernels with cuda-python's driver API; no ``tensorrt``, no NVRTC.

:func:`load` takes what ``compiler.py`` made (the cubin, or its PTX on a GPU the cubin does not run on) into
the current CUDA context, once per context. :meth:`ScatterAddKernel.launch` is what ``enqueue`` calls: up to
three GPU operations on the given stream (zero the counts, the kernel, the fix-up kernel; a copy of X first
where output 0 is a buffer of its own, as with ``--no-alias``), with no compile, load, allocation or sync, so
that it can be captured in a CUDA graph. Every size comes from ``plan.py``.
"""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass
from typing import Any

import cuda.bindings.driver as driver

from . import plan

_P, _LL, _I = ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int
# The .cu file's PARAMS: dst, src, idx, counts, flags, pieces; n_edges, n_nodes; n_feat, then Launch.scalars().
ARG_TYPES = (_P,) * 6 + (_LL, _LL) + (_I,) * 7


@dataclass(frozen=True)
class Code:
    """One type pair's compiled kernels: a cubin for ``arch`` and PTX that a newer GPU's driver compiles."""

    float_type: str
    index_type: str
    arch: str
    cubin: bytes
    ptx: bytes


class KernelError(RuntimeError):
    """A CUDA or NVRTC failure, with a message meant for the user."""


def check(result: tuple[Any, ...], what: str) -> Any:
    """Unwrap a cuda-python ``(status, *values)`` tuple, raising on a non-success status."""
    status, *values = result
    if int(status) != 0:
        raise KernelError(f"{what} failed: {getattr(status, 'name', status)}")
    return values[0] if len(values) == 1 else tuple(values)


def current_device() -> tuple[int, int]:
    """The current CUDA context (as an int) and its device. TensorRT makes its context current before it
    builds or deserializes, so that is the GPU the engine runs on; with none current, no GPU is guessed."""
    check(driver.cuInit(0), "cuInit")
    context = check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if int(context) == 0:
        raise KernelError("no CUDA context is current: choose the GPU (cudaSetDevice, or any CUDA call on it) "
                          "before building or deserializing the engine")
    return int(context), int(check(driver.cuCtxGetDevice(), "cuCtxGetDevice"))


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
            raise ValueError("dst, src and idx must be 16-byte aligned (16-byte loads, and vector atomics into dst)")
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


def load(code: Code) -> ScatterAddKernel:
    """``code``'s two kernels in the current context, loaded once per context: never call it from enqueue."""
    context, device = current_device()
    # A context's ID, unlike its handle, is never reused: a reset primary context gets new modules.
    context_id = int(check(driver.cuCtxGetId(driver.CUcontext(context)), "cuCtxGetId"))
    return _load(context_id, device, code.float_type, code.index_type, code.arch, code.cubin, code.ptx)


@functools.lru_cache(maxsize=None)
def _load(context_id: int, device: int, float_type: str, index_type: str, arch: str, cubin: bytes,
          ptx: bytes) -> ScatterAddKernel:
    # The cubin runs on the architecture it was built for; the driver compiles the PTX for any newer GPU.
    for image in (cubin, ptx + b"\0"):
        result = driver.cuModuleLoadData(image)
        if int(result[0]) == 0:
            break
    module = check(result, f"loading the kernel built for {arch} on {device_arch(device)}")
    main, fixup = (check(driver.cuModuleGetFunction(module, plan.kernel_name(float_type, index_type, f).encode()),
                         "cuModuleGetFunction") for f in (False, True))
    return ScatterAddKernel(main, fixup, float_type, blocks_that_fit(device))
