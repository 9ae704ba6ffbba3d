# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The QDP route's PTX and launch arithmetic, on CPU: what TensorRT receives from aot_impl."""

from __future__ import annotations

import re

import pytest

from kernels import plan
from kernels import scatter_add_aot as aot
from test_kernel_compile import ARCHES


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("float_type", list(plan.FLOATS))
@pytest.mark.parametrize("index_type", list(plan.INDICES))
def test_ptx_for_every_variant_and_architecture(arch: str, float_type: str, index_type: str) -> None:
    code = aot.ptx(float_type, index_type, arch).decode()
    assert re.search(rf"^\.target {arch}\b", code, re.MULTILINE), code[:300]
    entries = re.findall(r"\.entry (\w+)\(", code)
    assert entries == [aot.KERNEL_NAME] == ["scatter_add_aot"]
    # TensorRT's argument order: 4 input pointers (x, src, idx, counts_in), 9 int32 scalars (E, N, F, src's
    # rows, counts' rows, columns, lanes, passes, span), 2 output pointers (dst, counts).
    params = re.findall(r"\.param \.(u64|u32|s32|b32|b64) ", code.split(".entry", 1)[1].split(")", 1)[0])
    assert [p.replace("s32", "u32") for p in params] == ["u64"] * 4 + ["u32"] * 9 + ["u64"] * 2, params
    assert "\0" not in code


def test_virtual_arch() -> None:
    assert aot.virtual_arch("sm_120") == "compute_120"
    with pytest.raises(ValueError):
        aot.virtual_arch("compute_90")


@pytest.mark.parametrize("n_edges", [0, 1, 7, 8, 4096, 70_000, 1 << 20, (1 << 22) + 3, 2**31 - 1])
@pytest.mark.parametrize("n_feat", [1, 3, 64])
def test_the_scalars_and_grid_are_the_plugins_plan(n_edges: int, n_feat: int) -> None:
    """The same tile, span and main grid as the class-based plugin's launch (plan.py), at least one block."""
    values = aot.scalars(n_edges, 10, n_feat, n_edges + 1, 9, "fp16")
    work = plan.launch(10, n_edges, n_feat, "fp16", 528)
    assert len(values) == len(aot.SCALAR_NAMES)
    assert values[:5] == (n_edges, 10, n_feat, n_edges + 1, 9) and values[5:] == work.scalars()[:4]
    assert aot.grid_blocks(n_edges, values[-1], 528) == max(work.blocks, 1)


