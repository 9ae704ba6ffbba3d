"""Compile, cache and launch the scatter-add kernel in ``kernels/scatter_add.cu``.

This module is the kernel launcher shared by the TensorRT plugin and by everything that runs
the kernel outside TensorRT (tests, benchmarks). It never imports ``tensorrt``.

Entry points:
  * :func:`prepare` - compile (or read from the on-disk cache, ``kernels/cubin_cache.py``) and load
    the kernels for the current GPU, and say which it was. Callers do this once, early, so an
    NVRTC or header problem surfaces before any TensorRT work.
  * :func:`get_kernel` - the same without the report: compile once per (source, GPU
    architecture, options, headers) and load once per (CUDA context, variant); returns a
    :class:`ScatterAddKernel`.
  * :meth:`ScatterAddKernel.launch` - raw device pointers, a workspace of
    :func:`workspace_size` bytes and a CUDA stream handle (int). This is what the plugin's
    ``enqueue`` calls: two GPU operations (a memset of the workspace's control block and one
    kernel), no compile, no allocation, no sync, so it can be captured in a CUDA graph.
  * :func:`scatter_add` - the same on CuPy arrays, for use outside TensorRT.

How one launch splits the edges into tiles, and what the workspace holds (sized from the edge and
feature counts' maxima, so TensorRT can size it from the profile), is described in the .cu file's header.
"""

from __future__ import annotations

import ctypes
import functools
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import cuda.bindings.driver as driver
import cuda.bindings.nvrtc as nvrtc

from kernels import cubin_cache
from gnn import precisions

KERNEL_SOURCE = Path(__file__).with_name("scatter_add.cu")
# Launch geometry. These constants reach the .cu file as -D options (compile_options), so the
# launcher and the kernel cannot disagree.
BLOCK = 256
SPAN = 16  # edges per group of lanes in a tile (at most; small inputs take shorter spans)
ZERO_SPAN = 16 * BLOCK  # counts zeroed and idx pairs checked per work item before the tiles
CONTROL_BYTES = 256  # the zeroed head of the workspace (ticket, zeroing counter, order flag)
MIN_BLOCKS = 4  # blocks per SM that __launch_bounds__ makes room for (registers)
WIDE_BYTES = 8  # a lane's vector in rows wider than 16 bytes: 16 held too many registers (spills)
LONG_EDGES = 1 << 20  # from here on, groups of several lanes walk longer spans (shape())
TARGET_TILES = 256  # small inputs: spans shrink until there are this many tiles (shape())
MIN_TILE = BLOCK // 32 * SPAN  # the smallest tile of full spans: groups of a whole warp
MAX_EDGES = 2**31 - 1  # counts, and each run's edge count in the kernel, are int32
MAX_NODES = 2**31 - 1  # rows are 32-bit words below 0x7fffffff, which marks an index out of range
_ALIGN = 256

FLOAT_TYPES = precisions.NAMES
INDEX_TYPES = ("int32", "int64")
_INDEX_SUFFIX = {"int32": "i32", "int64": "i64"}

_P, _LL, _I = ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int
# scatter_add_<t>_<i>(dst, src, idx, counts, workspace, n_edges, n_nodes, n_feat)
_ARGS = (_P, _P, _P, _P, _P, _LL, _LL, _I)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _align(n: int) -> int:
    return _ceil_div(n, _ALIGN) * _ALIGN


@dataclass(frozen=True)
class Shape:
    """How a tile is cut (``shape_of`` in the .cu file computes the same): each lane holds ``v``
    columns of ``epl`` consecutive rows per load, ``lanes`` lanes per group of ``span`` edges,
    ``passes`` over the columns."""

    v: int
    epl: int
    lanes: int
    passes: int
    span: int

    @property
    def tile(self) -> int:
        """Edges per tile: BLOCK // lanes groups of ``span`` edges."""
        return BLOCK // self.lanes * self.span


