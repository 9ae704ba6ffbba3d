# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""kernels/plan.py on CPU: the tile, the spans, the workspace, the limits and the grids, which the .cu file
receives instead of computing them. The GPU tests check that the kernels keep to them
(test_kernel_gpu.py: test_the_workspace_is_exactly_what_the_kernels_use)."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from kernels import cuda_calls, plan
from kernels import scatter_add as sak

EDGE_COUNTS = [0, 1, 2, 31, 32, 33, 1000, 4096, 4097, 65536, 131073, (1 << 20) - 1, 1 << 20, 3_000_017,
               64 << 20, 2**31 - 1]
WIDTHS = [0, 1, 2, 3, 4, 5, 6, 8, 16, 33, 64, 130, 4096]


def spans_of(n_edges: int, n_feat: int, elem: int = 2) -> int:
    """The spans the kernel cuts n_edges into, for rows of n_feat elements."""
    return plan.ceil_div(n_edges, plan.span_length(n_edges, plan.tile(n_feat, elem), elem, n_feat))


def planned(float_type: str, nodes: tuple[int, int], edges: tuple[int, int], features: tuple[int, int]) -> int:
    """plan.workspace_size over these (lowest, highest) ranges, on sm_90."""
    return plan.workspace_size(float_type=float_type, nodes=nodes, edges=edges, features=features)


def used(float_type: str, n_feat: int, n_edges: int, n_nodes: int = 1) -> int:
    """The workspace the kernels use for exactly these sizes: the flags and pieces, or at F = 1 (E >= 2N) the
    [N, 2] fp32 scratch in their place, whichever is larger (the GPU picks one only once it has seen idx)."""
    elem = plan.FLOATS[float_type][1]
    scratch = 8 * n_nodes if plan.uses_scratch(n_nodes, n_edges, n_feat) else 0
    return max(plan.workspace_bytes(spans_of(n_edges, n_feat, elem), n_feat), scratch)


def compiled_tiles(elem: int) -> set[tuple[int, int]]:
    """The (columns, edges) tiles scatter_add.cu compiles for 4- or 2-byte types: its hand-written switch
    over the columns a lane (one edge a load), whose default is no tile, and F = 1's walk."""
    lists = re.findall(r"switch \(columns\) \{\s*((?:TILE\(\d+\)\s*)+)default: return drifted\(\);\s*\}",
                       sak.KERNEL_SOURCE.read_text())
    assert len(lists) == 2  # 4-byte types, then 2-byte ones
    source = sak.KERNEL_SOURCE.read_text()  # F = 1 goes to its own walk before the switch, K1 edges a lane
    assert "if (a.n_feat == 1) return span_f1<PIECES, false>(a, span, hubs, sm);" in source
    # K1 is one fact: plan.F1_EDGES, passed as a -D option (the AOT route compiles with the same options)
    assert "constexpr int K1 = SCATTER_F1_EDGES;" in source
    assert f"-DSCATTER_F1_EDGES={plan.F1_EDGES}" in sak.defines("fp16" if elem == 2 else "fp32", "int32")
    f1 = {(1, plan.F1_EDGES)}
    return f1 | {(int(c), 1) for c in re.findall(r"TILE\((\d+)\)", lists[0 if elem == 4 else 1])}


