# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Parse and check the sample's graph inputs before any GPU or TensorRT work, and describe a graph
as the run prints it.

Everything here raises :class:`InputError` with a one-line message that names the bad value;
the driver prints it and exits with status 2. Pure Python + NumPy.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np

from gnn import precisions
from gnn.choices import DEFAULT_EDGES, DEFAULT_NODE_FEATURES
from gnn.errors import InputError, quote_path
from gnn.reference import scatter_add_reference

ADJACENCY_MAX_NODES = 16  # larger graphs get a degree summary instead of an N x N matrix
MAX_LITERAL_NODES = 1 << 31  # any id the default edges name is below it


@dataclass(frozen=True)
class Graph:
    """A directed graph with node features.

    ``features`` is ``[N, F]`` float64; ``edges`` is ``[E, 2]`` int64 of (source, target),
    0-based: an edge ``s -> t`` sends ``features[s]`` to node ``t``.
    """

    features: np.ndarray
    edges: np.ndarray

    @property
    def num_nodes(self) -> int:
        return int(self.features.shape[0])

    @property
    def num_features(self) -> int:
        return int(self.features.shape[1])

    @property
    def num_edges(self) -> int:
        return int(self.edges.shape[0])


def _literal(text: str, what: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise InputError(f"{what}: cannot parse {_short(text)} as a Python list literal") from None


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def parse_node_features(text: str) -> np.ndarray:
    """``"[1.0, 3.0]"`` -> ``[[1.0], [3.0]]``; ``"[[1, 2], [3, 4]]"`` -> 2 nodes x 2 features."""
    value = _literal(text, "--node-features")
    if not isinstance(value, (list, tuple)) or len(value) == 0:
        raise InputError("--node-features: expected a non-empty list of numbers or of equal-length lists")
    rows = [row if isinstance(row, (list, tuple)) else [row] for row in value]
    nested = isinstance(value[0], (list, tuple))
    width = len(rows[0])
    for node, row in enumerate(rows):
        if isinstance(value[node], (list, tuple)) != nested:
            raise InputError(f"--node-features: node {node} mixes numbers and lists")
        if not row:  # before the comparison with node 0, which may be this node
            raise InputError(f"--node-features: node {node} has no features, each node needs at "
                             f"least one")
        if len(row) != width:
            raise InputError(f"--node-features: node {node} has {count_of_features(len(row))}, "
                             f"node 0 has {width} (rows must be equal)")
        for item in row:
            if not _is_number(item):
                raise InputError(f"--node-features: node {node} has a non-numeric feature {_short(item)}")
            try:
                finite = math.isfinite(float(item))
            except OverflowError:  # an integer literal too large for any float
                finite = False
            if not finite:
                raise InputError(f"--node-features: node {node} has a non-finite or too large feature {_short(item)}")
    return np.array(rows, dtype=np.float64)


def parse_edges(text: str, num_nodes: int, default_features: bool = False) -> np.ndarray:
    """``"[[0, 1], [1, 2]]"`` -> ``[E, 2]`` int64, every node id checked against ``num_nodes``
    (``default_features``: the user gave no --node-features, so a message says where N came from)."""
    value = _literal(text, "--edges")
    if not isinstance(value, (list, tuple)) or len(value) == 0:
        raise InputError("--edges: expected a non-empty list of [source, target] pairs")
    for number, edge in enumerate(value):
        if not isinstance(edge, (list, tuple)) or len(edge) != 2 or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in edge
        ):
            raise InputError(f"--edges: edge {number} {_short(edge)} is not a pair of integer node ids")
        for node in edge:
            if not 0 <= node < num_nodes:
                known = (f"the default --node-features give {num_nodes} nodes" if default_features
                         else nodes_with_features(num_nodes))
                raise InputError(f"--edges: edge {number} {list(edge)} names node {node}, outside [0, {num_nodes - 1}] "
                                 f"({known})")
    return np.array(value, dtype=np.int64).reshape(-1, 2)


