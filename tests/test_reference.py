# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The NumPy float64 reference against hand-computed cases, and the comparison it is judged by."""

from __future__ import annotations

import numpy as np
import pytest

from gnn import model

DEFAULT_FEATURES = np.array([[1.0], [3.0], [5.0], [7.0]])
DEFAULT_EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [1, 3]])


def gnn_reference(x: np.ndarray, features: np.ndarray, edges: np.ndarray,
                  weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The whole network in float64: ``(means [N, F], probs [C, N])``."""
    src = np.asarray(features, dtype=np.float64)[edges[:, 0]]
    sums, counts = model.scatter_add_reference(x, src, edges[:, 1])
    return model.classifier_reference(sums, counts, weights)


def test_default_graph_sums_counts_and_means() -> None:
    sums, counts = model.scatter_add_reference(np.zeros((4, 1)), DEFAULT_FEATURES[DEFAULT_EDGES[:, 0]], DEFAULT_EDGES[:, 1])
    assert sums[:, 0].tolist() == [7.0, 1.0, 4.0, 8.0]
    assert counts.tolist() == [1, 1, 2, 2]
    means, _ = gnn_reference(np.zeros((4, 1)), DEFAULT_FEATURES, DEFAULT_EDGES, np.ones((3, 1)))
    assert means[:, 0].tolist() == [7.0, 1.0, 2.0, 4.0]


def test_non_integer_means_are_not_floored() -> None:
    # NVIDIA's sample divides with FLOOR_DIV; nodes 2 and 3 get 1.5 and 2.5 here, not 1 and 2.
    features = np.array([[1.0], [2.0], [3.0], [4.0]])
    means, _ = gnn_reference(np.zeros((4, 1)), features, DEFAULT_EDGES, np.ones((1, 1)))
    assert means[:, 0].tolist() == [4.0, 1.0, 1.5, 2.5]


def test_isolated_node_keeps_its_x() -> None:
    edges = np.array([[0, 1]])
    x = np.array([[0.0], [0.0], [2.5]])
    means, _ = gnn_reference(x, np.array([[4.0], [5.0], [6.0]]), edges, np.ones((1, 1)))
    assert means[:, 0].tolist() == [0.0, 4.0, 2.5]  # node 0 and node 2 have no incoming edge


def test_multiple_features_and_duplicate_edges() -> None:
    features = np.array([[1.0, 10.0], [2.0, 20.0]])
    edges = np.array([[0, 1], [0, 1], [1, 1], [1, 0]])  # 0 -> 1 twice, a self loop on 1
    sums, counts = model.scatter_add_reference(np.zeros((2, 2)), features[edges[:, 0]], edges[:, 1])
    assert sums.tolist() == [[2.0, 20.0], [4.0, 40.0]]
    assert counts.tolist() == [1, 3]


def test_out_of_range_indices_are_skipped() -> None:
    sums, counts = model.scatter_add_reference(np.zeros((2, 1)), np.array([[1.0], [2.0], [4.0]]), np.array([1, 2, -1]))
    assert sums[:, 0].tolist() == [0.0, 1.0]
    assert counts.tolist() == [0, 1]


def test_probabilities_by_hand() -> None:
    # One node with mean 2, weights [1, -1, 0.5]: logits relu -> [2, 0, 1].
    means, probs = gnn_reference(np.zeros((2, 1)), np.array([[2.0], [0.0]]), np.array([[0, 1]]),
                                     np.array([[1.0], [-1.0], [0.5]]))
    e = np.exp([2.0, 0.0, 1.0])
    np.testing.assert_allclose(probs[:, 1], e / e.sum(), rtol=1e-15)
    np.testing.assert_allclose(probs[:, 0], [1 / 3] * 3, rtol=1e-15)  # node 0: mean 0 -> logits 0
    assert probs.shape == (3, 2)


@pytest.mark.parametrize(
    ("value", "bits"),
    [(1.0, 0x3F80), (-2.0, 0xC000), (1.00390625, 0x3F80), (1.01171875, 0x3F82), (3.0e38, 0x7F62)],
)
def test_bf16_rounds_to_nearest_even(value: float, bits: int) -> None:
    # 1 + 2^-8 is a tie between 0x3F80 and 0x3F81: it goes to the even 0x3F80.
    assert int(model.to_storage(np.array([value]), "bf16")[0]) == bits
    assert model.round_to(np.array([value]), "bf16")[0] == model.from_storage(np.array([bits], np.uint16), "bf16")[0]


def test_round_to_each_precision() -> None:
    third = np.array([1 / 3])
    assert model.round_to(third, "fp32")[0] == float(np.float32(1 / 3))
    assert model.round_to(third, "fp16")[0] == float(np.float16(1 / 3))
    assert model.round_to(third, "bf16")[0] == 0.333984375


def test_compare_passes_within_and_fails_outside_tolerance() -> None:
    tol = model.Tolerance(rtol=1e-2, atol=1e-3)
    expected = np.array([1.0, 100.0])
    assert model.compare(expected + [5e-3, 0.5], expected, tol).passed
    failed = model.compare(expected + [0.0, 1.5], expected, tol)
    assert not failed.passed and failed.worst_index == (1,) and failed.max_abs_error == pytest.approx(1.5)


def test_compare_never_passes_nan_or_wrong_shape() -> None:
    tol = model.TOLERANCES["bf16"]
    assert not model.compare(np.array([np.nan]), np.array([1.0]), tol).passed
    assert not model.compare(np.zeros(3), np.zeros(2), tol).passed


def test_tolerances_tighten_with_precision() -> None:
    t = model.TOLERANCES
    assert t["fp32"].rtol < t["fp16"].rtol < t["bf16"].rtol
    assert t["fp32"].atol < t["fp16"].atol < t["bf16"].atol
