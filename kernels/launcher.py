"""Compile, cache and launch the scatter-add kernel in ``kernels/scatter_add.cu``; no ``tensorrt`` here.

:func:`prepare` compiles the kernels for the current GPU (or reads them from the disk cache,
``cubin_cache.py``) and loads them, early, so that an NVRTC problem shows before any TensorRT work.
:meth:`ScatterAddKernel.launch` is what the plugin's ``enqueue`` calls: three GPU operations on the
given stream (zero the counts, the kernel, the fix-up kernel), no compile, allocation or sync, so it
can be captured in a CUDA graph. How the kernel cuts the edges is decided in the .cu file alone;
this file only knows the bound the .cu file promises (``max_spans``).
"""

from __future__ import annotations

import ctypes
import functools
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cuda.bindings.driver as driver
import cuda.bindings.nvrtc as nvrtc

from kernels import cubin_cache

KERNEL_SOURCE = Path(__file__).with_name("scatter_add.cu")
# Reach the .cu file as -D options (compile_options): the two sides cannot disagree.
BLOCK = 256
MIN_BLOCKS = 4  # blocks per SM that __launch_bounds__ makes room for (registers)
WIDE_BYTES = 8  # a lane's vector in rows wider than 16 bytes
LOAD_BYTES = 128  # bytes of src and idx each lane keeps in flight (4-byte types; half for 16-bit)
SPAN_EDGES = 2048  # edges per warp, at most; fewer for small inputs, down to one load per lane
TARGET_SPANS = 4096  # spans shrink until there are this many (enough warps to fill the GPU)
FIX_BLOCK = 1024  # threads of a fix-up block: a run across hundreds of spans is summed by one block
MAX_EDGES = MAX_NODES = 2**31 - 1  # counts are int32; rows are 32-bit words below an out-of-range marker

# name -> (kernel suffix, bytes per element, storage dtype: bf16 travels as its uint16 bits, C++ type)
FLOATS = {"fp32": ("f32", 4, "float32", "float"), "fp16": ("f16", 2, "float16", "__half"),
          "bf16": ("bf16", 2, "uint16", "__nv_bfloat16")}
INDICES = {"int32": "int", "int64": "long long"}  # name -> C++ type
FLOAT_TYPES, INDEX_TYPES = tuple(FLOATS), tuple(INDICES)
_P, _LL, _I = ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int
_ARGS = (_P, _P, _P, _P, _P, _LL, _LL, _I)  # (dst, src, idx, counts, workspace, n_edges, n_nodes, n_feat)


class KernelError(RuntimeError):
    """A CUDA or NVRTC failure, with a message meant for the user."""


class HeadersNotFound(KernelError):
    """NVRTC needs cuda_fp16.h / cuda_bf16.h and none were found: a package is missing."""


def check(result: tuple[Any, ...], what: str) -> Any:
    """Unwrap a cuda-python ``(status, *values)`` tuple, raising on a non-success status."""
    status, *values = result
    if int(status) != 0:
        raise KernelError(f"{what} failed: {getattr(status, 'name', status)}")
    return values[0] if len(values) == 1 else tuple(values)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def max_spans(n_edges: int) -> int:
    """The most spans (one warp each) the kernel cuts n_edges into: ``shape_of`` in the .cu file."""
    return min(n_edges, max(_ceil_div(n_edges, SPAN_EDGES), 2 * TARGET_SPANS) + 1)


def workspace_size(max_edges: int, n_feat: int) -> int:
    """Bytes of workspace for up to max_edges edges of at most n_feat features, any type: a flag per
    span, then two fp32 rows per span (the pieces of runs across spans; ``pieces_of`` in the .cu)."""
    spans = max(max_spans(max_edges), 1)
    return _ceil_div(4 * spans, 256) * 256 + 8 * spans * n_feat