def nodes_with_features(num_nodes: int) -> str:
    """``"1 node has features"``, ``"3 nodes have features"``."""
    return f"{num_nodes} node has features" if num_nodes == 1 else f"{num_nodes} nodes have features"


def count_of_features(count: int) -> str:
    """``"1 feature"``, ``"3 features"``: a message's count reads as English."""
    if count == 1:
        return "1 feature"
    return f"{count} features"


def check_num_classes(num_classes: int) -> None:
    if num_classes < 1:
        raise InputError(f"--num-classes: must be a positive integer, got {num_classes}")


def check_representable(graph: Graph, precision: str, source: str = "--node-features",
                        default_precision: bool = False) -> None:
    """Reject features, or per-node sums of incoming features, that overflow ``precision``.

    ``source`` names where the features came from (a flag and file) in the message, and
    ``default_precision`` says that no --precision was given, so that the message says where the
    precision came from.
    """
    limit = precisions.get(precision).max_finite
    worst = float(np.abs(graph.features).max())
    bound = f"largest finite value {limit:g}"
    if default_precision:
        bound = f"the default --precision; {bound}"
    if worst > limit:
        raise InputError(f"{source}: a feature of magnitude {worst:g} overflows {precision} "
                         f"({bound})")
    sums, _ = scatter_add_reference(
        np.zeros_like(graph.features), graph.features[graph.edges[:, 0]], graph.edges[:, 1]
    )
    node = int(np.argmax(np.abs(sums).max(axis=1)))
    if float(np.abs(sums[node]).max()) > limit:
        raise InputError(
            f"node {node}: the sum of its incoming features ({float(np.abs(sums[node]).max()):g}) "
            f"overflows {precision} ({bound})"
        )


def parse_graph(features_text: str | None, edges_text: str | None) -> Graph:
    """Parse and check both literals, None standing for the sample's default (``gnn/choices.py``); raises
    :class:`InputError` on the first problem, naming the flag the user gave rather than a default."""
    features = parse_node_features(DEFAULT_NODE_FEATURES if features_text is None else features_text)
    if edges_text is not None:
        return Graph(features, parse_edges(edges_text, features.shape[0], default_features=features_text is None))
    edges = parse_edges(DEFAULT_EDGES, MAX_LITERAL_NODES)
    needed = int(edges.max()) + 1
    if features.shape[0] < needed:  # the user's --node-features are too few for the default edges
        raise InputError(f"--node-features: {nodes_with_features(features.shape[0])}, but the default --edges "
                         f"name nodes 0 to {needed - 1}; give at least {needed} nodes, or --edges as well")
    return Graph(features, edges)


def describe_graph(graph: Graph) -> list[str]:
    """The graph as the run prints it: its size, then its adjacency matrix, or for a graph too
    large for one, a line on its in-degrees."""
    lines = [f"Graph: {graph.num_nodes} nodes, {graph.num_edges} edges, {graph.num_features} feature(s) per node"]
    if graph.num_nodes > ADJACENCY_MAX_NODES:
        degree = np.bincount(graph.edges[:, 1], minlength=graph.num_nodes)
        return [*lines, f"In-degree: min {degree.min()}, mean {degree.mean():.2f}, max {degree.max()} "
                        f"(node {int(degree.argmax())}); {int((degree == 0).sum())} node(s) without incoming edges"]
    return [*lines, "Adjacency matrix (row = source, column = target, value = number of edges):",
            *(f"  {line}" for line in adjacency_lines(graph))]


def adjacency_lines(graph: Graph) -> list[str]:
    """The adjacency matrix as text rows: entry [s][t] is the number of edges s -> t."""
    matrix = np.zeros((graph.num_nodes, graph.num_nodes), dtype=np.int64)
    np.add.at(matrix, (graph.edges[:, 0], graph.edges[:, 1]), 1)
    return [" ".join(str(v) for v in row) for row in matrix]
