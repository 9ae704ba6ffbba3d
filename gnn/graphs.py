# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Step 2 of the story: the graph the flags choose, and the engine's inputs made from it.

One way in, :func:`prepare`. Every source of a graph first states N, E and F without reading or
making any of its data (:func:`state`): the literals and the built-in graphs from what they are,
``--synthetic`` from its flags, edge and feature files from a ``.npy`` header or a count of text
lines (``gnn/tables.py``, which decides each file's format from its content). The run's host
memory is estimated at that point (:class:`HostMemory`), and only then is the data read or made.
An edge file without features gives N only by its node ids: the estimate runs once more when they
are read, before any array of N rows exists.

Every failure is an InputError (exit 2), or a MissingExtra (exit 3) for networkx, in one line that
names the flag or file: the literals' and files' problems, values the precision cannot hold, a
picture too large, memory (host or GPU) the run would not fit in.
"""

from __future__ import annotations

import ast
import math
import os
import resource
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from numbers import Real
from pathlib import Path
from typing import Any

import numpy as np

from gnn import model, tables
from gnn.cli import (DEFAULT_EDGES, DEFAULT_NODE_FEATURES, DEGREE_MODELS, EXTRAS, Bounds,
                     GraphChoice, InputError, InputOptions, MissingExtra, OutputFailure,
                     choose_bounds, gib, quote_path)
from gnn.model import Graph, RunInputs

GRAPH_DIR = Path(__file__).resolve().parent.parent / "graphs"
KARATE_FACTION_NAMES = ("Mr. Hi", "Officer")
KARATE_LEADERS = (0, 33)  # Mr. Hi and the officer: the only labels the weights are fitted on
KARATE_CLASSES = 2  # the club's two factions
DEFAULT_NUM_CLASSES = 3
DEFAULT_NUM_FEATURES = 4  # random features per node for graphs that have none
MAX_SYNTHETIC = 1 << 31  # int32 indices and counts
MAX_NODE_ID = (1 << 31) - 2  # N = max id + 1 must fit the int32 indices and counts
MAX_LITERAL_NODES = 1 << 31  # any id the default edges name is below it
MAX_DRAW_NODES = 300  # a picture of more nodes is unreadable and slow to lay out
ADJACENCY_MAX_NODES = 16  # larger graphs get a degree summary instead of an N x N matrix
LARGE_WORK = 64 << 20  # host bytes past which the GPU is sought first (59 MiB made in 0.23 s)


@dataclass(frozen=True)
class LabelledGraph:
    """A graph and, where the data has them, each node's true class and the class names.
    ``initial_x``: where X starts by default ("zeros", or "features": each node's own, which the
    in-place update then adds the neighbours to); ``leaders``: the nodes the class weights may be
    fitted on (semi-supervised); none: random weights."""

    graph: Graph
    labels: np.ndarray | None = None
    label_names: tuple[str, ...] = ()
    initial_x: str = "zeros"
    leaders: tuple[int, ...] = ()


@dataclass(frozen=True)
class Sizes:
    """N, E and F as a source states them before its data is read; ``nodes`` None: given by the
    node ids (an edge file without features), and ``stated_by`` says what gave E."""

    nodes: int | None
    edges: int
    features: int
    stated_by: str = ""


@dataclass(frozen=True)
class Source:
    """A graph whose sizes are stated and whose data is not read yet: ``read_edges()``, then
    ``labelled(edges, N)`` with the features read or made, in that order, once each (the synthetic
    graph draws its random numbers in them). ``reading``: the bytes reading its files holds."""

    sizes: Sizes
    read_edges: Callable[[], np.ndarray]
    labelled: Callable[[np.ndarray, int], LabelledGraph]
    reading: int = 0


def state(choice: GraphChoice, seed: int) -> Source:
    """The graph the flags name, its sizes stated; the literal flags are the default source."""
    num_features = choice.num_features or DEFAULT_NUM_FEATURES
    if choice.edge_file is not None:
        return state_files(choice.edge_file, choice.feature_file, num_features, seed)
    if choice.synthetic is not None:
        return state_synthetic(*choice.synthetic, choice.degrees or "uniform", seed)
    if choice.graph == "karate":
        return _given(karate_club())
    if choice.graph is not None:
        return state_networkx(choice.graph, num_features, seed)
    return _given(LabelledGraph(parse_graph(choice.node_features, choice.edges)))


def read(source: Source) -> LabelledGraph:
    """The whole graph, with no memory check between its edges and its features (tests)."""
    edges = source.read_edges()
    return source.labelled(edges, source.sizes.nodes or int(edges.max()) + 1)


def _given(labelled: LabelledGraph) -> Source:
    """A graph in memory already, for it is small: the literals, the karate club."""
    graph = labelled.graph
    return Source(Sizes(graph.num_nodes, graph.num_edges, graph.num_features),
                  lambda: graph.edges, lambda edges, nodes: labelled)


def _random(num_features: int, seed: int) -> Callable[[np.ndarray, int], LabelledGraph]:
    """A graph's ``labelled``: seeded standard-normal features, for graphs that have none."""
    def labelled(edges: np.ndarray, nodes: int) -> LabelledGraph:
        rng = np.random.default_rng(seed)
        return LabelledGraph(Graph(rng.standard_normal((nodes, num_features)), edges))

    return labelled


# -- the built-in and synthetic graphs -------------------------------------------------------------


def both_directions(edges: np.ndarray) -> np.ndarray:
    """An undirected edge list as directed edges: every {u, v} becomes u -> v and v -> u."""
    return np.concatenate([edges, edges[:, ::-1]])


def karate_club() -> LabelledGraph:
    """Zachary's karate club (34 members, 78 friendships, both directions) and its two factions:
    the classic semi-supervised set-up, with one-hot features (F = 34), X starting at each
    member's own features, and class weights fitted on the two leaders alone."""
    edges, factions = (np.loadtxt(GRAPH_DIR / name, delimiter=",", dtype=np.int64, ndmin=2)
                       for name in ("karate_club.csv", "karate_club_factions.csv"))
    labels = factions[np.argsort(factions[:, 0]), 1]
    graph = Graph(np.eye(len(labels)), both_directions(edges))
    return LabelledGraph(graph, labels, KARATE_FACTION_NAMES, initial_x="features",
                         leaders=KARATE_LEADERS)


def state_networkx(name: str, num_features: int, seed: int) -> Source:
    """A real graph that ships inside networkx (an optional extra), both directions: N and E from
    the graph, F from --num-features, whose random features are made once the estimate allows."""
    try:
        import networkx as nx
    except ImportError:
        raise MissingExtra(f"--graph {name} needs networkx: python3 -m pip install -r "
                           f"{EXTRAS}") from None
    make = {"les-miserables": nx.les_miserables_graph, "florentine": nx.florentine_families_graph}
    graph = make[name]()
    ids = {node: number for number, node in enumerate(sorted(graph.nodes))}
    pairs = np.array([(ids[u], ids[v]) for u, v in graph.edges], dtype=np.int64)
    edges = both_directions(pairs.reshape(-1, 2))
    return Source(Sizes(len(ids), len(edges), num_features), lambda: edges,
                  _random(num_features, seed))


def networkx_graph(name: str, num_features: int, seed: int) -> LabelledGraph:
    return read(state_networkx(name, num_features, seed))


def state_synthetic(num_nodes: int, num_edges: int, num_features: int, degrees: str,
                    seed: int) -> Source:
    """A seeded random graph for scale, stated by its flags: sources uniform; targets uniform or
    power-law, ``N * u^3`` (u uniform: a few very hot rows), node ids shuffled so that the hot rows
    are spread out, the benchmark's model. Same seed, same graph."""
    if num_nodes < 1 or num_edges < 1 or num_features < 1:
        raise InputError(f"--synthetic: N, E and F must be >= 1, got {num_nodes}, {num_edges}, "
                         f"{num_features}")
    if num_edges >= MAX_SYNTHETIC or num_nodes >= MAX_SYNTHETIC:
        raise InputError(f"--synthetic: N and E must be below 2^31 (int32 indices), got "
                         f"{num_nodes}, {num_edges}")
    if degrees not in DEGREE_MODELS:
        raise InputError(f"--degrees: expected one of {', '.join(DEGREE_MODELS)}, got {degrees!r}")
    rng = np.random.default_rng(seed)

    def read_edges() -> np.ndarray:
        sources = rng.integers(0, num_nodes, num_edges)
        if degrees == "uniform":
            targets = rng.integers(0, num_nodes, num_edges)
        else:
            ranks = (num_nodes * rng.random(num_edges) ** 3).astype(np.int64)
            targets = rng.permutation(num_nodes)[np.minimum(ranks, num_nodes - 1)]
        return np.stack([sources, targets], axis=1).astype(np.int64)

    def labelled(edges: np.ndarray, nodes: int) -> LabelledGraph:
        return LabelledGraph(Graph(rng.standard_normal((nodes, num_features)), edges))

    return Source(Sizes(num_nodes, num_edges, num_features), read_edges, labelled)


def synthetic_graph(num_nodes: int, num_edges: int, num_features: int, degrees: str,
                    seed: int) -> LabelledGraph:
    return read(state_synthetic(num_nodes, num_edges, num_features, degrees, seed))


# -- graph files -----------------------------------------------------------------------------------


def state_files(edge_file: str, feature_file: str | None, num_features: int, seed: int) -> Source:
    """Edges from a file; features from a file, else seeded random ones for every node named.
    Both files opened (format, shape and type known and checked) before either is read."""
    edge_table = open_edge_table(edge_file)
    edges = edge_table.shape[0]
    if feature_file is None:
        stated_by = "from its lines" if edge_table.dtype is None else "from the .npy header"
        return Source(Sizes(None, edges, num_features, stated_by), lambda: read_edges(edge_table),
                      _random(num_features, seed), edge_table.read_bytes)
    feature_table = open_feature_table(feature_file)
    rows, columns = feature_table.shape[0], math.prod(feature_table.shape[1:])

    def labelled(edges: np.ndarray, nodes: int) -> LabelledGraph:
        features = read_features(feature_table)
        if edges.max() >= len(features):
            row = int(np.argwhere(edges >= len(features))[0][0])
            raise InputError(f"{feature_table.flag} (one row per node): "
                             f"{nodes_with_features(len(features))}, but edge {row} "
                             f"{edges[row].tolist()} of {edge_table.flag} names node "
                             f"{int(edges[row].max())}")
        return LabelledGraph(Graph(features, edges))

    reading = max(edge_table.read_bytes, feature_table.read_bytes)
    return Source(Sizes(rows, edges, columns), lambda: read_edges(edge_table), labelled, reading)


def open_edge_table(path: str) -> tables.Table:
    """An edge file, opened: ``[E, 2]`` node ids (source, target) of a number type."""
    table = tables.open_table(path, f"--edge-file {quote_path(path)}")
    if math.prod(table.shape) == 0:
        raise InputError(f"{table.flag}: the graph has no edges")
    if len(table.shape) != 2 or table.shape[1] != 2:
        raise InputError(f"{table.flag}: expected 2 columns (source, target), got shape "
                         f"{list(table.shape)}")
    if not table.holds_numbers():
        raise InputError(f"{table.flag}: node ids must be integers, got {table.kind()}")
    return table


def read_edges(table: tables.Table) -> np.ndarray:
    """``[E, 2]`` int64, every id range-checked in the file's own type, before any conversion can
    wrap or overflow; floats against a float64 bound, which float16 cannot hold."""
    ids = tables.read_table(table)
    floats = ids.dtype.kind == "f"
    bad = (ids < 0) | (ids > (np.float64(MAX_NODE_ID) if floats else MAX_NODE_ID))
    if floats:
        bad |= ~np.isfinite(ids) | (ids != np.round(ids))
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        value = ids[row, col].item()
        raise InputError(f"{table.flag}: edge {row} names node {_as_written(value)}, which "
                         f"{_why_bad(value)}")
    return np.ascontiguousarray(ids, dtype=np.int64)  # a Fortran-order .npy is read as saved


def _why_bad(value: float | int) -> str:
    """Why an id was refused; a NaN, neither below 0 nor above the bound, is not an integer."""
    if value < 0:
        return "is negative"
    if value > MAX_NODE_ID:
        return f"is above {MAX_NODE_ID} (int32 indices)"
    return "is not an integer"


def _as_written(value: float | int) -> str:
    """A node id as the file most likely wrote it: text is read as float64, so a -1 in a CSV is
    -1.0 here; a whole number float64 holds exactly is shown without the ".0"."""
    whole = isinstance(value, float) and value.is_integer() and abs(value) < 2**53
    return str(int(value)) if whole else repr(value)


def open_feature_table(path: str) -> tables.Table:
    """A feature file, opened: ``[N]`` or ``[N, F]`` numbers, one row per node."""
    table = tables.open_table(path, f"--feature-file {quote_path(path)}")
    if len(table.shape) not in (1, 2) or math.prod(table.shape) == 0:
        raise InputError(f"{table.flag}: expected shape [N] or [N, F] with N, F >= 1, got "
                         f"{list(table.shape)}")
    if not table.holds_numbers():
        raise InputError(f"{table.flag}: features must be numbers, got {table.kind()}")
    return table


def read_features(table: tables.Table) -> np.ndarray:
    """``[N, F]`` float64, every feature finite."""
    features = tables.read_table(table)
    features = features.reshape(len(features), -1)
    finite = np.isfinite(features)
    if not finite.all():
        node = int(np.argwhere(~finite)[0][0])
        raise InputError(f"{table.flag}: node {node} has a NaN or infinite feature")
    return np.ascontiguousarray(features, dtype=np.float64)


def load_edge_file(path: str) -> np.ndarray:
    return read_edges(open_edge_table(path))


def load_feature_file(path: str) -> np.ndarray:
    return read_features(open_feature_table(path))


# -- the literals ---------------------------------------------------------------------------------


def parse_graph(features_text: str | None, edges_text: str | None) -> Graph:
    """Both literals, None standing for the sample's default; the first problem raised names the
    flag the user gave rather than a default."""
    given = features_text is not None
    features = parse_node_features(features_text if given else DEFAULT_NODE_FEATURES)
    if edges_text is not None:
        return Graph(features, parse_edges(edges_text, len(features), default_features=not given))
    edges = parse_edges(DEFAULT_EDGES, MAX_LITERAL_NODES)
    needed = int(edges.max()) + 1
    if len(features) < needed:  # the user's --node-features are too few for the default edges
        raise InputError(f"--node-features: {nodes_with_features(len(features))}, but the default "
                         f"--edges name nodes 0 to {needed - 1}; give at least {needed} nodes, or "
                         f"--edges as well")
    return Graph(features, edges)


def _literal(text: str, what: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise InputError(f"{what}: cannot parse {_short(text)} as a Python list literal") from None


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse_node_features(text: str) -> np.ndarray:
    """``"[1.0, 3.0]"`` -> ``[[1.0], [3.0]]``; ``"[[1, 2], [3, 4]]"`` -> 2 nodes x 2 features."""
    value = _literal(text, "--node-features")
    if not isinstance(value, (list, tuple)) or len(value) == 0:
        raise InputError("--node-features: expected a non-empty list of numbers or of equal-length "
                         "lists")
    rows = [row if isinstance(row, (list, tuple)) else [row] for row in value]
    nested = isinstance(value[0], (list, tuple))
    for node, row in enumerate(rows):
        if isinstance(value[node], (list, tuple)) != nested:
            raise InputError(f"--node-features: node {node} mixes numbers and lists")
        if not row:  # before the comparison with node 0, which may be this node
            raise InputError(f"--node-features: node {node} has no features, each node needs at "
                             f"least one")
        if len(row) != len(rows[0]):
            features = "1 feature" if len(row) == 1 else f"{len(row)} features"
            raise InputError(f"--node-features: node {node} has {features}, node 0 has "
                             f"{len(rows[0])} (rows must be equal)")
        for item in row:
            _check_feature(node, item)
    return np.array(rows, dtype=np.float64)


def _check_feature(node: int, item: object) -> None:
    if not isinstance(item, Real) or isinstance(item, bool):
        raise InputError(f"--node-features: node {node} has a non-numeric feature {_short(item)}")
    try:
        finite = math.isfinite(float(item))
    except OverflowError:  # an integer literal too large for any float
        finite = False
    if not finite:
        raise InputError(f"--node-features: node {node} has a non-finite or too large feature "
                         f"{_short(item)}")


def parse_edges(text: str, num_nodes: int, default_features: bool = False) -> np.ndarray:
    """``"[[0, 1], [1, 2]]"`` -> ``[E, 2]`` int64, every node id checked against ``num_nodes``
    (``default_features``: no --node-features given, so the message says where N came from)."""
    value = _literal(text, "--edges")
    if not isinstance(value, (list, tuple)) or len(value) == 0:
        raise InputError("--edges: expected a non-empty list of [source, target] pairs")
    for number, edge in enumerate(value):
        pair = isinstance(edge, (list, tuple)) and len(edge) == 2
        if not pair or not all(isinstance(n, int) and not isinstance(n, bool) for n in edge):
            raise InputError(f"--edges: edge {number} {_short(edge)} is not a pair of integer "
                             f"node ids")
        for node in edge:
            if not 0 <= node < num_nodes:
                known = nodes_with_features(num_nodes)
                if default_features:
                    known = f"the default --node-features give {num_nodes} nodes"
                raise InputError(f"--edges: edge {number} {list(edge)} names node {node}, outside "
                                 f"[0, {num_nodes - 1}] ({known})")
    return np.array(value, dtype=np.int64).reshape(-1, 2)


def nodes_with_features(num_nodes: int) -> str:
    """``"1 node has features"``, ``"3 nodes have features"``."""
    if num_nodes == 1:
        return "1 node has features"
    return f"{num_nodes} nodes have features"


# -- memory ---------------------------------------------------------------------------------------
# The host estimate counts the arrays the run holds at its peaks (docs/usage.md gives the formula)
# for N nodes, E edges, F features, C classes and s bytes per element of the precision: float64
# working copies (features, X, the reference's sums, means, logits and probabilities, X and X_out
# read back, the edges' source rows, the edges, their order, W drawn and rounded), the arrays in the
# precision, the float32 outputs read back, and t bytes an element for the largest conversion to
# the precision (bf16's). W alone (C x F, up to 65536 x 65536) can be 32 GiB of float64 for a graph
# of ten nodes. The device estimate is the engine's buffers (X_out apart from X where the
# aggregation works out of place), W, the plugin's workspace, and as much again for TensorRT.


def host_bytes(num_nodes: int, num_edges: int, num_features: int, num_classes: int,
               itemsize: int, conversion: int = 0) -> int:
    n, e, f, c = num_nodes, num_edges, num_features, num_classes
    float64 = 7 * n * f + 3 * e * f + 6 * e + 6 * c * n + 2 * c * f
    in_precision = 4 * n * f + e * f + 2 * c * f
    largest = max(n * f, e * f, c * f)
    return 8 * float64 + itemsize * in_precision + 4 * (n * f + c * n) + conversion * largest


def device_bytes(num_nodes: int, num_edges: int, num_features: int, num_classes: int,
                 itemsize: int, workspace: int) -> int:
    n, e, f, c = num_nodes, num_edges, num_features, num_classes
    buffers = itemsize * (3 * n * f + e * f + c * f) + 4 * e + 4 * n + 4 * (n * f + c * n)
    return 2 * buffers + workspace


def available_bytes() -> int | None:
    """Bytes this process may still allocate (the smaller of MemAvailable and what RLIMIT_AS
    leaves), or None where the system does not say."""
    limits = []
    try:
        with open("/proc/meminfo") as meminfo:
            limits += [int(line.split()[1]) * 1024 for line in meminfo
                       if line.startswith("MemAvailable:")]
    except (OSError, ValueError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        try:
            with open("/proc/self/statm") as statm:
                in_use = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            in_use = 0
        limits.append(max(0, soft - in_use))
    return min(limits) if limits else None


def ensure_fits(what: str, needed: int, available: int | None, kind: str = "memory") -> None:
    if available is not None and needed > available:
        raise InputError(f"{what}: needs about {gib(needed)} of {kind}, this process may use "
                         f"{gib(available)}")


@dataclass(frozen=True)
class HostMemory:
    """The run's host memory for N, E and F, refused in a line that names the flags the user gave
    and calls the defaults defaults; ``reading``: what reading the files holds at once."""

    options: InputOptions
    num_classes: int
    reading: int = 0
    before_large: Callable[[], Any] | None = None  # past LARGE_WORK: the GPU check, which may raise

    def check(self, sizes: Sizes) -> None:
        precision = model.get(self.options.precision)
        needed = max(self.reading, host_bytes(sizes.nodes or 1, sizes.edges, sizes.features,
                                              self.num_classes, precision.itemsize,
                                              precision.conversion_bytes))
        ensure_fits(f"{self.flags()} ({self.sizes(sizes)})", needed, available_bytes())
        if needed > LARGE_WORK and self.before_large is not None:
            self.before_large()

    def sizes(self, sizes: Sizes) -> str:
        """``N = 5, E = 8, F = 4, C = 3``, and where N comes from where the flags do not say."""
        rest = f"E = {sizes.edges}, F = {sizes.features}, C = {self.num_classes}"
        if sizes.nodes is None:
            return f"{rest}, {sizes.stated_by}, before any node id is read"
        if self.options.graph.edge_file is not None and self.options.graph.feature_file is None:
            return f"N = {sizes.nodes}, {rest}; node ids up to {sizes.nodes - 1}"
        return f"N = {sizes.nodes}, {rest}"

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
    """The flag that chose the graph, with the values typed; literals not typed are defaults."""
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


# -- the inputs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PreparedInputs:
    """The graph (with its labels, if any), the engine's inputs, the profile's bounds, and the
    seed that made the random parts (``seeded``: whether there were any)."""

    source: LabelledGraph
    inputs: RunInputs
    bounds: Bounds
    seed: int
    seeded: bool


def prepare(options: InputOptions, before_large: Callable[[], Any] | None = None) -> PreparedInputs:
    """The graph, X and the class weights, each checked before anything large exists, and the
    profile's bounds. The host memory is estimated once N, E and F are stated, before any data."""
    seed = options.seed if options.seed is not None else secrets.randbelow(2**31)
    num_classes = options.num_classes or DEFAULT_NUM_CLASSES
    if options.graph.graph == "karate":
        num_classes = options.num_classes or KARATE_CLASSES
    source = state(options.graph, seed)
    memory = HostMemory(options, num_classes, source.reading, before_large)
    memory.check(source.sizes)
    edges = source.read_edges()
    nodes = source.sizes.nodes
    if nodes is None:  # an edge file without features: its ids give N, before N rows are made
        nodes = int(edges.max()) + 1
        memory.check(replace(source.sizes, nodes=nodes, edges=len(edges)))
    labelled = source.labelled(edges, nodes)
    graph = labelled.graph
    bounds = choose_bounds(graph.num_nodes, graph.num_edges, options.max_nodes, options.max_edges)
    check_representable(graph, options.precision, options.graph.feature_flag(),
                        default_precision=not options.precision_typed)
    if options.draw_graph and graph.num_nodes > MAX_DRAW_NODES:
        raise InputError(f"--draw-graph: the graph has {graph.num_nodes} nodes; pictures are "
                         f"limited to {MAX_DRAW_NODES} (more are unreadable)")
    fitted = bool(labelled.leaders) and labelled.labels is not None
    random = options.graph.synthetic is not None or options.graph.has_random_features()
    seeded = random or not fitted
    inputs = make_inputs(options, labelled, num_classes, seed, fitted)
    # Every value the network makes must fit its layer's type, and its result must survive the
    # run's precision: refused now, in one line, rather than built and failed (gnn/model.py).
    problem = model.arithmetic_problem(inputs, options.precision, options.rounding,
                                       _bound(options.precision, not options.precision_typed))
    if problem is not None:
        raise InputError(problem)
    return PreparedInputs(labelled, inputs, bounds, seed, seeded)


def make_inputs(options: InputOptions, labelled: LabelledGraph, num_classes: int, seed: int,
                fitted: bool) -> RunInputs:
    """The engine's inputs: X where --initial-x says, weights fitted on the leaders or random."""
    graph = labelled.graph
    x0 = graph.features if (options.initial_x or labelled.initial_x) == "features" else None
    weights = None
    if fitted and labelled.labels is not None:
        start = graph.features if x0 is not None else np.zeros_like(graph.features)
        weights = model.fit_weights(graph, start, labelled.labels, labelled.leaders, num_classes)
    return model.make_run_inputs(graph, num_classes, options.precision, seed, x0=x0,
                                 weights=weights)


def check_representable(graph: Graph, precision: str, source: str = "--node-features",
                        default_precision: bool = False) -> None:
    """Features that overflow ``precision`` are refused, naming where they came from, and the
    precision as the default where none was given (the sums: model.arithmetic_problem)."""
    limit = model.get(precision).max_finite
    bound = _bound(precision, default_precision)
    worst = float(np.abs(graph.features).max())
    if worst > limit:
        raise InputError(f"{source}: a feature of magnitude {worst:g} overflows {precision} "
                         f"({bound})")


def _bound(precision: str, default_precision: bool) -> str:
    """What a refusal for overflow says of the precision, in parentheses."""
    bound = f"largest finite value {model.get(precision).max_finite:g}"
    if default_precision:
        return f"the default --precision; {bound}"
    return bound


def check_gpu_memory(prepared: PreparedInputs, precision: str, workspace: int, free: int) -> None:
    """The run's device memory, the plugin's workspace for the engine's profile included."""
    inputs = prepared.inputs
    (n, f), e, c = inputs.x.shape, inputs.idx.shape[0], inputs.weights.shape[0]
    needed = device_bytes(n, e, f, c, model.get(precision).itemsize, workspace)
    ensure_fits(f"the graph (N = {n}, E = {e}, F = {f}, C = {c})", needed, free, kind="GPU memory")


def input_lines(prepared: PreparedInputs) -> list[str]:
    """What the run prints of its inputs: the seed where one was used, the graph, its adjacency
    matrix or, for a graph too large for one, its in-degrees."""
    graph, labelled = prepared.source.graph, prepared.source
    lines = [f"Setting seed to: {prepared.seed}"] if prepared.seeded else []
    lines.append(f"Graph: {graph.num_nodes} nodes, {graph.num_edges} edges, {graph.num_features} "
                 f"feature(s) per node")
    if graph.num_nodes > ADJACENCY_MAX_NODES:
        degree = np.bincount(graph.edges[:, 1], minlength=graph.num_nodes)
        lines.append(f"In-degree: min {degree.min()}, mean {degree.mean():.2f}, max {degree.max()} "
                     f"(node {int(degree.argmax())}); {int((degree == 0).sum())} node(s) without "
                     f"incoming edges")
    else:
        lines.append("Adjacency matrix (row = source, column = target, value = number of edges):")
        lines += [f"  {line}" for line in adjacency_lines(graph)]
    if labelled.leaders and labelled.labels is not None:
        lines.append(f"Class weights: fitted in float64 (least squares) on members "
                     f"{' and '.join(map(str, labelled.leaders))} only; every other member is a "
                     f"prediction")
    return lines


def adjacency_lines(graph: Graph) -> list[str]:
    """The adjacency matrix as text rows: entry [s][t] is the number of edges s -> t."""
    matrix = np.zeros((graph.num_nodes, graph.num_nodes), dtype=np.int64)
    np.add.at(matrix, (graph.edges[:, 0], graph.edges[:, 1]), 1)
    return [" ".join(str(v) for v in row) for row in matrix]


def draw_picture(labelled: LabelledGraph, path: str) -> None:
    """The input graph drawn to ``path``, whose name passed its checks: a failure now is exit 7."""
    try:
        from gnn import picture  # networkx and matplotlib, which the machine check found
    except ImportError:
        raise MissingExtra(f"--draw-graph needs networkx and matplotlib: python3 -m pip install -r "
                           f"{EXTRAS}") from None
    try:
        picture.draw_graph(labelled.graph, path, labelled.labels, labelled.label_names)
    except OSError as error:
        raise OutputFailure(f"--draw-graph {quote_path(path)}: cannot write it "
                            f"({error.strerror or error})") from None
