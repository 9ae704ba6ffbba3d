"""The QDP route's ahead-of-time kernel, launched as TensorRT launches it, against NumPy.

The PTX is loaded into the driver (which compiles it, as TensorRT does with the PTX in an AOT
engine) and launched with TensorRT's argument order (inputs, extra int32 scalars, outputs), the
output buffers being the input buffers (the aliasing the QDP declares), counts zeroed first (the
network's Fill layer), and the grid that ``aot_kernel.grid_blocks`` gives TensorRT.
Also run under compute-sanitizer memcheck (tests/README.md).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from gnn import precisions
from qdp import aot_kernel as aot
from test_kernel_gpu import assert_matches_reference, graph, plain_cuda_malloc  # noqa: F401 (autouse fixture)

pytestmark = pytest.mark.gpu


def run_aot(x: np.ndarray, src: np.ndarray, idx: np.ndarray, float_type: str,
            kernel: aot.AotKernel | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(x after the launch, counts). x sits between guard rows that must stay untouched."""
    import cupy as cp

    n, f = x.shape
    guard = np.full((4, f), 7.0)
    padded = cp.asarray(precisions.to_storage(np.concatenate([guard, x, guard]), float_type))
    counts_padded = cp.full(n + 8, 99, dtype=np.int32)
    counts_padded[4:n + 4] = 0  # the Fill layer's zeros
    x_dev, counts = padded[4:n + 4], counts_padded[4:n + 4]
    src_dev, idx_dev = cp.asarray(precisions.to_storage(src, float_type)), cp.asarray(idx)
    kernel = kernel or aot.load(float_type, "int32" if idx.dtype == np.int32 else "int64")
    stream = cp.cuda.get_current_stream()
    kernel.launch(x=x_dev.data.ptr, src=src_dev.data.ptr, idx=idx_dev.data.ptr, counts_in=counts.data.ptr,
                  n_edges=len(idx), n_nodes=n, n_feat=f, dst=x_dev.data.ptr, counts=counts.data.ptr, stream=stream.ptr)
    stream.synchronize()
    whole = precisions.from_storage(cp.asnumpy(padded), float_type)
    assert np.array_equal(whole[:4], guard) and np.array_equal(whole[n + 4:], guard), "a guard row was written"
    assert cp.asnumpy(counts_padded[:4]).tolist() == [99] * 4 and cp.asnumpy(counts_padded[n + 4:]).tolist() == [99] * 4
    return whole[4:n + 4], cp.asnumpy(counts)


def check(x: np.ndarray, src: np.ndarray, idx: np.ndarray, float_type: str, **kwargs: Any) -> None:
    """Against float64, within the bound of one rounding per addition (atomics in any order)."""
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    got, counts = run_aot(x, src, idx, float_type, **kwargs)
    assert_matches_reference(got, counts, x, src, idx, float_type)


# Rows of one 16-byte load or less (1, 4) and wider rows with 1, 2 and 4 columns per lane (3, 5, 33, 64).
@pytest.mark.parametrize("float_type", precisions.NAMES)
@pytest.mark.parametrize("index_type", ["int32", "int64"])
@pytest.mark.parametrize("n_feat", [1, 3, 4, 5, 33, 64])
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
    from kernels import launcher as sak

    arch = sak.device_arch(cp.cuda.Device().id)
    code = aot.ptx("fp16", "int32", arch).decode()
    assert code.count(".entry ") == 1 and aot.kernel_name("fp16", "int32") in code


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


def test_nvrtc_newer_than_the_driver_is_refused_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    from kernels import launcher as sak

    monkeypatch.setattr(sak, "nvrtc_version", lambda: (99, 0))
    with pytest.raises(aot.PtxTooNew, match=r"NVRTC 99\.0 writes PTX that this driver \(CUDA \d+\.\d+\) cannot load"):
        aot.check_driver_takes_ptx()
