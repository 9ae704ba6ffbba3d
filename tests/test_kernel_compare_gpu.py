# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Every kernel of kernels.KERNELS (the fast one, the reference one, and any a plugin author adds) on
the same inputs, on a GPU, through the interface of kernels/__init__.py (tests/kernel_arrays.py
launches them as the plugin's enqueue does): the patterns that break scatter kernels (hot rows, every
index out of range, N = 1, E = 1, int64, odd F, F = 0, sorted and random order). Their counts are
equal and exact; each kernel's sums are within the error bound test_kernel_gpu.py documents,
(count + 2) * u * sum of |terms| against float64, and X's rows that get no edge keep their bits. The
reference kernel's own edges follow: its grid-strided loop past its largest grid, a separate output
buffer, guard bands around what it writes, and its 16-bit pairs at a buffer's odd end or odd start."""

from __future__ import annotations

import numpy as np
import pytest

import kernel_arrays
import kernels
from gnn import model as precisions
from test_kernel_gpu import FLOAT_TYPES, INDEX_DTYPES, assert_matches_reference, plain_cuda_malloc  # noqa: F401

pytestmark = pytest.mark.gpu
KERNELS = tuple(kernels.KERNELS)  # yours too, once named there


def run(kernel: str, x: np.ndarray, src: np.ndarray, idx: np.ndarray, float_type: str,
        out_of_place: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One kernel on fresh device copies (a counts buffer of garbage): (result, counts, x afterwards)."""
    import cupy as cp

    x_dev = cp.asarray(precisions.to_storage(x, float_type))
    out = cp.zeros_like(x_dev) if out_of_place else None
    counts = cp.full(len(x), -5, dtype=np.int32)
    result = kernel_arrays.scatter_add(x_dev, cp.asarray(precisions.to_storage(src, float_type)),
                                       cp.asarray(idx), counts, out=out, kernel=kernel)
    cp.cuda.get_current_stream().synchronize()
    return (precisions.from_storage(cp.asnumpy(result), float_type), cp.asnumpy(counts),
            precisions.from_storage(cp.asnumpy(x_dev), float_type))


def compare(x: np.ndarray, src: np.ndarray, idx: np.ndarray, float_type: str) -> dict[str, np.ndarray]:
    """Every kernel on the same rounded inputs: counts equal, each within the bound; rows without an
    edge keep X's bits. Returns each kernel's result."""
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    results = {kernel: run(kernel, x, src, idx, float_type) for kernel in KERNELS}
    first = results[KERNELS[0]][1].tolist()
    assert all(counts.tolist() == first for _, counts, _ in results.values())
    untouched = np.bincount(idx[(idx >= 0) & (idx < len(x))].astype(np.int64), minlength=len(x)) == 0
    for kernel, (got, counts, _) in results.items():
        assert_matches_reference(got, counts, x, src, idx, float_type)
        assert np.array_equal(got[untouched], x[untouched]), kernel
    return {kernel: got for kernel, (got, _, _) in results.items()}


def edges(n_nodes: int, n_edges: int, n_feat: int, seed: int, index_type: str = "int32",
          order: str = "random") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n_nodes, n_edges).astype(INDEX_DTYPES[index_type])
    idx = np.sort(idx) if order == "sorted" else idx
    return rng.standard_normal((n_nodes, n_feat)), rng.standard_normal((n_edges, n_feat)), idx


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("index_type", list(INDEX_DTYPES))
@pytest.mark.parametrize("n_feat", [1, 3, 33, 64])  # odd F: rows of 3 and 33 values
@pytest.mark.parametrize("order", ["random", "sorted"])
def test_the_two_kernels_agree_on_ordinary_graphs(float_type: str, index_type: str, n_feat: int, order: str) -> None:
    compare(*edges(700, 9001, n_feat, seed=n_feat, index_type=index_type, order=order), float_type)


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("n_feat", [1, 5, 64])
@pytest.mark.parametrize("order", ["random", "sorted"])
def test_hot_rows(float_type: str, n_feat: int, order: str) -> None:
    """Half the edges to one row, a quarter to another: runs across many spans (sorted), contention (random)."""
    x, src, idx = edges(300, 60_000, n_feat, seed=7)
    idx[::2] = 17
    idx[1::4] = 299
    compare(x, src, np.sort(idx) if order == "sorted" else idx, float_type)


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("index_type", list(INDEX_DTYPES))
@pytest.mark.parametrize("n_feat", [1, 7])
def test_every_index_out_of_range(float_type: str, index_type: str, n_feat: int) -> None:
    """Nothing is added or counted: X keeps its bits and every count is 0, in both kernels."""
    info = np.iinfo(INDEX_DTYPES[index_type])
    x, src, _ = edges(50, 5000, n_feat, seed=3)
    idx = np.resize(np.array([-1, 50, 51, info.max, info.min, -50], dtype=INDEX_DTYPES[index_type]), 5000)
    got = compare(x, src, idx, float_type)
    for result in got.values():
        assert np.array_equal(result, precisions.round_to(x, float_type))


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize(("n_nodes", "n_edges", "n_feat"), [(1, 5000, 1), (1, 5000, 33), (1, 1, 1), (200, 1, 3),
                                                            (1, 1, 64), (37, 0, 5)])
def test_n_or_e_of_one(float_type: str, n_nodes: int, n_edges: int, n_feat: int) -> None:
    """N = 1 (every edge to one row), E = 1, both at once, and E = 0."""
    compare(*edges(n_nodes, n_edges, n_feat, seed=n_edges), float_type)


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
def test_int64_indices_past_32_bits_are_skipped(float_type: str) -> None:
    """Rows 2^32 + r look like r to a kernel that truncates its indices: both skip them."""
    x, src, idx = edges(100, 4000, 4, seed=11, index_type="int64")
    idx[::3] += 1 << 32
    compare(x, src, idx, float_type)


def test_zero_features_still_count() -> None:
    x, src, idx = edges(40, 500, 0, seed=12)
    for kernel in KERNELS:
        got, counts, _ = run(kernel, x, src, idx, "fp32")
        assert got.shape == (40, 0) and counts.tolist() == np.bincount(idx, minlength=40).tolist()


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
def test_the_reference_kernel_strides_past_its_largest_grid(float_type: str) -> None:
    """More values than 2^16 blocks of 256 threads hold (E * F = 19.2M): each thread takes several."""
    x, src, idx = edges(5000, 300_000, 64, seed=13)
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    got, counts, _ = run("reference", x, src, idx, float_type)
    assert_matches_reference(got, counts, x, src, idx, float_type)


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
def test_the_reference_kernel_out_of_place_leaves_x(float_type: str) -> None:
    """Into a buffer of its own that holds X (as the plugin's enqueue leaves output 0 where TensorRT gave it
    one): the sums land there, X is left as it was."""
    x, src, idx = edges(300, 900, 6, seed=14)
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    got, counts, x_after = run("reference", x, src, idx, float_type, out_of_place=True)
    assert_matches_reference(got, counts, x, src, idx, float_type)
    assert np.array_equal(x_after, x)


@pytest.mark.parametrize("index_type", list(INDEX_DTYPES))
def test_the_reference_kernel_writes_nothing_outside_its_buffers(index_type: str) -> None:
    """Guard bands around X and the counts keep their bits; the reference kernel has no workspace."""
    import cupy as cp

    n_nodes, n_feat, guard = 64, 3, 4096
    x, src, idx = edges(n_nodes, 600, n_feat, seed=15, index_type=index_type)
    idx[::5] = -1
    idx[1::5] = n_nodes
    x, src = precisions.round_to(x, "fp16"), precisions.round_to(src, "fp16")
    slab = cp.full(guard + n_nodes * n_feat + guard, 0xBEEF, dtype=np.uint16).view(np.float16)
    dst = slab[guard:guard + n_nodes * n_feat].reshape(n_nodes, n_feat)
    dst[...] = cp.asarray(x.astype(np.float16))
    count_slab = cp.full(guard + n_nodes + guard, -7, dtype=np.int32)
    counts = count_slab[guard:guard + n_nodes]
    assert kernel_arrays.workspace_bytes("fp16", 600, n_feat, n_nodes, "reference") == 0
    kernel_arrays.scatter_add(dst, cp.asarray(src.astype(np.float16)), cp.asarray(idx), counts, kernel="reference")
    cp.cuda.get_current_stream().synchronize()
    raw, count_raw = cp.asnumpy(slab.view(np.uint16)), cp.asnumpy(count_slab)
    assert (raw[:guard] == 0xBEEF).all() and (raw[-guard:] == 0xBEEF).all()
    assert (count_raw[:guard] == -7).all() and (count_raw[-guard:] == -7).all()
    assert_matches_reference(cp.asnumpy(dst).astype(np.float64), cp.asnumpy(counts), x, src, idx, "fp16")


# 16-bit values go into their aligned pair beside -0.0 (kernels/reference.cu); where that pair would leave the buffer
# (the last element of an odd N * F) or be misaligned (dst 2 bytes past a 4-byte boundary), one scalar atomic. The
# guards hold a signalling NaN, which an addition of -0.0 would turn into a quiet one: a pair reaching into them
# shows, though -0.0 leaves every number's bits. dst ends where its allocation does, for memcheck.
SIGNALLING_NAN = {"fp16": 0x7D01, "bf16": 0x7F81}


@pytest.mark.parametrize("float_type", ["fp16", "bf16"])
@pytest.mark.parametrize(("n_nodes", "n_feat"), [(7, 3), (64, 3), (5, 1), (1, 1)], ids=["odd", "even", "F=1", "one"])
@pytest.mark.parametrize("start", [0, 1], ids=["aligned", "misaligned"])
def test_the_reference_kernels_16_bit_pairs_stay_inside_dst(float_type: str, n_nodes: int, n_feat: int,
                                                            start: int) -> None:
    import cupy as cp

    x, src, idx = edges(n_nodes, 2000, n_feat, seed=16 + n_nodes)
    idx[::7] = n_nodes - 1  # the last row's last element: alone at an odd end
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    guard, size = 64, n_nodes * n_feat
    slab = cp.full(guard + start + size, SIGNALLING_NAN[float_type], dtype=np.uint16)
    dst = slab[guard + start:]  # 16-byte aligned plus 2 * start bytes, ending at the allocation's end
    dst[...] = cp.asarray(precisions.to_storage(x, float_type)).view(np.uint16).ravel()
    counts = cp.full(n_nodes, -7, dtype=np.int32)
    src_dev, idx_dev = cp.asarray(precisions.to_storage(src, float_type)), cp.asarray(idx)  # alive past the launch
    launcher = kernel_arrays.get_kernel(float_type, "int32", "reference")
    launcher.launch(dst=dst.data.ptr, src=src_dev.data.ptr, idx=idx_dev.data.ptr, counts=counts.data.ptr,
                    n_nodes=n_nodes, n_feat=n_feat, n_edges=len(idx), workspace=0, workspace_size=0,
                    stream=cp.cuda.get_current_stream().ptr)
    cp.cuda.get_current_stream().synchronize()
    raw = cp.asnumpy(slab)
    assert (raw[:guard + start] == SIGNALLING_NAN[float_type]).all()
    stored = raw[guard + start:].view(precisions.to_storage(x[:0], float_type).dtype).reshape(n_nodes, n_feat)
    got = precisions.from_storage(stored, float_type)
    assert_matches_reference(got, cp.asnumpy(counts), x, src, idx, float_type)
