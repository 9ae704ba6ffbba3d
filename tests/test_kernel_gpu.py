# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The scatter-add kernel through its launch path (kernels/scatter_add.py), on a GPU, against the NumPy float64 reference.

Run under compute-sanitizer too (tests/README.md): CuPy's memory pool is switched off here so that every
array is its own cudaMalloc and memcheck sees any access outside it.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from gnn import model as ref
from gnn import model as precisions
from kernels import cuda_calls
from kernels import scatter_add as sak
from kernels import plan
import kernel_arrays

pytestmark = pytest.mark.gpu

# Unit roundoff of each type; the error bound below is (flushes + 2) * u * sum of |terms|.
ROUNDOFF = {"fp32": 2.0**-24, "fp16": 2.0**-11, "bf16": 2.0**-8}
INDEX_DTYPES = {"int32": np.int32, "int64": np.int64}
FLOAT_TYPES, INDEX_TYPES = precisions.NAMES, tuple(INDEX_DTYPES)


@pytest.fixture(scope="module", autouse=True)
def plain_cuda_malloc() -> Iterator[None]:
    import cupy as cp

    cp.cuda.set_allocator(None)
    yield
    cp.cuda.set_allocator(cp.cuda.MemoryPool().malloc)


def run_kernel(x: np.ndarray, src: np.ndarray, idx: np.ndarray, float_type: str, *, out_of_place: bool = False,
               stream: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Returns (result, counts, x after the call), all read back after the stream finished."""
    import cupy as cp

    x_dev = cp.asarray(precisions.to_storage(x, float_type))
    src_dev = cp.asarray(precisions.to_storage(src, float_type))
    idx_dev = cp.asarray(idx)
    counts = cp.full(x.shape[0], 12345, dtype=np.int32)  # garbage: the launcher must zero it
    out = cp.full_like(x_dev, 0x7E00 if float_type != "fp32" else 0) if out_of_place else None
    # A workspace full of garbage: the kernels must write everything they later read.
    workspace = cp.full(kernel_arrays.workspace_bytes(float_type, len(idx), x.shape[1], x.shape[0]), 0xFF, dtype=np.uint8)
    result = kernel_arrays.scatter_add(x_dev, src_dev, idx_dev, counts, stream=stream, out=out, workspace=workspace)
    (stream or cp.cuda.get_current_stream()).synchronize()
    return (precisions.from_storage(cp.asnumpy(result), float_type), cp.asnumpy(counts),
            precisions.from_storage(cp.asnumpy(x_dev), float_type))


def check(x: np.ndarray, src: np.ndarray, idx: np.ndarray, float_type: str, **kwargs: Any) -> np.ndarray:
    """Run and compare with the reference from the same rounded inputs; returns the result."""
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    got, counts, _ = run_kernel(x, src, idx, float_type, **kwargs)
    assert_matches_reference(got, counts, x, src, idx, float_type)
    return got


def assert_matches_reference(got: np.ndarray, counts: np.ndarray, x: np.ndarray, src: np.ndarray, idx: np.ndarray,
                             float_type: str) -> None:
    """Counts exact; sums within one rounding per addition of the float64 reference."""
    expected, expected_counts = ref.scatter_add_reference(x, src, idx)
    assert counts.tolist() == expected_counts.tolist()
    magnitude, _ = ref.scatter_add_reference(np.abs(x), np.abs(src), idx)
    bound = (expected_counts[:, None] + 2) * ROUNDOFF[float_type] * magnitude
    error = np.abs(got - expected)
    assert np.all(error <= bound), f"max error {error.max():.3g} at {np.unravel_index(error.argmax(), error.shape)}"


def graph(n_nodes: int, n_edges: int, n_feat: int, seed: int, index_type: str = "int32") -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n_nodes, n_feat))
    src = rng.standard_normal((n_edges, n_feat))
    idx = rng.integers(0, n_nodes, n_edges).astype(INDEX_DTYPES[index_type])
    return x, src, idx


# 5003 edges, in random order (runs added atomically) and sorted (each row added once, runs across spans
# summed by the fix-up kernel), for every shape: one lane per row with 16-byte loads of 16/4/2/1 rows (1, 2,
# 4, 8 columns), and 1 to 4 columns per lane in groups of 2 to 32 lanes, with two and three passes at 130.
@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("index_type", INDEX_TYPES)
@pytest.mark.parametrize("n_feat", [1, 2, 3, 4, 5, 6, 8, 33, 64, 130])
def test_matches_reference(float_type: str, index_type: str, n_feat: int) -> None:
    x, src, idx = graph(1001, 5003, n_feat, seed=n_feat, index_type=index_type)
    check(x, src, idx, float_type)  # random order
    check(x, src, np.sort(idx), float_type)  # destination-sorted


# Spans are a multiple of one load per group of lanes (plan.Tile.step: 4 to 256 edges), one step longer each
# time the edge count passes another TARGET_SPANS steps: edge counts either side of such points, and of powers
# of two, meet every span and group edge.
@pytest.mark.parametrize("float_type", ["fp32", "fp16"])
@pytest.mark.parametrize("n_feat", [1, 5, 8, 33, 64, 130])
@pytest.mark.parametrize("n_edges", [31, 32, 33, 255, 256, 257, 2047, 2048, 2049, plan.TARGET_SPANS * 16 - 1,
                                     plan.TARGET_SPANS * 16 + 1, plan.TARGET_SPANS * 128 * 2 + 1])
def test_matches_reference_around_span_sizes(float_type: str, n_feat: int, n_edges: int) -> None:
    x, src, idx = graph(max(2, n_edges // 8), n_edges, n_feat, seed=n_feat + n_edges)
    check(x, src, idx, float_type)
    check(x, src, np.sort(idx), float_type)


# A row whose run is shorter than a span, as long, longer, and hundreds of spans long, at the start, in the
# middle and at the end of idx: the spans inside it are WHOLE, and the fix-up sums its pieces in span order.
@pytest.mark.parametrize("run", [100, 2047, 2048, 2049, 3 * 2048 + 5, 20_000])
@pytest.mark.parametrize("where", ["start", "middle", "end"])
@pytest.mark.parametrize("n_feat", [1, 5, 32])
def test_runs_across_spans(run: int, where: str, n_feat: int) -> None:
    n_edges, n_nodes = 40_000, 4_000
    rng = np.random.default_rng(run)
    x, src = rng.standard_normal((n_nodes, n_feat)), rng.standard_normal((n_edges, n_feat))
    row = {"start": 0, "middle": n_nodes // 2, "end": n_nodes - 1}[where]
    others = rng.integers(0, n_nodes - 1, n_edges - run)  # runs of ~10 edges, none of them `row`
    others[others >= row] += 1
    idx = np.sort(np.concatenate([others, np.full(run, row)])).astype(np.int32)
    first = check(x, src, idx, "fp32")
    again, _, _ = run_kernel(precisions.round_to(x, "fp32"), precisions.round_to(src, "fp32"), idx, "fp32")
    assert np.array_equal(first, again)  # sorted: the same bits every time


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("n_feat", [1, 3, 8, 64])
def test_sorted_and_unsorted_stretches_share_rows(float_type: str, n_feat: int) -> None:
    """Sorted stretches add each of their runs once while an unsorted stretch between them adds to the same
    rows, at the same time: every addition lands."""
    rng = np.random.default_rng(40 + n_feat)
    x, src = rng.standard_normal((300, n_feat)), rng.standard_normal((60_000, n_feat))
    idx = np.concatenate([np.sort(rng.integers(0, 300, 20_000)), rng.integers(0, 300, 20_000),
                          np.sort(rng.integers(0, 300, 20_000))]).astype(np.int32)
    check(x, src, idx, float_type)


@pytest.mark.parametrize("n_edges", [1, 31, 32, 33, 255, 257, 4095, 4097, 4096 * 32 + 1, (1 << 20) + 5])
@pytest.mark.parametrize("n_feat", [1, 16])
def test_edge_counts_around_boundaries(n_edges: int, n_feat: int) -> None:
    """Edge counts around warps, blocks, spans, and a million (spans of SPAN_EDGES)."""
    x, src, idx = graph(max(2, n_edges // 16), n_edges, n_feat, seed=n_edges % 1000)
    check(x, src, np.sort(idx), "fp32")
    check(x, src, idx, "bf16")


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("n_feat", [1, 64])
def test_half_of_all_edges_to_one_row(float_type: str, n_feat: int) -> None:
    x, src, idx = graph(5000, 300000, n_feat, seed=8)
    idx[::2] = 1234
    check(x, src, idx, float_type)
    check(x, src, np.sort(idx), float_type)  # one run across hundreds of spans


@pytest.mark.parametrize("order", ["sorted", "random"])  # random at F = 1: the scratch of pairs
@pytest.mark.parametrize("n_feat", [1, 64])
def test_workspace_never_written_before_is_fine(n_feat: int, order: str) -> None:
    """The workspace as cudaMalloc leaves it (not 0xFF): under compute-sanitizer initcheck this shows
    that nothing reads workspace bytes the kernels did not write (a row across hundreds of spans,
    and many short runs across span edges; or the scratch, zeroed by its own kernel)."""
    import cupy as cp

    x, src, idx = graph(5000, 300000, n_feat, seed=13)
    idx[::2] = 1234
    idx = np.sort(idx) if order == "sorted" else idx
    x, src = precisions.round_to(x, "fp32"), precisions.round_to(src, "fp32")
    a = launch_arrays(x, src, idx, "fp32")
    a["workspace"] = cp.empty(kernel_arrays.workspace_bytes("fp32", len(idx), n_feat, len(x)), dtype=np.uint8)
    launch(kernel_arrays.get_kernel("fp32", "int32"), a, cp.cuda.get_current_stream().ptr)
    assert_matches_reference(cp.asnumpy(a["x"]), cp.asnumpy(a["counts"]), x, src, idx, "fp32")


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("n_feat", [1, 2, 4, 8, 64])  # 4 and 8: a lane's columns in one vector RED (sm_90)
def test_sorted_input_is_bitwise_repeatable(float_type: str, n_feat: int) -> None:
    x, src, idx = graph(3000, 200000, n_feat, seed=9)
    idx = np.sort((3000 * np.random.default_rng(9).random(200000) ** 3).astype(np.int32))  # hot rows
    runs = [run_kernel(precisions.round_to(x, float_type), precisions.round_to(src, float_type), idx, float_type)[0]
            for _ in range(3)]
    assert all(np.array_equal(runs[0], r) for r in runs[1:])


@pytest.mark.parametrize("n_edges", [1000, 20_000])
@pytest.mark.parametrize("n_feat", [1, 4, 64])  # 4: fp32 rows of four columns added by one float4 atomic (sm_90)
@pytest.mark.parametrize("order", ["sorted", "random"])
def test_fp32_subnormal_sums_flush_to_zero_as_fp32_atomics_do(n_edges: int, n_feat: int, order: str) -> None:
    """fp32 rows are added with fp32 atomics, which flush subnormal inputs and results to zero (the price of
    one rounding with no wait; the 16-bit atomics are .noftz, and keep theirs). Rows that receive an edge and
    whose values and sums are all below 2**-126 end as zero; rows that receive none keep x bitwise."""
    rng = np.random.default_rng(5)
    tiny = np.float32(2.0 ** -149)
    idx = rng.integers(0, 500, n_edges).astype(np.int32)
    idx = np.sort(idx) if order == "sorted" else idx
    src = (rng.integers(1, 8, (n_edges, n_feat)) * tiny).astype(np.float32).astype(np.float64)
    x = (rng.integers(0, 8, (500, n_feat)) * tiny).astype(np.float32).astype(np.float64)
    x[::7] = 1.0  # normal rows: the subnormal sums added to them are flushed, 1.0 stays
    got, counts, _ = run_kernel(x, src, idx, "fp32")
    expected_counts = np.bincount(idx, minlength=500)
    assert counts.tolist() == expected_counts.tolist()
    touched = expected_counts > 0
    expected = np.where(touched[:, None], np.where(x == 1.0, 1.0, 0.0), x)
    assert np.array_equal(got, expected), f"{np.sum(got != expected)} elements differ"


@pytest.mark.parametrize("float_type", ["fp16", "bf16"])
@pytest.mark.parametrize("n_feat", [1, 8, 64])
def test_sorted_hot_row_is_summed_in_fp32(float_type: str, n_feat: int) -> None:
    """A row with 100K edges is summed in fp32 over many spans, then added once: its sum rounded to 16 bits,
    and the addition rounded (two roundings, none per edge)."""
    x, src, idx = graph(50, 200000, n_feat, seed=10)
    idx[: 100000] = 7
    idx = np.sort(idx)
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    got, counts, _ = run_kernel(x, src, idx, float_type)
    expected, _ = ref.scatter_add_reference(x, src, idx)
    magnitude, _ = ref.scatter_add_reference(np.abs(x), np.abs(src), idx)
    # the sum's rounding, the addition's, plus fp32 accumulation (2^-24 per addition, generously)
    bound = ROUNDOFF[float_type] * (np.abs(expected) + np.abs(expected - x)) + counts[:, None] * 2.0**-24 * magnitude
    assert np.all(np.abs(got - expected) <= bound)
    assert counts[7] == np.count_nonzero(idx == 7) >= 100000
    hot = np.linalg.norm(got[7] - expected[7]) / np.linalg.norm(expected[7])
    assert hot <= {"fp16": 1e-3, "bf16": 1e-2}[float_type]


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
def test_duplicates_and_a_hot_node(float_type: str) -> None:
    x, src, idx = graph(257, 20000, 8, seed=1)
    idx[::2] = 7  # half of all edges go to node 7, interleaved with others
    check(x, src, idx, float_type)


@pytest.mark.parametrize("float_type", ["fp16", "bf16"])
def test_odd_sized_buffer_last_element_under_contention(float_type: str) -> None:
    # N * F odd: the last element has no 4-byte pair inside the buffer (2-byte compare-and-swap).
    x, src, _ = graph(5, 4096, 1, seed=2)
    idx = np.full(4096, 4, dtype=np.int32)
    idx[::3] = 3
    got = check(x, src, idx, float_type)
    assert got.shape == (5, 1)
    check(x, src, np.sort(idx), float_type)  # sorted: the last row's run crosses spans


def test_isolated_nodes_keep_x_bitwise() -> None:
    x, src, idx = graph(100, 300, 5, seed=3)
    idx = (idx % 50).astype(np.int32)  # nodes 50..99 receive nothing
    got, counts, _ = run_kernel(precisions.round_to(x, "fp16"), precisions.round_to(src, "fp16"), idx, "fp16")
    assert np.array_equal(got[50:], precisions.round_to(x, "fp16")[50:]) and not counts[50:].any()


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
def test_no_edges_zeroes_counts_and_keeps_x(float_type: str) -> None:
    x, src, idx = graph(10, 0, 4, seed=4)
    got, counts, _ = run_kernel(precisions.round_to(x, float_type), src, idx, float_type)
    assert np.array_equal(got, precisions.round_to(x, float_type)) and counts.tolist() == [0] * 10


@pytest.mark.parametrize("index_type", INDEX_TYPES)
@pytest.mark.parametrize("n_feat", [3, 8])
@pytest.mark.parametrize("order", ["random", "sorted"])
def test_out_of_range_indices_touch_nothing(index_type: str, n_feat: int, order: str) -> None:
    """Bad indices are skipped; guard bands around every written buffer stay intact."""
    import cupy as cp

    n_nodes, guard = 64, 4096
    info = np.iinfo(INDEX_DTYPES[index_type])
    bad = [-1, n_nodes, n_nodes + 1, info.max, info.min, -n_nodes]
    rng = np.random.default_rng(5)
    idx = rng.integers(0, n_nodes, 600).astype(INDEX_DTYPES[index_type])
    idx[::5] = np.resize(np.array(bad, dtype=idx.dtype), idx[::5].shape)
    if order == "sorted":  # bad rows at both ends, as runs across spans
        idx = np.sort(idx)
    src = precisions.round_to(rng.standard_normal((600, n_feat)), "fp16")
    x = precisions.round_to(rng.standard_normal((n_nodes, n_feat)), "fp16")

    canary = np.uint16(0xBEEF)
    slab = cp.full(guard + n_nodes * n_feat + guard, canary, dtype=np.uint16).view(np.float16)
    dst = slab[guard:guard + n_nodes * n_feat].reshape(n_nodes, n_feat)
    dst[...] = cp.asarray(x.astype(np.float16))
    count_slab = cp.full(guard + n_nodes + guard, -7, dtype=np.int32)
    counts = count_slab[guard:guard + n_nodes]
    kernel_arrays.scatter_add(dst, cp.asarray(src.astype(np.float16)), cp.asarray(idx), counts)
    cp.cuda.get_current_stream().synchronize()

    raw = cp.asnumpy(slab.view(np.uint16))
    assert (raw[:guard] == canary).all() and (raw[-guard:] == canary).all()
    count_raw = cp.asnumpy(count_slab)
    assert (count_raw[:guard] == -7).all() and (count_raw[-guard:] == -7).all()
    expected, expected_counts = ref.scatter_add_reference(x, src, idx)
    assert cp.asnumpy(counts).tolist() == expected_counts.tolist()
    np.testing.assert_allclose(cp.asnumpy(dst).astype(np.float64), expected, atol=0.05, rtol=0.01)


def test_non_default_stream_is_used() -> None:
    import cupy as cp

    x, src, idx = graph(4000, 200000, 32, seed=6)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:  # the arrays are produced on this stream, then the kernel is enqueued after them
        got = check(x, src, idx, "fp32", stream=stream)
    assert got.shape == (4000, 32)


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
def test_distinct_output_buffer_gets_x_plus_sums(float_type: str) -> None:
    # The plugin's answer when TensorRT passes different addresses for the aliased pair.
    x, src, idx = graph(300, 900, 6, seed=7)
    check(x, src, idx, float_type, out_of_place=True)
    _, _, x_after = run_kernel(precisions.round_to(x, float_type), precisions.round_to(src, float_type), idx, float_type,
                               out_of_place=True)
    assert np.array_equal(x_after, precisions.round_to(x, float_type))  # the input itself is untouched


def test_default_graph_through_the_launcher() -> None:
    features = np.array([[1.0], [3.0], [5.0], [7.0]])
    edges = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [1, 3]])
    got, counts, _ = run_kernel(np.zeros((4, 1)), features[edges[:, 0]], edges[:, 1].astype(np.int32), "fp16")
    assert got[:, 0].tolist() == [7.0, 1.0, 4.0, 8.0] and counts.tolist() == [1, 1, 2, 2]


def test_launcher_rejects_mismatched_arrays() -> None:
    import cupy as cp

    x = cp.zeros((4, 2), np.float32)
    with pytest.raises(ValueError, match="does not match"):
        kernel_arrays.scatter_add(x, cp.zeros((3, 3), np.float32), cp.zeros(3, np.int32), cp.zeros(4, np.int32))
    with pytest.raises(ValueError, match="counts int32"):
        kernel_arrays.scatter_add(x, cp.zeros((3, 2), np.float32), cp.zeros(3, np.int32), cp.zeros(4, np.int64))


def test_zero_features_still_count() -> None:
    x, src, idx = graph(40, 500, 0, seed=11)
    got, counts, _ = run_kernel(x, src, idx, "fp32")
    assert got.shape == (40, 0) and counts.tolist() == np.bincount(idx, minlength=40).tolist()


def test_workspace_too_small_is_refused() -> None:
    import cupy as cp

    x, src, idx = (cp.zeros((4, 2), np.float32), cp.zeros((3, 2), np.float32), cp.zeros(3, np.int32))
    with pytest.raises(ValueError, match="workspace must hold"):
        kernel_arrays.scatter_add(x, src, idx, cp.zeros(4, np.int32), workspace=cp.zeros(8, np.uint8))


def test_a_thread_without_a_context_takes_the_runtimes_current_device() -> None:
    """A new thread has no current CUDA context (TensorRT would make its own current before building): the plugin
    makes the CUDA runtime's current device's primary context current there, device 0 unless set."""
    import cuda.bindings.runtime as runtime

    seen: list[tuple[int, bool, int, int]] = []

    def elsewhere() -> None:
        before = int(cuda_calls.check(cuda_calls.driver.cuCtxGetCurrent(), "cuCtxGetCurrent"))
        context, device = cuda_calls.current_device()
        seen.append((before, context != 0, device, int(cuda_calls.check(runtime.cudaGetDevice(), "cudaGetDevice"))))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert seen == [(0, True, 0, 0)]  # nothing was current; the runtime's device, 0 by default, now is


def test_kernel_is_loaded_once() -> None:
    assert kernel_arrays.get_kernel("fp16", "int32").functions is kernel_arrays.get_kernel("fp16", "int32").functions


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
def test_karate_club_as_the_driver_feeds_it(float_type: str) -> None:
    from gnn.model import make_run_inputs
    from gnn.inputs import karate_club

    karate = karate_club().graph
    inputs = make_run_inputs(karate, 2, float_type, seed=0, x0=karate.features)  # edges sorted by target
    got = check(inputs.x, inputs.src, inputs.idx, float_type)
    assert got.shape == (34, 34)


@pytest.mark.parametrize(("float_type", "degrees"), [("fp32", "uniform"), ("fp16", "powerlaw"), ("bf16", "powerlaw")])
def test_synthetic_million_edge_graph(float_type: str, degrees: str) -> None:
    from made_graphs import synthetic_graph

    graph = synthetic_graph(50_000, 1_000_000, 16, degrees, seed=12).graph
    src, idx = graph.features[graph.edges[:, 0]], graph.edges[:, 1].astype(np.int32)
    order = np.argsort(idx, kind="stable")
    check(np.zeros_like(graph.features), src[order], idx[order], float_type)  # the driver's order
    check(np.zeros_like(graph.features), src, idx, float_type)  # and as generated


# --- one launch: the enqueue's GPU operations, any grid size, graph replay -------------------

def launch_arrays(x: np.ndarray, src: np.ndarray, idx: np.ndarray, float_type: str) -> dict[str, Any]:
    import cupy as cp

    return {"x": cp.asarray(precisions.to_storage(x, float_type)), "src": cp.asarray(precisions.to_storage(src, float_type)),
            "idx": cp.asarray(idx), "counts": cp.full(x.shape[0], 99, dtype=np.int32),
            "workspace": cp.full(kernel_arrays.workspace_bytes(float_type, len(idx), x.shape[1], x.shape[0]), 0xFF, dtype=np.uint8)}


def launch(kernel: sak.ScatterAddKernel, a: dict[str, Any], stream: int) -> None:
    """What the plugin's enqueue does: aliased x == dst, raw pointers, one stream."""
    kernel.launch(dst=a["x"].data.ptr, src=a["src"].data.ptr, idx=a["idx"].data.ptr,
                  counts=a["counts"].data.ptr, n_nodes=a["x"].shape[0], n_feat=a["x"].shape[1],
                  n_edges=len(a["idx"]), workspace=a["workspace"].data.ptr, workspace_size=a["workspace"].nbytes,
                  stream=stream)


def captured(kernel: sak.ScatterAddKernel, a: dict[str, Any]) -> Any:
    """A CUDA graph captured around one enqueue (the caller destroys it)."""
    import cupy as cp
    import cuda.bindings.driver as driver

    stream = cp.cuda.Stream(non_blocking=True)
    mode = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
    assert int(driver.cuStreamBeginCapture(stream.ptr, mode)[0]) == 0
    launch(kernel, a, stream.ptr)
    status, graph = driver.cuStreamEndCapture(stream.ptr)
    assert int(status) == 0
    return graph


def captured_nodes(kernel: sak.ScatterAddKernel, a: dict[str, Any]) -> list[str]:
    """The node types of a CUDA graph captured around one enqueue."""
    import cuda.bindings.driver as driver

    graph = captured(kernel, a)
    status, nodes, count = driver.cuGraphGetNodes(graph, 64)
    assert int(status) == 0
    types = [driver.cuGraphNodeGetType(node)[1].name for node in nodes[:count]]
    driver.cuGraphDestroy(graph)
    return types


@pytest.mark.parametrize("n_edges", [1, 6, 1024, 64 << 10, (1 << 20) + 5, 4 << 20])
@pytest.mark.parametrize("n_feat", [1, 32])
def test_enqueue_is_a_memset_and_two_kernels(n_edges: int, n_feat: int) -> None:
    """The fix-up kernel is left out where there is one span (no run can cross spans). Where the scratch may be used
    (F = 1 from 2^18 edges, sm_90 on), scatter_add_zero stands in for the memset."""
    x, src, idx = graph(max(2, n_edges // 16), n_edges, n_feat, seed=20)
    a = launch_arrays(x, src, np.sort(idx), "fp16")
    kernel = kernel_arrays.get_kernel("fp16", "int32")
    work = plan.launch(len(x), n_edges, n_feat, "fp16", 1, kernel.arch)
    kernels = 1 if work.spans == 1 else 2
    first = "CU_GRAPH_NODE_TYPE_KERNEL" if work.scratch else "CU_GRAPH_NODE_TYPE_MEMSET"
    assert captured_nodes(kernel, a) == [first, *["CU_GRAPH_NODE_TYPE_KERNEL"] * kernels]
    assert kernels == (1 if n_edges <= plan.span_length(n_edges, plan.tile(n_feat, 2), 2, n_feat) else 2)
    assert work.scratch is (n_feat == 1 and n_edges >= plan.SCRATCH_EDGES and kernel.arch >= plan.SCRATCH_ARCH)


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("n_feat", [1, 2, 8, 33, 64])
@pytest.mark.parametrize("n_edges", [5, 4095, plan.TARGET_SPANS * 16 + 3, 300_000])
def test_the_workspace_is_exactly_what_the_kernels_use(float_type: str, n_feat: int, n_edges: int) -> None:
    """plan.workspace_bytes is the kernels' layout: a flag per span (then padding to 256 bytes), and the pieces,
    whose last slot belongs to the last span. With the last row running through the last spans, that span is
    WHOLE and writes the last slot; nothing after the workspace is touched (a canary)."""
    import cupy as cp

    x, src, idx = graph(max(2, n_edges // 3), n_edges, n_feat, seed=23)
    work = plan.launch(len(x), n_edges, n_feat, float_type, 1)
    idx = np.sort(idx)
    idx[-max(1, n_edges // 5, 2 * work.span):] = len(x) - 1
    a = launch_arrays(x, src, idx, float_type)
    size = kernel_arrays.workspace_bytes(float_type, n_edges, n_feat, len(x))
    a["workspace"] = cp.full(size + 4096, 0xA5, dtype=np.uint8)
    launch(kernel_arrays.get_kernel(float_type, "int32"), a, cp.cuda.get_current_stream().ptr)
    ws = cp.asnumpy(a["workspace"])
    assert (ws[size:] == 0xA5).all()
    flags = ws[:4 * work.spans].view(np.uint32)
    assert set(flags.tolist()) <= {0, 1} and (ws[4 * work.spans:work.flag_bytes] == 0xA5).all()
    end = plan.workspace_bytes(work.spans, n_feat)  # the pieces' end; fp32 at F = 1 may size for the scratch too
    if work.spans > 1:  # (at F = 1 the last span's lanes past E start a run of no row: 0, never read, no boundary follows)
        assert (flags[-1] == 1 or n_feat == 1 and n_edges % work.span) and (ws[end - 4 * n_feat:end] != 0xA5).any()
    assert cp.asnumpy(a["counts"]).tolist() == np.bincount(idx, minlength=len(x)).tolist()


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
def test_the_grid_is_the_blocks_that_fit_at_once(float_type: str) -> None:
    """The main kernel's grid holds as many blocks as the driver says fit at once (its registers and
    shared memory), at most plan.MIN_BLOCKS an SM: on sm_80 and later, whose SMs hold at least 100 KiB
    of shared memory, that is MIN_BLOCKS."""
    kernel = kernel_arrays.get_kernel(float_type, "int32")
    _, device = cuda_calls.current_device()
    sms = cuda_calls.device_attribute(device, "MULTIPROCESSOR_COUNT")
    main = kernel.functions[sak.ENTRIES.index("scatter_add")]
    fits = cuda_calls.check(cuda_calls.driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(main, plan.BLOCK, 0),
                            "occupancy")
    assert kernel.fit == min(fits, plan.MIN_BLOCKS) * sms
    if cuda_calls.arch_number(cuda_calls.device_arch(device)) >= 80:
        assert kernel.fit == plan.MIN_BLOCKS * sms


@pytest.mark.parametrize("blocks", [1, 2, 3])
@pytest.mark.parametrize("order", ["sorted", "random", "sorted-short-runs"])
@pytest.mark.parametrize("n_feat", [1, 40])
def test_any_grid_size_finishes_every_span(blocks: int, order: str, n_feat: int) -> None:
    """No warp waits for another: even one block takes every span to the end."""
    import cupy as cp

    x, src, idx = graph(3000, 300_000, n_feat, seed=21)
    if order != "sorted-short-runs":
        idx[: 100_000] = 17  # a row across many spans when sorted
    if order.startswith("sorted"):
        idx = np.sort(idx)
    kernel = dataclasses.replace(kernel_arrays.get_kernel("fp32", "int32"), fit=blocks)
    a = launch_arrays(x, src, idx, "fp32")
    launch(kernel, a, cp.cuda.get_current_stream().ptr)
    expected, expected_counts = ref.scatter_add_reference(x, src, idx)
    assert cp.asnumpy(a["counts"]).tolist() == expected_counts.tolist()
    np.testing.assert_allclose(cp.asnumpy(a["x"]), expected, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize(("n_edges", "n_feat"), [(1024, 32), (64 << 10, 32), (300_000, 1)])
def test_graph_replay_equals_eager_bitwise(float_type: str, n_edges: int, n_feat: int) -> None:
    """Sorted input: an enqueue replayed from a CUDA graph gives the eager launch's bits."""
    import cupy as cp
    import cuda.bindings.driver as driver

    x, src, idx = graph(max(2, n_edges // 16), n_edges, n_feat, seed=22)
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    kernel = kernel_arrays.get_kernel(float_type, "int32")
    eager = launch_arrays(x, src, np.sort(idx), float_type)
    launch(kernel, eager, cp.cuda.get_current_stream().ptr)
    replay = launch_arrays(x, src, np.sort(idx), float_type)
    stream = cp.cuda.Stream(non_blocking=True)
    cp.cuda.get_current_stream().synchronize()
    mode = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
    assert int(driver.cuStreamBeginCapture(stream.ptr, mode)[0]) == 0
    launch(kernel, replay, stream.ptr)
    _, graph_handle = driver.cuStreamEndCapture(stream.ptr)
    _, executable = driver.cuGraphInstantiate(graph_handle, 0)
    for _ in range(2):  # twice: the second replay starts from the first one's result
        assert int(driver.cuGraphLaunch(executable, stream.ptr)[0]) == 0
    stream.synchronize()
    once = launch_arrays(x, src, np.sort(idx), float_type)
    once["x"][...] = eager["x"]
    launch(kernel, once, cp.cuda.get_current_stream().ptr)  # eager twice, for the same two additions
    cp.cuda.get_current_stream().synchronize()
    assert cp.array_equal(replay["x"], once["x"]) and cp.array_equal(replay["counts"], eager["counts"])
    driver.cuGraphExecDestroy(executable)
    driver.cuGraphDestroy(graph_handle)


@pytest.mark.parametrize("float_type", ["fp32", "fp16"])
def test_a_hub_where_spans_are_long_enough(float_type: str) -> None:
    """The hubs (tests/test_kernel_hubs_gpu.py) as the kernel is built: a million edges at F = 16
    make spans of HUB_EDGES or more, and half of them go to one row, in random order. Small
    integers, so that fp32 is compared exactly."""
    n_nodes, n_edges, n_feat = 1 << 16, (1 << 20) + 3, 16
    rng = np.random.default_rng(16)
    x = rng.integers(-8, 9, (n_nodes, n_feat)).astype(np.float64)
    src = rng.integers(-3, 4, (n_edges, n_feat)).astype(np.float64)
    idx = rng.integers(0, n_nodes, n_edges).astype(np.int32)
    idx[rng.random(n_edges) < 0.5] = n_nodes // 2
    assert plan.launch(n_nodes, n_edges, n_feat, float_type, 528).span >= plan.HUB_EDGES
    got = check(x, src, idx, float_type)
    if float_type == "fp32":
        expected = x.copy()
        np.add.at(expected, idx, src)
        assert np.array_equal(got, expected)


@pytest.mark.parametrize("float_type", ["fp32", "fp16", "bf16"])
@pytest.mark.parametrize("n_feat", [64, 8])
def test_many_hubs_where_spans_are_long_enough(float_type: str, n_feat: int) -> None:
    """Eight hubs sharing half the edges, as the kernel is built (real HUB_EDGES, WIDE_VOTES and a
    long span's sample of 128 entries, which tests/test_kernel_hubs_gpu.py's short spans never
    reach), in random order with skipped entries; F = 8 is a 16-byte row at 16 bits. Small
    integers, so that fp32 is compared exactly."""
    n_nodes, n_edges = 1 << 16, (1 << 20) + 5
    rng = np.random.default_rng(n_feat)
    x = rng.integers(-8, 9, (n_nodes, n_feat)).astype(np.float64)
    src = rng.integers(-3, 4, (n_edges, n_feat)).astype(np.float64)
    idx = rng.integers(0, n_nodes, n_edges).astype(np.int32)
    hot = rng.random(n_edges) < 0.5
    idx[hot] = rng.choice(rng.permutation(n_nodes)[:8], int(hot.sum()))
    idx[3::101] = -1
    assert plan.launch(n_nodes, n_edges, n_feat, float_type, 528).span >= plan.HUB_EDGES
    got = check(x, src, idx, float_type)
    if float_type == "fp32":
        keep = idx >= 0
        expected = x.copy()
        np.add.at(expected, idx[keep], src[keep])
        assert np.array_equal(got, expected)
