# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The run's inputs (:func:`prepare`): the graph the flags choose, read or made, and the engine's.

Each source states N, E and F before any data is read or made, so that host memory is checked
first (again once an edge file's ids give N). A file's format comes from its first bytes, never its
name, and every read is bounded. A problem is one line naming the flag or the file."""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import math
import os
import re
import resource
import secrets
import stat
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from numbers import Real
from pathlib import Path
from typing import Any

import numpy as np

from gnn import model
from gnn.cli import (DEFAULT_EDGES, DEFAULT_NODE_FEATURES, EXTRAS, Bounds, GraphChoice,
                     InputError, InputOptions, MissingExtra, OutputFailure, choose_bounds,
                     file_in_the_way, gib, joined, quote_path)
from gnn.model import Graph, RunInputs

GRAPH_DIR = Path(__file__).resolve().parent.parent / "graphs"
KARATE_CLASSES = 2  # the club's two factions
DEFAULT_NUM_CLASSES = 3
DEFAULT_NUM_FEATURES = 4  # random features per node for graphs that have none
MAX_SYNTHETIC = 1 << 31  # int32 indices and counts
MAX_NODE_ID = (1 << 31) - 2  # N = max id + 1 must fit the int32 indices and counts
MAX_DRAW_NODES = 300  # a picture of more nodes is unreadable and slow to lay out
ADJACENCY_MAX_NODES = 16  # larger graphs get a degree summary instead of an N x N matrix
LARGE_WORK = 64 << 20  # host bytes past which the GPU is checked first (59 MiB take 0.23 s to make)
SHORTEN = 40  # characters of a value or line a message quotes (a binary file's line can be huge)

MAX_TEXT_BYTES = 1 << 30  # text beyond this takes minutes to parse: use .npy
MAX_LINE = 1 << 22  # characters: 65536 features of 64 characters each
TEXT_PARSE_FACTOR = 12  # bytes NumPy may hold per byte of text (16 B per 4-byte edge, x3)
NPY_MAGIC = b"\x93NUMPY"
NPY_READERS = {(1, 0): np.lib.format.read_array_header_1_0,
               (2, 0): np.lib.format.read_array_header_2_0,
               (3, 0): np.lib.format.read_array_header_2_0}
ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # a zip file (.npz is one), with entries or without
COMPRESSED_STARTS = {b"\x1f\x8b": "gzip", b"BZh": "bzip2", b"\xfd7zXZ\x00": "xz",
                     b"\x28\xb5\x2f\xfd": "zstd"}
KINDS = {"U": "text", "S": "bytes", "V": "raw bytes", "b": "true/false values",
         "c": "complex numbers", "M": "dates and times", "m": "time spans", "O": "Python objects"}
# A decimal comma makes a semicolon the separator (1,5;2,5), so a semicolon is looked for first.
SEPARATORS: dict[str | None, str] = {";": "a semicolon", ",": "a comma", None: "tabs or spaces"}
READ = "a comma, a semicolon, tabs or spaces"
# For text NumPy rejects after the line checks passed it: NumPy's message names its parameters.
NOT_A_TABLE = f"it is not one number per column on every line, separated by {READ}"
# Text that cannot be part of a number in any script; numbers are looked for between such runs.
NOT_NUMBER_TEXT = re.compile(r"[^\w.+\-]+")
# Starts like a number (0x1F, Arabic-Indic digits, 1_000): data this sample cannot read, no header.
NUMBER_LIKE = re.compile(r"[+\-.]*\d")


@dataclass(frozen=True)
class LabelledGraph:
    """A graph, its nodes' true classes and the class names where known, X's default start, and
    the ``leaders`` W is fitted on (none: random W)."""

    graph: Graph
    labels: np.ndarray | None = None
    label_names: tuple[str, ...] = ()
    initial_x: str = "zeros"
    leaders: tuple[int, ...] = ()


@dataclass(frozen=True)
class Sizes:
    """N (None: set later by the node ids), E, F, what a memory refusal adds on how they were
    known, and the bytes reading holds."""

    nodes: int | None
    edges: int
    features: int
    note: str = ""
    reading: int = 0


@dataclass(frozen=True)
class Table:
    """An opened file of numbers (``dtype`` None: text, read as float64) and the bytes NumPy may
    hold reading it."""

    path: str
    flag: str
    shape: tuple[int, ...]
    dtype: np.dtype | None
    read_bytes: int
    separator: str | None = None


@dataclass(frozen=True, eq=False)
class Source:
    """A graph source and its sizes: in memory, the files' tables, or else drawn from ``rng``
    (edges first, then features, so that one seed gives one graph)."""

    sizes: Sizes
    rng: np.random.Generator
    graph: LabelledGraph | None = None
    edges: np.ndarray | None = None
    edge_table: Table | None = None
    feature_table: Table | None = None
    degrees: str = "uniform"


@dataclass(frozen=True)
class PreparedInputs:
    source: LabelledGraph
    inputs: RunInputs
    bounds: Bounds
    seed: int


# -- the inputs -----------------------------------------------------------------------------------


def prepare(options: InputOptions, before_large: Callable[[], Any] | None = None) -> PreparedInputs:
    """The graph, X and W, host memory checked before anything large exists (``before_large``, the
    GPU check, runs first if large), then the network's arithmetic."""
    seed = options.seed if options.seed is not None else secrets.randbelow(2**31)
    default_classes = KARATE_CLASSES if options.graph.graph == "karate" else DEFAULT_NUM_CLASSES
    num_classes = options.num_classes or default_classes
    precision = model.get(options.precision)
    source = state(options.graph, seed)
    check_host_memory(options, precision, num_classes, source.sizes, before_large)
    edges = read_edges(source)
    nodes = source.sizes.nodes
    if nodes is None:  # an edge file without features: its ids give N, before N rows are made
        nodes = int(edges.max()) + 1
        note = f"; node ids up to {nodes - 1}"
        sizes = dataclasses.replace(source.sizes, nodes=nodes, edges=len(edges), note=note)
        check_host_memory(options, precision, num_classes, sizes, before_large)
    labelled = read_features(source, edges, nodes)
    graph = labelled.graph
    bound = f"largest finite value {precision.max_finite:g}"
    if not options.precision_typed:
        bound = f"the default --precision; {bound}"
    check_representable(graph, precision, options.graph.feature_flag(), bound)
    if options.draw_graph and graph.num_nodes > MAX_DRAW_NODES:
        raise InputError(f"--draw-graph: the graph has {graph.num_nodes} nodes; pictures are "
                         f"limited to {MAX_DRAW_NODES} (more are unreadable)")
    inputs = make_inputs(options, labelled, num_classes, seed)
    problem = model.arithmetic_problem(inputs, options.precision, options.rounding, bound)
    if problem is not None:
        raise InputError(problem)
    bounds = choose_bounds(graph.num_nodes, graph.num_edges, options.max_nodes, options.max_edges)
    return PreparedInputs(labelled, inputs, bounds, seed)


def make_inputs(options: InputOptions, labelled: LabelledGraph, num_classes: int,
                seed: int) -> RunInputs:
    """The engine's inputs: X where --initial-x says, weights fitted on the leaders or random."""
    graph = labelled.graph
    x0 = graph.features if (options.initial_x or labelled.initial_x) == "features" else None
    weights = None
    if labelled.leaders and labelled.labels is not None:
        start = graph.features if x0 is not None else np.zeros_like(graph.features)
        weights = model.fit_weights(graph, start, labelled.labels, labelled.leaders, num_classes)
    return model.make_run_inputs(graph, num_classes, options.precision, seed, x0=x0,
                                 weights=weights)


def check_representable(graph: Graph, precision: model.Precision, source: str, bound: str) -> None:
    """Reject features past ``precision``, naming ``source``; the sums: model.arithmetic_problem."""
    worst = float(np.abs(graph.features).max())
    if worst > precision.max_finite:
        raise InputError(f"{source}: a feature of magnitude {worst:g} overflows {precision.name} "
                         f"({bound})")


def input_lines(prepared: PreparedInputs) -> list[str]:
    """The seed if used, the graph, its adjacency matrix (or in-degrees) and how W was fitted."""
    labelled = prepared.source
    graph = labelled.graph
    # Only the karate club's W is fitted, not drawn, and its features are its own: no seed used.
    lines = [] if labelled.leaders else [f"Setting seed to: {prepared.seed}"]
    lines.append(f"Graph: {graph.num_nodes} nodes, {graph.num_edges} edges, {graph.num_features} "
                 f"feature(s) per node")
    if graph.num_nodes > ADJACENCY_MAX_NODES:
        degree = np.bincount(graph.edges[:, 1], minlength=graph.num_nodes)
        lines.append(f"In-degree: min {degree.min()}, mean {degree.mean():.2f}, max {degree.max()} "
                     f"(node {int(degree.argmax())}); {int((degree == 0).sum())} node(s) without "
                     f"incoming edges")
    else:
        lines.append("Adjacency matrix (row = source, column = target, value = number of edges):")
        matrix = np.zeros((graph.num_nodes, graph.num_nodes), dtype=np.int64)
        np.add.at(matrix, (graph.edges[:, 0], graph.edges[:, 1]), 1)  # duplicate edges counted
        lines += [f"  {' '.join(map(str, row))}" for row in matrix]
    if labelled.leaders:
        lines.append(f"Class weights: fitted in float64 (least squares) on members "
                     f"{' and '.join(map(str, labelled.leaders))} only; every other member is a "
                     f"prediction")
    return lines


def draw_picture(labelled: LabelledGraph, path: str) -> None:
    """The graph drawn to ``path`` (already checked, so a failure now is exit 7)."""
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


# -- the graph's sources -------------------------------------------------------------------------


def state(choice: GraphChoice, seed: int) -> Source:
    """The graph source the flags name, with its sizes; default: the --node-features/--edges."""
    num_features = choice.num_features or DEFAULT_NUM_FEATURES
    if choice.edge_file is not None:
        return state_files(choice, num_features, seed)
    if choice.synthetic is not None:
        return state_synthetic(*choice.synthetic, choice.degrees or "uniform", seed)
    if choice.graph is not None and choice.graph != "karate":
        return state_networkx(choice.graph, num_features, seed)
    if choice.graph == "karate":
        given = karate_club()
    else:
        given = LabelledGraph(parse_graph(choice.node_features, choice.edges))
    sizes = Sizes(given.graph.num_nodes, given.graph.num_edges, given.graph.num_features)
    return Source(sizes, np.random.default_rng(seed), given, given.graph.edges)


def read_edges(source: Source) -> np.ndarray:
    """``[E, 2]`` int64: the edges in memory, drawn (--synthetic), or the edge file's, their ids
    range-checked in the file's own type before a conversion can wrap (floats against a float64
    bound: float16 cannot hold MAX_NODE_ID)."""
    if source.edges is not None:
        return source.edges
    table = source.edge_table
    if table is None:
        return _drawn_edges(source.sizes.nodes or 1, source.sizes.edges, source.degrees, source.rng)
    ids = read_table(table)
    floats = ids.dtype.kind == "f"
    bad = (ids < 0) | (ids > (np.float64(MAX_NODE_ID) if floats else MAX_NODE_ID))
    if floats:
        bad |= ~np.isfinite(ids) | (ids != np.round(ids))
    if bad.any():
        row, column = (int(i) for i in np.argwhere(bad)[0])
        raise InputError(f"{table.flag}: edge {row} names node {_bad_id(ids[row, column].item())}")
    return np.ascontiguousarray(ids, dtype=np.int64)  # a Fortran-order .npy is read as saved


def _drawn_edges(nodes: int, count: int, degrees: str, rng: np.random.Generator) -> np.ndarray:
    """Uniform sources; targets uniform or power-law (``N * u^3``, ids shuffled: a few hot rows)."""
    sources = rng.integers(0, nodes, count)
    if degrees == "uniform":
        targets = rng.integers(0, nodes, count)
    else:
        ranks = (nodes * rng.random(count) ** 3).astype(np.int64)
        targets = rng.permutation(nodes)[np.minimum(ranks, nodes - 1)]
    return np.stack([sources, targets], axis=1).astype(np.int64)


def read_features(source: Source, edges: np.ndarray, nodes: int) -> LabelledGraph:
    """The graph: given, with seeded standard-normal features, or with the feature file's rows."""
    if source.graph is not None:
        return source.graph
    table = source.feature_table
    if table is None or source.edge_table is None:
        features = source.rng.standard_normal((nodes, source.sizes.features))
        return LabelledGraph(Graph(features, edges))
    features = read_table(table)
    features = features.reshape(len(features), -1)
    finite = np.isfinite(features)
    if not finite.all():
        node = int(np.argwhere(~finite)[0][0])
        raise InputError(f"{table.flag}: node {node} has a NaN or infinite feature")
    if edges.max() >= len(features):
        row = int(np.argwhere(edges >= len(features))[0][0])
        raise InputError(f"{table.flag} (one row per node): {nodes_with_features(len(features))}, "
                         f"but edge {row} {edges[row].tolist()} of {source.edge_table.flag} names "
                         f"node {int(edges[row].max())}")
    return LabelledGraph(Graph(np.ascontiguousarray(features, dtype=np.float64), edges))


def karate_club() -> LabelledGraph:
    """Zachary's karate club, friendships as edges both ways, one-hot features where X starts, and
    its two factions, W fitted on the leaders 0 and 33 alone."""
    edges = np.loadtxt(GRAPH_DIR / "karate_club.csv", delimiter=",", dtype=np.int64, ndmin=2)
    factions = np.loadtxt(GRAPH_DIR / "karate_club_factions.csv", delimiter=",", dtype=np.int64,
                          ndmin=2)
    labels = factions[np.argsort(factions[:, 0]), 1]
    graph = Graph(np.eye(len(labels)), np.concatenate([edges, edges[:, ::-1]]))
    return LabelledGraph(graph, labels, ("Mr. Hi", "Officer"), "features", (0, 33))


def state_networkx(name: str, num_features: int, seed: int) -> Source:
    """A graph that ships with networkx (an optional extra), edges both ways, F random features."""
    try:
        import networkx as nx
    except ImportError:
        raise MissingExtra(f"--graph {name} needs networkx: python3 -m pip install -r "
                           f"{EXTRAS}") from None
    make = {"les-miserables": nx.les_miserables_graph, "florentine": nx.florentine_families_graph}
    graph = nx.convert_node_labels_to_integers(make[name](), ordering="sorted")
    pairs = np.array(graph.edges, dtype=np.int64)
    edges = np.concatenate([pairs, pairs[:, ::-1]])  # u -> v and v -> u
    sizes = Sizes(graph.number_of_nodes(), len(edges), num_features)
    return Source(sizes, np.random.default_rng(seed), edges=edges)


def state_synthetic(num_nodes: int, num_edges: int, num_features: int, degrees: str,
                    seed: int) -> Source:
    """A seeded random graph for scale, stated by its flags (:func:`read_edges` draws it)."""
    if num_nodes < 1 or num_edges < 1 or num_features < 1:
        raise InputError(f"--synthetic: N, E and F must be >= 1, got {num_nodes}, {num_edges}, "
                         f"{num_features}")
    if num_edges >= MAX_SYNTHETIC or num_nodes >= MAX_SYNTHETIC:
        raise InputError(f"--synthetic: N and E must be below 2^31 (int32 indices), got "
                         f"{num_nodes}, {num_edges}")
    sizes = Sizes(num_nodes, num_edges, num_features)
    return Source(sizes, np.random.default_rng(seed), degrees=degrees)


def state_files(choice: GraphChoice, num_features: int, seed: int) -> Source:
    """Edges from a file, features from a file or random; both checked before either is read."""
    rng = np.random.default_rng(seed)
    edge_file = choice.edge_file or ""  # state() comes here only with an edge file
    edge_table = open_table(edge_file, choice.source_flag(), edges=True)
    edges = edge_table.shape[0]
    if choice.feature_file is None:
        stated_by = "its lines" if edge_table.dtype is None else "the .npy header"
        note = f", from {stated_by}, before any node id is read"
        sizes = Sizes(None, edges, num_features, note, edge_table.read_bytes)
        return Source(sizes, rng, edge_table=edge_table)
    feature_table = open_table(choice.feature_file, choice.feature_flag(), edges=False)
    reading = max(edge_table.read_bytes, feature_table.read_bytes)
    sizes = Sizes(feature_table.shape[0], edges, math.prod(feature_table.shape[1:]), "", reading)
    return Source(sizes, rng, edge_table=edge_table, feature_table=feature_table)


# -- edge and feature files ----------------------------------------------------------------------


def open_table(path: str, flag: str, edges: bool) -> Table:
    """An edge or feature file, opened and its format, shape and type checked; no data is read."""
    try:
        table = _open_file(path, flag)
    except FileNotFoundError:
        raise InputError(f"{flag}: no such file") from None
    except NotADirectoryError:  # the path as given: 'good.csv/' is not good.csv
        in_the_way = quote_path(file_in_the_way(path))
        raise InputError(f"{flag}: {in_the_way} is not a directory") from None
    except OSError as error:
        raise InputError(f"{flag}: cannot read it ({error.strerror or error})") from None
    shape = list(table.shape)
    if edges and math.prod(shape) == 0:
        raise InputError(f"{flag}: the graph has no edges")
    if edges and (len(shape) != 2 or shape[1] != 2):
        raise InputError(f"{flag}: expected 2 columns (source, target), got shape {shape}")
    if not edges and (len(shape) not in (1, 2) or math.prod(shape) == 0):
        raise InputError(f"{flag}: expected shape [N] or [N, F] with N, F >= 1, got {shape}")
    if table.dtype is not None and table.dtype.kind not in "fiu":  # a record's kind is "V"
        values = "node ids must be integers" if edges else "features must be numbers"
        raise InputError(f"{flag}: {values}, got {_kind(table.dtype)}")
    return table


def _kind(dtype: np.dtype) -> str:
    """The type of a .npy file's values, in words: "int64", "text", "a record of fields (a, b)"."""
    if dtype.names:
        return f"a record of fields ({', '.join(dtype.names)})"
    return KINDS.get(dtype.kind, dtype.name)


def _bad_id(value: float | int) -> str:
    """A bad node id as the file most likely wrote it (text is read as float64: -1, not -1.0)."""
    whole = isinstance(value, float) and value.is_integer() and abs(value) < 2**53
    written = str(int(value)) if whole else repr(value)
    if value < 0:
        return f"{written}, which is negative"
    if value > MAX_NODE_ID:
        return f"{written}, which is above {MAX_NODE_ID} (int32 indices)"
    return f"{written}, which is not an integer"


def read_table(table: Table) -> np.ndarray:
    """A .npy array as saved, or text as float64. Text is opened here, not by NumPy, which would
    decompress a file named .gz without bound."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an empty text warns; so does a Python 2 .npy header
            if table.dtype is not None:
                return np.load(table.path, allow_pickle=False)
            # With a comma or semicolon separator NumPy reads a line of spaces as one column, so
            # such a line (before any comment) is made empty, which NumPy skips.
            lines = ("\n" if line[:1].isspace() and not line.split("#", 1)[0].strip() else line
                     for line in _lines(table.path, table.flag))
            return np.loadtxt(lines, delimiter=table.separator, comments="#", dtype=np.float64,
                              ndmin=2)
    except InputError:
        raise
    except MemoryError:
        raise InputError(f"{table.flag}: out of memory while reading it") from None
    except (ValueError, OSError) as error:  # the file changed since it was opened, or bad text
        if table.dtype is not None:
            raise InputError(f"{table.flag}: cannot read its data "
                             f"({type(error).__name__})") from None
        found = _scan(table.path, table.flag, whole=True)[2] or NOT_A_TABLE
        raise InputError(f"{table.flag}: cannot read it as numbers: {found}") from None


def _open_file(path: str, flag: str) -> Table:
    """The file's shape and type, from its first bytes and its .npy header or text lines."""
    status = os.stat(path)
    if not stat.S_ISREG(status.st_mode):
        raise InputError(f"{flag}: not a regular file")
    with open(path, "rb") as handle:
        start = handle.read(len(NPY_MAGIC))
    if start.startswith(ZIP_STARTS):
        what = "a .npz archive (np.savez)" if path.lower().endswith(".npz") else "a zip archive"
        raise InputError(f"{flag}: {what}, not one table: save the array with np.save and give "
                         f"that .npy file")
    compressed = [name for magic, name in COMPRESSED_STARTS.items() if start.startswith(magic)]
    if compressed:
        raise InputError(f"{flag}: compressed ({compressed[0]}): decompress it first; this sample "
                         f"reads .npy and text")
    if start and NPY_MAGIC.startswith(start):  # a .npy file, whole or cut short
        return _open_npy(path, flag, status.st_size)
    return _open_text(path, flag, status.st_size)


def _open_npy(path: str, flag: str, size: int) -> Table:
    """A .npy header, read by numpy.lib.format and checked against the file's size."""
    with open(path, "rb") as handle, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a header written by Python 2 warns before it is read
        try:
            version = np.lib.format.read_magic(handle)
            read_header = NPY_READERS.get(version)
            header = read_header(handle) if read_header else None  # at most NumPy's 10000 bytes
        except (ValueError, TypeError, OverflowError):
            if handle.tell() >= size:  # NumPy's reader met the end of the file
                raise InputError(f"{flag}: its .npy header is cut short: the file holds only "
                                 f"{size} bytes") from None
            raise InputError(f"{flag}: its .npy header is not one NumPy can read (np.save writes "
                             f"one it can)") from None
        offset = handle.tell()
    if header is None:
        raise InputError(f"{flag}: a .npy file of format version {version[0]}.{version[1]}, "
                         f"which this sample cannot read (np.save writes 1.0 to 3.0)")
    shape, _, dtype = header
    if any(length < 0 for length in shape):
        raise InputError(f"{flag}: its .npy header gives a negative length: shape {list(shape)}")
    if dtype.hasobject:
        raise InputError(f"{flag}: holds Python objects (pickles are not loaded)")
    count = int(np.prod(shape, dtype=object))
    data = count * dtype.itemsize
    if data > size - offset:
        raise InputError(f"{flag}: its data is cut short: its header describes shape {list(shape)} "
                         f"of {_kind(dtype)}, {_bytes(data)}, and the file holds "
                         f"{_bytes(size - offset)} after the {offset}-byte header")
    return Table(path, flag, tuple(shape), dtype, 2 * data + 8 * count)


def _bytes(size: int) -> str:
    return f"{size} bytes ({gib(size)})" if size >= 1 << 20 else f"{size} bytes"


# -- text tables --------------------------------------------------------------------------------
# The separator comes from the first line of data: a semicolon if it has one, else a comma, else
# tabs or spaces. '#' starts a comment, a whitespace-only line is blank, a byte-order mark is
# skipped, and lines end as Python's text files end them (LF, CRLF or a lone CR).


def _open_text(path: str, flag: str, size: int) -> Table:
    """Text: the first data line's separator and columns, and all lines counted (a bounded read)."""
    if size > MAX_TEXT_BYTES:
        raise InputError(f"{flag}: {gib(size)} of text is more than the {gib(MAX_TEXT_BYTES)} this "
                         f"sample parses; save the table as .npy")
    separator, columns, problem = _scan(path, flag, whole=False)
    if problem:
        raise InputError(f"{flag}: cannot read it as numbers: {problem}")
    if not columns:
        return Table(path, flag, (0, 0), None, 0)
    lines = characters = 0
    for line in _lines(path, flag, "surrogateescape"):  # bounded: a line past MAX_LINE raises
        lines += 1
        characters += len(line)
    return Table(path, flag, (lines, columns), None, TEXT_PARSE_FACTOR * characters, separator)


def _scan(path: str, flag: str, whole: bool) -> tuple[str | None, int, str | None]:
    """The first data line's separator and columns, and its problem (``whole``: any line's)."""
    separator = None
    columns = 0
    first = 0
    for number, line in enumerate(_lines(path, flag, "surrogateescape"), 1):
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: a byte that was not UTF-8
            return separator, columns, f"line {number} is not UTF-8 text"
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        if not columns:
            separator = _separator(text)
            first = number
        fields = [field.strip() for field in text.split(separator)]
        columns = columns or len(fields)
        problem = _line_problem(number, text, fields, (separator, columns, first))
        if problem is not None or not whole:
            return separator, columns, problem
    return separator, columns, None


def _lines(path: str, flag: str, errors: str = "strict") -> Iterator[str]:
    """The text's lines, bounded by MAX_LINE and MAX_TEXT_BYTES whatever size the file reports."""
    read = 0
    with open(path, encoding="utf-8-sig", errors=errors) as text:
        for number, line in enumerate(iter(lambda: text.readline(MAX_LINE + 1), ""), 1):
            read += len(line)
            if len(line) > MAX_LINE:
                raise InputError(f"{flag}: line {number} is longer than {MAX_LINE} characters: "
                                 f"not a table of numbers")
            if read > MAX_TEXT_BYTES:
                raise InputError(f"{flag}: more than {gib(MAX_TEXT_BYTES)} of text, which is more "
                                 f"than this sample parses; save the table as .npy")
            yield line


def _separator(text: str) -> str | None:
    return next((separator for separator in SEPARATORS if separator and separator in text), None)


def _line_problem(number: int, text: str, fields: list[str],
                  table: tuple[str | None, int, int]) -> str | None:
    """What is wrong with one line, given the table's separator, columns and first data line."""
    separator, columns, first = table
    if len(fields) != columns:
        own = _separator(text)
        if own != separator:
            return (f"line {number} separates its columns by {SEPARATORS[own]}, line {first} "
                    f"by {SEPARATORS[separator]}; use one separator throughout")
        return (f"line {number} has {len(fields)} columns, line {first} has {columns}; every line "
                f"needs as many")
    bad = [field for field in fields if not is_number(field)]
    if not bad:
        return None
    pieces = NOT_NUMBER_TEXT.split(text)
    if number == first and not any(NUMBER_LIKE.match(piece) for piece in pieces):
        return (f"line {number} holds no numbers ({_short(text)}): start a header line with '#', "
                f"which makes it a comment")  # only words, on the first line: a header
    if separator is None and any(map(is_number, NOT_NUMBER_TEXT.split(bad[0]))):
        return (f"line {number} holds numbers with no separator this sample reads between them "
                f"({_short(bad[0])}): separate the columns by {READ}")
    return f"line {number}, column {fields.index(bad[0]) + 1} is not a number: {_short(bad[0])}"


def is_number(field: str) -> bool:
    """A number as NumPy reads one (Python's float() also takes 1_000 and other scripts' digits)."""
    try:
        float(field)
    except ValueError:
        return False
    return field.isascii() and "_" not in field


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= SHORTEN else text[:SHORTEN - 3] + "..."


# -- the literals ---------------------------------------------------------------------------------


def parse_graph(features_text: str | None, edges_text: str | None) -> Graph:
    """Both literals (None: the default); a problem names the flag the user gave, not a default."""
    given = features_text is not None
    features = parse_node_features(features_text if given else DEFAULT_NODE_FEATURES)
    if edges_text is not None:
        return Graph(features, parse_edges(edges_text, len(features), default_features=not given))
    edges = np.array(ast.literal_eval(DEFAULT_EDGES), dtype=np.int64)  # a constant: no checks
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
    """``"[[0, 1], [1, 2]]"`` -> ``[E, 2]`` int64, each id checked against ``num_nodes``."""
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
    return "1 node has features" if num_nodes == 1 else f"{num_nodes} nodes have features"


# -- memory ---------------------------------------------------------------------------------------
# The estimates count the arrays held at the run's peaks (formulas: docs/usage.md). W alone (C x F,
# up to 65536 x 65536) can be 32 GiB of float64 for a graph of ten nodes.


def host_bytes(n: int, e: int, f: int, c: int, itemsize: int, conversion: int = 0) -> int:
    """Host bytes: float64 working copies (features, X, the reference's sums, means, logits and
    probabilities, X and X_out read back, the edges' source rows, the edges and their order, W), the
    arrays in the precision, the float32 outputs, and the largest conversion to the precision."""
    float64 = 7 * n * f + 3 * e * f + 6 * e + 6 * c * n + 2 * c * f
    in_precision = 4 * n * f + e * f + 2 * c * f
    largest = max(n * f, e * f, c * f)
    return 8 * float64 + itemsize * in_precision + 4 * (n * f + c * n) + conversion * largest


def device_bytes(n: int, e: int, f: int, c: int, itemsize: int, workspace: int) -> int:
    """GPU bytes: the buffers (X_out apart from X) and W, twice for TensorRT, and the workspace."""
    buffers = itemsize * (3 * n * f + e * f + c * f) + 4 * e + 4 * n + 4 * (n * f + c * n)
    return 2 * buffers + workspace


def available_bytes() -> int | None:
    """Bytes this process may still allocate (MemAvailable, or less under RLIMIT_AS), or None."""
    limits = []
    with contextlib.suppress(OSError, ValueError), open("/proc/meminfo") as meminfo:
        limits += [int(line.split()[1]) * 1024 for line in meminfo
                   if line.startswith("MemAvailable:")]
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        in_use = 0
        with contextlib.suppress(OSError, ValueError, IndexError):
            pages = int(Path("/proc/self/statm").read_text().split()[0])
            in_use = pages * os.sysconf("SC_PAGE_SIZE")
        limits.append(max(0, soft - in_use))
    return min(limits) if limits else None


def check_host_memory(options: InputOptions, precision: model.Precision, num_classes: int,
                      sizes: Sizes, before_large: Callable[[], Any] | None = None) -> None:
    arrays = host_bytes(sizes.nodes or 1, sizes.edges, sizes.features, num_classes,
                        precision.itemsize, precision.conversion_bytes)
    needed = max(sizes.reading, arrays)
    ensure_fits(flags_named(options, num_classes), sizes, num_classes, needed, available_bytes())
    if needed > LARGE_WORK and before_large is not None:
        before_large()


def check_gpu_memory(prepared: PreparedInputs, precision: str, workspace: int, free: int) -> None:
    """Raise if the run's GPU memory, the plugin's workspace included, does not fit in ``free``."""
    inputs = prepared.inputs
    nodes, features = inputs.x.shape
    sizes = Sizes(nodes, inputs.idx.shape[0], features)
    classes = inputs.weights.shape[0]
    needed = device_bytes(nodes, sizes.edges, features, classes, model.get(precision).itemsize,
                          workspace)
    ensure_fits("the graph", sizes, classes, needed, free, kind="GPU memory")


def ensure_fits(what: str, sizes: Sizes, classes: int, needed: int, available: int | None,
                kind: str = "memory") -> None:
    if available is None or needed <= available:
        return
    counts = f"E = {sizes.edges}, F = {sizes.features}, C = {classes}{sizes.note}"
    if sizes.nodes is not None:
        counts = f"N = {sizes.nodes}, {counts}"
    raise InputError(f"{what} ({counts}): needs about {gib(needed)} of {kind}, this process may "
                     f"use {gib(available)}")


def flags_named(options: InputOptions, num_classes: int) -> str:
    """The flags as typed, untyped values named as defaults: ``--edge-file 'e.csv' with the
    default --num-features 4 and --num-classes 8``."""
    choice = options.graph
    literals = (("--node-features", choice.node_features), ("--edges", choice.edges))
    source = joined([flag for flag, value in literals if value is not None])
    if choice.synthetic is not None:
        source = "--synthetic " + " ".join(map(str, choice.synthetic))
    elif choice.graph or choice.edge_file:
        source = choice.source_flag()
    given = [choice.feature_flag()] if choice.feature_file else []
    if choice.has_random_features():
        given.append(_flag("--num-features", choice.num_features, DEFAULT_NUM_FEATURES))
    given.append(_flag("--num-classes", options.num_classes, num_classes))
    return f"{source or 'the default --node-features and --edges'} with {joined(given)}"


def _flag(flag: str, given: int | None, default: int) -> str:
    return f"{flag} {given}" if given is not None else f"the default {flag} {default}"
