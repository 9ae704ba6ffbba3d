# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Parsing and checking of the CLI's graph literals, in process."""

from __future__ import annotations

import numpy as np
import pytest

from gnn import model
from gnn.cli import DEFAULT_EDGES, DEFAULT_NODE_FEATURES
from gnn.cli import GraphChoice, InputError, InputOptions
from gnn.inputs import (
    Graph,
    check_representable,
    input_lines,
    parse_edges,
    parse_graph,
    parse_node_features,
    prepare,
)


def test_defaults_are_the_anchor_graph() -> None:
    graph = parse_graph(DEFAULT_NODE_FEATURES, DEFAULT_EDGES)
    assert graph.features[:, 0].tolist() == [1.0, 3.0, 5.0, 7.0]
    assert graph.edges.tolist() == [[0, 1], [1, 2], [2, 3], [3, 0], [0, 2], [1, 3]]
    assert (graph.num_nodes, graph.num_features, graph.num_edges) == (4, 1, 6)


def test_list_of_lists_gives_several_features() -> None:
    features = parse_node_features("[[1, 2.5], [3, 4], (5, 6)]")
    assert features.shape == (3, 2) and features[0].tolist() == [1.0, 2.5]


def test_tuples_are_accepted_as_edges() -> None:
    assert parse_edges("[(0, 1), [1, 0]]", 2).tolist() == [[0, 1], [1, 0]]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[1.0, 2.0", "cannot parse"),
        ("3.0", "non-empty list"),
        ("[]", "non-empty list"),
        ("[1.0, 'a']", "non-numeric feature 'a'"),
        ("[1.0, True]", "non-numeric feature True"),
        ("[[1, 2], [3]]", "node 1 has 1 feature, node 0 has 2"),
        ("[[1], [2, 3]]", "node 1 has 2 features, node 0 has 1"),
        ("[[1, 2], 3]", "node 1 mixes numbers and lists"),
        ("[1.0, 1e999]", "non-finite"),
        ("[[]]", "node 0 has no features, each node needs at least one"),
        ("[[], [1]]", "node 0 has no features"),
        ("[[1], []]", "node 1 has no features"),
        ("__import__('os')", "cannot parse"),
    ],
)
def test_bad_features_name_the_problem(text: str, needle: str) -> None:
    with pytest.raises(InputError, match=needle.replace("[", r"\[").replace("(", r"\(")):
        parse_node_features(text)


def test_an_empty_row_is_named_without_comparing_it_with_itself() -> None:
    """Node 0 is the row the others are compared with: its own emptiness is the problem to name."""
    with pytest.raises(InputError) as caught:
        parse_node_features("[[]]")
    assert str(caught.value) == ("--node-features: node 0 has no features, each node needs at "
                                 "least one")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[[0, 1], [1, 4]]", "edge 1 [1, 4] names node 4, outside [0, 3]"),
        ("[[0, -1]]", "names node -1"),
        ("[[0, 1, 2]]", "edge 0 [0, 1, 2] is not a pair"),
        ("[[0, 1.0]]", "is not a pair of integer node ids"),
        ("[]", "non-empty list"),
        ("{0: 1}", "non-empty list"),
    ],
)
def test_bad_edges_name_the_problem(text: str, needle: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_edges(text, 4)
    assert needle in str(caught.value) and "\n" not in str(caught.value)


def test_precision_overflow_of_features() -> None:
    """The sums and what the network makes of them: tests/test_network_arithmetic.py."""
    big = Graph(features=np.array([[70000.0], [1.0]]), edges=np.array([[0, 1]]))
    with pytest.raises(InputError, match=r"^--node-features: .* overflows fp16 \(its limit\)$"):
        check_representable(big, model.get("fp16"), "--node-features", "its limit")
    check_representable(big, model.get("fp32"), "--node-features", "its limit")
    check_representable(big, model.get("bf16"), "--node-features", "its limit")


def test_adjacency_counts_duplicate_edges() -> None:
    choice = GraphChoice(node_features="[0, 0]", edges="[[0, 1], [0, 1], [1, 0]]")
    lines = input_lines(prepare(InputOptions(graph=choice, seed=1)))
    assert lines[-2:] == ["  0 2", "  1 0"]


@pytest.mark.parametrize(("features", "edges", "message"), [
    # --node-features alone: the default edges need 4 nodes, and the line says so without blaming --edges.
    ("[1, 2]", None, "--node-features: 2 nodes have features, but the default --edges name nodes 0 to 3; give at "
                     "least 4 nodes, or --edges as well"),
    # --edges alone: the line says where the 4 nodes came from.
    (None, "[[0, 5]]", "--edges: edge 0 [0, 5] names node 5, outside [0, 3] (the default --node-features give 4 "
                       "nodes)"),
    ("[1, 2]", "[[0, 5]]", "--edges: edge 0 [0, 5] names node 5, outside [0, 1] (2 nodes have features)"),
])
def test_a_literal_names_only_the_flags_the_user_gave(features: str | None, edges: str | None, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_graph(features, edges)
    assert str(caught.value) == message


def test_none_stands_for_the_default_literals() -> None:
    default = parse_graph(DEFAULT_NODE_FEATURES, DEFAULT_EDGES)
    for graph in (parse_graph(None, None), parse_graph("[1, 2, 3, 4, 5]", None), parse_graph(None, "[[0, 1]]")):
        assert graph.num_nodes >= 4
    assert parse_graph(None, None).edges.tolist() == default.edges.tolist()
    assert parse_graph("[1, 2, 3, 4, 5]", None).edges.tolist() == default.edges.tolist()
    assert parse_graph(None, "[[0, 1]]").features.tolist() == default.features.tolist()
