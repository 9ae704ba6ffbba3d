# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Step 1 of the story: the graph the flags choose, checked before anything large exists, and the
engine's inputs made from it (X, the edges sorted by target, the class weights).

The checks on the inputs live here, next to what they check: the host memory the whole run will
hold, values the precision cannot represent, the picture's size, and (once the GPU is known) the
GPU memory the engine's buffers and the kernel's workspace take. Every failure is an
``InputError`` (exit 2) or a ``MissingExtra`` (exit 3) with one line naming the flag or file.
Only the standard library is imported at module level: the caller checks NumPy first.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gnn import memory_budget
from gnn.environment import EXTRAS
from gnn.errors import InputError, MissingExtra, quote_path
from gnn.options import GraphChoice, InputOptions
from gnn.profile_bounds import Bounds, choose_bounds

if TYPE_CHECKING:
    from gnn.graph_inputs import Graph
    from gnn.graph_sources import LabelledGraph
    from gnn.model import RunInputs

MAX_DRAW_NODES = 300  # a picture of more nodes is unreadable and slow to lay out
DEFAULT_NUM_FEATURES = 4  # random features per node for graphs that have none


@dataclass(frozen=True)
class PreparedInputs:
    """The graph (with its labels, if it has any), the engine's inputs, the engine profile's
    bounds, and the seed that made the random parts (``seeded``: whether there were any)."""

    source: LabelledGraph
    inputs: RunInputs
    bounds: Bounds
    seed: int
    seeded: bool


def prepare(options: InputOptions) -> PreparedInputs:
    """The graph, X and the class weights, each checked before anything large is allocated;
    and the profile bounds the engine is built for. Needs NumPy."""
    from gnn.graph_inputs import check_representable

    seed = options.seed if options.seed is not None else secrets.randbelow(2**31)
    source = select_graph(options.graph, seed)
    graph = source.graph
    num_classes = options.num_classes or (2 if source.leaders else 3)
    bounds = choose_bounds(graph.num_nodes, graph.num_edges, options.max_nodes, options.max_edges)
    check_host_memory(options, graph, num_classes)
    check_representable(graph, options.precision, options.graph.feature_flag())
    if options.draw_graph:
        check_picture(graph)
    seeded = options.graph.synthetic is not None or options.graph.has_random_features() or not fitted(source)
    return PreparedInputs(source, make_inputs(options, source, num_classes, seed), bounds, seed, seeded)


def select_graph(choice: GraphChoice, seed: int) -> LabelledGraph:
    """The graph the flags name; the literal flags are the default source."""
    from gnn import graph_sources
    from gnn.graph_inputs import parse_graph

    num_features = DEFAULT_NUM_FEATURES if choice.num_features is None else choice.num_features
    if choice.graph == "karate":
        return graph_sources.karate_club()
    if choice.graph is not None:
        return graph_sources.networkx_graph(choice.graph, num_features, seed)
    if choice.edge_file is not None:
        return graph_sources.graph_from_files(choice.edge_file, choice.feature_file, num_features, seed)
    if choice.synthetic is not None:
        n, e, f = choice.synthetic
        return graph_sources.synthetic_graph(n, e, f, choice.degrees or "uniform", seed)
    return graph_sources.LabelledGraph(parse_graph(choice.node_features, choice.edges))  # None: the default


def check_host_memory(options: InputOptions, graph: Graph, num_classes: int) -> None:
    """The whole run's host memory, before the large arrays exist (gnn/memory_budget.py)."""
    from gnn import precisions

    needed = memory_budget.host_bytes(graph.num_nodes, graph.num_edges, graph.num_features, num_classes,
                                      precisions.get(options.precision).itemsize)
    memory_budget.ensure_fits(f"{options.graph.source_flag()} with --num-classes {num_classes} (N = {graph.num_nodes}, "
                              f"E = {graph.num_edges}, F = {graph.num_features})", needed)


def check_gpu_memory(prepared: PreparedInputs, precision: str, aot: bool) -> None:
    """The run's device memory, with the plugin's workspace as TensorRT sizes it for the engine's profile
    (E from 1 to its bound; the --aot route has none)."""
    import cupy as cp

    from gnn import precisions
    from kernels import plan

    inputs, max_edges = prepared.inputs, prepared.bounds.max_edges
    (n, f), e, c = inputs.x.shape, inputs.idx.shape[0], inputs.weights.shape[0]
    workspace = 0 if aot else plan.workspace_size(precision, (f, f), (1, max_edges), (n, n))
    needed = memory_budget.device_bytes(n, e, f, c, precisions.get(precision).itemsize, workspace)
    memory_budget.ensure_fits(f"the graph (N = {n}, E = {e}, F = {f}, C = {c})", needed,
                              available=int(cp.cuda.Device().mem_info[0]), kind="GPU memory")


def make_inputs(options: InputOptions, source: LabelledGraph, num_classes: int, seed: int) -> RunInputs:
    """The engine's inputs: X where --initial-x says, weights fitted on the leaders or random."""
    import numpy as np

    from gnn.model import fit_weights, make_run_inputs

    graph = source.graph
    x0 = graph.features if (options.initial_x or source.initial_x) == "features" else None
    weights, labels = None, source.labels if fitted(source) else None
    if labels is not None:
        weights = fit_weights(graph, graph.features if x0 is not None else np.zeros_like(graph.features),
                              labels, source.leaders, num_classes)
    return make_run_inputs(graph, num_classes, options.precision, seed, x0=x0, weights=weights)


def fitted(source: LabelledGraph) -> bool:
    """Whether the class weights are fitted to the graph's labels (the karate club), not random."""
    return bool(source.leaders) and source.labels is not None


def check_picture(graph: Graph) -> None:
    """A picture can be drawn: the graph is small enough, and the extras are installed."""
    if graph.num_nodes > MAX_DRAW_NODES:
        raise InputError(f"--draw-graph: the graph has {graph.num_nodes} nodes; pictures are limited to "
                         f"{MAX_DRAW_NODES} (more are unreadable)")
    try:
        import gnn.graph_picture  # noqa: F401 - imports networkx and matplotlib
    except ImportError:
        raise MissingExtra(f"--draw-graph needs networkx and matplotlib: python3 -m pip install -r {EXTRAS}") from None


def draw_picture(source: LabelledGraph, path: str) -> None:
    """Draw the input graph to ``path`` (checked by :func:`check_picture` first)."""
    from gnn.graph_picture import draw_graph

    try:
        draw_graph(source.graph, path, source.labels, source.label_names)
    except OSError as error:
        raise InputError(f"--draw-graph {quote_path(path)}: cannot write it ({error.strerror or error})") from None
