# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""A small graph with one hub: node 0 gets ``in_degree`` edges, from nodes 1 to 7 in turn; the
others form a ring, one edge each. Eight nodes, so that the TensorRT-RTX stand-in (dense, O(E * N))
runs it too. Features are chosen so that the hub's sum stays inside fp16 at 70,000 edges (column
0 sums to -0.75 every 7 edges, column 1 to -2.5) and is not exact there (column 1's values are
sevenths)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

NODES = 8
HUB = 0
IN_DEGREES = (257, 2049, 65519, 65520, 70000)  # fp16 and bf16 boundaries of an in-degree


def features() -> np.ndarray:
    node = np.arange(NODES, dtype=np.float64)
    sign = np.where(node % 2 == 0, 1.0, -1.0)
    return np.stack([0.5 * sign * (1 + node / 8), 0.25 * node / 7 - 0.5], axis=1)


def edges(in_degree: int) -> np.ndarray:
    to_hub = np.stack([1 + np.arange(in_degree) % (NODES - 1), np.full(in_degree, HUB)], axis=1)
    ring = np.stack([np.arange(1, NODES), np.append(np.arange(2, NODES), 1)], axis=1)
    return np.concatenate([to_hub, ring])


def write(folder: Path, in_degree: int) -> list[str]:
    """The edge file (text) and feature file (.npy) in ``folder``: the CLI's flags for them."""
    edge_file = folder / f"hub_{in_degree}.csv"
    feature_file = folder / f"hub_{in_degree}_features.npy"
    np.savetxt(edge_file, edges(in_degree), fmt="%d", delimiter=",")
    np.save(feature_file, features())
    return ["--edge-file", str(edge_file), "--feature-file", str(feature_file)]
