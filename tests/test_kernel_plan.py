"""The launcher's bounds and grids, on CPU. The tile geometry itself lives in kernels/scatter_add.cu alone;
the GPU tests check the kernel keeps to the bound (test_kernels_stay_inside_the_workspace_size)."""

from __future__ import annotations

import ctypes

import pytest

from kernels import launcher as sak
import kernel_arrays

EDGE_COUNTS = [1, 2, 31, 32, 33, 1000, 4096, 4097, 65536, 131073, (1 << 20) - 1, 1 << 20, 3_000_017,
               64 << 20, 2**31 - 1]


@pytest.mark.parametrize("n_edges", EDGE_COUNTS)
@pytest.mark.parametrize("n_feat", [0, 1, 33])
def test_grids_cover_every_span_and_stay_within_the_gpu(n_edges: int, n_feat: int) -> None:
    blocks, fixup_blocks = sak.grids(n_edges, 10, n_feat, 528)
    assert 1 <= blocks <= 528 and blocks <= -(-n_edges // (sak.BLOCK // 32))  # 8 warps a block, a span each
    assert fixup_blocks * sak.FIX_BLOCK >= sak.max_spans(n_edges) * max(n_feat, 1)  # a thread per span and column
    assert sak.max_spans(n_edges) <= n_edges


@pytest.mark.parametrize("n_edges", EDGE_COUNTS)
def test_the_span_bound_lies_between_full_spans_and_the_target(n_edges: int) -> None:
    """shape_of in the .cu file: spans grow to SPAN_EDGES edges while there are 2 * TARGET_SPANS of them."""
    full_spans = -(-n_edges // sak.SPAN_EDGES)
    assert min(full_spans, n_edges) <= sak.max_spans(n_edges) <= min(n_edges, max(full_spans, 2 * sak.TARGET_SPANS) + 1)


@pytest.mark.parametrize("max_edges", [5, 5003, 1 << 20, 3_000_017])
def test_every_smaller_edge_count_fits_the_workspace_of_the_maximum(max_edges: int) -> None:
    """TensorRT sizes the workspace once, from the profile's maximum E; any smaller E must fit."""
    step = max(1, max_edges // 5000)
    for n_edges in list(range(1, max_edges + 1, step)) + [max_edges]:
        for n_feat in (0, 1, 33, 64):
            assert sak.workspace_size(n_edges, n_feat) <= sak.workspace_size(max_edges, n_feat)


def test_workspace_holds_a_flag_and_two_fp32_rows_per_span() -> None:
    spans = sak.max_spans(1 << 20)
    assert sak.workspace_size(1 << 20, 64) == -(-4 * spans // 256) * 256 + 2 * 4 * 64 * spans
    assert sak.workspace_size(1 << 20, 128) > sak.workspace_size(1 << 20, 64)
    # two fp32 rows per span of up to SPAN_EDGES edges: a small share of the edges' own bytes
    assert sak.workspace_size(64 << 20, 64) < (64 << 20) * 64 * 2 // 100


def test_kernel_arguments_are_packed_once_and_point_at_their_values() -> None:
    types = (ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int, ctypes.c_void_p)
    packed = sak.packed((0xDEAD00, -(1 << 40), 7, 0), types)
    slots = (ctypes.c_void_p * 4).from_address(packed.address)
    assert ctypes.c_void_p.from_address(slots[0]).value == 0xDEAD00
    assert ctypes.c_longlong.from_address(slots[1]).value == -(1 << 40)
    assert ctypes.c_int.from_address(slots[2]).value == 7
    assert ctypes.c_void_p.from_address(slots[3]).value is None  # a null pointer argument
    assert sak.packed((0xDEAD00, -(1 << 40), 7, 0), types) is packed


def test_edge_and_node_counts_beyond_int32_are_refused() -> None:
    """Counts, and edge numbers inside the kernel, are 32-bit; so are rows, below an out-of-range marker."""
    assert sak.grids(sak.MAX_EDGES, sak.MAX_NODES, 1, 10) >= (1, 1)
    with pytest.raises(ValueError, match="at most"):
        sak.grids(sak.MAX_EDGES + 1, 1, 1, 10)
    with pytest.raises(ValueError, match="at most"):
        sak.grids(1, sak.MAX_NODES + 1, 1, 10)


def test_type_names_and_storage() -> None:
    from gnn import precisions

    assert sak.FLOAT_TYPES == precisions.NAMES  # the CLI's precisions are the kernel's
    assert sak.kernel_name("bf16", "int64") == "scatter_add_bf16_i64"
    assert sak.kernel_name("fp16", "int32", fixup=True) == "scatter_add_fixup_f16_i32"
    assert [kernel_arrays.float_type_of(d) for d in ("float32", "float16", "uint16")] == ["fp32", "fp16", "bf16"]
    with pytest.raises(ValueError, match="unsupported kernel variant"):
        sak.kernel_name("fp64", "int32")
    with pytest.raises(ValueError, match="unsupported feature dtype"):
        kernel_arrays.float_type_of("float64")


def test_the_launcher_compiles_only_the_type_pair_it_loads() -> None:
    """A sixth of NVRTC's work on first use: the .cu file emits SCATTER_ENTRIES alone when it is defined
    (get_kernel's path; the GPU tests load every pair through it)."""
    options = sak.compile_options("sm_90", "/inc", ("bf16", "int64"))
    assert options[-1] == "-DSCATTER_ENTRIES=ENTRIES(bf16,i64,__nv_bfloat16,long long)"
    assert not any("SCATTER_ENTRIES" in o for o in sak.compile_options("sm_90", "/inc"))  # every pair
    assert "#if defined(SCATTER_ENTRIES)" in sak.KERNEL_SOURCE.read_text()
