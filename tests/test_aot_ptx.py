"""The QDP route's PTX and launch arithmetic, on CPU: what TensorRT receives from aot_impl."""

from __future__ import annotations

import re

import pytest

from qdp import aot_kernel as aot
from kernels import launcher as sak
from test_kernel_compile import ARCHES


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("float_type", sak.FLOAT_TYPES)
@pytest.mark.parametrize("index_type", sak.INDEX_TYPES)
def test_ptx_for_every_variant_and_architecture(arch: str, float_type: str, index_type: str) -> None:
    code = aot.ptx(float_type, index_type, arch).decode()
    assert re.search(rf"^\.target {arch}\b", code, re.MULTILINE), code[:300]
    entries = re.findall(r"\.entry (\w+)\(", code)
    assert entries == [aot.kernel_name(float_type, index_type)]
    # TensorRT's argument order: 4 input pointers, 3 int32 scalars, 2 output pointers.
    params = re.findall(r"\.param \.(u64|u32|s32|b32|b64) ", code.split(".entry", 1)[1].split(")", 1)[0])
    assert params == ["u64"] * 4 + ["u32"] * 3 + ["u64"] * 2 or params == ["u64"] * 4 + ["s32"] * 3 + ["u64"] * 2, params
    assert "\0" not in code


def test_kernel_names() -> None:
    assert aot.kernel_name("bf16", "int64") == "scatter_add_aot_bf16_i64"
    with pytest.raises(ValueError):
        aot.kernel_name("fp64", "int32")
    assert aot.virtual_arch("sm_120") == "compute_120"
    with pytest.raises(ValueError):
        aot.virtual_arch("compute_90")


@pytest.mark.parametrize(("n_edges", "cap", "blocks"), [(0, 528, 1), (1, 528, 1), (7, 528, 1), (8, 528, 2),
                                                        (1 << 20, 528, 528), (1 << 20, 1 << 20, 131073)])
def test_grid_is_one_block_per_item_bound_and_capped(n_edges: int, cap: int, blocks: int) -> None:
    assert aot.grid_blocks(n_edges, cap, min) == blocks


def test_grid_covers_every_span() -> None:
    """A block is 8 warps, one span each at a time, and the kernel cuts at most max_spans spans."""
    for n_edges in (1, 31, 32, 33, 4095, 4097, 70_000, 1 << 20, (1 << 22) + 3):
        assert aot.grid_blocks(n_edges, 1 << 30, min) * aot.EDGES_PER_ITEM >= sak.max_spans(n_edges), n_edges


def test_scalar_order_and_limits() -> None:
    assert aot.scalar_args(5, 6, 7) == (5, 6, 7)  # E, N, F, as the .cu entry declares them
    aot.check_sizes(2**31 - 1, 1, 1)
    with pytest.raises(ValueError, match="edges"):
        aot.check_sizes(2**31, 1, 1)


def test_compile_options_emit_one_entry() -> None:
    options = aot.compile_options("sm_90", "/inc", "fp16", "int64")
    assert "--gpu-architecture=compute_90" in options
    assert {"-DSCATTER_AOT_NAME=scatter_add_aot_f16_i64", "-DSCATTER_AOT_T=__half",
            "-DSCATTER_AOT_I=long long"} <= set(options)
