# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""How ``scatter_add.cu`` cuts its work, decided here only (docs/kernel.md): -D block sizes,
arguments (``Launch``), the workspace. The span and grid rules take ints and, on the QDP route,
TensorRT's symbolic shapes alike. The fast kernel's fingerprint covers this file: an engine built
with other rules or sizes here is refused, since its workspace was sized by them."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BLOCK = 256  # threads of a main-kernel block: 8 warps, a span each
MIN_BLOCKS = 4  # blocks per SM that __launch_bounds__ makes room for: what "fit at once" means
FIX_BLOCK = 1024  # threads of a fix-up block: a run across hundreds of spans is summed by one block
LOAD_BYTES = 128  # bytes of src and idx a lane keeps in flight (4-byte types; halved for 16-bit)
WIDE_BYTES = 8  # a lane's vector in rows wider than 16 bytes
SPAN_EDGES = 2048  # edges per span, at most
TARGET_SPANS = 4096  # spans shrink, down to one load per group of lanes, until about this many
SPAN_BYTES = 96  # a span covers at least this many bytes of each column where the pieces would
PIECE_BYTES = 32 << 10  # pass PIECE_BYTES: together they bound the workspace (workspace_size)
WIDE_ROW = 256  # bytes: from rows this wide up, the tile no longer changes with F
INT32_MAX = 2**31 - 1  # E, N and a row's bytes are 32-bit in the kernel (int32 scalars on QDP)
F1_EDGES = 8  # edges a lane takes a round at F = 1: the .cu's K1, given as -DSCATTER_F1_EDGES
HUB_EDGES = 256  # spans of this many edges or more look for a hub (the .cu's "Hubs"): -D too
SLOTS = 0  # shared floats a thread: 0 by the GPU's shared memory (the .cu's SLOTS); tests: -1
SCRATCH_EDGES = 1 << 18  # F = 1 may use the scratch from this E up, where E >= 2N
SCRATCH_ARCH = 90  # the scratch's RED of (sum, count) pairs is sm_90's: below it, no scratch
EXACT_COUNTS = 1 << 24  # float counts are exact below this: from this E up, rows are recounted

# name -> (kernel suffix, bytes, C++ type). bf16 buffers are handled as their 16-bit patterns.
FLOATS = {"fp32": ("f32", 4, "float"), "fp16": ("f16", 2, "__half"),
          "bf16": ("bf16", 2, "__nv_bfloat16")}
INDICES = {"int32": ("i32", 4, "int"), "int64": ("i64", 8, "long long")}


def ceil_div(a: Any, b: Any) -> Any:
    return (a + (b - 1)) // b  # +, - and // with the expression first: for tensorrt.plugin's too


@dataclass(frozen=True)
class Tile:
    """``columns`` per lane per load, ``lanes`` per group (32 // lanes groups a warp), ``passes``
    over a row's columns; ``edges``: edges a lane takes per load, F1_EDGES at F = 1 (the .cu's
    K1), else 1, which only the span's step uses (the kernel is not given it)."""

    columns: int
    edges: int
    lanes: int
    passes: int

    @property
    def step(self) -> int:
        """Span lengths are multiples of this: each group's idx starts whole 16-byte loads (and at
        F = 1, each lane's src)."""
        return 32 // self.lanes * max(self.edges, 4)


