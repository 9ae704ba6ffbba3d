# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The kernel's F = 1 walk and its fp32 scratch of (sum, count) pairs, on a GPU, against the NumPy float64 reference.

The scratch is used where plan.uses_scratch allows it (F = 1, E >= max(2N, 2^18)) and the in-range ones among 32
samples of idx show a decrease. Its float counts are exact below 2^24; rows past that are recounted. Each test says which path it means
to reach and checks that it did, from what the workspace holds afterwards: the pairs, or the span flags.
Run under compute-sanitizer too (tests/README.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gnn import model as precisions
from gnn import model as ref
from kernels import plan
import kernel_arrays
from test_kernel_gpu import assert_matches_reference, captured, captured_nodes, graph, launch, launch_arrays

pytestmark = pytest.mark.gpu

SCRATCH_E = plan.SCRATCH_EDGES + 5  # past the rule's E, not a multiple of the span


def run(x: np.ndarray, src: np.ndarray, idx: np.ndarray, float_type: str = "fp32") -> dict[str, Any]:
    """One enqueue on arrays read back to the host: x (the result), counts, and the workspace's bytes."""
    import cupy as cp

    a = launch_arrays(x, src, idx, float_type)
    launch(kernel_arrays.get_kernel(float_type, "int32" if idx.dtype == np.int32 else "int64"), a,
           cp.cuda.get_current_stream().ptr)
    cp.cuda.get_current_stream().synchronize()
    return {"x": precisions.from_storage(cp.asnumpy(a["x"]), float_type), "counts": cp.asnumpy(a["counts"]),
            "workspace": cp.asnumpy(a["workspace"])}


def used_the_scratch(got: dict[str, Any], n_nodes: int) -> bool:
    """The scratch leaves each row's (sum, count) in the workspace; the counts match those below 2^24."""
    pairs = got["workspace"][:8 * n_nodes].view(np.float32).reshape(n_nodes, 2)
    return bool((np.abs(pairs[:, 1]) == np.minimum(got["counts"], 2**24)).all())


def shuffled(n_nodes: int, n_edges: int, seed: int, index_type: type = np.int32) -> tuple[np.ndarray, ...]:
    x, src, idx = graph(n_nodes, n_edges, 1, seed=seed)
    return precisions.round_to(x, "fp32"), precisions.round_to(src, "fp32"), idx.astype(index_type)


@pytest.mark.parametrize("index_type", [np.int32, np.int64])
@pytest.mark.parametrize("n_nodes", [1, 1000, SCRATCH_E // 2])
def test_random_order_takes_the_scratch_and_matches(index_type: type, n_nodes: int) -> None:
    """Skipped entries among them. With one row, the in-range entries never decrease: the walk keeps its pieces."""
    x, src, idx = shuffled(n_nodes, SCRATCH_E, seed=31, index_type=index_type)
    idx[::7] = -1
    idx[3::11] = n_nodes
    got = run(x, src, idx)
    assert used_the_scratch(got, n_nodes) == (n_nodes > 1)
    assert_matches_reference(got["x"], got["counts"], x, src, idx, "fp32")


def test_every_index_out_of_range_leaves_x_bitwise_and_counts_zero() -> None:
    """No in-range sample, so no proof of disorder: the walk, not the scratch (which is tested with skipped entries
    above)."""
    x, src, idx = shuffled(5000, SCRATCH_E, seed=32)
    idx[:] = np.where(np.arange(len(idx)) % 2, -7, 5000 + np.arange(len(idx)) % 3)
    got = run(x, src, idx)
    assert not used_the_scratch(got, len(x))
    assert (got["counts"] == 0).all() and got["x"].astype(np.float32).tobytes() == x.astype(np.float32).tobytes()


@pytest.mark.parametrize("float_type", precisions.NAMES)
def test_sorted_input_keeps_the_spans_and_the_bits(float_type: str) -> None:
    """Sorted: no sample decreases, so the walk keeps its pieces (flags 0 or 1 per span) and its bits."""
    x, src, idx = graph(SCRATCH_E // 4, 4 * SCRATCH_E, 1, seed=33)
    idx = np.sort(idx)
    idx[1000:200_000] = idx[1000]  # a row across many spans
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    first, second = run(x, src, idx, float_type), run(x, src, idx, float_type)
    spans = plan.launch(len(x), len(idx), 1, float_type, 1).spans
    assert set(first["workspace"][:4 * spans].view(np.uint32).tolist()) <= {0, 1}
    assert first["x"].tobytes() == second["x"].tobytes()
    assert_matches_reference(first["x"], first["counts"], x, src, idx, float_type)


@pytest.mark.parametrize("skipped", ["tail of -1", "past N between runs"])
@pytest.mark.parametrize("index_type", [np.int32, np.int64])
def test_sorted_with_skipped_entries_keeps_the_spans_and_the_bits(index_type: type, skipped: str) -> None:
    """Skipped entries prove nothing about the order, so the samples pass over them: sorted idx with a tail of -1,
    or with values past N between two runs, keeps the pieces, not the scratch, and gives the same bits on every
    run (before the samples passed over skipped entries, the scratch took such input: 6 runs, 6 results)."""
    n_nodes, n_edges, block = 100, 1 << 20, 100_000  # the block of skipped entries covers 2 or 3 samples
    rng = np.random.default_rng(38)
    x = precisions.round_to(rng.standard_normal((n_nodes, 1)), "fp32")
    src = precisions.round_to(rng.standard_normal((n_edges, 1)), "fp32")
    rows = np.sort(rng.integers(0, n_nodes, n_edges - block))
    if skipped == "tail of -1":
        idx = np.concatenate([rows, np.full(block, -1)])
    else:
        middle = np.searchsorted(rows, n_nodes // 2)
        idx = np.concatenate([rows[:middle], np.full(block, n_nodes + 7), rows[middle:]])
    idx = idx.astype(index_type)
    runs = [run(x, src, idx) for _ in range(6)]
    distinct = len({r["x"].tobytes() for r in runs})
    assert distinct == 1, f"{distinct} different results in 6 runs"
    assert not used_the_scratch(runs[0], n_nodes)
    assert_matches_reference(runs[0]["x"], runs[0]["counts"], x, src, idx, "fp32")


@pytest.mark.parametrize("swap", ["unseen", "reversed"])
def test_a_decrease_the_samples_miss_or_see_is_right_either_way(swap: str) -> None:
    """Two neighbours swapped lie between the samples (the spans' walk, unsorted but right); reversed order is seen."""
    x, src, idx = shuffled(10_000, SCRATCH_E, seed=34)
    idx = np.sort(idx)
    if swap == "unseen":
        idx[[1001, 1002]] = idx[1002] + 1, idx[1001]
    else:
        idx = idx[::-1].copy()
    got = run(x, src, idx)
    assert used_the_scratch(got, len(x)) == (swap == "reversed")
    assert_matches_reference(got["x"], got["counts"], x, src, idx, "fp32")


@pytest.mark.parametrize("float_type", ["fp16", "bf16"])
def test_16_bit_random_order_takes_the_scratch_and_rounds_each_row_once(float_type: str) -> None:
    """16-bit X in random order: the (sum, count) pairs are fp32, so each row is rounded to X's type once. Sums of
    zeros and ones are exact in fp32, so the result is X + the exact sum rounded once, bit for bit: the last odd
    row (4998, a fifth of the edges, about 26,000) lies where fp16 keeps every 16th integer and bf16 every 128th,
    which a RED of each run into X rounds many times over."""
    x, src, idx = graph(4999, SCRATCH_E, 1, seed=35)
    idx[::5] = 4998
    x = np.round(x * 8)
    src = (src > 0).astype(np.float64)
    got = run(x, src, idx, float_type)
    assert used_the_scratch(got, len(x))
    exact = x + np.bincount(idx, weights=src[:, 0], minlength=len(x))[:, None]
    assert exact[4998, 0] > 20_000
    assert got["x"].tolist() == precisions.round_to(exact, float_type).tolist()
    assert got["counts"].tolist() == np.bincount(idx, minlength=len(x)).tolist()


def test_counts_past_2_24_are_exact_in_random_order() -> None:
    """Rows 0 and 7 get 2^24 + 1 and 2^24 + 3 edges: float counts would round them to 2^24 and 2^24 + 4. The
    unpack flags them and the recount counts them; row 0 also carries the flag."""
    hot = {0: 2**24 + 1, 7: 2**24 + 3}
    rng = np.random.default_rng(36)
    idx = np.concatenate([np.full(n, row, np.int32) for row, n in hot.items()]
                         + [rng.integers(8, 1000, 3000, dtype=np.int32), np.array([-1, 1000], np.int32)])
    rng.shuffle(idx)
    x = precisions.round_to(rng.standard_normal((1000, 1)), "fp32")
    src = np.ones((len(idx), 1), np.float32)  # sums of ones: exact in fp32 up to 2^24, near it past
    got = run(x, src, idx)
    expected_counts = np.bincount(idx[(idx >= 0) & (idx < 1000)], minlength=1000)
    assert got["counts"].tolist() == expected_counts.tolist()
    assert got["counts"][0] == hot[0] and got["counts"][7] == hot[7]
    expected, _ = ref.scatter_add_reference(x, src, idx)
    np.testing.assert_allclose(got["x"], expected, rtol=2e-6)


@pytest.mark.parametrize(("n_edges", "recount"), [(SCRATCH_E, False), (2**24, True)])
def test_enqueue_with_the_scratch_is_four_kernels(n_edges: int, recount: bool) -> None:
    """Zero (the scratch, or else the counts), walk, unpack (or fix-up) and, from E = 2^24, the recount: each decides on
    the GPU whether to use the scratch."""
    x, src, idx = graph(1000, n_edges, 1, seed=37)
    a = launch_arrays(x, src, idx, "fp32")
    nodes = captured_nodes(kernel_arrays.get_kernel("fp32", "int32"), a)
    assert nodes == ["CU_GRAPH_NODE_TYPE_KERNEL"] * (4 if recount else 3)


@pytest.mark.parametrize(("n_edges", "recount"), [(SCRATCH_E, False), (2**24, True)])
def test_the_captured_recount_overlaps_the_unpack(n_edges: int, recount: bool) -> None:
    """The recount is launched to overlap the unpack or fix-up (programmatic dependent launch): in a captured graph,
    the one edge into it is programmatic; every other edge is an ordinary one."""
    import cuda.bindings.driver as driver

    x, src, idx = graph(1000, n_edges, 1, seed=37)
    a = launch_arrays(x, src, idx, "fp32")
    kernel = kernel_arrays.get_kernel("fp32", "int32")
    if not kernel.overlap:
        pytest.skip("the driver is older than CUDA 12.3's: the recount is launched as the others are")
    get_edges = getattr(driver, "cuGraphGetEdges_v2", driver.cuGraphGetEdges)  # CUDA 12's name, 13's
    enqueue = captured(kernel, a)
    status, sources, targets, data, count = get_edges(enqueue, 16)
    assert int(status) == 0
    types = [int(edge.type) for edge in data[:count]]
    into = [int(t) for t in targets[:count]]  # the node each edge leads to
    sinks = set(into) - {int(f) for f in sources[:count]}  # the chain's last node
    driver.cuGraphDestroy(enqueue)
    programmatic = int(driver.CUgraphDependencyType.CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC)
    assert count == (3 if recount else 2) and len(sinks) == 1  # a chain of the enqueue's kernels
    assert types.count(programmatic) == (1 if recount else 0)
    if recount:  # the edge into the last kernel, the recount
        assert into[types.index(programmatic)] in sinks
