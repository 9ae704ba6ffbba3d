"""Where a graph comes from: built-in real graphs, graph files, or a seeded synthetic generator.

Every loader returns a checked :class:`graph_inputs.Graph` (node ids in range, features finite)
or raises :class:`graph_inputs.InputError` with one line that names the file and the problem.
Files are read with NumPy (``np.load`` / ``np.loadtxt``), never through Python literals, so a
graph with millions of edges loads in seconds. Pure Python + NumPy; networkx only for the
optional built-in graphs that ship with it.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graph_inputs import Graph, InputError

GRAPH_DIR = Path(__file__).with_name("graphs")
KARATE_EDGES = GRAPH_DIR / "karate_club.csv"
KARATE_FACTIONS = GRAPH_DIR / "karate_club_factions.csv"
KARATE_FACTION_NAMES = ("Mr. Hi", "Officer")
BUILTIN_GRAPHS = ("karate", "les-miserables", "florentine")
DEGREE_MODELS = ("uniform", "powerlaw")
MAX_SYNTHETIC_EDGES = 1 << 31  # int32 indices and counts


class MissingExtra(RuntimeError):
    """An optional package (networkx) is needed; the message says how to install it."""


@dataclass(frozen=True)
class LabelledGraph:
    """A graph plus, where the data has them, the true class of each node and the class names."""

    graph: Graph
    labels: np.ndarray | None = None
    label_names: tuple[str, ...] = ()


def both_directions(edges: np.ndarray) -> np.ndarray:
    """An undirected edge list as directed edges: every {u, v} becomes u -> v and v -> u."""
    return np.concatenate([edges, edges[:, ::-1]])


def random_features(num_nodes: int, num_features: int, seed: int) -> np.ndarray:
    """Seeded standard-normal node features, for graphs that come without any."""
    return np.random.default_rng(seed).standard_normal((num_nodes, num_features))


def karate_club(num_features: int, seed: int) -> LabelledGraph:
    """Zachary's karate club (34 nodes, 78 friendships, both directions), with its two factions."""
    edges = _read_table(KARATE_EDGES)
    factions = _read_table(KARATE_FACTIONS)
    labels = factions[np.argsort(factions[:, 0]), 1]
    graph = Graph(random_features(len(labels), num_features, seed), both_directions(edges))
    return LabelledGraph(graph, labels, KARATE_FACTION_NAMES)


def networkx_graph(name: str, num_features: int, seed: int) -> LabelledGraph:
    """A real graph that ships inside networkx (optional extra), undirected -> both directions."""
    try:
        import networkx as nx
    except ImportError:
        raise MissingExtra(f"--graph {name} needs networkx: pip install -r requirements-extras.txt") from None
    source = {"les-miserables": nx.les_miserables_graph, "florentine": nx.florentine_families_graph}[name]()
    ids = {node: number for number, node in enumerate(sorted(source.nodes))}
    edges = np.array([(ids[u], ids[v]) for u, v in source.edges], dtype=np.int64).reshape(-1, 2)
    return LabelledGraph(Graph(random_features(len(ids), num_features, seed), both_directions(edges)))


def _read_table(path: Path) -> np.ndarray:
    """A small comma-separated integer table that ships with the sample."""
    return np.loadtxt(path, delimiter=",", comments="#", dtype=np.int64, ndmin=2)


def load_edge_file(path: str) -> np.ndarray:
    """``[E, 2]`` int64 (source, target) from ``.npy`` or CSV/TSV/whitespace text (``#`` comments)."""
    table = _load_numbers(path, "--edge-file")
    if table.size == 0:
        raise InputError(f"--edge-file {path}: the graph has no edges")
    if table.ndim != 2 or table.shape[1] != 2:
        raise InputError(f"--edge-file {path}: expected 2 columns (source, target), got shape {list(table.shape)}")
    if table.dtype.kind == "f":
        bad = ~np.isfinite(table) | (table != np.round(table))
        if bad.any():
            row = int(np.argwhere(bad)[0][0])
            raise InputError(f"--edge-file {path}: edge {row} {table[row].tolist()} has a non-integer node id")
    elif table.dtype.kind not in "iu":
        raise InputError(f"--edge-file {path}: node ids must be integers, got {table.dtype}")
    if table.min() < 0:
        row = int(np.argwhere(table < 0)[0][0])
        raise InputError(f"--edge-file {path}: edge {row} {table[row].tolist()} has a negative node id")
    return table.astype(np.int64)


def load_feature_file(path: str) -> np.ndarray:
    """``[N, F]`` float64 from a ``.npy`` of shape ``[N]`` or ``[N, F]`` (text is accepted too)."""
    table = _load_numbers(path, "--feature-file")
    if table.ndim == 1:
        table = table.reshape(-1, 1)
    if table.ndim != 2 or table.shape[0] == 0 or table.shape[1] == 0:
        raise InputError(f"--feature-file {path}: expected shape [N] or [N, F] with N, F >= 1, got {list(table.shape)}")
    if table.dtype.kind not in "fiu":
        raise InputError(f"--feature-file {path}: features must be numbers, got {table.dtype}")
    finite = np.isfinite(table)
    if not finite.all():
        node = int(np.argwhere(~finite)[0][0])
        raise InputError(f"--feature-file {path}: node {node} has a NaN or infinite feature")
    return table.astype(np.float64)


def _load_numbers(path: str, flag: str) -> np.ndarray:
    file = Path(path)
    if not file.is_file():
        raise InputError(f"{flag} {path}: no such file")
    try:
        if file.suffix == ".npy":
            return np.load(file, allow_pickle=False)
        delimiter = "," if file.suffix == ".csv" else None  # None: tabs or spaces
        with warnings.catch_warnings():  # an empty file warns; it is reported as an error below
            warnings.simplefilter("ignore")
            return np.loadtxt(file, delimiter=delimiter, comments="#", dtype=np.float64, ndmin=2)
    except (ValueError, OSError, EOFError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise InputError(f"{flag} {path}: cannot read it as numbers ({reason})") from None


def graph_from_files(edge_file: str, feature_file: str | None, num_features: int, seed: int) -> LabelledGraph:
    """Edges from a file; features from a file, else seeded random ones for every node named."""
    edges = load_edge_file(edge_file)
    if feature_file is None:
        features = random_features(int(edges.max()) + 1, num_features, seed)
    else:
        features = load_feature_file(feature_file)
    num_nodes = features.shape[0]
    if edges.max() >= num_nodes:
        row = int(np.argwhere(edges >= num_nodes)[0][0])
        raise InputError(f"--edge-file {edge_file}: edge {row} {edges[row].tolist()} names a node outside "
                         f"[0, {num_nodes - 1}] ({num_nodes} nodes have features)")
    return LabelledGraph(Graph(features, edges))


def synthetic_graph(num_nodes: int, num_edges: int, num_features: int, degrees: str, seed: int) -> LabelledGraph:
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
    """One line per node: its predicted class (argmax over classes) next to its true label."""
    predicted = probs.argmax(axis=0)
    return [f"  node {node:3d}: class {int(predicted[node])}  (faction: {names[int(labels[node])]})"
            for node in range(probs.shape[1])]
