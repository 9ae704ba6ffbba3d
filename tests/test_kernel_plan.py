"""The launcher's tile plan and workspace arithmetic, on CPU (the GPU tests run the kernel on it)."""

from __future__ import annotations

import pytest

from kernels import launcher as sak

EDGE_COUNTS = [1, 2, 31, 32, 33, 1000, 4096, 4097, 65536, 131073, (1 << 20) - 1, 1 << 20, 3_000_017,
               64 << 20, 2**31 - 1]
ROWS = [("fp32", 0), ("fp32", 1), ("fp16", 1), ("fp16", 4), ("fp16", 8), ("fp32", 5), ("fp32", 64),
        ("fp16", 64), ("bf16", 130), ("fp16", 33)]


@pytest.mark.parametrize("n_edges", EDGE_COUNTS)
@pytest.mark.parametrize(("float_type", "n_feat"), ROWS)
def test_tiles_fit_the_workspace_and_the_kernels_limits(n_edges: int, float_type: str, n_feat: int) -> None:
    cut = sak.shape(float_type, n_feat, n_edges)
    assert cut.span % cut.epl == 0 and cut.span <= 8 * sak.SPAN  # 16-byte loads of EPL rows stay aligned
    assert cut.tile <= sak.BLOCK * sak.SPAN  # the tile's words fit the kernel's shared memory
    assert sak.tiles(n_edges, float_type, n_feat) <= sak.max_tiles(n_edges)


@pytest.mark.parametrize("max_edges", [5, 5003, 1 << 20, 3_000_017])
def test_every_smaller_edge_count_fits_the_workspace_of_the_maximum(max_edges: int) -> None:
    """TensorRT sizes the workspace once, from the profile's maximum E; any smaller E must fit."""
    step = max(1, max_edges // 5000)
    for n_edges in list(range(1, max_edges + 1, step)) + [max_edges]:
        for float_type, n_feat in ROWS:
            assert sak.tiles(n_edges, float_type, n_feat) <= sak.max_tiles(max_edges), (n_edges, float_type, n_feat)


@pytest.mark.parametrize(("float_type", "n_feat", "v", "epl", "lanes", "passes"), [
    ("fp32", 1, 1, 4, 1, 1), ("fp16", 1, 1, 8, 1, 1), ("fp16", 4, 4, 2, 1, 1), ("fp16", 8, 8, 1, 1, 1),
    ("fp32", 4, 4, 1, 1, 1),                                  # rows of 2 to 16 bytes: whole rows per lane
    ("fp32", 5, 1, 1, 8, 1), ("fp32", 64, 2, 1, 32, 1), ("fp32", 130, 2, 1, 32, 3),
    ("fp16", 6, 2, 1, 4, 1), ("fp16", 33, 1, 1, 32, 2), ("bf16", 64, 4, 1, 16, 1), ("bf16", 128, 4, 1, 32, 1),
])
def test_vectors_lanes_and_passes(float_type: str, n_feat: int, v: int, epl: int, lanes: int, passes: int) -> None:
    cut = sak.shape(float_type, n_feat, 4 << 20)
    assert (cut.v, cut.epl, cut.lanes, cut.passes) == (v, epl, lanes, passes)
    assert (cut.v, cut.epl) in sak.shapes(float_type)  # a compiled entry exists for it


def test_spans_shrink_for_small_inputs_and_grow_for_large_ones() -> None:
    """Small inputs are bound by latency: spans halve until there are TARGET_TILES tiles; from
    LONG_EDGES edges on, groups of several lanes walk up to 4 spans, 8 for a warp."""
    assert sak.shape("fp16", 32, 64 << 10) == sak.Shape(4, 1, 8, 1, 8)  # 256 tiles of 256 edges
    assert sak.tiles(64 << 10, "fp16", 32) == sak.TARGET_TILES == 256
    assert sak.shape("fp16", 32, 1000).span == 1  # 32 tiles of 32 edges
    assert sak.shape("fp32", 1, 1000).span == 4  # never below EPL
    assert sak.shape("fp16", 64, (1 << 20) - 1).span == sak.SPAN
    assert sak.shape("fp16", 64, 1 << 20).span == 4 * sak.SPAN  # 16 lanes: 4 spans
    assert sak.shape("fp32", 64, 1 << 20).tile == 1024  # a warp per group: 8 spans


def test_workspace_grows_with_edges_and_features() -> None:
    sizes = [sak.workspace_size(e, 64) for e in (1, 1000, 1 << 20, 1 << 24)]
    assert sizes == sorted(sizes) and sizes[0] >= sak.CONTROL_BYTES
    assert sak.workspace_size(1 << 20, 128) > sak.workspace_size(1 << 20, 64)
    # two fp32 rows per tile of at least 128 edges: 1/32 of 16-bit edges' bytes at most
    assert sak.workspace_size(64 << 20, 64) < (64 << 20) * 64 * 2 // 31


def test_grid_is_one_block_per_item_at_most() -> None:
    # 64K edges, 32 columns: 16 zeroing slices of 4096 elements, then 256 tiles
    assert sak.grid_size(64 << 10, 32, 32, "fp16", 10_000) == 16 + 256
    assert sak.grid_size(64 << 10, 32, 32, "fp16", 200) == 200  # never more than fit at once


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
    assert sak.grid_size(sak.MAX_EDGES, 1, 1, "fp32", 10_000) >= 1
    with pytest.raises(ValueError, match="int32"):
        sak.grid_size(sak.MAX_EDGES + 1, 1, 1, "fp32", 10_000)


def test_node_counts_beyond_the_row_words_are_refused() -> None:
    """The kernel keeps rows as 32-bit words; 0x7fffffff and above are its out-of-range markers."""
    assert sak.grid_size(1, sak.MAX_NODES, 1, "fp32", 10_000) >= 1
    with pytest.raises(ValueError, match="nodes"):
        sak.grid_size(1, sak.MAX_NODES + 1, 1, "fp32", 10_000)
