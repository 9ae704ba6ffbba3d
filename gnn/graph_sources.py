# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Where a graph comes from: built-in real graphs, graph files, or a seeded synthetic generator.

Every loader returns a checked :class:`graph_inputs.Graph` (node ids in range, features finite)
or raises :class:`errors.InputError` with one line that names the file and the problem.
Files are read with NumPy (``np.load`` / ``np.loadtxt``), never through Python literals, so a
graph with millions of edges loads in seconds. Pure Python + NumPy; networkx only for the
optional built-in graphs that ship with it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from gnn.choices import DEGREE_MODELS
from gnn.errors import InputError, MissingExtra, quote_path
from gnn.graph_inputs import Graph, nodes_with_features
from gnn.table_files import load_table, npy_shape

GRAPH_DIR = Path(__file__).resolve().parent.parent / "graphs"
KARATE_EDGES = GRAPH_DIR / "karate_club.csv"
KARATE_FACTIONS = GRAPH_DIR / "karate_club_factions.csv"
KARATE_FACTION_NAMES = ("Mr. Hi", "Officer")
MAX_SYNTHETIC_EDGES = 1 << 31  # int32 indices and counts


@dataclass(frozen=True)
class LabelledGraph:
    """A graph plus, where the data has them, the true class of each node and the class names.

    ``initial_x`` is where X starts by default ("zeros", or "features": each node's own
    features, which the in-place update then adds the neighbours to). ``leaders`` are the nodes
    whose labels the class weights may be fitted on (semi-supervised); empty: random weights.
    """

    graph: Graph
    labels: np.ndarray | None = None
    label_names: tuple[str, ...] = ()
    initial_x: str = "zeros"
    leaders: tuple[int, ...] = ()


def both_directions(edges: np.ndarray) -> np.ndarray:
    """An undirected edge list as directed edges: every {u, v} becomes u -> v and v -> u."""
    return np.concatenate([edges, edges[:, ::-1]])


def random_features(num_nodes: int, num_features: int, seed: int) -> np.ndarray:
    """Seeded standard-normal node features, for graphs that come without any."""
    return np.random.default_rng(seed).standard_normal((num_nodes, num_features))


# Checks that the run's memory fits N, E and F (gnn/inputs.py): asked before any array of N rows
# is made, and with N None where only E and F are known yet (an edge .npy file's header).
Fits = Callable[[int | None, int, int], None]


def _fits_anything(num_nodes: int | None, num_edges: int, num_features: int) -> None:
    """The default, for callers whose graphs are small (tests, benchmarks): the CLI passes its
    own."""


KARATE_LEADERS = (0, 33)  # Mr. Hi and the officer: the only labels the weights are fitted on


def karate_club() -> LabelledGraph:
    """Zachary's karate club (34 members, 78 friendships, both directions) and its two factions.

    The classic semi-supervised set-up: one-hot features (F = 34), X starting at each member's
    own features, and class weights fitted on the two leaders alone (model.fit_weights).
    """
    edges = _read_table(KARATE_EDGES)
    factions = _read_table(KARATE_FACTIONS)
    labels = factions[np.argsort(factions[:, 0]), 1]
    graph = Graph(np.eye(len(labels)), both_directions(edges))
    return LabelledGraph(graph, labels, KARATE_FACTION_NAMES, initial_x="features", leaders=KARATE_LEADERS)


def networkx_graph(name: str, num_features: int, seed: int,
                   fits: Fits = _fits_anything) -> LabelledGraph:
    """A real graph that ships inside networkx (optional extra), undirected -> both directions.
    ``fits`` is asked before the random features: --num-features and --num-classes may ask for
    more than memory holds of a graph of 77 nodes."""
    try:
        import networkx as nx
    except ImportError:
        raise MissingExtra(f"--graph {name} needs networkx: python3 -m pip install -r requirements/extras.txt") from None
    source = {"les-miserables": nx.les_miserables_graph, "florentine": nx.florentine_families_graph}[name]()
    ids = {node: number for number, node in enumerate(sorted(source.nodes))}
    edges = both_directions(np.array([(ids[u], ids[v]) for u, v in source.edges],
                                     dtype=np.int64).reshape(-1, 2))
    fits(len(ids), len(edges), num_features)
    return LabelledGraph(Graph(random_features(len(ids), num_features, seed), edges))


