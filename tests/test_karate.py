# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The karate club as a semi-supervised demonstration, through the float64 reference (CPU).

Features are one-hot, X starts at each member's own features (the in-place update then adds
the neighbours to it), and W is fitted on the two leaders' factions alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from gnn import model
from gnn import inputs as graph_inputs
from gnn.model import fit_weights, make_run_inputs
from test_reference import gnn_reference


def reference_predictions(precision: str) -> np.ndarray:
    karate = graph_inputs.karate_club()
    weights = fit_weights(karate.graph, karate.graph.features, karate.labels, karate.leaders, 2)
    inputs = make_run_inputs(karate.graph, 2, precision, seed=0, x0=karate.graph.features, weights=weights)
    _, probs = gnn_reference(inputs.x, inputs.features, karate.graph.edges, inputs.weights)
    return probs.argmax(axis=0)


@pytest.mark.parametrize("precision", model.NAMES)
def test_33_of_34_members_land_in_the_faction_they_joined(precision: str) -> None:
    karate = graph_inputs.karate_club()
    predicted = reference_predictions(precision)
    assert np.nonzero(predicted != karate.labels)[0].tolist() == [8]  # the textbook ambiguous member
    lines = model.predicted_vs_true(np.eye(2)[predicted].T, karate.labels, karate.label_names)
    assert lines[-1] == "Accuracy: 33 of 34 members predicted in the faction they joined (wrong: member 8)"
    assert lines[8] == "  member  8: predicted Officer  joined Mr. Hi    <- wrong"


def test_the_fit_uses_the_leaders_only_and_is_deterministic() -> None:
    karate = graph_inputs.karate_club()
    first = fit_weights(karate.graph, karate.graph.features, karate.labels, karate.leaders, 2)
    again = fit_weights(karate.graph, karate.graph.features, karate.labels, karate.leaders, 2)
    assert first.shape == (2, 34) and first.tobytes() == again.tobytes()
    scrambled = karate.labels.copy()
    scrambled[1:33] = 1 - scrambled[1:33]  # every label but the leaders' is ignored
    assert np.array_equal(fit_weights(karate.graph, karate.graph.features, scrambled, karate.leaders, 2), first)
    means, _ = gnn_reference(karate.graph.features, karate.graph.features, karate.graph.edges, first)
    assert np.allclose(first @ means[[0, 33]].T, np.eye(2))  # the leaders map onto their own class


def test_the_anchor_graph_still_starts_from_zero() -> None:
    from gnn.cli import DEFAULT_EDGES, DEFAULT_NODE_FEATURES
    from gnn.inputs import parse_graph

    graph = parse_graph(DEFAULT_NODE_FEATURES, DEFAULT_EDGES)
    inputs = make_run_inputs(graph, 3, "fp32", seed=0)
    sums, counts = model.scatter_add_reference(inputs.x, inputs.src, inputs.idx)
    assert sums[:, 0].tolist() == [7, 1, 4, 8] and counts.tolist() == [1, 1, 2, 2]