def tile(n_feat: int, elem: int) -> Tile:
    """The widest vector up to WIDE_BYTES dividing the row per lane (a 16-byte row: all of it), up
    to a warp of lanes, in passes beyond that. Several narrow rows in one 16-byte load lost on
    sorted input (docs/kernel.md's ledger), so a lane takes one row at a time."""
    size = n_feat * elem
    if size == 0:
        return Tile(1, 1, 1, 1)  # counts only
    if n_feat == 1:
        return Tile(1, F1_EDGES, 1, 1)  # the .cu's F = 1 walk: F1_EDGES edges a lane
    if size == 16:
        return Tile(n_feat, 1, 1, 1)
    vector, lanes = WIDE_BYTES, 1
    while size % vector:
        vector //= 2
    while lanes < size // vector and lanes < 32:
        lanes *= 2
    return Tile(vector // elem, 1, lanes, ceil_div(size // vector, lanes))


Pick = Callable[[Any, Any], Any]  # min or max, or tensorrt.plugin's trtp.min or trtp.max


def least_span(n_edges: Any, t: Tile, elem: int, n_feat: int, smaller: Pick = min,
               larger: Pick = max) -> Any:
    """The shortest span, a multiple of ``t.step``: one covering SPAN_BYTES of each column (48
    16-bit rows), but for rows narrower than WIDE_ROW, no longer than keeps the pieces (8 bytes a
    column per span) within PIECE_BYTES, so that small graphs keep their spans short and their warps
    many."""
    floor = ceil_div(ceil_div(SPAN_BYTES, elem), t.step) * t.step
    if n_feat * elem >= WIDE_ROW:  # the floor always, so that the widest F decides the workspace
        return floor
    enough = ceil_div(ceil_div(n_edges * (8 * n_feat), PIECE_BYTES), t.step) * t.step
    return larger(smaller(enough, floor), t.step)


def span_length(n_edges: Any, t: Tile, elem: int, n_feat: int, smaller: Pick = min,
                larger: Pick = max) -> Any:
    """Edges per span: the least multiple of ``t.step`` that makes at most TARGET_SPANS spans, at
    least ``least_span`` and at most SPAN_EDGES."""
    chunk = TARGET_SPANS * t.step
    least = least_span(n_edges, t, elem, n_feat, smaller, larger)
    return smaller(larger(ceil_div(n_edges, chunk) * t.step, least), SPAN_EDGES)


def most_spans(t: Tile, elem: int, n_feat: int, low: int, high: int) -> int:
    """The most spans of any edge count in [low, high]. While the span length holds, the spans rise
    with E, so the most come at ``high`` or just before the length steps up: past a multiple of
    TARGET_SPANS * step (the target), or where ``least_span`` grows by a step (below the cap: past
    it the length holds)."""
    chunk, top = TARGET_SPANS * t.step, min(high, TARGET_SPANS * SPAN_EDGES)
    ends = {high, *(k * chunk for k in range(low // chunk, top // chunk + 1))}
    if 0 < n_feat * elem < WIDE_ROW:
        steps = range(1, SPAN_BYTES // t.step + 2)
        ends |= {k * t.step * PIECE_BYTES // (8 * n_feat) for k in steps}
    spans = (ceil_div(e, span_length(e, t, elem, n_feat)) for e in ends if low <= e <= high)
    return max(spans, default=0)


def fix_width(n_feat: int) -> int:
    """Columns per fix-up thread: 16-byte loads of fp32 pieces where the row allows."""
    for width in (4, 2):
        if n_feat % width == 0:
            return width
    return 1


def flag_bytes(n_spans: int) -> int:
    """The workspace starts with a 4-byte flag per span; the pieces follow, 256-byte aligned."""
    return ceil_div(4 * n_spans, 256) * 256


def workspace_bytes(n_spans: int, n_feat: int) -> int:
    """The flags, then two fp32 pieces of a row per boundary between spans, one from each side of it
    (the .cu file's Args::piece). F = 0 (counts only) needs neither: no fix-up runs."""
    if n_feat == 0:
        return 0
    return flag_bytes(n_spans) + 4 * n_feat * 2 * max(n_spans - 1, 0)


def uses_scratch(n_nodes: int, n_edges: int, n_feat: int, arch: int = SCRATCH_ARCH) -> bool:
    """Whether the kernel may keep (sum, count) pairs, [N, 2] fp32, in the workspace (it does where
    idx is not sorted): at F = 1 with E >= 2N and E >= SCRATCH_EDGES, on sm_90 or later (``arch``:
    90 for sm_90), whatever the type: 16-bit runs are fp32 sums too, rounded to X's type once."""
    if arch < SCRATCH_ARCH or n_feat != 1:
        return False
    return n_edges >= max(2 * n_nodes, SCRATCH_EDGES)


def workspace_size(*, float_type: str, nodes: tuple[int, int], edges: tuple[int, int],
                   features: tuple[int, int], arch: int = SCRATCH_ARCH) -> int:
    """Bytes of workspace the kernels use, at most, for any F, E and N in these (lowest, highest)
    ranges on ``arch`` (90 for sm_90); from rows of WIDE_ROW bytes up, the widest F decides. It
    stays within the larger of an eighth of src's bytes, X's and the counts' bytes, and 64 KiB
    (SPAN_BYTES, PIECE_BYTES and uses_scratch see to it; tests/test_kernel_plan.py), but for the
    16-bit scratch: its 8N bytes pass X's and the counts' 6N, and stay within idx's 4E (E >= 2N)."""
    elem = FLOATS[float_type][1]
    widths = {*range(features[0], min(features[1], WIDE_ROW // elem) + 1), features[1]}
    pieces = max(workspace_bytes(most_spans(tile(f, elem), elem, f, *edges), f) for f in widths)
    most_nodes = min(nodes[1], edges[1] // 2)  # the most that uses_scratch allows with any E here
    scratch = uses_scratch(most_nodes, edges[1], 1, arch)
    if features[0] <= 1 <= features[1] and scratch and most_nodes >= nodes[0]:
        return max(pieces, 8 * most_nodes)
    return pieces


def size_problem(n_nodes: int, n_edges: int, n_feat: int, float_type: str) -> str | None:
    """Why the kernel cannot take these sizes (its 32-bit limits), or None."""
    row = n_feat * FLOATS[float_type][1]
    row_words = f"a row of F = {n_feat} {float_type} ({row} bytes)"
    for what, value in (("N", n_nodes), ("E", n_edges), (row_words, row)):
        if value > INT32_MAX:
            return f"{what} = {value} is past the kernel's 32-bit limit of {INT32_MAX}"
    return None


def main_blocks(n_spans: Any, fit: int, smaller: Pick = min, larger: Pick = max) -> Any:
    """A warp per span, at least one block and at most ``fit`` (warps stride over the spans beyond).
    """
    return larger(smaller(ceil_div(n_spans, BLOCK // 32), fit), 1)


@dataclass(frozen=True)
class Launch:
    """One enqueue: the kernel arguments after the pointers, the grids (0: that kernel has no work)
    and the workspace it may use. With the scratch, the zero kernel runs before the main one and the
    recount after the fix-up, on the fix-up's grid."""

    tile: Tile
    span: int
    spans: int
    fix_width: int
    flag_bytes: int
    blocks: int
    fix_blocks: int
    scratch: bool
    recount: bool
    workspace: int  # bytes: the flags and pieces, or the scratch's 8N if larger

    def scalars(self) -> tuple[int, ...]:
        t = self.tile  # the .cu entry points' arguments after (n_edges, n_nodes, n_feat)
        return t.columns, t.lanes, t.passes, self.span, self.fix_width, int(self.scratch)

    def grids(self) -> tuple[tuple[int, int], ...]:
        """(blocks, threads) of each entry in scatter_add.ENTRIES' order: zero, main with hubs,
        main without (spans shorter than HUB_EDGES never look for one), fix-up, recount."""
        zero = self.fix_blocks if self.scratch else 0
        recount = self.fix_blocks if self.recount else 0
        looks = self.span >= HUB_EDGES
        with_hubs = self.blocks if looks else 0
        without = 0 if looks else self.blocks
        return ((zero, FIX_BLOCK), (with_hubs, BLOCK), (without, BLOCK),
                (self.fix_blocks, FIX_BLOCK), (recount, FIX_BLOCK))


@functools.lru_cache(maxsize=256)  # enqueue asks on every call; TensorRT repeats the same sizes
def launch(n_nodes: int, n_edges: int, n_feat: int, float_type: str, fit: int,
           arch: int = SCRATCH_ARCH) -> Launch:
    """The plan for these sizes; ``fit``: blocks of the main kernel that fit on the GPU at once;
    ``arch``: 90 for sm_90."""
    problem = size_problem(n_nodes, n_edges, n_feat, float_type)
    if problem:
        raise ValueError(problem)
    elem = FLOATS[float_type][1]
    t = tile(n_feat, elem)
    span = span_length(n_edges, t, elem, n_feat)
    width = fix_width(n_feat)
    count = ceil_div(n_edges, span)
    blocks = main_blocks(count, fit) if n_edges and n_nodes else 0
    fix_blocks = 0  # one span: no run crosses a boundary
    if blocks and count > 1:
        fix_blocks = ceil_div(count * (n_feat // width), FIX_BLOCK)
    # With the scratch, the fix-up's grid also serves the zero kernel, the unpack and the recount,
    # which stride over N (or E): at most half the main grid's blocks, as many of FIX_BLOCK threads
    # as fit on the GPU at once.
    scratch = uses_scratch(n_nodes, n_edges, n_feat, arch)
    workspace = workspace_bytes(count, n_feat)
    if scratch:
        fix_blocks = max(fix_blocks, min(ceil_div(n_nodes, FIX_BLOCK), max(blocks // 2, 1)))
        workspace = max(workspace, 8 * n_nodes)
    return Launch(t, span, count, width, flag_bytes(count), blocks, fix_blocks, scratch,
                  scratch and n_edges >= EXACT_COUNTS, workspace)
