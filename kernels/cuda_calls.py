# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The CUDA plumbing the kernels and the QDP route share, with cuda-python: the current GPU, the
NVRTC compile (at build time only: running an engine needs no NVRTC and no CUDA headers), loading
once per context, launching with packed arguments, and the fingerprint's hash."""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import cuda.bindings.driver as driver
import cuda.bindings.runtime as runtime

P, LL, I = ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int  # kernel arguments' ctypes


class KernelError(RuntimeError):
    """A CUDA or NVRTC failure, with a message meant for the user."""


def check(result: tuple[Any, ...], what: str) -> Any:
    """Unwrap a cuda-python ``(status, *values)`` tuple, raising on a non-success status."""
    status, *values = result
    if int(status) != 0:
        raise KernelError(f"{what} failed: {getattr(status, 'name', status)}")
    return values[0] if len(values) == 1 else tuple(values)


def current_device() -> tuple[int, int]:
    """The current CUDA context (as an int) and its device: TensorRT's while it builds or loads an
    engine; elsewhere, where none is current, the CUDA runtime's current device's (0 unless set)."""
    try:
        initialized = driver.cuInit(0)
    except RuntimeError as missing:  # cuda.pathfinder's, where libcuda cannot be loaded at all
        raise KernelError(f"no NVIDIA driver: the CUDA driver library cannot be loaded ({missing})"
                          f"; the kernel needs a GPU and its driver") from None
    check(initialized, "cuInit")
    if int(check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")) == 0:
        check(runtime.cudaFree(0), "cudaFree(0), making the runtime's current device current")
    context = check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
    return int(context), int(check(driver.cuCtxGetDevice(), "cuCtxGetDevice"))


def device_attribute(device: int, name: str) -> int:
    attribute = getattr(driver.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}")
    return int(check(driver.cuDeviceGetAttribute(attribute, device), "cuDeviceGetAttribute"))


def device_arch(device: int) -> str:
    major, minor = (device_attribute(device, f"COMPUTE_CAPABILITY_{p}") for p in ("MAJOR", "MINOR"))
    return f"sm_{major}{minor}"


def arch_number(arch: str) -> int:
    return int(arch.removeprefix("sm_"))  # sm_90 -> 90


def cubin_runs_on(built: str, here: str) -> bool:
    """A cubin runs on its own architecture and on later minor versions of it (sm_86's on sm_89)."""
    old, new = arch_number(built), arch_number(here)
    return old // 10 == new // 10 and old <= new


def fingerprint(sources: Iterable[Path], *settings: object) -> str:
    """16 hex digits of the sources, as LF lines (the same on every checkout), and ``settings``."""
    text = b"".join(path.read_bytes().replace(b"\r\n", b"\n") for path in sources)
    return hashlib.sha256(text + repr(settings).encode()).hexdigest()[:16]


def find_cuda_include_dir() -> str:
    """Where NVRTC finds cuda_fp16.h: CUDA_PATH or CUDA_HOME, then cuda.pathfinder (the
    nvidia-cuda-runtime wheel, conda, system), then /usr/local/cuda."""
    from cuda.pathfinder import find_nvidia_header_directory

    roots = [os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME")]
    candidates = [*(os.path.join(root, "include") for root in roots if root),
                  find_nvidia_header_directory("cudart"), "/usr/local/cuda/include"]
    for directory in candidates:
        if directory and os.path.isfile(os.path.join(directory, "cuda_fp16.h")):
            return directory
    raise KernelError("cuda_fp16.h not found for NVRTC: pip install nvidia-cuda-runtime (CUDA 13) "
                      "or nvidia-cuda-runtime-cu12, or set CUDA_PATH to a CUDA toolkit")


def nvrtc_compile(source: Path, arch: str, options: list[str]) -> bytes:
    """The file ``source`` compiled by NVRTC: a cubin for ``sm_XY``, PTX for ``compute_XY``."""
    import cuda.bindings.nvrtc as nvrtc

    created = nvrtc.nvrtcCreateProgram(source.read_bytes(), source.name.encode(), 0, [], [])
    program = check(created, "nvrtcCreateProgram")
    options = [f"--gpu-architecture={arch}", f"-I{find_cuda_include_dir()}", "--std=c++17",
               "-lineinfo", *options]
    cubin = arch.startswith("sm_")
    try:
        (status,) = nvrtc.nvrtcCompileProgram(program, len(options), [o.encode() for o in options])
        ok = int(status) == 0
        size_of, get = nvrtc.nvrtcGetProgramLogSize, nvrtc.nvrtcGetProgramLog
        if ok and cubin:
            size_of, get = nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN
        elif ok:
            size_of, get = nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX
        data = b" " * check(size_of(program), "nvrtc size query")
        check(get(program, data), "nvrtc output")
    finally:
        nvrtc.nvrtcDestroyProgram(program)
    if not ok:
        text = data.decode(errors="replace").strip(chr(0) + " ")
        raise KernelError(f"NVRTC failed compiling {source.name} for {arch}:\n{text}")
    return data if cubin else data.rstrip(b"\0")


def load(image: bytes, names: tuple[str, ...], arch: str = "") -> tuple[tuple[Any, ...], int]:
    """The entry points ``names`` of a cubin for ``arch`` (refused on another GPU: an engine built
    hardware-compatible may meet one) or of PTX, loaded into the current context once per context
    (never from enqueue), and the context's device."""
    context, device = current_device()
    here = device_arch(device)
    if arch and not cubin_runs_on(arch, here):
        raise KernelError(f"the kernel was compiled for {arch}, this GPU is {here}: rebuild the "
                          f"engine here")
    context_id = int(check(driver.cuCtxGetId(driver.CUcontext(context)), "cuCtxGetId"))
    return _load(context_id, image, names), device  # an ID, unlike a handle, is never reused


@functools.lru_cache(maxsize=None)
def _load(context_id: int, image: bytes, names: tuple[str, ...]) -> tuple[Any, ...]:
    module = check(driver.cuModuleLoadData(image), "cuModuleLoadData")
    return tuple(check(driver.cuModuleGetFunction(module, n.encode()), n) for n in names)


Packed = tuple[int, Any]  # a void*[] of kernel arguments: its address, and what keeps it alive


@functools.lru_cache(maxsize=1024)  # packing takes more host time than a launch; TensorRT repeats
def packed(values: tuple[int, ...], types: tuple[Any, ...]) -> Packed:
    """Kernel arguments as a ``void*[]``: its address, and the ctypes objects it points into. Pass
    the pair whole to ``launch``: the cache alone may drop it (another thread packing meanwhile)."""
    held = [ctype(value) for value, ctype in zip(values, types, strict=True)]
    array = (ctypes.c_void_p * len(held))(*[ctypes.addressof(v) for v in held])
    return ctypes.addressof(array), (array, held)


def launch(function: Any, blocks: int, threads: int, args: Packed, stream: int) -> None:
    """``function`` on ``stream``. ``args`` (``packed``'s pair) stays alive here until
    cuLaunchKernel has read the argument block it points to."""
    address, _alive = args
    launched = driver.cuLaunchKernel(function, blocks, 1, 1, threads, 1, 1, 0, stream, address, 0)
    check(launched, "cuLaunchKernel")
