# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""NumPy float64 reference for the sample's network, and how results are compared with it.

Pure NumPy: no GPU, no TensorRT. The reference takes the same inputs the engine gets, already
rounded to the run's precision (``precisions.round_to``), so that only the engine's arithmetic
is compared, not the rounding of its inputs. Tolerances live with the precisions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gnn.precisions import Tolerance


def scatter_add_reference(
    x: np.ndarray, src: np.ndarray, idx: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``x[idx[e]] += src[e]`` in float64, and in-degree counts; out-of-range indices skipped.

    This is also the kernel's contract (``kernels/scatter_add.cu``), so GPU tests use it too.
    """
    x = np.array(x, dtype=np.float64, copy=True)
    idx = np.asarray(idx, dtype=np.int64)
    keep = (idx >= 0) & (idx < x.shape[0])
    np.add.at(x, idx[keep], np.asarray(src, dtype=np.float64)[keep])
    counts = np.bincount(idx[keep], minlength=x.shape[0]).astype(np.int64)
    return x, counts


def gnn_reference(
    x: np.ndarray, features: np.ndarray, edges: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The whole network in float64.

    Args:
        x: ``[N, F]`` initial per-node values (the aliased plugin input).
        features: ``[N, F]`` node features; edge ``s -> t`` contributes ``features[s]`` to ``t``.
        edges: ``[E, 2]`` int (source, target), 0-based.
        weights: ``[C, F]`` class weights.

    Returns:
        ``means [N, F] = (x + sum of incoming features) / max(in-degree, 1)`` and
        ``probs [C, N] = softmax_over_classes(relu(weights @ means.T))``.
    """
    src = np.asarray(features, dtype=np.float64)[edges[:, 0]]
    sums, counts = scatter_add_reference(x, src, edges[:, 1])
    return classifier_reference(sums, counts, weights)


def classifier_reference(sums: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The network after the plugin, in float64: ``(means, probs)`` from X + the sums and the counts."""
    means = sums / np.maximum(counts, 1)[:, None]
    logits = np.maximum(np.asarray(weights, dtype=np.float64) @ means.T, 0.0)
    shifted = np.exp(logits - logits.max(axis=0, keepdims=True))
    return means, shifted / shifted.sum(axis=0, keepdims=True)


@dataclass(frozen=True)
class Comparison:
    """How far ``actual`` is from ``expected``, and whether it is within tolerance."""

    max_abs_error: float
    worst_index: tuple[int, ...]
    passed: bool


def compare(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> Comparison:
    """Elementwise check in float64; NaN or a shape mismatch never passes."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if actual.shape != expected.shape:
        return Comparison(float("inf"), (), False)
    error = np.abs(actual - expected)
    error = np.where(np.isnan(error), np.inf, error)
    allowed = tolerance.atol + tolerance.rtol * np.abs(expected)
    worst = np.unravel_index(int(np.argmax(error - allowed)), error.shape) if error.size else ()
    max_abs = float(error.max()) if error.size else 0.0
    return Comparison(max_abs, tuple(int(i) for i in worst), bool(np.all(error <= allowed)))