@functools.lru_cache(maxsize=256)  # enqueue asks on every call (launch and grid_size); sizes repeat
def shape(float_type: str, n_feat: int, n_edges: int) -> Shape:
    """Rows of 2, 4, 8 or 16 bytes: one lane per row, 16 bytes per load. Wider rows: the widest
    vector dividing the row, up to a warp of lanes per group, more passes beyond; from LONG_EDGES
    edges on, such groups walk up to 4 spans (8 for a warp: tiles of 1,024+ edges). Below
    TARGET_TILES tiles, spans halve (down to ``epl``): small inputs are bound by latency, and
    tiles run side by side."""
    size = precisions.get(float_type).itemsize
    row = n_feat * size
    cut = Shape(1, 1, 1, 1, SPAN)  # n_feat == 0: counts only
    if n_feat > 0 and row <= 16 and 16 % row == 0:
        cut = Shape(n_feat, 16 // row, 1, 1, SPAN)
    elif n_feat > 0:
        vector = WIDE_BYTES
        while row % vector:
            vector //= 2
        vectors = row // vector
        lanes = min(32, 1 << (vectors - 1).bit_length())
        walks = 1 if n_edges < LONG_EDGES else 8 if lanes == 32 else min(lanes, 4)
        cut = Shape(vector // size, 1, lanes, _ceil_div(vectors, lanes), SPAN * walks)
    span = cut.span
    while span > cut.epl and BLOCK // cut.lanes * span * TARGET_TILES > n_edges:
        span //= 2
    return Shape(cut.v, cut.epl, cut.lanes, cut.passes, span)


def tiles(n_edges: int, float_type: str, n_feat: int) -> int:
    """Tiles of one launch (the kernel's ``tiles``): what the memset's flags and the grid cover."""
    return _ceil_div(n_edges, shape(float_type, n_feat, n_edges).tile)


def max_tiles(max_edges: int) -> int:
    """An upper bound of :func:`tiles` for every type, feature count and edge count up to max_edges:
    full spans make tiles of at least MIN_TILE edges, and shortened spans stop at 2 * TARGET_TILES."""
    return _ceil_div(max(max_edges, 1), MIN_TILE) + 2 * TARGET_TILES


def workspace_size(max_edges: int, n_feat: int) -> int:
    """Bytes of workspace :meth:`ScatterAddKernel.launch` needs for up to max_edges edges of at
    most n_feat features, any type: a flag per tile, then two pieces per tile (the runs that cross
    tiles), each an edge count and an fp32 row (``pieces_of`` in the .cu file)."""
    n = max_tiles(max_edges)
    return CONTROL_BYTES + _align(4 * n) + _align(8 * n) + _align(8 * n * n_feat)


def memset_bytes(n_tiles: int) -> int:
    """The workspace's head that must be zero at launch: the control block and the tiles' flags."""
    return CONTROL_BYTES + _align(4 * n_tiles)


@functools.lru_cache(maxsize=256)  # launch() asks on every enqueue; TensorRT repeats the same sizes
def grid_size(n_edges: int, n_nodes: int, n_feat: int, float_type: str, max_blocks: int) -> int:
    """Blocks to launch: one per work item (zeroing counts, then tiles), at most max_blocks.

    Any grid size is correct (blocks take work items until none is left); more blocks than fit
    on the GPU at once would only wait for a free slot.
    """
    if n_edges > MAX_EDGES:
        raise ValueError(f"{n_edges} edges: a row's in-degree is counted in int32, so at most {MAX_EDGES} edges")
    if n_nodes > MAX_NODES:
        raise ValueError(f"{n_nodes} nodes: the kernel keeps rows as 32-bit words below its markers, so at most {MAX_NODES}")
    items = _ceil_div(max(n_nodes, n_edges), ZERO_SPAN) + tiles(n_edges, float_type, n_feat)
    return max(1, min(max_blocks, items))


class KernelError(RuntimeError):
    """A CUDA or NVRTC failure, with a message meant for the user."""


class HeadersNotFound(KernelError):
    """NVRTC needs cuda_fp16.h / cuda_bf16.h and none were found: a package is missing."""


def check(result: tuple[Any, ...], what: str) -> Any:
    """Unwrap a cuda-python ``(status, *values)`` tuple, raising on a non-success status."""
    status, *values = result
    if int(status) != 0:
        name = status.name if hasattr(status, "name") else str(status)
        raise KernelError(f"{what} failed: {name}")
    return values[0] if len(values) == 1 else tuple(values)


def kernel_name(float_type: str, index_type: str) -> str:
    """The type pair's name; its entry points add ``_v<V>e<EPL>`` (:func:`entry_name`)."""
    if float_type not in FLOAT_TYPES or index_type not in INDEX_TYPES:
        raise ValueError(f"unsupported kernel variant {float_type}/{index_type}")
    return f"scatter_add_{precisions.get(float_type).kernel_suffix}_{_INDEX_SUFFIX[index_type]}"


def shapes(float_type: str) -> tuple[tuple[int, int], ...]:
    """The (V, EPL) pairs :func:`shape` can return for this type: one compiled entry each."""
    wide = ((1, 1), (2, 1), (4, 1), (1, 4), (2, 2))
    return wide + ((8, 1), (1, 8), (2, 4), (4, 2)) if precisions.get(float_type).itemsize == 2 else wide


def entry_name(float_type: str, index_type: str, v: int, epl: int) -> str:
    """The extern "C" entry point of one variant (the ENTRY macro in the .cu file)."""
    return f"{kernel_name(float_type, index_type)}_v{v}e{epl}"


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
    raise HeadersNotFound(
        "cuda_fp16.h not found for NVRTC: pip install nvidia-cuda-runtime (CUDA 13) or "
        "nvidia-cuda-runtime-cu12, or set CUDA_PATH to a CUDA toolkit"
    )


def _nvrtc_log(program: Any) -> str:
    size = check(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
    log = b" " * size
    check(nvrtc.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
    return log.decode(errors="replace").rstrip("\x00").strip()


def compile_options(arch: str, include_dir: str) -> list[str]:
    """NVRTC options; the -D values are the launcher's constants (one source for both sides)."""
    constants = {"BLOCK": BLOCK, "SPAN": SPAN, "ZERO_SPAN": ZERO_SPAN, "CONTROL_BYTES": CONTROL_BYTES,
                 "MIN_BLOCKS": MIN_BLOCKS, "LONG_EDGES": LONG_EDGES, "WIDE_BYTES": WIDE_BYTES,
                 "TARGET_TILES": TARGET_TILES}
    return [f"--gpu-architecture={arch}", f"-I{include_dir}", "--std=c++17", "-lineinfo",
            *(f"-DSCATTER_{name}={value}" for name, value in constants.items())]


@functools.lru_cache(maxsize=None)
def compile_cubin(source: str, arch: str, include_dir: str) -> bytes:
    """NVRTC-compile ``source`` to a cubin for ``arch`` (e.g. ``"sm_90"``); cached per process.

    The source text itself is part of the cache key, so an edited .cu file recompiles.
    """
    return nvrtc_compile(source, arch, compile_options(arch, include_dir), ptx=False)


def nvrtc_compile(source: str, arch: str, options: list[str], ptx: bool) -> bytes:
    """NVRTC-compile ``source`` with ``options`` to PTX (``ptx``) or a cubin; ``arch`` names the
    target in the error message."""
    program = check(
        nvrtc.nvrtcCreateProgram(source.encode(), KERNEL_SOURCE.name.encode(), 0, [], []),
        "nvrtcCreateProgram",
    )
    get_size, get = (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX) if ptx else (nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN)
    try:
        (status,) = nvrtc.nvrtcCompileProgram(program, len(options), [o.encode() for o in options])
        if int(status) != 0:
            raise KernelError(f"NVRTC failed compiling {KERNEL_SOURCE} for {arch}:\n{_nvrtc_log(program)}")
        size = check(get_size(program), "nvrtc size query")
        output = b" " * size
        check(get(program, output), "nvrtc output")
        return output
    finally:
        nvrtc.nvrtcDestroyProgram(program)


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
        where = (f"cached in {self.cache}" if self.stored else
                 f"{cubin_cache.ENV_VAR} is empty: not cached" if self.cache is None else
                 f"could not write the cache {self.cache}")
        return f"Kernel: compiled {KERNEL_SOURCE.name} for {self.arch} with NVRTC in {self.seconds:.1f} s ({where})"


@functools.lru_cache(maxsize=None)
def cubin_for(arch: str) -> tuple[bytes, CompileReport]:
    """The cubin for ``arch``: from the disk cache when an entry matches, else compiled and stored."""
    start = time.perf_counter()
    source, include_dir = KERNEL_SOURCE.read_text(), find_cuda_include_dir()
    directory = cubin_cache.cache_dir()
    key = cubin_cache.cache_key(source, arch, compile_options(arch, include_dir), included_headers(include_dir),
                                 nvrtc_version())
    cubin = cubin_cache.load(directory, key)
    if cubin is not None:
        return cubin, CompileReport(arch, time.perf_counter() - start, True, directory, False)
    cubin = compile_cubin(source, arch, include_dir)
    stored = cubin_cache.store(directory, key, cubin)
    return cubin, CompileReport(arch, time.perf_counter() - start, False, directory, stored)


def current_context() -> tuple[Any, int]:
    """The current CUDA context and its device, making the primary context current if none is.

    TensorRT, CuPy and Polygraphy all use the device's primary context through the runtime API,
    so the module loaded here is visible to the streams they hand us.
    """
    check(driver.cuInit(0), "cuInit")
    context = check(driver.cuCtxGetCurrent(), "cuCtxGetCurrent")
    if int(context) == 0:
        device = check(driver.cuDeviceGet(0), "cuDeviceGet")
        context = check(driver.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
        check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    device = check(driver.cuCtxGetDevice(), "cuCtxGetDevice")
    return context, int(device)


def device_arch(device: int) -> str:
    """``sm_XY`` for a CUDA device ordinal."""
    attr = driver.CUdevice_attribute
    major = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "cuDeviceGetAttribute")
    minor = check(driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "cuDeviceGetAttribute")
    return f"sm_{major}{minor}"


@dataclass(frozen=True)
class ScatterAddKernel:
    """One loaded kernel variant, ready to launch on any stream of its context."""

    functions: dict[tuple[int, int], Any]  # by (V, EPL): see shape()
    float_type: str
    index_type: str
    arch: str
    max_blocks: int  # blocks that fit on the GPU at once: more would only queue

    def launch(
        self,
        *,
        x: int,
        dst: int,
        src: int,
        idx: int,
        counts: int,
        n_nodes: int,
        n_feat: int,
        n_edges: int,
        workspace: int,
        stream: int,
    ) -> None:
        """``dst = x; dst[idx[e]] += src[e]; counts = in-degree``, all enqueued on ``stream``.

        ``x == dst`` is the aliased (in-place) case: a memset of the workspace's control block and
        one kernel. If the addresses differ, ``x`` is first copied into ``dst`` on the same
        stream, so the result is right either way. ``workspace`` holds at least
        ``workspace_size(n_edges, n_feat)`` bytes, 256-byte aligned; its content on entry does not
        matter. Zero-sized tensors may arrive as null pointers; nothing touches them.
        """
        if n_nodes == 0:
            return  # no output element exists; every index is out of range
        if x != dst:
            check(driver.cuMemcpyAsync(dst, x, n_nodes * n_feat * precisions.get(self.float_type).itemsize, stream), "cuMemcpyAsync")
        if n_edges == 0:
            check(driver.cuMemsetD32Async(counts, 0, n_nodes, stream), "cuMemsetD32Async")
            return
        # The kernel's ticket, zeroing counter and tile flags start at zero (see the .cu header).
        cut = shape(self.float_type, n_feat, n_edges)
        n_tiles = tiles(n_edges, self.float_type, n_feat)
        check(driver.cuMemsetD32Async(workspace, 0, memset_bytes(n_tiles) // 4, stream), "cuMemsetD32Async")
        blocks = grid_size(n_edges, n_nodes, n_feat, self.float_type, self.max_blocks)
        params = packed((dst, src, idx, counts, workspace, n_edges, n_nodes, n_feat), _ARGS).address
        function = self.functions[cut.v, cut.epl]
        check(driver.cuLaunchKernel(function, blocks, 1, 1, BLOCK, 1, 1, 0, stream, params, 0), "cuLaunchKernel")


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


def get_kernel(float_type: str, index_type: str) -> ScatterAddKernel:
    """The kernel variant for the current context: compiled and loaded on first use only.

    Later calls cost one driver call and a dictionary lookup, so callers such as the plugin's
    ``on_shape_change`` (run whenever shapes or addresses change) may call it freely. Never call
    it from ``enqueue``.
    """
    context, device = current_context()
    return _load_kernel(int(context), device, float_type, index_type)


def prepare(float_type: str, index_type: str) -> CompileReport:
    """Load the variant into the current context now, and report how its cubin was obtained.

    The reported time covers obtaining the cubin (cache read or NVRTC) and loading it into the
    context; creating the CUDA context itself, which any GPU program pays, is not counted.
    """
    context, device = current_context()
    start = time.perf_counter()
    kernel = _load_kernel(int(context), device, float_type, index_type)
    report = cubin_for(kernel.arch)[1]
    if report.from_cache:
        return CompileReport(report.arch, time.perf_counter() - start, True, report.cache, False)
    return report


@functools.lru_cache(maxsize=None)
def _load_kernel(context_handle: int, device: int, float_type: str, index_type: str) -> ScatterAddKernel:
    """Load the cubin (disk-cached, see cubin_for) into one context; cached per context."""
    arch = device_arch(device)
    module = check(driver.cuModuleLoadData(cubin_for(arch)[0]), "cuModuleLoadData")
    return kernel_from_module(module, float_type, index_type, arch, device)


def kernel_from_module(module: Any, float_type: str, index_type: str, arch: str, device: int) -> ScatterAddKernel:
    """The type pair's entry per tile shape from a loaded module (cubin, or PTX for another
    architecture in benchmarks/bench_arch_variant.py), and how many blocks fit on ``device`` at once."""
    sms = check(driver.cuDeviceGetAttribute(
        driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device), "cuDeviceGetAttribute")
    functions, per_sm = {}, []
    for v, epl in shapes(float_type):
        name = entry_name(float_type, index_type, v, epl)
        functions[v, epl] = check(driver.cuModuleGetFunction(module, name.encode()), "cuModuleGetFunction")
        per_sm.append(check(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(functions[v, epl], BLOCK, 0),
                            "cuOccupancyMaxActiveBlocksPerMultiprocessor"))
    return ScatterAddKernel(functions, float_type, index_type, arch, max(1, int(min(per_sm)) * int(sms)))


def float_type_of(dtype: Any) -> str:
    """Map a NumPy/CuPy dtype (bf16 is stored as uint16 bits) to the kernel's float type name."""
    return precisions.of_storage_dtype(dtype).name


def scatter_add(x: Any, src: Any, idx: Any, counts: Any, stream: Any = None, out: Any = None,
                workspace: Any = None) -> Any:
    """Run the kernel on CuPy arrays: ``out = x`` (default: in place) plus the scatter-add.

    Args:
        x: ``[N, F]`` float32, float16, or uint16 holding bfloat16 bits.
        src: ``[E, F]`` same dtype as ``x``.
        idx: ``[E]`` int32 or int64 destination rows, 0-based; out-of-range entries are skipped.
        counts: ``[N]`` or ``[N, 1]`` int32, overwritten with the in-degree of each row.
        stream: a ``cupy.cuda.Stream`` (default: CuPy's current stream).
        out: destination ``[N, F]``; ``None`` means update ``x`` in place.
        workspace: a CuPy uint8 array of at least ``workspace_size(E, F)`` bytes to reuse;
            ``None`` allocates one from CuPy's pool (ordered on ``stream``).

    Returns:
        The array that holds the result (``x`` itself when ``out`` is None).
    """
    import cupy as cp

    out = x if out is None else out
    n_nodes, n_feat = _check_arrays(x, src, idx, counts, out)
    index_type = "int32" if idx.dtype == np.int32 else "int64"
    stream = cp.cuda.get_current_stream() if stream is None else stream
    n_edges = int(idx.shape[0])
    needed = workspace_size(n_edges, n_feat)
    with cp.cuda.Device(x.device.id), stream:
        if workspace is None:
            workspace = cp.empty(needed, dtype=np.uint8)
        elif workspace.nbytes < needed or workspace.data.ptr % _ALIGN:
            raise ValueError(f"workspace must hold {needed} bytes, 256-byte aligned")
        kernel = get_kernel(float_type_of(x.dtype), index_type)
        kernel.launch(x=x.data.ptr, dst=out.data.ptr, src=src.data.ptr, idx=idx.data.ptr, counts=counts.data.ptr,
                      n_nodes=n_nodes, n_feat=n_feat, n_edges=n_edges, workspace=workspace.data.ptr, stream=stream.ptr)
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
        if not a.flags.c_contiguous or a.data.ptr % 16:
            raise ValueError(f"{name} must be C-contiguous and 16-byte aligned")
    return int(n_nodes), int(n_feat)
