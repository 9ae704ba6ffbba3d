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
    table = inputs.open_table(path, GraphChoice(edge_file=path).source_flag(), edges=True)
    return inputs.read_edge_table(table)


def load_feature_file(path: str) -> np.ndarray:
    table = inputs.open_table(path, GraphChoice(feature_file=path).feature_flag(), edges=False)
    return inputs.read_feature_table(table)