def _read_table(path: Path) -> np.ndarray:
    """A small comma-separated integer table that ships with the sample."""
    return np.loadtxt(path, delimiter=",", comments="#", dtype=np.int64, ndmin=2)


MAX_NODE_ID = (1 << 31) - 2  # N = max id + 1 must fit the int32 indices and counts


def load_edge_file(path: str) -> np.ndarray:
    """``[E, 2]`` int64 (source, target) from ``.npy`` or CSV/TSV/whitespace text (``#`` comments)."""
    flag = f"--edge-file {quote_path(path)}"
    table = load_table(path, flag)
    if table.size == 0:
        raise InputError(f"{flag}: the graph has no edges")
    if table.ndim != 2 or table.shape[1] != 2:
        raise InputError(f"{flag}: expected 2 columns (source, target), got shape {list(table.shape)}")
    if table.dtype.kind not in "fiu":
        raise InputError(f"{flag}: node ids must be integers, got {table.dtype}")
    # Range checks in the file's own dtype, before any conversion can wrap or overflow; floats
    # against a float64 bound, which float16 cannot hold (casting it there overflows and warns).
    limit = np.float64(MAX_NODE_ID) if table.dtype.kind == "f" else MAX_NODE_ID
    bad = (table < 0) | (table > limit)
    if table.dtype.kind == "f":
        bad |= ~np.isfinite(table) | (table != np.round(table))
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        value = table[row, col].item()
        why = _why_bad(value)
        raise InputError(f"{flag}: edge {row} names node {_as_written(value)}, which {why}")
    return np.ascontiguousarray(table, dtype=np.int64)  # a Fortran-order .npy is read as saved


def _why_bad(value: float | int) -> str:
    """Why the range check refused a node id; a NaN, neither below 0 nor above the bound, is
    "not an integer"."""
    if value < 0:
        return "is negative"
    if value > MAX_NODE_ID:
        return f"is above {MAX_NODE_ID} (int32 indices)"
    return "is not an integer"


def _as_written(value: float | int) -> str:
    """A node id as the file most likely wrote it: text is read as float64, so a -1 in a CSV is -1.0 here;
    a whole number that float64 holds exactly is shown without the ".0", anything else as Python writes it."""
    whole = isinstance(value, float) and value.is_integer() and abs(value) < 2**53
    return str(int(value)) if whole else repr(value)


def load_feature_file(path: str) -> np.ndarray:
    """``[N, F]`` float64, one row per node, from a ``.npy`` of shape ``[N]`` or ``[N, F]``, or from
    CSV/TSV/whitespace text (``#`` comments), as --help says."""
    flag = f"--feature-file {quote_path(path)}"
    table = load_table(path, flag)
    if table.ndim == 1:
        table = table.reshape(-1, 1)
    if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] == 0:
        raise InputError(f"{flag}: expected shape [N] or [N, F] with N, F >= 1, got {list(table.shape)}")
    if table.dtype.kind not in "fiu":
        raise InputError(f"{flag}: features must be numbers, got {table.dtype}")
    finite = np.isfinite(table)
    if not finite.all():
        node = int(np.argwhere(~finite)[0][0])
        raise InputError(f"{flag}: node {node} has a NaN or infinite feature")
    return np.ascontiguousarray(table, dtype=np.float64)


def graph_from_files(edge_file: str, feature_file: str | None, num_features: int, seed: int,
                     fits: Fits = _fits_anything) -> LabelledGraph:
    """Edges from a file; features from a file, else seeded random ones for every node named.
    ``fits`` is asked as soon as N, E and F are known: first from the headers of .npy files (E
    before any edge is read), then N from the largest node id, or N and F from the feature file."""
    _fits_headers(edge_file, feature_file, num_features, fits)
    edges = load_edge_file(edge_file)
    if feature_file is None:
        num_nodes = int(edges.max()) + 1
        fits(num_nodes, len(edges), num_features)
        return LabelledGraph(Graph(random_features(num_nodes, num_features, seed), edges))
    flag = f"--feature-file {quote_path(feature_file)}"
    shape = _feature_header(feature_file)
    if shape is not None:
        fits(shape[0], len(edges), shape[1])
    features = load_feature_file(feature_file)
    if shape is None:  # text: its size was bounded before parsing, and its rows are known only now
        fits(features.shape[0], len(edges), features.shape[1])
    if edges.max() >= features.shape[0]:
        row = int(np.argwhere(edges >= features.shape[0])[0][0])
        raise InputError(f"{flag} (one row per node): {nodes_with_features(features.shape[0])}, "
                         f"but edge {row} {edges[row].tolist()} of --edge-file "
                         f"{quote_path(edge_file)} names node {int(edges[row].max())}")
    return LabelledGraph(Graph(features, edges))