@functools.lru_cache(maxsize=256)  # enqueue asks on every call; TensorRT repeats the same sizes
def grids(n_edges: int, n_nodes: int, n_feat: int, max_blocks: int) -> tuple[int, int]:
    """Blocks of the kernel (8 warps, a span each, at most what fits at once) and of the fix-up (a
    thread per span and column, at most). Extra ones find no work: any grid size is correct."""
    if n_edges > MAX_EDGES or n_nodes > MAX_NODES:
        raise ValueError(f"{n_edges} edges, {n_nodes} nodes: the kernel takes at most {MAX_EDGES} of each "
                         "(int32 counts, 32-bit rows)")
    spans = max_spans(n_edges)
    return max(1, min(max_blocks, _ceil_div(spans, BLOCK // 32))), max(1, _ceil_div(spans * max(n_feat, 1), FIX_BLOCK))


def kernel_name(float_type: str, index_type: str, fixup: bool = False) -> str:
    """An entry point of the .cu file (its ENTRIES macro)."""
    if float_type not in FLOATS or index_type not in INDICES:
        raise ValueError(f"unsupported kernel variant {float_type}/{index_type}")
    return f"scatter_add_{'fixup_' if fixup else ''}{FLOATS[float_type][0]}_i{index_type[3:]}"


# -- compiling ----------------------------------------------------------------------------

def find_cuda_include_dir() -> str:
    """Where NVRTC finds cuda_fp16.h and cuda_bf16.h: CUDA_PATH/CUDA_HOME if set (an explicit
    toolkit wins), then cuda.pathfinder (the nvidia-cuda-runtime wheel, conda, system), then
    /usr/local/cuda."""
    candidates = [os.path.join(os.environ[var], "include") for var in ("CUDA_PATH", "CUDA_HOME") if os.environ.get(var)]
    try:
        from cuda.pathfinder import find_nvidia_header_directory

        candidates.append(find_nvidia_header_directory("cudart") or "")
    except ImportError:  # cuda-pathfinder ships with cuda-python >= 12.9
        pass
    candidates.append("/usr/local/cuda/include")
    for directory in candidates:
        if directory and os.path.isfile(os.path.join(directory, "cuda_fp16.h")):
            return directory
    raise HeadersNotFound("cuda_fp16.h not found for NVRTC: pip install nvidia-cuda-runtime (CUDA 13) or "
                          "nvidia-cuda-runtime-cu12, or set CUDA_PATH to a CUDA toolkit")


def compile_options(arch: str, include_dir: str, types: tuple[str, str] | None = None) -> list[str]:
    """NVRTC options; the -D values are this file's constants. types: the one (float, index) pair whose
    two entries to emit (a sixth of the compile time); None: every pair."""
    constants = {"BLOCK": BLOCK, "MIN_BLOCKS": MIN_BLOCKS, "WIDE_BYTES": WIDE_BYTES, "LOAD_BYTES": LOAD_BYTES,
                 "SPAN_EDGES": SPAN_EDGES, "TARGET_SPANS": TARGET_SPANS, "FIX_BLOCK": FIX_BLOCK}
    entries = [] if types is None else [
        f"-DSCATTER_ENTRIES=ENTRIES({FLOATS[types[0]][0]},i{types[1][3:]},{FLOATS[types[0]][3]},{INDICES[types[1]]})"]
    return [f"--gpu-architecture={arch}", f"-I{include_dir}", "--std=c++17", "-lineinfo",
            *(f"-DSCATTER_{name}={value}" for name, value in constants.items()), *entries]


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
            raise KernelError(f"NVRTC failed compiling {name} for {arch}:\n{log.decode(errors='replace').strip(chr(0) + ' ')}")
        output = b" " * check(size_of(program), "nvrtc size query")
        check(get(program, output), "nvrtc output")
        return output
    finally:
        nvrtc.nvrtcDestroyProgram(program)


@functools.lru_cache(maxsize=None)
def compile_cubin(source: str, arch: str, include_dir: str, types: tuple[str, str] | None = None) -> bytes:
    """The cubin of ``source`` for ``arch`` (e.g. ``"sm_90"``), compiled once per process."""
    return nvrtc_compile(source, arch, compile_options(arch, include_dir, types), ptx=False)


def nvrtc_version() -> tuple[int, int]:
    major, minor = check(nvrtc.nvrtcVersion(), "nvrtcVersion")
    return int(major), int(minor)


def included_headers(include_dir: str) -> dict[str, bytes]:
    """The bytes of the headers the kernel includes (cuda_fp16/cuda_bf16 and their .hpp parts)."""
    names = sorted(n for n in os.listdir(include_dir) if n.startswith(("cuda_fp16.h", "cuda_bf16.h")))
    return {name: Path(include_dir, name).read_bytes() for name in names}


@dataclass(frozen=True)
class CompileReport:
    """How the kernels for one architecture were obtained, for the one line the driver prints."""

    arch: str
    seconds: float
    from_cache: bool
    cache: Path | None  # None: the cache is turned off
    stored: bool  # a freshly compiled cubin was written to the cache

    def describe(self) -> str:
        if self.from_cache:
            return f"Kernel: loaded for {self.arch} from the cache {self.cache} in {self.seconds * 1e3:.0f} ms"
        where = (f"cached in {self.cache}" if self.stored else f"{cubin_cache.ENV_VAR} is empty: not cached"
                 if self.cache is None else f"could not write the cache {self.cache}")
        return f"Kernel: compiled {KERNEL_SOURCE.name} for {self.arch} with NVRTC in {self.seconds:.1f} s ({where})"


@functools.lru_cache(maxsize=None)
def cubin_for(arch: str, types: tuple[str, str] | None = None) -> tuple[bytes, CompileReport]:
    """The cubin for ``arch`` (and one type pair, or all): from the disk cache when an entry matches,
    else compiled and stored."""
    start = time.perf_counter()
    source, include_dir = KERNEL_SOURCE.read_text(), find_cuda_include_dir()
    directory = cubin_cache.cache_dir()
    key = cubin_cache.cache_key(source, arch, compile_options(arch, include_dir, types), included_headers(include_dir),
                                 nvrtc_version())
    cubin = cubin_cache.load(directory, key)
    if cubin is not None:
        return cubin, CompileReport(arch, time.perf_counter() - start, True, directory, False)
    cubin = compile_cubin(source, arch, include_dir, types)
    return cubin, CompileReport(arch, time.perf_counter() - start, False, directory,
                                cubin_cache.store(directory, key, cubin))


# -- loading and launching ----------------------------------------------------------------

def current_context() -> tuple[Any, int]:
    """The current CUDA context and its device, making the device's primary context current if
    none is: TensorRT, CuPy and Polygraphy all use it, so what is loaded here serves their streams."""
    check(driver.cuInit(0), "cuInit")
    context = check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if int(context) == 0:
        context = check(driver.cuDevicePrimaryCtxRetain(check(driver.cuDeviceGet(0), "cuDeviceGet")),
                        "cuDevicePrimaryCtxRetain")
        check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    return context, int(check(driver.cuCtxGetDevice(), "cuCtxGetDevice"))


def device_attribute(device: int, name: str) -> int:
    return int(check(driver.cuDeviceGetAttribute(getattr(driver.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}"),
                                                 device), "cuDeviceGetAttribute"))


def device_arch(device: int) -> str:
    """``sm_XY`` for a CUDA device ordinal."""
    return f"sm_{device_attribute(device, 'COMPUTE_CAPABILITY_MAJOR')}{device_attribute(device, 'COMPUTE_CAPABILITY_MINOR')}"


class KernelParams:
    """Kernel arguments packed once: a ``void*[]`` whose entries point at values held here."""

    def __init__(self, values: tuple[Any, ...], types: tuple[Any, ...]) -> None:
        self._values = [ctype(value) for value, ctype in zip(values, types)]
        self._array = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in self._values])
        self.address = ctypes.addressof(self._array)


@functools.lru_cache(maxsize=1024)
def packed(values: tuple[Any, ...], types: tuple[Any, ...]) -> KernelParams:
    """Packing costs more host time than the launch itself; TensorRT repeats the same pointers."""
    return KernelParams(values, types)


@dataclass(frozen=True)
class ScatterAddKernel:
    """One type pair's two kernels, loaded in one context, ready to launch on any of its streams."""

    main: Any
    fixup: Any
    float_type: str
    index_type: str
    max_blocks: int  # blocks of `main` that fit on the GPU at once: more would only queue

    def launch(self, *, x: int, dst: int, src: int, idx: int, counts: int, n_nodes: int, n_feat: int, n_edges: int,
               workspace: int, stream: int) -> None:
        """``dst = x; dst[idx[e]] += src[e]; counts = in-degree``, all enqueued on ``stream``.

        ``x == dst`` is the aliased (in-place) case. If the addresses differ, x is first copied into
        dst on the same stream. ``workspace``: ``workspace_size(n_edges, n_feat)`` bytes or more,
        256-byte aligned, any content. Zero-sized tensors may come as null pointers; nothing reads them.
        """
        if n_nodes == 0:
            return  # no output element exists; every index is out of range
        if x != dst:
            size = n_nodes * n_feat * FLOATS[self.float_type][1]
            check(driver.cuMemcpyAsync(dst, x, size, stream), "cuMemcpyAsync")
        check(driver.cuMemsetD32Async(counts, 0, n_nodes, stream), "cuMemsetD32Async")  # the kernels add into it
        if n_edges == 0:
            return
        blocks, fixup_blocks = grids(n_edges, n_nodes, n_feat, self.max_blocks)
        params = packed((dst, src, idx, counts, workspace, n_edges, n_nodes, n_feat), _ARGS).address
        check(driver.cuLaunchKernel(self.main, blocks, 1, 1, BLOCK, 1, 1, 0, stream, params, 0), "cuLaunchKernel")
        check(driver.cuLaunchKernel(self.fixup, fixup_blocks, 1, 1, FIX_BLOCK, 1, 1, 0, stream, params, 0), "cuLaunchKernel")


def get_kernel(float_type: str, index_type: str) -> ScatterAddKernel:
    """The type pair's kernels for the current context, compiled and loaded on first use only.
    Later calls are a driver call and a dictionary lookup (``on_shape_change`` may call freely);
    never call it from ``enqueue``."""
    context, device = current_context()
    return _load_kernel(int(context), device, float_type, index_type)


def prepare(float_type: str, index_type: str) -> CompileReport:
    """Load the kernels into the current context now, and report how the cubin was obtained (cache
    read or NVRTC, plus loading; not the context's own creation, which any GPU program pays)."""
    context, device = current_context()
    start = time.perf_counter()
    _load_kernel(int(context), device, float_type, index_type)
    report = cubin_for(device_arch(device), (float_type, index_type))[1]
    if report.from_cache:
        return CompileReport(report.arch, time.perf_counter() - start, True, report.cache, False)
    return report


@functools.lru_cache(maxsize=None)
def _load_kernel(context_handle: int, device: int, float_type: str, index_type: str) -> ScatterAddKernel:
    """Load the cubin (disk-cached, see cubin_for) into one context; cached per context."""
    module = check(driver.cuModuleLoadData(cubin_for(device_arch(device), (float_type, index_type))[0]), "cuModuleLoadData")
    return kernel_from_module(module, float_type, index_type, device)


def kernel_from_module(module: Any, float_type: str, index_type: str, device: int) -> ScatterAddKernel:
    """The type pair's entries in a loaded module, and how many blocks of the kernel fit at once."""
    main, fixup = (check(driver.cuModuleGetFunction(module, kernel_name(float_type, index_type, f).encode()),
                         "cuModuleGetFunction") for f in (False, True))
    per_sm = check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(main, BLOCK, 0),
                   "cuOccupancyMaxActiveBlocksPerMultiprocessor")
    return ScatterAddKernel(main, fixup, float_type, index_type,
                            max(1, int(per_sm)) * device_attribute(device, "MULTIPROCESSOR_COUNT"))
