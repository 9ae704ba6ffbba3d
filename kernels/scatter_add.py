# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The fast kernel, ``scatter_add.cu``, behind the interface of kernels/__init__.py: compiled with
NVRTC, loaded and launched with cuda-python (cuda_calls.py; the recount's overlapping launch is
here, since only this kernel has one); every size comes from ``plan.py``."""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import Code, Range
from . import cuda_calls as cuda
from . import plan

NAME = "fast"
KERNEL_SOURCE = Path(__file__).with_name("scatter_add.cu")
# The .cu file's entry points, in launch order.
# Of the two main kernels, one runs: scatter_add_short_spans where spans are too short to look for
# hubs (plan.Launch.grids).
ENTRIES = ("scatter_add_zero", "scatter_add", "scatter_add_short_spans", "scatter_add_fixup",
           "scatter_add_recount")
# The .cu file's PARAMS: dst, src, idx, counts, flags, pieces; n_edges, n_nodes; n_feat, then
# Launch.scalars().
ARG_TYPES = (cuda.P,) * 6 + (cuda.LL, cuda.LL) + (cuda.I,) * 7
# The pieces follow the flags at a multiple of 256 bytes (plan.flag_bytes): they are as aligned as
# the workspace, and the .cu stores up to 8 fp32 columns (32 bytes) at once into them.
WORKSPACE_ALIGNMENT = 32


def problem(*, float_type: str, index_type: str, nodes: Range, edges: Range,
            features: Range) -> str | None:
    """The kernel's limits are 32-bit: N, E and a row's bytes."""
    return plan.size_problem(nodes[1], edges[1], features[1], float_type)


def workspace_size(*, float_type: str, index_type: str, nodes: Range, edges: Range,
                   features: Range, arch: str) -> int:
    """plan.workspace_size: the flags and pieces, and the [N, 2] fp32 scratch at F = 1 from sm_90
    (the only GPUs whose kernel uses it), whatever X's type."""
    return plan.workspace_size(float_type=float_type, nodes=nodes, edges=edges, features=features,
                               arch=cuda.arch_number(arch))


def defines(float_type: str, index_type: str) -> list[str]:
    """The -D options: the type pair, and plan.py's sizes that the .cu file uses."""
    numbers = {"BLOCK": plan.BLOCK, "MIN_BLOCKS": plan.MIN_BLOCKS, "FIX_BLOCK": plan.FIX_BLOCK,
               "LOAD_BYTES": plan.LOAD_BYTES, "F1_EDGES": plan.F1_EDGES,
               "HUB_EDGES": plan.HUB_EDGES, "SLOTS": plan.SLOTS}
    types = {"T": plan.FLOATS[float_type][2], "I": plan.INDICES[index_type][2]}
    return [f"-DSCATTER_{name}={value}" for name, value in {**types, **numbers}.items()]


@functools.lru_cache(maxsize=None)
def fingerprint(*, float_type: str, index_type: str) -> str:
    """What a stored kernel expects of the code that launches it, the same on every machine: the
    sources that decide its arguments and workspace (the .cu file, plan.py and this file), the -D
    options, plan.py's constants and the argument layout (by size: ctypes' names differ between
    platforms)."""
    layout = [ctypes.sizeof(t) if t is not cuda.P else "p" for t in ARG_TYPES]
    constants = sorted((name, value) for name, value in vars(plan).items() if name.isupper())
    sources = (KERNEL_SOURCE, Path(plan.__file__), Path(__file__))
    return cuda.fingerprint(sources, defines(float_type, index_type), constants, layout, ENTRIES)


@functools.lru_cache(maxsize=None)
def compile(*, float_type: str, index_type: str, arch: str) -> Code:
    """The type pair's entry points as a cubin for ``arch`` (e.g. ``"sm_90"``), once per process."""
    cubin = cuda.nvrtc_compile(KERNEL_SOURCE, arch, defines(float_type, index_type))
    stamp = fingerprint(float_type=float_type, index_type=index_type)
    return Code(NAME, float_type, index_type, arch, cubin, stamp)


def load(code: Code) -> ScatterAddKernel:
    """``code``'s entry points in the current context (no NVRTC)."""
    functions, device = cuda.load(code.cubin, ENTRIES, code.arch)
    fit = blocks_that_fit(device, functions[ENTRIES.index("scatter_add")])
    arch = cuda.arch_number(code.arch)
    return ScatterAddKernel(functions, code.float_type, fit, arch, overlap_allowed())


def overlap_allowed() -> bool:
    """Whether the recount may overlap the fix-up: CUDA graphs hold such a launch from CUDA 12.3's
    driver on, a CUDA 12 set-up (docs/install.md) may have an older one, and TensorRT may capture
    the enqueue."""
    return cuda.check(cuda.driver.cuDriverGetVersion(), "cuDriverGetVersion") >= 12030


