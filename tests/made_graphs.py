# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Whole graphs and tables in one call, for tests: what gnn.inputs.prepare does in steps (the sizes
stated, the memory checked, then the data read or made), without the memory check between."""

from __future__ import annotations

import numpy as np

from gnn import inputs
from gnn.cli import GraphChoice


def read(source: inputs.Source) -> inputs.LabelledGraph:
    """The whole graph of a stated source: its edges, then its features."""
    edges = inputs.read_edges(source)
    return inputs.read_features(source, edges, source.sizes.nodes or int(edges.max()) + 1)


def synthetic_graph(num_nodes: int, num_edges: int, num_features: int, degrees: str,
                    seed: int) -> inputs.LabelledGraph:
    return read(inputs.state_synthetic(num_nodes, num_edges, num_features, degrees, seed))


def networkx_graph(name: str, num_features: int, seed: int) -> inputs.LabelledGraph:
    return read(inputs.state_networkx(name, num_features, seed))


def load_edge_file(path: str) -> np.ndarray:
    """An edge file's ids, read as prepare reads them."""
    return inputs.read_edges(inputs.state_files(GraphChoice(edge_file=path), 1, 0))


def load_feature_file(path: str) -> np.ndarray:
    """A feature file's features, read as prepare reads them, beside one edge 0 -> 0 (the file
    stands in for the edge file, which only a message names)."""
    table = inputs.open_table(path, GraphChoice(feature_file=path).feature_flag(), edges=False)
    sizes = inputs.Sizes(table.shape[0], 1, 1)
    source = inputs.Source(sizes, np.random.default_rng(0), edge_table=table, feature_table=table)
    one_edge = np.zeros((1, 2), dtype=np.int64)
    return inputs.read_features(source, one_edge, table.shape[0]).graph.features
