#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""A host-side model, not a timing: the most atomics that any one row takes at F = 1 in random
order, span by span, when each span holds the hubs that kernel v16 picks (the row seen most often,
at least twice, among the lanes' first edges), that v17's select_hubs picks (votes from the first
round's 256 edges, matched column by column, in a table of 64 pairs of cells; up to 16; looked for
only where the lanes' first or middle edges repeat a row), or that v28 picks (repeats anywhere in
the first round, through the warp's sighting table). Every run of a row not held is an atomic; a
held row is one a span. docs/kernel.md, "Many hot rows", quotes its output.

    python3 benchmarks/model_hub_atomics.py      # about 8 minutes, NumPy only
"""

from __future__ import annotations

import numpy as np

E, N, SPAN, K1 = 1 << 26, 1 << 22, 2048, 8  # the benchmark's F = 1 shape
SKEWS = ("uniform", "hub-1%", "hub-10%", "hub-50%", "hub-90%", "hubs-2", "hubs-4", "hubs-8",
         "zipf-0.8", "zipf-1.1", "zipf-1.5", "powerlaw")


def pair_of(row: int) -> int:
    """The .cu's pair_of."""
    return (row * 0x9E3779B1 % 2**32) >> 26


def rows_of(skew: str, rng: np.random.Generator) -> np.ndarray:
    """The benchmark's skews (bench_scatter_add.make_indices), in NumPy."""
    idx = rng.integers(0, N, E)
    if skew == "powerlaw":
        idx = rng.permutation(N)[np.minimum((N * rng.random(E) ** 3).astype(np.int64), N - 1)]
    if skew.startswith("hub-"):
        idx[rng.random(E) < float(skew[4:-1]) / 100] = N // 3
    if skew.startswith("hubs-"):
        k = int(skew[5:])
        pick = rng.random(E)
        hubs = np.arange(k) * (N // k) + N // (2 * k)
        idx = np.where(pick < 0.5, hubs[np.minimum((pick * 2 * k).astype(int), k - 1)], idx)
    if skew.startswith("zipf-"):
        weights = np.arange(1, N + 1, dtype=float) ** -float(skew[5:])
        idx = rng.permutation(N)[rng.choice(N, E, p=weights / weights.sum())]
    return idx


def v16_hubs(first: np.ndarray) -> set[int]:
    column = first.reshape(32, K1)[:, 0]
    rows, seen = np.unique(column, return_counts=True)
    return {int(rows[seen.argmax()])} if seen.max() >= 2 else set()


def v17_hubs(first: np.ndarray) -> set[int]:
    lanes = first.reshape(32, K1)
    if all(len(set(lanes[:, j])) == 32 for j in (0, K1 // 2)):
        return set()
    cells: dict[int, list[int]] = {}
    votes: dict[int, int] = {}
    for j in range(K1):
        rows, seen = np.unique(lanes[:, j], return_counts=True)
        for row, n in zip(rows.tolist(), seen.tolist()):
            pair = cells.setdefault(pair_of(row), [])
            if n < 2 or (row not in pair and len(pair) == 2):
                continue
            if row not in pair:
                pair.append(row)
            votes[row] = votes.get(row, 0) + n
    return set(sorted(votes, key=lambda row: -votes[row])[:16])


def v28_hubs(first: np.ndarray, bits: int = 10) -> set[int]:
    """Repeats anywhere in the first round, found through the warp's sighting table (two entries at
    a hash of the row, each kept by the first sighting there; CAS order j, then lane), voted into the 64
    pairs of cells in the same order; one repeat makes a hub from N = 2^22, else two."""
    lanes = first.reshape(32, K1)
    table: dict[int, int] = {}
    cells: dict[int, list[int]] = {}
    votes: dict[int, int] = {}
    for j in range(K1):
        for row in lanes[:, j].tolist():
            at = 2 * ((row * 0x9E3779B1 % 2**32) >> (33 - bits))
            if table.get(at, row) != row:
                at += 1  # another row's entry: the next one
            if at not in table:
                table[at] = row  # the first sighting: not a repeat
                continue
            if table[at] != row:
                continue  # two other rows' entries: this repeat goes unseen
            pair = cells.setdefault(pair_of(row), [])
            if row not in pair and len(pair) == 2:
                continue
            if row not in pair:
                pair.append(row)
            votes[row] = votes.get(row, 0) + 1
    least = 1 if N >= 1 << 22 else 2
    return set(sorted((r for r in votes if votes[r] >= least), key=lambda r: -votes[r])[:16])


def most_atomics(idx: np.ndarray, pick) -> int:
    atomics = np.zeros(N, np.int64)
    for s0 in range(0, E, SPAN):
        span = idx[s0:s0 + SPAN]
        held = pick(span[:32 * K1])
        runs = span[np.r_[True, span[1:] != span[:-1]]]
        mask = np.isin(runs, list(held))
        np.add.at(atomics, runs[~mask], 1)
        for row in held:
            atomics[row] += bool((runs == row).any())
    return int(atomics.max())


def main() -> None:
    print(f"E = {E}, N = {N}, spans of {SPAN}: the most atomics at one row")
    for skew in SKEWS:
        idx = rows_of(skew, np.random.default_rng(0))
        counts = [most_atomics(idx, pick) for pick in (v16_hubs, v17_hubs, v28_hubs)]
        print(f"{skew:<10} v16 {counts[0]:8d}  v17 {counts[1]:8d}  v28 {counts[2]:8d}", flush=True)


if __name__ == "__main__":
    main()
