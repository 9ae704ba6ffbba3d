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
from gnn.errors import InputError, MissingExtra, OutputFailure, quote_path
from gnn.options import GraphChoice, InputOptions
from gnn.profile_bounds import Bounds, choose_bounds

if TYPE_CHECKING:
    from gnn.graph_inputs import Graph
    from gnn.graph_sources import Fits, LabelledGraph
    from gnn.model import RunInputs

MAX_DRAW_NODES = 300  # a picture of more nodes is unreadable and slow to lay out
DEFAULT_NUM_FEATURES = 4  # random features per node for graphs that have none
DEFAULT_NUM_CLASSES = 3
KARATE_CLASSES = 2  # the club's two factions


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
    num_classes = options.num_classes or default_num_classes(options.graph)
    source = select_graph(options.graph, seed, HostMemory(options, num_classes).check)
    graph = source.graph
    bounds = choose_bounds(graph.num_nodes, graph.num_edges, options.max_nodes, options.max_edges)
    check_representable(graph, options.precision, options.graph.feature_flag(),
                        default_precision=not options.precision_typed)
    if options.draw_graph:
        check_picture(graph)
    seeded = options.graph.synthetic is not None or options.graph.has_random_features() or not fitted(source)
    return PreparedInputs(source, make_inputs(options, source, num_classes, seed), bounds, seed, seeded)


def default_num_classes(choice: GraphChoice) -> int:
    """C where --num-classes is not given: the karate club's 2 factions, else 3."""
    return KARATE_CLASSES if choice.graph == "karate" else DEFAULT_NUM_CLASSES


def select_graph(choice: GraphChoice, seed: int, fits: Fits) -> LabelledGraph:
    """The graph the flags name; the literal flags are the default source. ``fits`` checks the
    run's memory for N, E and F: the large sources ask it before they make any array of N rows,
    the small ones after."""
    from gnn import graph_sources
    from gnn.graph_inputs import parse_graph

    num_features = DEFAULT_NUM_FEATURES if choice.num_features is None else choice.num_features
    if choice.edge_file is not None:
        return graph_sources.graph_from_files(choice.edge_file, choice.feature_file, num_features,
                                              seed, fits)
    if choice.synthetic is not None:
        n, e, f = choice.synthetic
        return graph_sources.synthetic_graph(n, e, f, choice.degrees or "uniform", seed, fits)
    if choice.graph == "karate":
        source = graph_sources.karate_club()
    elif choice.graph is not None:
        source = graph_sources.networkx_graph(choice.graph, num_features, seed, fits)
    else:
        # None stands for the default literal.
        source = graph_sources.LabelledGraph(parse_graph(choice.node_features, choice.edges))
    fits(source.graph.num_nodes, source.graph.num_edges, source.graph.num_features)
    return source


@dataclass(frozen=True)
class HostMemory:
    """The whole run's host memory for N, E and F (``gnn/memory_budget.py``), refused in a line that
    names the flags the user gave and calls the defaults defaults."""

    options: InputOptions
    num_classes: int

    def check(self, num_nodes: int | None, num_edges: int, num_features: int) -> None:
        """``num_nodes`` None: not known yet (an edge .npy file's header gives E before its ids
        are read), and counted as 1, the fewest any graph has."""
        from gnn import precisions

        precision = precisions.get(self.options.precision)
        needed = memory_budget.host_bytes(num_nodes or 1, num_edges, num_features,
                                          self.num_classes, precision.itemsize,
                                          precision.conversion_bytes)
        sizes = self.sizes(num_nodes, num_edges, num_features)
        memory_budget.ensure_fits(f"{self.flags()} ({sizes})", needed)

    def sizes(self, num_nodes: int | None, num_edges: int, num_features: int) -> str:
        """``N = 5, E = 8, F = 4, C = 3``, and where N comes from when the flags do not say."""
        rest = f"E = {num_edges}, F = {num_features}, C = {self.num_classes}"
        if num_nodes is None:
            return f"{rest}, from the .npy header, before any node id is read"
        sizes = f"N = {num_nodes}, {rest}"
        if self.options.graph.edge_file is not None and self.options.graph.feature_file is None:
            sizes += f"; node ids up to {num_nodes - 1}"
        return sizes

    def flags(self) -> str:
        """``--edge-file 'e.csv' with the default --num-features 4 and --num-classes 8``."""
        choice = self.options.graph
        given = [f"--feature-file {quote_path(choice.feature_file)}"] if choice.feature_file else []
        if choice.has_random_features():
            given.append(_flag("--num-features", choice.num_features, DEFAULT_NUM_FEATURES))
        given.append(_flag("--num-classes", self.options.num_classes, self.num_classes))
        return f"{_source(choice)} with {_joined(given)}"


def _flag(flag: str, given: int | None, default: int) -> str:
    return f"{flag} {given}" if given is not None else f"the default {flag} {default}"


def _source(choice: GraphChoice) -> str:
    """The flag that chose the graph, with the values typed; literals not typed are the defaults."""
    if choice.synthetic is not None:
        return "--synthetic " + " ".join(map(str, choice.synthetic))
    if choice.graph or choice.edge_file:
        return choice.source_flag()
    literals = (("--node-features", choice.node_features), ("--edges", choice.edges))
    typed = [flag for flag, value in literals if value is not None]
    return _joined(typed) if typed else "the default --node-features and --edges"


def _joined(words: list[str]) -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    return " and ".join([", ".join(words[:-1]), words[-1]] if len(words) > 1 else words)


def check_gpu_memory(prepared: PreparedInputs, precision: str, aot: bool) -> None:
    """The run's device memory, with the plugin's workspace as TensorRT sizes it for the engine's profile
    (E from 1 to its bound; the --aot route has none)."""
    import cupy as cp

    from gnn import precisions
    from kernels import plan

    inputs, max_edges = prepared.inputs, prepared.bounds.max_edges
    (n, f), e, c = inputs.x.shape, inputs.idx.shape[0], inputs.weights.shape[0]
    workspace = 0 if aot else plan.workspace_size(float_type=precision, nodes=(n, n), edges=(1, max_edges),
                                                  features=(f, f))
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
    except OSError as error:  # the path passed its checks: what fails now is the write (exit 7)
        raise OutputFailure(f"--draw-graph {quote_path(path)}: cannot write it "
                            f"({error.strerror or error})") from None
