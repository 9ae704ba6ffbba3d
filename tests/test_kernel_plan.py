"""The launcher's launch plan and workspace arithmetic, on CPU (the GPU tests run the plan)."""

from __future__ import annotations

import pytest

from kernels import launcher as sak

EDGE_COUNTS = [1, 2, 31, 32, 33, 4096, 4097, 131071, 131073, 1 << 20, (1 << 20) - 1, (1 << 20) + 1,
               3_000_017, 64 << 20, 2**31 - 1]


@pytest.mark.parametrize("n_edges", EDGE_COUNTS)
def test_plan_ends_in_one_chunk_and_each_level_reduces_the_last(n_edges: int) -> None:
    levels = sak.plan(n_edges)
    assert levels[0].n_in == n_edges and levels[-1].groups == 1
    for before, after in zip(levels, levels[1:]):
        assert after.n_in == 2 * before.groups < before.n_in
    for level in levels:
        assert level.chunk % 32 == 0 and 32 <= level.chunk <= 256
        assert (level.groups - 1) * level.chunk < level.n_in <= level.groups * level.chunk
    assert len(levels) <= 6


@pytest.mark.parametrize("max_edges", [5, 5003, 1 << 20, 3_000_017])
def test_carries_fit_the_workspace_for_every_edge_count_up_to_the_maximum(max_edges: int) -> None:
    """TensorRT sizes the workspace once, from the profile's maximum E; any smaller E must fit."""
    capacities = sak.carry_capacities(max_edges)  # one region per level that writes carries
    step = max(1, max_edges // 20000)
    for n_edges in list(range(1, max_edges + 1, step)) + [max_edges]:
        levels = sak.plan(n_edges)[:-1]  # the last level writes no carries
        assert len(levels) <= len(capacities), n_edges
        for k, level in enumerate(levels):
            assert 2 * level.groups <= capacities[k], (n_edges, k)


def test_workspace_grows_with_edges_and_features() -> None:
    sizes = [sak.workspace_size(e, 64) for e in (1, 1000, 1 << 20, 1 << 24)]
    assert sizes == sorted(sizes) and sizes[0] >= sak.CONTROL_BYTES
    assert sak.workspace_size(1 << 20, 128) > sak.workspace_size(1 << 20, 64)
    # carries are 2 fp32 rows per 256 edges at scale: small next to the edges themselves
    assert sak.workspace_size(64 << 20, 64) < (64 << 20) * 64 * 2 // 50


def test_whole_runs_level_sizes_chunks_by_warps_of_work() -> None:
    """The whole-runs level counts every scan pass as a warp: 64K edges of 32 columns (8 passes)
    make 512 chunks of 128 edges, 4096 warps, what the GPU holds at once; 1K edges stay at 32."""
    assert sak.whole_runs_level(64 << 10, 32) == sak.Level(64 << 10, 128, 512)
    assert sak.whole_runs_level(1 << 10, 32) == sak.Level(1 << 10, 32, 32)
    assert sak.whole_runs_level(64 << 10, 1) == sak.Level(64 << 10, 32, 2048)  # one pass
    assert sak.plan(64 << 10)[0] == sak.Level(64 << 10, 32, 2048)  # with carries: as many chunks


def test_grid_covers_the_widest_first_level_either_way() -> None:
    # 64K edges, 32 columns: 512 whole-runs items of 256 threads, or 2048 groups x 8 lanes (64 items)
    assert sak.grid_size(64 << 10, 32, "fp16", 10_000) == 512
    assert sak.grid_size(64 << 10, 32, "fp16", 300) == 300  # never more than fit at once
    # beyond SCAN_EDGES: level 0's 256 items of 4096 edges outnumber 4096 groups x 8 lanes (128 items)
    assert sak.grid_size(1 << 20, 32, "fp16", 10_000) == 256


@pytest.mark.parametrize(("float_type", "n_feat", "width", "lanes"), [
    ("fp32", 1, 1, 32), ("fp16", 4, 4, 32),          # narrow rows: always a warp, lanes over edges
    ("fp32", 5, 1, 8), ("fp32", 64, 2, 32), ("fp32", 130, 2, 32),
    ("fp16", 6, 2, 4), ("fp16", 33, 1, 32), ("bf16", 64, 4, 16), ("bf16", 128, 4, 32),
])
def test_vector_width_and_group_size(float_type: str, n_feat: int, width: int, lanes: int) -> None:
    assert sak.vector_width(float_type, n_feat) == width
    assert sak.group_size(float_type, n_feat) == lanes
    # the whole-runs level scans: a warp per NARROW_FEAT columns
    assert sak.group_size(float_type, n_feat, True) == 32 * -(-n_feat // sak.NARROW_FEAT)


def test_kernel_arguments_are_packed_once_and_point_at_their_values() -> None:
    import ctypes

    types = (ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int, ctypes.c_void_p)
    packed = sak.packed((0xDEAD00, -(1 << 40), 7, 0), types)
    slots = (ctypes.c_void_p * 4).from_address(packed.address)
    assert ctypes.c_void_p.from_address(slots[0]).value == 0xDEAD00
    assert ctypes.c_longlong.from_address(slots[1]).value == -(1 << 40)
    assert ctypes.c_int.from_address(slots[2]).value == 7
    assert ctypes.c_void_p.from_address(slots[3]).value is None  # a null pointer argument
    assert sak.packed((0xDEAD00, -(1 << 40), 7, 0), types) is packed


def test_edge_counts_beyond_int32_are_refused() -> None:
    """Counts, and each run's edge count inside the kernel, are int32."""
    assert sak.grid_size(sak.MAX_EDGES, 1, "fp32", 10_000) >= 1
    with pytest.raises(ValueError, match="int32"):
        sak.grid_size(sak.MAX_EDGES + 1, 1, "fp32", 10_000)
