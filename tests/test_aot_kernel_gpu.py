# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The QDP route's ahead-of-time kernel, launched as TensorRT launches it, against NumPy.

The PTX is loaded into the driver (which compiles it, as TensorRT does with the PTX in an AOT
engine) and launched with TensorRT's argument order (inputs, extra int32 scalars, outputs), the
output buffers being the input buffers (the aliasing the QDP declares), counts zeroed first (the
network's Fill layer), and the grid that ``scatter_add_aot.grid_blocks`` gives TensorRT. Every buffer
lies between guards that must stay as they were: x's rows of 7, src's rows of NaN, 99 before
counts and a canary 0 after it. The same harness runs the hostile shapes that TensorRT cannot
refuse at build time (src's rows, counts' rows): the kernel must mark the outputs, NaN and -1.
Also run under compute-sanitizer memcheck (tests/README.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from gnn import model as precisions
from kernels import scatter_add_aot as aot
from test_kernel_gpu import assert_matches_reference, graph, plain_cuda_malloc  # noqa: F401 (autouse fixture)

pytestmark = pytest.mark.gpu

GUARD = 16  # guard rows (entries for counts) either side of a buffer: whole 16-byte loads, so buffers stay aligned


def run_aot(x: np.ndarray, src: np.ndarray, idx: np.ndarray, float_type: str, kernel: aot.AotKernel | None = None,
            counts_rows: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(x after the launch, counts). E is idx's length; src's rows and counts' rows (N unless given) are what
    the buffers have, passed as TensorRT passes them. Every guard is checked to be untouched."""
    import cupy as cp

    n, f = x.shape
    rows = n if counts_rows is None else counts_rows
    x_host = precisions.to_storage(np.concatenate([np.full((GUARD, f), 7.0), x, np.full((GUARD, f), 7.0)]),
                                   float_type)
    src_host = precisions.to_storage(np.concatenate([np.full((GUARD, f), np.nan), src, np.full((GUARD, f), np.nan)]),
                                     float_type)
    x_slab, src_slab = cp.asarray(x_host), cp.asarray(src_host)
    counts_slab = cp.zeros(GUARD + rows + GUARD, dtype=np.int32)  # the Fill layer's zeros, then the canary
    counts_slab[:GUARD] = 99
    x_dev, src_dev = x_slab[GUARD:GUARD + n], src_slab[GUARD:GUARD + len(src)]
    counts, idx_dev = counts_slab[GUARD:GUARD + rows], cp.asarray(idx)
    kernel = kernel or aot.load(float_type, "int32" if idx.dtype == np.int32 else "int64")
    stream = cp.cuda.get_current_stream()
    kernel.launch(x=x_dev.data.ptr, src=src_dev.data.ptr, idx=idx_dev.data.ptr, counts_in=counts.data.ptr,
                  n_edges=len(idx), n_nodes=n, n_feat=f, dst=x_dev.data.ptr, counts=counts.data.ptr, stream=stream.ptr,
                  src_rows=len(src), counts_rows=rows)
    stream.synchronize()
    whole, counts_whole = cp.asnumpy(x_slab), cp.asnumpy(counts_slab)
    assert whole[:GUARD].tobytes() == x_host[:GUARD].tobytes(), "a guard row before x was written"
    assert whole[GUARD + n:].tobytes() == x_host[GUARD + n:].tobytes(), "a guard row after x was written"
    assert cp.asnumpy(src_slab).tobytes() == src_host.tobytes(), "src or a guard row around it was written"
    assert counts_whole[:GUARD].tolist() == [99] * GUARD, "a guard entry before counts was written"
    assert counts_whole[GUARD + rows:].tolist() == [0] * GUARD, "the canary after counts was written"
    return precisions.from_storage(whole[GUARD:GUARD + n], float_type), counts_whole[GUARD:GUARD + rows]


def check(x: np.ndarray, src: np.ndarray, idx: np.ndarray, float_type: str, **kwargs: Any) -> None:
    """Against float64, within the bound of one rounding per addition (atomics in any order)."""
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    got, counts = run_aot(x, src, idx, float_type, **kwargs)
    assert_matches_reference(got, counts, x, src, idx, float_type)


# Rows of one 16-byte load or less (1, 4, 8: a 16-bit lane of 8 is one 16-byte vector RED on sm_90) and wider
# rows with 1, 2 and 4 columns per lane (3, 5, 33, 64).
@pytest.mark.parametrize("float_type", precisions.NAMES)
@pytest.mark.parametrize("index_type", ["int32", "int64"])
@pytest.mark.parametrize("n_feat", [1, 3, 4, 5, 8, 33, 64])
@pytest.mark.parametrize("order", ["random", "sorted"])
def test_matches_reference(float_type: str, index_type: str, n_feat: int, order: str) -> None:
    x, src, idx = graph(300, 5003, n_feat, seed=31, index_type=index_type)
    check(x, src, np.sort(idx) if order == "sorted" else idx, float_type)


@pytest.mark.parametrize("n_edges", [0, 1, 255, 256, 257, (1 << 20) + 5])
@pytest.mark.parametrize("n_feat", [1, 16])
def test_sizes_around_the_grid_formula(n_edges: int, n_feat: int) -> None:
    x, src, idx = graph(1000, n_edges, n_feat, seed=32)
    check(x, src, idx, "fp32")


@pytest.mark.parametrize("blocks", [1, 2, 3])
@pytest.mark.parametrize("n_feat", [1, 40])
def test_any_grid_size_covers_every_item(blocks: int, n_feat: int) -> None:
    x, src, idx = graph(3000, 300_000, n_feat, seed=33)
    check(x, src, np.sort(idx), "fp16", kernel=dataclasses.replace(aot.load("fp16", "int32"), fit=blocks))


@pytest.mark.parametrize("float_type", precisions.NAMES)
@pytest.mark.parametrize("index_type", ["int32", "int64"])
def test_out_of_range_indices_are_skipped(float_type: str, index_type: str) -> None:
    x, src, idx = graph(50, 4000, 6, seed=34, index_type=index_type)
    bad = np.array([-1, 50, 51, -(2**31), 2**31 - 1] + ([2**40, -(2**40)] if index_type == "int64" else []))
    idx[::7] = np.resize(bad, idx[::7].shape).astype(idx.dtype)
    check(x, src, idx, float_type)


@pytest.mark.parametrize("float_type", ["fp16", "bf16"])
def test_hot_row_and_odd_last_element(float_type: str) -> None:
    """One row takes most edges (many spans add to it); n_feat = 1 with an odd N: the last element
    is added alone (2-byte atomics), its 4-byte word would reach past the buffer."""
    x, src, idx = graph(257, 100_000, 1, seed=35)
    idx[: 60_000] = 256
    check(x, src, idx, float_type)


def test_ptx_holds_one_entry_for_this_gpu() -> None:
    import cupy as cp
    from kernels import cuda_calls

    arch = cuda_calls.device_arch(cp.cuda.Device().id)
    code = aot.ptx("fp16", "int32", arch).decode()
    assert code.count(".entry ") == 1 and ".entry scatter_add_aot(" in code


# -- the run-time half of the contract: rows that TensorRT cannot compare at build time ----------------------

N_NODES = 300


def hostile_graph(n_edges: int, n_feat: int, index_type: str) -> tuple[np.ndarray, ...]:
    """A graph whose indices reach the last row, N - 1: where a counts buffer one row short ends."""
    x, src, idx = graph(N_NODES, n_edges, n_feat, seed=36 + n_edges + n_feat, index_type=index_type)
    idx[-1] = N_NODES - 1
    return x, src, idx


def every_hostile_case(test: Callable[..., None]) -> Callable[..., None]:
    """Each float and index type, F of 1, 5 and 64, and E of 1 and 5003: what each hostile-shape test runs."""
    for name, values in (("float_type", precisions.NAMES), ("index_type", ["int32", "int64"]), ("n_feat", [1, 5, 64]),
                         ("n_edges", [1, 5003])):
        test = pytest.mark.parametrize(name, values)(test)
    return test


@every_hostile_case
def test_control_matching_rows_pass_through_the_hostile_harness(float_type: str, index_type: str, n_feat: int,
                                                               n_edges: int) -> None:
    x, src, idx = hostile_graph(n_edges, n_feat, index_type)
    check(x, src, idx, float_type)


@every_hostile_case
def test_src_a_row_short_of_e_is_refused_without_reading_past_it(float_type: str, index_type: str, n_feat: int,
                                                                n_edges: int) -> None:
    """src with E - 1 rows between rows of NaN: the kernel marks dst NaN and every count -1 and reads no
    src (memcheck), writes no guard, and leaves the canary after counts 0."""
    x, src, idx = hostile_graph(n_edges, n_feat, index_type)
    got, counts = run_aot(x, src[:-1], idx, float_type)
    assert np.isnan(got).all() and counts.tolist() == [-1] * N_NODES


@every_hostile_case
def test_counts_a_row_short_of_n_is_refused_and_the_canary_stays_zero(float_type: str, index_type: str,
                                                                     n_feat: int, n_edges: int) -> None:
    """counts with N - 1 entries, a canary 0 where entry N - 1 would be (an edge points there): the kernel
    marks dst NaN and the N - 1 counts -1, and neither adds to the canary nor marks it."""
    x, src, idx = hostile_graph(n_edges, n_feat, index_type)
    got, counts = run_aot(x, src, idx, float_type, counts_rows=N_NODES - 1)
    assert np.isnan(got).all() and counts.tolist() == [-1] * (N_NODES - 1)


@pytest.mark.parametrize(("src_extra", "counts_extra"), [(-1, -1), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("float_type", ["fp32", "bf16"])
def test_any_other_row_mismatch_is_refused(src_extra: int, counts_extra: int, float_type: str) -> None:
    """Both short, or longer than the contract: refused too (as by the class-based plugin). Counts are
    marked up to N only: past that, a longer counts keeps the Fill layer's zeros."""
    x, src, idx = hostile_graph(5003, 3, "int32")
    src = np.concatenate([src, np.ones((1, 3))]) if src_extra > 0 else src[:len(src) + src_extra]
    got, counts = run_aot(x, src, idx, float_type, counts_rows=N_NODES + counts_extra)
    marked = min(N_NODES, N_NODES + counts_extra)
    assert np.isnan(got).all() and counts.tolist() == [-1] * marked + [0] * (len(counts) - marked)


def test_unaliased_outputs_fail_loudly_and_the_context_survives() -> None:
    """dst != x breaks the aliasing contract: the kernel fills dst with NaN and counts with -1
    rather than add into a buffer that may not hold x, and does not trap (a trap would leave the
    process's CUDA context unusable): the next launch, aliased, is right."""
    import cupy as cp

    x, y = cp.zeros((4, 2), np.float32), cp.zeros((4, 2), np.float32)
    src, idx, counts = cp.ones((3, 2), np.float32), cp.zeros(3, np.int32), cp.zeros(4, np.int32)
    kernel = aot.load("fp32", "int32")
    kernel.launch(x=x.data.ptr, src=src.data.ptr, idx=idx.data.ptr, counts_in=counts.data.ptr, n_edges=3, n_nodes=4,
                  n_feat=2, dst=y.data.ptr, counts=counts.data.ptr, stream=0)
    cp.cuda.Device().synchronize()
    assert bool(cp.isnan(y).all()) and cp.asnumpy(counts).tolist() == [-1] * 4 and not bool(x.any())
    counts[...] = 0
    kernel.launch(x=x.data.ptr, src=src.data.ptr, idx=idx.data.ptr, counts_in=counts.data.ptr, n_edges=3, n_nodes=4,
                  n_feat=2, dst=x.data.ptr, counts=counts.data.ptr, stream=0)
    assert cp.asnumpy(x[0]).tolist() == [3.0, 3.0] and cp.asnumpy(counts).tolist() == [3, 0, 0, 0]


def test_unaliased_outputs_with_counts_a_row_short_mark_only_its_rows() -> None:
    """Both breaches at once: the NaN/-1 path writes counts' 3 entries, not N = 4 (the canary stays 0)."""
    import cupy as cp

    x, y = cp.zeros((4, 2), np.float32), cp.zeros((4, 2), np.float32)
    src, idx, counts_slab = cp.ones((3, 2), np.float32), cp.zeros(3, np.int32), cp.zeros(4, np.int32)
    aot.load("fp32", "int32").launch(x=x.data.ptr, src=src.data.ptr, idx=idx.data.ptr, counts_in=counts_slab.data.ptr,
                                     n_edges=3, n_nodes=4, n_feat=2, dst=y.data.ptr, counts=counts_slab.data.ptr,
                                     stream=0, counts_rows=3)
    cp.cuda.Device().synchronize()
    assert bool(cp.isnan(y).all()) and cp.asnumpy(counts_slab).tolist() == [-1, -1, -1, 0] and not bool(x.any())


def test_nvrtc_newer_than_the_driver_is_refused_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aot, "nvrtc_version", lambda: (99, 0))
    with pytest.raises(aot.PtxTooNew, match=r"NVRTC 99\.0 writes PTX that this driver \(CUDA \d+\.\d+\) cannot load"):
        aot.check_driver_takes_ptx()