@pytest.mark.parametrize("elem", [4, 2])
@pytest.mark.parametrize("n_feat", WIDTHS)
def test_a_tile_covers_the_row_with_a_compiled_shape(elem: int, n_feat: int) -> None:
    t = plan.tile(n_feat, elem)
    assert (t.columns, t.edges) in compiled_tiles(elem)  # the kernel switches over exactly these
    if n_feat == 1:  # the .cu's own walk: F1_EDGES edges a lane a round, in whole 16-byte loads (two of fp32 src)
        assert (t.columns, t.edges, t.lanes, t.passes) == (1, plan.F1_EDGES, 1, 1)
        assert t.step == 32 * plan.F1_EDGES == 256 and plan.SPAN_EDGES % t.step == 0
        assert plan.F1_EDGES * elem % 16 == 0 and plan.F1_EDGES * 8 % 16 == 0  # src and int64 idx alike
        return
    assert t.columns * t.edges * elem <= 16 and 32 % t.lanes == 0
    assert t.lanes * t.passes * t.columns >= n_feat  # every column, in passes
    assert (t.passes - 1) * t.lanes * t.columns < max(n_feat, 1)  # and no pass without a column
    assert n_feat % t.columns == 0 or n_feat == 0  # a lane's vector never straddles two rows
    assert plan.SPAN_EDGES % t.step == 0 and t.step % t.edges == 0  # spans start whole 16-byte loads of src


@pytest.mark.parametrize("elem", [4, 2])
def test_every_width_gets_a_compiled_shape(elem: int) -> None:
    """The kernel's switch has a case per shape and no default: a shape left out would skip its spans."""
    compiled = compiled_tiles(elem)
    assert all((t.columns, t.edges) in compiled for t in (plan.tile(f, elem) for f in range(1, 20_001)))


@pytest.mark.parametrize("elem", [4, 2])
def test_the_kernel_compiles_no_tile_the_plan_never_gives(elem: int) -> None:
    """Widths up to 64 meet every tile (past 16 bytes only the row's bytes mod 16 matter), and so does the switch."""
    assert compiled_tiles(elem) == {(t.columns, t.edges) for t in (plan.tile(f, elem) for f in range(65))}
    fix_cases = re.findall(r"case (\d+): return fix_up<(\d+)>", sak.KERNEL_SOURCE.read_text())
    assert sorted(int(a) for a, b in fix_cases if a == b) == sorted({plan.fix_width(f) for f in range(1, 65)})


@pytest.mark.parametrize("n_edges", EDGE_COUNTS)
@pytest.mark.parametrize("n_feat", [1, 33, 64, 4096])
@pytest.mark.parametrize("elem", [4, 2])
def test_spans_are_steps_long_and_about_target_many(n_edges: int, n_feat: int, elem: int) -> None:
    t = plan.tile(n_feat, elem)
    span, least = plan.span_length(n_edges, t, elem, n_feat), plan.least_span(n_edges, t, elem, n_feat)
    floor = plan.ceil_div(plan.ceil_div(plan.SPAN_BYTES, elem), t.step) * t.step
    assert least % t.step == 0 and floor * elem >= plan.SPAN_BYTES > (floor - t.step) * elem
    if n_feat * elem >= plan.WIDE_ROW:
        assert least == floor
    else:  # short spans while the pieces stay small, then the floor
        assert least == floor or (t.step <= least < floor and 8 * n_feat * (n_edges / least - 1) <= plan.PIECE_BYTES)
    assert span % t.step == 0 and least <= span <= plan.SPAN_EDGES
    count = spans_of(n_edges, n_feat, elem)
    assert count * span >= n_edges > (count - 1) * span or n_edges == count == 0
    if span < plan.SPAN_EDGES:
        assert count <= plan.TARGET_SPANS  # the least length that gives no more than the target
        assert span == least or plan.ceil_div(n_edges, span - t.step) > plan.TARGET_SPANS


@pytest.mark.parametrize("n_feat", [1, 2, 8, 33, 64, 127, 128])
@pytest.mark.parametrize("around", [1, 2, 3, 500, 511, 512, 513])
def test_most_spans_is_the_exact_maximum_over_a_range(n_feat: int, around: int) -> None:
    """The workspace serves every E of the profile: its span count is the largest the kernel cuts for any E
    in the range, found by trying each E around the steps of the span length."""
    t = plan.tile(n_feat, 2)
    middle = around * plan.TARGET_SPANS * t.step
    for low, high in ((middle - 300, middle - 1), (middle - 300, middle), (middle, middle + 300),
                      (middle + 1, middle + 5), (max(1, middle - 3 * t.step), middle + t.step)):
        assert plan.most_spans(t, 2, n_feat, low, high) == max(spans_of(e, n_feat) for e in range(low, high + 1)), \
            (low, high)


