# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Hubs, rows that take a large share of the edges, in random order (kernels/scatter_add.cu,
"Hubs": a warp sums its span's hubs in shared memory and adds each once a pass), on a GPU against
the NumPy float64 reference: counts exact, sums within test_kernel_gpu's bound. Random order
promises no repeatable bits; a hub in sorted order keeps its bits (test_kernel_gpu's
test_sorted_input_is_bitwise_repeatable has hot rows). Run under compute-sanitizer too
(tests/README.md), all but the test past 2^24 edges.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from gnn import model as precisions
from kernels import plan
from kernels import scatter_add as sak
from test_kernel_f1_gpu import run, used_the_scratch
from test_kernel_gpu import FLOAT_TYPES, INDEX_TYPES, check, graph, run_kernel

pytestmark = pytest.mark.gpu


# The shared memory a thread gets (plan.SLOTS, a -D option): 0 is the GPU's own choice (32 slots on
# an H100 or H200), -1 the layout of GPUs with 100 KB a multiprocessor (16 slots, 17 at 16 bits),
# which holds fewer hubs: so that both layouts run on the GPU the tests have.
@pytest.fixture(scope="module", autouse=True, params=[0, -1], ids=["slots=by-gpu", "slots=small"])
def hubs_in_every_span(request: pytest.FixtureRequest) -> Iterator[None]:
    """Spans of any length look for a hub (plan.HUB_EDGES = 1, a -D option: the kernel is compiled
    anew, once a type pair and layout for this file), so that graphs this small, whose spans are
    shorter than HUB_EDGES, take the hub path. F = 1's spans are never shorter than HUB_EDGES: the
    same there. test_kernel_gpu.test_a_hub_where_spans_are_long_enough runs the kernel as built."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(plan, "HUB_EDGES", 1)
        patch.setattr(plan, "SLOTS", request.param)
        sak.compile.cache_clear()
        sak.fingerprint.cache_clear()
        yield
    sak.compile.cache_clear()
    sak.fingerprint.cache_clear()


def with_hubs(n_nodes: int, n_edges: int, n_feat: int, hubs: dict[int, float], seed: int,
              index_type: str = "int32") -> tuple[np.ndarray, ...]:
    """A uniform random graph whose edges go to each hub row with its share, in random order."""
    x, src, idx = graph(n_nodes, n_edges, n_feat, seed, index_type)
    pick = np.random.default_rng(seed + 1).random(n_edges)
    low = 0.0
    for row, share in hubs.items():
        idx[(pick >= low) & (pick < low + share)] = row
        low += share
    return x, src, idx


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("n_feat", [1, 3, 64, 130])
@pytest.mark.parametrize("row", ["first", "middle", "last"])
def test_half_of_the_edges_to_one_row_in_random_order(float_type: str, n_feat: int,
                                                      row: str) -> None:
    """One hub at row 0, inside, and at row N - 1; odd F, F = 64, and two passes at 130."""
    n_nodes = 5000
    hub = {"first": 0, "middle": n_nodes // 3, "last": n_nodes - 1}[row]
    x, src, idx = with_hubs(n_nodes, 40_000, n_feat, {hub: 0.5}, seed=n_feat)
    got = check(x, src, idx, float_type)
    assert np.count_nonzero(idx == hub) > 19_000 and got.shape == x.shape


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("n_feat", [1, 5, 64])
def test_several_hubs_at_once(float_type: str, n_feat: int) -> None:
    """Four hubs, none with half the edges: a span's sample may pick any of them."""
    hubs = {0: 0.2, 17: 0.2, 4999: 0.15, 2500: 0.1}
    x, src, idx = with_hubs(5000, 60_000, n_feat, hubs, seed=3 + n_feat)
    check(x, src, idx, float_type)


@pytest.mark.parametrize("index_type", INDEX_TYPES)
@pytest.mark.parametrize("n_feat", [1, 7, 64])
def test_out_of_range_entries_among_a_hubs(index_type: str, n_feat: int) -> None:
    """Skipped entries between the hub's: -1, N, and for int64 the hub's row plus 2^32, which a
    32-bit compare would take for the hub."""
    n_nodes, hub = 3000, 42
    x, src, idx = with_hubs(n_nodes, 50_000, n_feat, {hub: 0.6}, seed=5,
                            index_type=index_type)
    idx[1::5] = -1
    idx[2::9] = n_nodes
    if index_type == "int64":
        idx[3::13] = hub + 2**32
    check(x, src, idx, "fp32")
    check(x, src, idx, "fp16")