def _fits_headers(edge_file: str, feature_file: str | None, num_features: int,
                  fits: Fits) -> None:
    """The run's memory from an edge .npy file's header, before its data is read, where F is
    known (--num-features, or a feature .npy file's header); N is not known until the ids are."""
    shape = npy_shape(edge_file, f"--edge-file {quote_path(edge_file)}")
    if shape is None or len(shape) != 2 or shape[1] != 2:
        return  # text, whose size is bounded before parsing, or a shape load_edge_file refuses
    if feature_file is None:
        fits(None, shape[0], num_features)
        return
    features = _feature_header(feature_file)
    if features is not None:
        fits(features[0], shape[0], features[1])


def _feature_header(feature_file: str) -> tuple[int, int] | None:
    """N and F from a feature .npy file's header; None for text, or for a shape that
    load_feature_file refuses."""
    shape = npy_shape(feature_file, f"--feature-file {quote_path(feature_file)}")
    if shape is None or len(shape) not in (1, 2):
        return None
    return shape[0], shape[1] if len(shape) == 2 else 1


def synthetic_graph(num_nodes: int, num_edges: int, num_features: int, degrees: str, seed: int,
                    fits: Fits = _fits_anything) -> LabelledGraph:
    """A seeded random graph for scale: sources uniform; targets uniform or power-law.

    Power-law targets are ``N * u^3`` (u uniform), a few very hot rows, with node ids shuffled so
    the hot rows are spread out; the same model as the benchmark's. Same seed, same graph.
    """
    if num_nodes < 1 or num_edges < 1 or num_features < 1:
        raise InputError(f"--synthetic: N, E and F must be >= 1, got {num_nodes}, {num_edges}, {num_features}")
    if num_edges >= MAX_SYNTHETIC_EDGES or num_nodes >= MAX_SYNTHETIC_EDGES:
        raise InputError(f"--synthetic: N and E must be below 2^31 (int32 indices), got {num_nodes}, {num_edges}")
    if degrees not in DEGREE_MODELS:
        raise InputError(f"--degrees: expected one of {', '.join(DEGREE_MODELS)}, got {degrees!r}")
    fits(num_nodes, num_edges, num_features)
    rng = np.random.default_rng(seed)
    sources = rng.integers(0, num_nodes, num_edges)
    if degrees == "uniform":
        targets = rng.integers(0, num_nodes, num_edges)
    else:
        ranks = np.minimum((num_nodes * rng.random(num_edges) ** 3).astype(np.int64), num_nodes - 1)
        targets = rng.permutation(num_nodes)[ranks]
    features = rng.standard_normal((num_nodes, num_features))
    return LabelledGraph(Graph(features, np.stack([sources, targets], axis=1).astype(np.int64)))


def predicted_vs_true(probs: np.ndarray, labels: np.ndarray, names: tuple[str, ...]) -> list[str]:
    """One line per node, its predicted faction next to the one it joined, then the accuracy."""
    predicted = probs.argmax(axis=0)
    lines = [f"  member {node:2d}: predicted {names[int(predicted[node])]:<8} joined {names[int(labels[node])]:<8}"
             f"{'' if predicted[node] == labels[node] else '  <- wrong'}".rstrip() for node in range(probs.shape[1])]
    wrong = [str(node) for node in np.nonzero(predicted != labels)[0]]
    lines.append(f"Accuracy: {len(labels) - len(wrong)} of {len(labels)} members predicted in the faction they joined"
                 f"{' (wrong: member ' + ', '.join(wrong) + ')' if wrong else ''}")
    return lines