@pytest.mark.parametrize(("n_feat", "elem"), [(1, 4), (3, 4), (8, 2), (32, 2), (64, 4), (100, 2)])
def test_most_spans_finds_where_the_least_span_grows(n_feat: int, elem: int) -> None:
    """Where the pieces would pass PIECE_BYTES, the least span grows a step at a time: every E tried in windows
    around each place where it grows, and in windows that hold several of them."""
    t = plan.tile(n_feat, elem)
    grows = [k * t.step * plan.PIECE_BYTES // (8 * n_feat) for k in range(1, plan.SPAN_BYTES // t.step + 2)]
    windows = [(max(1, g - 40), g + 40) for g in grows] + [(max(1, g - 2000), g + 2000) for g in grows[:2]]
    for low, high in windows:
        assert plan.most_spans(t, elem, n_feat, low, high) == max(spans_of(e, n_feat, elem)
                                                                  for e in range(low, high + 1)), (low, high)


def test_the_workspace_is_the_flags_then_the_pieces() -> None:
    count = spans_of(1 << 20, 64)
    assert planned("fp16", (1, 1), (1 << 20, 1 << 20), (64, 64)) == -(-4 * count // 256) * 256 + 4 * 64 * (2 * count - 2)
    assert plan.workspace_bytes(0, 64) == 0 and plan.workspace_bytes(1, 8) == 256  # one span: flags only
    assert plan.workspace_bytes(5000, 0) == 0  # counts only: no fix-up, so no flags
    # fp32, F = 4096, E = 8000: spans of 24 edges (96 bytes of each column), 334 spans, 10.9 MB (src: 131 MB)
    assert planned("fp32", (1, 1), (8000, 8000), (4096, 4096)) == 1536 + 4 * 4096 * 666
    # two fp32 rows per span of up to SPAN_EDGES edges: a small share of the edges' own bytes
    assert planned("fp16", (1, 1), (64 << 20, 64 << 20), (64, 64)) < (64 << 20) * 64 * 2 // 100


def bound(float_type: str, n_nodes: int, n_edges: int, n_feat: int) -> int:
    """The workspace's bound: the most of src's bytes / 8, the bytes of X and counts, and 64 KiB."""
    elem = plan.FLOATS[float_type][1]
    return max(n_edges * n_feat * elem // 8, n_nodes * (n_feat * elem + 4), 64 << 10)


@pytest.mark.parametrize("float_type", ["fp32", "fp16"])
@pytest.mark.parametrize("n_feat", [0, 1, 2, 3, 8, 16, 32, 64, 100, 128, 129, 256, 4096, 1 << 16])
def test_the_workspace_stays_within_an_eighth_of_src(float_type: str, n_feat: int) -> None:
    """For fixed shapes (N = 1: X and counts count for nothing) and for profiles from E = 1 up."""
    for n_edges in [*range(0, 5000, 7), *EDGE_COUNTS, 16 << 10, 16 << 10 | 1, 3 << 20, 1 << 28]:
        for low in (n_edges, 1):
            size = planned(float_type, (1, 1), (low, n_edges), (n_feat, n_feat))
            assert size <= bound(float_type, 1, n_edges, n_feat), (n_edges, low, size)


def test_the_issues_wide_example_is_within_the_bound() -> None:
    """fp16 F = 4096, E = 16K took 128 MiB of workspace for 128 MiB of src; now at most an eighth."""
    workspace = plan.workspace_size(float_type="fp16", nodes=(1, 1), edges=(1, 16 << 10), features=(4096, 4096))
    assert workspace <= (16 << 10) * 4096 * 2 // 8 and workspace == 1536 + 4 * 4096 * (2 * 342 - 2)


SCRATCH_N = plan.SCRATCH_EDGES // 2  # the most nodes that take the scratch at its least E


@pytest.mark.parametrize(("float_type", "features", "edges", "nodes"), [
    ("fp32", (8, 8), (1, 5003), (1, 3)), ("fp32", (1, 64), (100, 3000), (1, 2)), ("fp16", (100, 140), (1, 700), (1, 3)),
    ("fp32", (33, 33), (0, 0), (0, 2)),
    # F = 1 around the scratch's edges: E crosses SCRATCH_EDGES, N crosses E / 2
    ("fp32", (1, 1), (plan.SCRATCH_EDGES - 40, plan.SCRATCH_EDGES + 40), (SCRATCH_N - 30, SCRATCH_N + 30)),
    ("fp32", (1, 2), (plan.SCRATCH_EDGES - 60, plan.SCRATCH_EDGES - 1), (SCRATCH_N - 30, SCRATCH_N)),  # E too few
    ("fp32", (1, 3), (plan.SCRATCH_EDGES, plan.SCRATCH_EDGES + 20), (SCRATCH_N + 11, SCRATCH_N + 40)),  # N > E / 2
    ("fp32", (2, 3), (plan.SCRATCH_EDGES, plan.SCRATCH_EDGES + 20), (SCRATCH_N - 30, SCRATCH_N)),  # no F = 1
    ("fp16", (1, 1), (plan.SCRATCH_EDGES, plan.SCRATCH_EDGES + 20), (SCRATCH_N - 30, SCRATCH_N))])  # no fp32
def test_the_profile_workspace_is_the_largest_any_shape_in_it_uses(float_type: str, features: tuple[int, int],
                                                                   edges: tuple[int, int],
                                                                   nodes: tuple[int, int]) -> None:
    """Every F, E and N of the profile tried: TensorRT's one workspace must serve each, and no more is asked."""
    largest = max(used(float_type, f, e, n) for f in range(features[0], features[1] + 1)
                  for e in range(edges[0], edges[1] + 1) for n in range(nodes[0], nodes[1] + 1))
    assert plan.workspace_size(float_type=float_type, nodes=nodes, edges=edges, features=features) == largest


def test_wide_rows_are_sized_by_the_widest() -> None:
    """Past 256-byte rows the tile stops changing, so a wide F range costs a handful of evaluations."""
    assert planned("fp16", (1, 1), (1, 5000), (1, 1 << 20)) == max(
        planned("fp16", (1, 1), (1, 5000), (f, f)) for f in (*range(1, 129), 1 << 20))


@pytest.mark.parametrize(("n_nodes", "n_edges", "n_feat", "float_type", "uses"), [
    (1 << 17, 1 << 18, 1, "fp32", True),  # at both edges: E = SCRATCH_EDGES = 2N
    (1 << 17, (1 << 18) - 1, 1, "fp32", False),  # one edge short
    (1, (1 << 18) - 1, 1, "fp32", False),  # few nodes do not lower the least E
    ((1 << 17) + 1, 1 << 18, 1, "fp32", False),  # N = E // 2 + 1
    (1 << 17, (1 << 18) + 1, 1, "fp32", True), ((1 << 17) + 1, (1 << 18) + 1, 1, "fp32", False),
    (4 << 20, 64 << 20, 1, "fp32", True), (32 << 20, 64 << 20, 1, "fp32", True),
    ((32 << 20) + 1, 64 << 20, 1, "fp32", False),
    (1 << 17, 1 << 18, 1, "fp16", True), (1 << 17, 1 << 18, 1, "bf16", True),
    ((1 << 17) + 1, 1 << 18, 1, "fp16", False),
    (1 << 17, 1 << 18, 2, "fp32", False), (1 << 17, 1 << 18, 0, "fp32", False)])
def test_the_scratch_is_for_f1_with_at_least_two_edges_a_node(n_nodes: int, n_edges: int, n_feat: int,
                                                               float_type: str, uses: bool) -> None:
    """Its 8N bytes stay within idx's 4E (E >= 2N) and, at fp32, within X's and the counts'; its RED adds an fp32
    (sum, count) pair, whatever X's type: F = 1 only, from SCRATCH_EDGES = 2^18 edges up."""
    used_bytes = used(float_type, n_feat, n_edges, n_nodes)
    assert plan.uses_scratch(n_nodes, n_edges, n_feat) is uses
    assert (used_bytes == 8 * n_nodes) is uses and used_bytes <= max(4 * n_edges, 64 << 10)


def corners(bounds: tuple[int, int], *inside: int) -> set[int]:
    """A range's ends, and those of ``inside`` that fall in it: where the plan's rules change."""
    return {bounds[0], bounds[1], *(v for v in inside if bounds[0] <= v <= bounds[1])}


@pytest.mark.parametrize("features", [(1, 1), (1, 8), (2, 8)])
@pytest.mark.parametrize(("nodes", "edges", "scratch"), [
    ((4 << 20, 4 << 20), (64 << 20, 64 << 20), True),  # the issue's graph: 32 MiB of scratch, src's eighth
    ((SCRATCH_N, SCRATCH_N), (plan.SCRATCH_EDGES, plan.SCRATCH_EDGES), True),  # the least E, at its most N
    ((SCRATCH_N + 1, SCRATCH_N + 1), (plan.SCRATCH_EDGES, plan.SCRATCH_EDGES), False),  # N > E / 2
    ((SCRATCH_N, SCRATCH_N), (plan.SCRATCH_EDGES - 1, plan.SCRATCH_EDGES - 1), False),  # E one short
    ((1 << 30, 1 << 30), (64 << 20, 64 << 20), False),  # N far past E / 2
    ((1, 4 << 20), (1, 64 << 20), True), ((1, 1 << 30), (1, 64 << 20), True),  # N up to E / 2 of the range
    ((1 << 20, 1 << 26), (1 << 18, 1 << 22), True), ((3 << 20, 4 << 20), (1, 5 << 20), False),  # N_lo > E_hi / 2
    ((1, 1000), (1, 1 << 28), True), ((0, 0), (1, 1 << 20), True),  # the pieces outweigh the scratch
    ((1, 1), (1, 2**31 - 1), True), ((2**30 - 1, 2**31 - 1), (1, 2**31 - 1), True)])
def test_the_workspace_stays_within_the_issues_bound_and_holds_the_scratch(features: tuple[int, int],
                                                                          nodes: tuple[int, int],
                                                                          edges: tuple[int, int],
                                                                          scratch: bool) -> None:
    """fp32 profiles with F = 1 or not: at most an eighth of src, X's and the counts' bytes or 64 KiB at the
    profile's highest sizes, and never less than a shape of the profile uses: the scratch's 8N wherever
    uses_scratch holds, or the kernel would write past the workspace. Shapes tried at the range ends and where
    E / 2 or SCRATCH_EDGES falls."""
    workspace = plan.workspace_size(float_type="fp32", nodes=nodes, edges=edges, features=features)
    assert workspace <= bound("fp32", nodes[1], edges[1], features[1]), workspace
    seen = False
    for n_feat in corners(features, 1):
        for n_edges in corners(edges, plan.SCRATCH_EDGES - 1, plan.SCRATCH_EDGES,
                               *(2 * n + d for n in nodes for d in (-1, 0, 1))):
            for n_nodes in corners(nodes, n_edges // 2, n_edges // 2 + 1, edges[1] // 2):
                if plan.uses_scratch(n_nodes, n_edges, n_feat):
                    seen = True
                    assert workspace >= 8 * n_nodes, (n_nodes, n_edges, workspace)
                assert workspace >= used("fp32", n_feat, n_edges, n_nodes), (n_feat, n_nodes, n_edges, workspace)
    assert seen is (scratch and features[0] <= 1)  # the profile meets the scratch, or it must not ask for it
    if not seen:
        assert workspace == plan.workspace_size(float_type="fp32", nodes=(0, 0), edges=edges, features=features)  # pieces


@pytest.mark.parametrize("float_type", ["fp16", "bf16"])
def test_a_16_bit_profile_at_f_1_holds_the_scratch_within_idx(float_type: str) -> None:
    """16-bit X at F = 1: the scratch's 8N bytes pass X's and the counts' 6N, but stay within idx's 4E."""
    nodes, edges = (1, 4 << 20), (1, 64 << 20)
    workspace = plan.workspace_size(float_type=float_type, nodes=nodes, edges=edges, features=(1, 1))
    assert workspace == 8 * (4 << 20) > 6 * (4 << 20) and workspace <= 4 * edges[1]


@pytest.mark.parametrize(("n_nodes", "n_edges"), [(SCRATCH_N, plan.SCRATCH_EDGES), (1, plan.EXACT_COUNTS - 1),
                                                  (1, plan.EXACT_COUNTS), (4 << 20, 64 << 20),
                                                  (2**30 - 1, 2**31 - 1)])
def test_a_scratch_launch_unpacks_and_recounts_from_exact_counts_up(n_nodes: int, n_edges: int) -> None:
    """A float count stops being exact at 2^24: from that E up, the recount runs on the fix-up's grid, which the
    scratch always gets (it unpacks the N rows), and the kernel is told of the scratch (its last scalar)."""
    assert plan.EXACT_COUNTS == 1 << 24 and float(np.float32(2**24 + 1)) == 2**24  # fp32's 24-bit significand
    for float_type in plan.FLOATS:
        work = plan.launch(n_nodes, n_edges, 1, float_type, 528)
        assert work.scratch and work.scalars()[-1] == 1
        assert work.recount is (n_edges >= plan.EXACT_COUNTS)
        assert work.fix_blocks >= max(1, min(plan.ceil_div(n_nodes, plan.FIX_BLOCK), work.blocks // 2))
    wider = plan.launch(n_nodes, n_edges, 2, "fp32", 528)
    assert not wider.scratch and wider.scalars()[-1] == 0


@pytest.mark.parametrize("n_edges", EDGE_COUNTS)
@pytest.mark.parametrize("n_feat", [0, 1, 33])
@pytest.mark.parametrize("n_nodes", [10, 3 << 20])
def test_grids_cover_every_span_and_no_more(n_edges: int, n_feat: int, n_nodes: int) -> None:
    """With the scratch, the fix-up grid also unpacks the N rows: a thread a row, or as many blocks as the main
    grid's and striding (zero and recount run on the same grid)."""
    work = plan.launch(n_nodes, n_edges, n_feat, "fp32", 528)
    assert work.scratch == (n_feat == 1 and n_edges >= max(2 * n_nodes, plan.SCRATCH_EDGES))
    assert work.recount == (work.scratch and n_edges >= plan.EXACT_COUNTS)  # no scratch: nothing to recount
    if n_edges == 0:
        assert (work.blocks, work.fix_blocks) == (0, 0)
        return
    assert 1 <= work.blocks <= 528
    assert work.blocks * plan.BLOCK // 32 >= work.spans or work.blocks == 528  # warps stride past the fit
    # a thread per span and W columns (one span: no boundary; F = 0: no pieces), and with the scratch a row each
    threads = work.spans * (n_feat // work.fix_width) if work.spans > 1 else 0
    rows = min(n_nodes, max(work.blocks // 2, 1) * plan.FIX_BLOCK) if work.scratch else 0
    need = max(threads, rows)  # enough blocks for every thread, and not one more
    if need:
        assert (work.fix_blocks - 1) * plan.FIX_BLOCK < need <= work.fix_blocks * plan.FIX_BLOCK
    else:
        assert work.fix_blocks == 0
    assert work.scalars() == (work.tile.columns, work.tile.lanes, work.tile.passes, work.span,
                              work.fix_width, int(work.scratch))
    assert work.flag_bytes == plan.flag_bytes(work.spans) and work.flag_bytes % 256 == 0
    # One (blocks, threads) per entry, in launch order: zero and recount only with the scratch, on the fix-up's grid;
    # of the two main kernels, the one with hubs where spans are long enough to look for them, else the one without.
    zero, recount = (work.fix_blocks if work.scratch else 0), (work.fix_blocks if work.recount else 0)
    looks = work.span >= plan.HUB_EDGES
    with_hubs = (work.blocks if looks else 0, plan.BLOCK)
    without = (0 if looks else work.blocks, plan.BLOCK)
    assert work.grids() == ((zero, plan.FIX_BLOCK), with_hubs, without, (work.fix_blocks, plan.FIX_BLOCK),
                            (recount, plan.FIX_BLOCK))
    assert len(work.grids()) == len(sak.ENTRIES)


def test_sizes_past_the_kernels_32_bit_limits_are_named() -> None:
    top = plan.INT32_MAX
    assert plan.size_problem(top, top, top // 4, "fp32") is None
    assert "E = 2147483648" in str(plan.size_problem(1, top + 1, 1, "fp32"))
    assert "N = 2147483648" in str(plan.size_problem(top + 1, 1, 1, "fp32"))
    assert "F = 1073741824 fp16 (2147483648 bytes)" in str(plan.size_problem(1, 1, 2**30, "fp16"))
    with pytest.raises(ValueError, match="32-bit limit"):
        plan.launch(1, top + 1, 1, "fp32", 10)


def test_kernel_arguments_are_packed_once_and_point_at_their_values() -> None:
    types = (ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int, ctypes.c_void_p)
    packed = cuda_calls.packed((0xDEAD00, -(1 << 40), 7, 0), types)
    slots = (ctypes.c_void_p * 4).from_address(packed[0])
    assert ctypes.c_void_p.from_address(slots[0]).value == 0xDEAD00
    assert ctypes.c_longlong.from_address(slots[1]).value == -(1 << 40)
    assert ctypes.c_int.from_address(slots[2]).value == 7
    assert ctypes.c_void_p.from_address(slots[3]).value is None  # a null pointer argument
    assert cuda_calls.packed((0xDEAD00, -(1 << 40), 7, 0), types) is packed


def test_the_argument_types_follow_the_kernels_parameters() -> None:
    params = re.search(r"#define PARAMS(.*?)\nstruct", sak.KERNEL_SOURCE.read_text(), re.S)
    assert params is not None
    declared = [" ".join(p.replace("\\", " ").split()) for p in params.group(1).split(",")]
    kinds = [ctypes.c_void_p if "*" in p else ctypes.c_longlong if p.startswith("long long") else ctypes.c_int
             for p in declared]
    assert kinds == list(sak.ARG_TYPES) and len(declared) == 9 + len(plan.launch(1, 1, 1, "fp32", 1).scalars())
    names = ["columns", "lanes", "passes", "span", "fix_width", "scratch"]
    assert [p.split()[-1] for p in declared][-len(names):] == names


def test_the_kernel_source_computes_no_tile_span_or_layout() -> None:
    """What v11's .cu decided itself (its shape_of, span doubling, piece layout and type list) is gone: the tile,
    span and grids come as arguments, the type pair and block sizes as -D options."""
    source = sak.KERNEL_SOURCE.read_text()
    for fact in ("shape_of", "SPAN_EDGES", "TARGET_SPANS", "WIDE_BYTES", "pieces_of"):
        assert fact not in source, fact


def test_type_names() -> None:
    from gnn import model as precisions

    assert tuple(plan.FLOATS) == precisions.NAMES  # the CLI's precisions are the kernel's


def test_the_compile_options_name_the_type_pair_and_the_block_sizes() -> None:
    options = sak.defines("bf16", "int64")
    assert options[:2] == ["-DSCATTER_T=__nv_bfloat16", "-DSCATTER_I=long long"]
    assert f"-DSCATTER_BLOCK={plan.BLOCK}" in options and f"-DSCATTER_FIX_BLOCK={plan.FIX_BLOCK}" in options