def test_a_hub_in_fp32_scratch_at_f_1() -> None:
    """fp32 at F = 1 past the scratch's E: the hub's held sum and count go into its pair."""
    n_nodes = 1000
    x, src, idx = with_hubs(n_nodes, plan.SCRATCH_EDGES + 5, 1, {n_nodes - 1: 0.5}, seed=8)
    x = x.astype(np.float32).astype(np.float64)  # the kernel's inputs, exactly
    src = src.astype(np.float32).astype(np.float64)
    got = run(x, src, idx)
    assert used_the_scratch(got, n_nodes)
    expected = x[:, 0] + np.bincount(idx, weights=src[:, 0], minlength=n_nodes)
    assert got["counts"].tolist() == np.bincount(idx, minlength=n_nodes).tolist()
    terms = np.abs(x[:, 0]) + np.bincount(idx, weights=np.abs(src[:, 0]), minlength=n_nodes)
    assert np.all(np.abs(got["x"][:, 0] - expected) <= (got["counts"] + 2) * 2.0**-24 * terms)


def test_a_hub_past_2_24_edges_in_fp32() -> None:
    """F = 1 fp32, random order: the hub's count passes 2^24, where the scratch's float count
    stops being exact and the rows are recounted; its sum within the bound."""
    n_nodes, n_edges = 1 << 20, (1 << 25) + 1001
    rng = np.random.default_rng(24)
    idx = rng.integers(0, n_nodes, n_edges).astype(np.int32)
    idx[rng.random(n_edges) < 0.6] = 7
    x = rng.standard_normal((n_nodes, 1)).astype(np.float32)
    src = rng.standard_normal((n_edges, 1)).astype(np.float32)
    got = run(x, src, idx)
    counts = np.bincount(idx, minlength=n_nodes)
    assert counts[7] > 2**24 and got["counts"].tolist() == counts.tolist()
    expected = x[:, 0] + np.bincount(idx, weights=src[:, 0].astype(np.float64), minlength=n_nodes)
    terms = np.abs(x[:, 0]) + np.bincount(idx, weights=np.abs(src[:, 0]), minlength=n_nodes)
    assert np.all(np.abs(got["x"][:, 0] - expected) <= (counts + 2) * 2.0**-24 * terms)