def blocks_that_fit(device: int, main: Any = None) -> int:
    """Blocks of the main kernel that fit on the GPU at once: more would only queue, and warps
    stride over the spans, so a block that waits for a place would finish last. MIN_BLOCKS an SM
    (its __launch_bounds__), or, given the loaded kernel ``main``, as many as the driver says its
    registers and shared memory allow: fewer where an SM's shared memory is small (sm_75 has
    64 KiB, and the 16-bit kernels take 22 KiB a block there). The QDP route sizes its grid at build
    time, before any kernel is loaded: MIN_BLOCKS there."""
    per_sm = plan.MIN_BLOCKS
    if main is not None:
        occupancy = cuda.driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(main, plan.BLOCK, 0)
        fits = cuda.check(occupancy, "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        per_sm = max(1, min(per_sm, fits))
    return per_sm * cuda.device_attribute(device, "MULTIPROCESSOR_COUNT")


@dataclass(frozen=True)
class ScatterAddKernel:
    """One type pair's kernels (ENTRIES), loaded in one context, ready to launch on its streams."""

    functions: tuple[Any, ...]
    float_type: str
    fit: int  # blocks of the main kernel that fit on the GPU at once: more would only queue
    arch: int  # 90 for sm_90: the scratch is used from there up
    overlap: bool = False  # whether the recount may overlap the fix-up (overlap_allowed)

    def launch(self, *, dst: int, src: int, idx: int, counts: int, n_nodes: int, n_feat: int,
               n_edges: int, workspace: int, workspace_size: int, stream: int) -> None:
        """``dst[idx[e]] += src[e]; counts = in-degree`` on ``stream`` (the .cu's contract; dst
        holds X on entry), capturable: no compile, load, allocation or sync."""
        if n_nodes == 0:
            return  # no output element exists; every index is out of range
        if (dst | src | idx) % 16:  # TensorRT's buffers are; a slice of someone else's may not be
            raise ValueError("dst, src and idx must be 16-byte aligned (16-byte loads, and vector "
                             "atomics into dst)")
        work = plan.launch(n_nodes, n_edges, n_feat, self.float_type, self.fit, self.arch)
        if workspace_size < work.workspace:  # checked on the host, before anything is launched
            raise ValueError(f"the workspace holds {workspace_size} bytes; N = {n_nodes}, "
                             f"E = {n_edges}, F = {n_feat} need {work.workspace}")
        if work.workspace and workspace % WORKSPACE_ALIGNMENT:
            raise ValueError(f"the workspace must be {WORKSPACE_ALIGNMENT}-byte aligned (the "
                             f"pieces' 32-byte stores, 16-byte loads and the scratch's float2 "
                             f"atomics); it is at {workspace:#x}")
        if not work.scratch:  # else scatter_add_zero zeroes the counts
            cuda.check(cuda.driver.cuMemsetD32Async(counts, 0, n_nodes, stream), "cuMemsetD32Async")
        if not work.blocks:
            return
        pointers = (dst, src, idx, counts, workspace, workspace + work.flag_bytes)
        args = cuda.packed((*pointers, n_edges, n_nodes, n_feat, *work.scalars()), ARG_TYPES)
        grids = zip(ENTRIES, self.functions, work.grids(), strict=True)
        for name, function, (blocks, threads) in grids:
            if blocks:  # no fix-up for one span or F = 0; zero and recount only with the scratch
                # The recount overlaps the fix-up: sorted input, where it has nothing to do, then
                # pays little for its launch (scatter_add_recount always waits for the fix-up).
                if name == "scatter_add_recount" and self.overlap:
                    launch_overlapping(function, blocks, threads, args, stream)
                else:
                    cuda.launch(function, blocks, threads, args, stream)


def launch_overlapping(function: Any, blocks: int, threads: int, args: cuda.Packed,
                       stream: int) -> None:
    """cuda_calls.launch, but the kernel may start before the one ahead of it on the stream ends
    (programmatic dependent launch, sm_90 on), so it waits for that one (griddepcontrol.wait)
    before it reads what that one writes. ``args`` stays alive here until the launch has read it."""
    address, _alive = args
    config = overlapping_config(blocks, threads, stream)
    cuda.check(cuda.driver.cuLaunchKernelEx(config, function, address, 0), "cuLaunchKernelEx")


@functools.lru_cache(maxsize=64)  # building it costs more host time than the launch: cache it
def overlapping_config(blocks: int, threads: int, stream: int) -> Any:
    """cuLaunchKernelEx's CUlaunchConfig: the grid, no dynamic shared memory, ``stream``, and the
    attribute that lets the kernel start before the one ahead of it ends."""
    attribute = cuda.driver.CUlaunchAttributeID
    overlap = cuda.driver.CUlaunchAttribute()
    overlap.id = attribute.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    overlap.value.programmaticStreamSerializationAllowed = 1
    config = cuda.driver.CUlaunchConfig()
    config.gridDimX = blocks
    config.gridDimY = 1
    config.gridDimZ = 1
    config.blockDimX = threads
    config.blockDimY = 1
    config.blockDimZ = 1
    config.sharedMemBytes = 0
    config.hStream = cuda.driver.CUstream(stream)
    config.attrs = [overlap]
    config.numAttrs = 1
    return config