def assert_exact_with_skips(x_shape: tuple[int, ...], src_shape: tuple[int, ...], idx: np.ndarray,
                            n_nodes: int, seed: int, wide_row: int | None = None) -> None:
    """X and src as small integers, whose fp32 sums are exact in any order, and entries of idx skipped
    (-1 and N) among the hubs', then ``wide_row`` (int64: a hub's row plus 2^32, which a 32-bit
    compare would take for the hub) at others: the kernel's sums and counts must equal NumPy's bit for
    bit."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-8, 9, x_shape).astype(np.float64)
    src = rng.integers(-3, 4, src_shape).astype(np.float64)
    idx[5::97] = -1
    idx[6::89] = n_nodes
    if wide_row is not None:
        idx[7::83] = wide_row
    keep = (idx >= 0) & (idx < n_nodes)
    expected = x.copy()
    np.add.at(expected, idx[keep], src[keep])
    got, counts, _ = run_kernel(x, src, idx, "fp32")
    assert counts.tolist() == np.bincount(idx[keep], minlength=n_nodes).tolist()
    assert np.array_equal(got, expected)


@pytest.mark.parametrize("n_feat", [1, 5, 64, 130])
@pytest.mark.parametrize("index_type", INDEX_TYPES)
def test_hubs_add_every_edge_exactly(n_feat: int, index_type: str) -> None:
    """Small integers, whose fp32 sums are exact in any order: a held run lost or added twice shows
    as a wrong value, where the rounding bound of the other tests (it grows with a row's count)
    could hide it. Three hubs, skipped entries among them, fp32."""
    n_nodes, n_edges = 4000, 120_000
    x, src, idx = with_hubs(n_nodes, n_edges, n_feat, {0: 0.3, 1234: 0.2, n_nodes - 1: 0.1},
                            seed=n_feat, index_type=index_type)
    assert_exact_with_skips(x.shape, src.shape, idx, n_nodes, seed=n_feat + 7)



# Since v17 a span holds up to 16 hubs at F = 1, min(8, 16 / V) on wider rows (V: a lane's
# columns), chosen by votes from its sample and found through a hashed table of the warp.
def pair_of(row: int) -> int:
    """The .cu's pair_of: the pair of table cells a row hashes to."""
    return (row * 0x9E3779B1 % 2**32) >> 26


def many_hubs(n_nodes: int, k: int, where: str) -> list[int]:
    """k hub rows, the first at 0, N / 2 or N - 1 (where), the rest spread."""
    first = {"first": 0, "middle": n_nodes // 2, "last": n_nodes - 1}[where]
    rest = [(first + 1 + i * (n_nodes // k)) % n_nodes for i in range(k - 1)]
    return [first, *dict.fromkeys(r for r in rest if r != first)]


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("n_feat", [1, 3, 64, 130])
@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("k", [2, 8, 24])
def test_many_hubs_share_half_the_edges(float_type: str, n_feat: int, where: str, k: int) -> None:
    """2, 8 and 24 hubs (more than a span holds) sharing half the edges, one at row 0, N / 2 or
    N - 1; F = 1, odd F, 64 and two passes at 130."""
    n_nodes = 4000
    rows = many_hubs(n_nodes, k, where)
    x, src, idx = with_hubs(n_nodes, 30_000, n_feat, {r: 0.5 / len(rows) for r in rows},
                            seed=k + n_feat)
    check(x, src, idx, float_type)


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("n_feat", [1, 3, 64])
@pytest.mark.parametrize("s", [0.8, 1.1, 1.5])
def test_zipf_rows(float_type: str, n_feat: int, s: float) -> None:
    """Row popularity Zipf(s), rows permuted: many hot rows of every share, in random order."""
    n_nodes, n_edges = 3000, 40_000
    rng = np.random.default_rng(int(10 * s) + n_feat)
    weights = np.arange(1, n_nodes + 1, dtype=np.float64) ** -s
    rank = rng.choice(n_nodes, n_edges, p=weights / weights.sum())
    x, src, _ = graph(n_nodes, n_edges, n_feat, seed=n_feat)
    idx = rng.permutation(n_nodes)[rank].astype(np.int32)
    check(x, src, idx, float_type)


@pytest.mark.parametrize("n_feat", [1, 3, 64, 130])
@pytest.mark.parametrize("index_type", INDEX_TYPES)
def test_many_hubs_add_every_edge_exactly(n_feat: int, index_type: str) -> None:
    """Small integers, fp32: sums exact in any order, so a held run lost or added twice, or added to
    another hub's row, shows bit for bit. Twelve hubs with skipped entries among them, and for
    int64 a hub's row plus 2^32, which a 32-bit compare would take for the hub."""
    n_nodes, n_edges = 3000, 100_000
    rows = many_hubs(n_nodes, 12, "last")
    x, src, idx = with_hubs(n_nodes, n_edges, n_feat, {r: 0.06 for r in rows}, seed=40 + n_feat,
                            index_type=index_type)
    wide = rows[1] + 2**32 if index_type == "int64" else None
    assert_exact_with_skips(x.shape, src.shape, idx, n_nodes, seed=n_feat + 9, wide_row=wide)


@pytest.mark.parametrize("n_feat", [1, 64])
def test_hubs_that_share_a_pair_of_cells(n_feat: int) -> None:
    """Five hubs whose rows hash to one pair of the warp's table, which holds two: the rest are
    added run by run, and every sum is still exact."""
    n_nodes = 1 << 16
    same = [r for r in range(n_nodes) if pair_of(r) == pair_of(7)][:5]
    x, src, idx = with_hubs(n_nodes, 60_000, n_feat, {r: 0.1 for r in same}, seed=11)
    rng = np.random.default_rng(12)
    x = rng.integers(-8, 9, x.shape).astype(np.float64)
    src = rng.integers(-3, 4, src.shape).astype(np.float64)
    expected = x.copy()
    np.add.at(expected, idx, src)
    got, counts, _ = run_kernel(x, src, idx, "fp32")
    assert counts.tolist() == np.bincount(idx, minlength=n_nodes).tolist()
    assert np.array_equal(got, expected)


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
@pytest.mark.parametrize("n_feat", [1, 3, 64])
def test_hub_runs_that_cross_spans(float_type: str, n_feat: int) -> None:
    """Random order, with runs of 300 edges of four hubs laid across every 256th edge (a span
    boundary wherever spans are a multiple of 256 edges, and inside spans elsewhere): a hub's run
    that crosses a span goes to the pieces and the fix-up, its other runs are held."""
    n_nodes, n_edges = 2000, 50_000
    rows = many_hubs(n_nodes, 4, "first")
    x, src, idx = with_hubs(n_nodes, n_edges, n_feat, {r: 0.1 for r in rows}, seed=13)
    for i, b in enumerate(range(256, n_edges - 300, 256)):
        idx[b - 150:b + 150] = rows[i % 4]
    check(x, src, idx, float_type)


@pytest.mark.parametrize("float_type", FLOAT_TYPES)
def test_many_hubs_in_the_scratch_at_f_1(float_type: str) -> None:
    """F = 1 past the scratch's E: each held hub's sum and count go into its fp32 pair; twenty
    hubs, more than a span holds, small integers: exact sums, each row rounded to X's type once."""
    n_nodes = 1000
    rows = many_hubs(n_nodes, 20, "middle")
    x, src, idx = with_hubs(n_nodes, plan.SCRATCH_EDGES + 5, 1, {r: 0.03 for r in rows}, seed=14)
    rng = np.random.default_rng(15)
    x = rng.integers(-8, 9, x.shape).astype(np.float64)
    src = rng.integers(-3, 4, src.shape).astype(np.float64)
    got = run(x, src, idx, float_type)
    assert used_the_scratch(got, n_nodes)
    exact = x[:, 0] + np.bincount(idx, weights=src[:, 0], minlength=n_nodes)
    assert got["counts"].tolist() == np.bincount(idx, minlength=n_nodes).tolist()
    assert np.array_equal(got["x"][:, 0], precisions.round_to(exact, float_type))


# Since v28 a span at F = 1 finds repeats anywhere in its first round of 32 K1 edges, through a table
# of the warp's: a row's first sighting takes one of two entries at a hash of the row.
def sighting_pair(rows: np.ndarray) -> np.ndarray:
    """The .cu's sighting table at F = 1: the pair of entries each row hashes to (512 pairs on an
    H100 or H200). Rows alike here are alike in the small layout's 256 pairs too."""
    return (rows.astype(np.uint64) * 0x9E3779B1 % 2**32) >> 23


@pytest.mark.parametrize(("float_type", "scratch"),
                         [("fp32", False), *((t, True) for t in FLOAT_TYPES)])
@pytest.mark.parametrize("n_nodes", [4000, 1 << 22])
@pytest.mark.parametrize("rivals", [0, 1, 2])
def test_a_row_seen_once_in_each_column_of_the_sample(float_type: str, scratch: bool,
                                                       n_nodes: int, rivals: int) -> None:
    """F = 1: a hot row at edges 33 j, j >= 1, of every round of 32 K1 edges (edge j of lane
    32 j / K1: never twice among one j's 32 rows, so only the sighting table sees it repeat); before
    it, at edge 0 of lanes 1 and 2, `rivals` rows that hash to its two entries (it takes its second
    entry, or neither and goes unseen). Below 2^22 rows a hub needs two repeats, from it one. Without
    the scratch (fp32 only: at 16 bits X's RED would round each run) and with it; small integers:
    sums and counts exact, bit for bit. It checks the sums, not which rows are held: a repeat the
    table misses costs time, not bits."""
    k1 = plan.F1_EDGES
    hot = n_nodes // 3
    rows = np.arange(n_nodes)
    alike = rows[(sighting_pair(rows) == sighting_pair(rows[hot])) & (rows != hot)]
    rng = np.random.default_rng(rivals + n_nodes)
    n_edges = max(plan.SCRATCH_EDGES, 2 * n_nodes) + 32 * k1 if scratch else 50_000
    idx = rng.integers(0, n_nodes, n_edges).astype(np.int32)
    for b in range(0, n_edges - 32 * k1, 32 * k1):
        idx[b + 33 * np.arange(1, k1)] = hot
        idx[b + k1 * np.arange(1, rivals + 1)] = alike[:rivals]
    x = rng.integers(-8, 9, (n_nodes, 1)).astype(np.float64)
    src = rng.integers(-3, 4, (n_edges, 1)).astype(np.float64)
    got = run(x, src, idx, float_type)
    assert not scratch or used_the_scratch(got, n_nodes)
    exact = x[:, 0] + np.bincount(idx, weights=src[:, 0], minlength=n_nodes)
    assert got["counts"].tolist() == np.bincount(idx, minlength=n_nodes).tolist()
    assert np.array_equal(got["x"][:, 0], precisions.round_to(exact, float_type))
