# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Built-in graphs, graph files and the synthetic generator, on CPU; bad files through the real CLI."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import made_graphs as made
from gnn import inputs
from gnn import model
from gnn.cli import GraphChoice, InputError
from test_cli import assert_one_line_error, run_cli
from conftest import environment_stop, trt_skip_reason


def test_karate_club_is_both_directions_of_78_friendships_with_two_factions() -> None:
    karate = inputs.karate_club()
    graph = karate.graph
    assert (graph.num_nodes, graph.num_edges, graph.num_features) == (34, 156, 34)
    assert np.array_equal(graph.features, np.eye(34)) and karate.initial_x == "features"
    assert karate.leaders == (0, 33)
    pairs = {tuple(edge) for edge in graph.edges.tolist()}
    assert len(pairs) == 156 and all((t, s) in pairs for s, t in pairs)
    assert karate.labels is not None and np.bincount(karate.labels).tolist() == [17, 17]
    assert karate.label_names[karate.labels[0]] == "Mr. Hi" and karate.label_names[karate.labels[33]] == "Officer"
    degree = np.bincount(graph.edges[:, 1])
    assert degree[33] == 17 and degree[0] == 16  # the two leaders are the best connected


def test_networkx_graphs_come_in_both_directions() -> None:
    pytest.importorskip("networkx", reason="networkx (requirements/extras.txt) is not installed")
    assert made.networkx_graph("les-miserables", 2, 0).graph.edges.shape == (508, 2)
    florentine = made.networkx_graph("florentine", 2, 0).graph
    assert (florentine.num_nodes, florentine.num_edges) == (15, 40)


def test_networkx_graph_without_networkx_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "networkx", None)  # makes `import networkx` fail
    with pytest.raises(inputs.MissingExtra, match="pip install -r requirements/extras.txt"):
        made.networkx_graph("florentine", 2, 0)


@pytest.mark.parametrize(("name", "text"), [
    ("edges.csv", "# source,target\n0,1\n2,0\n1,2\n"),
    ("edges.tsv", "0\t1\n2\t0\n1\t2\n"),
    ("edges.txt", "0 1\n2  0\n1 2 # trailing comment\n"),
])
def test_edge_text_files(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    assert made.load_edge_file(str(path)).tolist() == [[0, 1], [2, 0], [1, 2]]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_edge_npy_files(tmp_path: Path, dtype: type) -> None:
    np.save(tmp_path / "edges.npy", np.array([[0, 1], [3, 2]], dtype=dtype))
    edges = made.load_edge_file(str(tmp_path / "edges.npy"))
    assert edges.dtype == np.int64 and edges.tolist() == [[0, 1], [3, 2]]


def test_feature_files_of_shape_n_and_n_by_f(tmp_path: Path) -> None:
    np.save(tmp_path / "a.npy", np.array([1.0, 2.0, 3.0], dtype=np.float32))
    np.save(tmp_path / "b.npy", np.arange(6).reshape(3, 2))
    assert made.load_feature_file(str(tmp_path / "a.npy")).tolist() == [[1.0], [2.0], [3.0]]
    assert made.load_feature_file(str(tmp_path / "b.npy")).shape == (3, 2)


def test_graph_from_files_without_features_gets_one_row_per_named_node(tmp_path: Path) -> None:
    np.save(tmp_path / "edges.npy", np.array([[0, 5], [5, 2]]))
    graph = made.read(inputs.state_files(GraphChoice(edge_file=str(tmp_path / "edges.npy")), num_features=3, seed=1)).graph
    assert graph.features.shape == (6, 3) and graph.num_edges == 2


def test_a_million_edges_load_from_text_quickly(tmp_path: Path) -> None:
    edges = np.random.default_rng(0).integers(0, 1000, (1_000_000, 2))
    np.savetxt(tmp_path / "big.csv", edges, fmt="%d", delimiter=",")
    assert np.array_equal(made.load_edge_file(str(tmp_path / "big.csv")), edges)


def test_synthetic_graph_is_seeded_and_has_the_asked_shape() -> None:
    one = made.synthetic_graph(1000, 20000, 5, "uniform", seed=3).graph
    again = made.synthetic_graph(1000, 20000, 5, "uniform", seed=3).graph
    other = made.synthetic_graph(1000, 20000, 5, "uniform", seed=4).graph
    assert np.array_equal(one.edges, again.edges) and np.array_equal(one.features, again.features)
    assert not np.array_equal(one.edges, other.edges)
    assert (one.num_nodes, one.num_edges, one.num_features) == (1000, 20000, 5)
    assert one.edges.min() >= 0 and one.edges.max() < 1000


def test_synthetic_degrees_uniform_vs_powerlaw() -> None:
    uniform = np.bincount(made.synthetic_graph(10_000, 200_000, 1, "uniform", 0).graph.edges[:, 1], minlength=10_000)
    powerlaw = np.bincount(made.synthetic_graph(10_000, 200_000, 1, "powerlaw", 0).graph.edges[:, 1], minlength=10_000)
    assert uniform.mean() == powerlaw.mean() == 20
    assert uniform.max() < 50 and uniform.std() < 6  # Poisson(20): std ~4.5
    # N * u^3: the hottest node gets about E * (1/N)^(1/3) = 9,300 edges; the median node about
    # E / (3N) * 2^(2/3) = 10.6, half the mean
    assert powerlaw.max() > 5000 and 8 <= np.median(powerlaw) <= 13


def test_predicted_vs_true_lines() -> None:
    probs = np.array([[0.9, 0.2], [0.1, 0.8]])
    lines = model.predicted_vs_true(probs, np.array([0, 0]), ("Mr. Hi", "Officer"))
    assert lines == ["  member  0: predicted Mr. Hi   joined Mr. Hi",
                     "  member  1: predicted Officer  joined Mr. Hi    <- wrong",
                     "Accuracy: 1 of 2 members predicted in the faction they joined (wrong: member 1)"]


def write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def write_bytes(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def save(path: Path, array: np.ndarray) -> str:
    np.save(path, array)
    return str(path)


BAD_FILES = [
    ("missing", lambda d: ["--edge-file", str(d / "nope.csv")], "no such file"),
    ("empty", lambda d: ["--edge-file", write(d / "e.csv", "")], "the graph has no edges"),
    ("three columns", lambda d: ["--edge-file", write(d / "e.csv", "0,1,2\n1,2,0\n")], "expected 2 columns"),
    ("not numbers", lambda d: ["--edge-file", write(d / "e.txt", "0 1\na b\n")],
     "cannot read it as numbers: line 2, column 1 is not a number: 'a'"),
    # NumPy's own words would name its `usecols` parameter and count rows from 0.
    ("ragged", lambda d: ["--edge-file", write(d / "e.csv", "# edges\n0,1\n1,2,3\n")],
     "cannot read it as numbers: line 3 has 3 columns, line 2 has 2; every line needs as many"),
    ("header", lambda d: ["--edge-file", write(d / "e.csv", "src,dst\n0,1\n")],
     "cannot read it as numbers: line 1 holds no numbers ('src,dst'): start a header line with '#', which makes it "
     "a comment"),
    ("a word in the features", lambda d: ["--edge-file", write(d / "e.csv", "0,1\n"), "--feature-file",
                                          write(d / "f.csv", "1,2\n3,x\n")],
     "--feature-file 'FEATURES': cannot read it as numbers: line 2, column 2 is not a number: 'x'"),
    ("not UTF-8", lambda d: ["--edge-file", write_bytes(d / "e.csv", b"0,1\n1,\xff\n")],
     "cannot read it as numbers: line 2 is not UTF-8 text"),
    # The format is read from the content: text named .npy is text.
    ("not an npy", lambda d: ["--edge-file", write(d / "e.npy", "garbage")],
     "cannot read it as numbers: line 1 holds no numbers ('garbage'): start a header line with '#'"),
    ("negative id in text", lambda d: ["--edge-file", write(d / "e.csv", "0,1\n-1,0\n")],
     "edge 1 names node -1, which is negative"),
    ("empty path", lambda d: ["--edge-file", ""], "--edge-file '': an empty path; give a file name"),
    ("blank path", lambda d: ["--edge-file", "x.csv", "--feature-file", " "],
     "--feature-file ' ': an empty path; give a file name"),
    ("fractional id", lambda d: ["--edge-file", write(d / "e.csv", "0,1\n1,2.5\n")], "names node 2.5, which is not an integer"),
    ("negative id", lambda d: ["--edge-file", save(d / "e.npy", np.array([[0, 1], [-1, 0]]))], "names node -1, which is negative"),
    ("pickled npy", lambda d: ["--edge-file", save(d / "e.npy", np.array([{"a": 1}], dtype=object))],
     "holds Python objects (pickles are not loaded)"),
    ("id beyond features", lambda d: ["--edge-file", save(d / "e.npy", np.array([[0, 1], [1, 7]])),
                                      "--feature-file", save(d / "f.npy", np.ones(3))],
     "(one row per node): 3 nodes have features, but edge 1 [1, 7] of --edge-file"),
    ("nan feature", lambda d: ["--edge-file", save(d / "e.npy", np.array([[0, 1]])),
                               "--feature-file", save(d / "f.npy", np.array([1.0, np.nan]))], "NaN or infinite"),
    ("inf feature", lambda d: ["--edge-file", save(d / "e.npy", np.array([[0, 1]])),
                               "--feature-file", save(d / "f.npy", np.array([[1.0], [np.inf]]))], "NaN or infinite"),
    ("empty features", lambda d: ["--edge-file", save(d / "e.npy", np.array([[0, 1]])),
                                  "--feature-file", save(d / "f.npy", np.zeros((0, 2)))], "expected shape [N] or [N, F]"),
    ("3-d features", lambda d: ["--edge-file", save(d / "e.npy", np.array([[0, 1]])),
                                "--feature-file", save(d / "f.npy", np.zeros((2, 2, 2)))], "expected shape [N] or [N, F]"),
    ("features alone", lambda d: ["--feature-file", save(d / "f.npy", np.ones(3))], "only with --edge-file"),
    ("graph and literals", lambda d: ["--graph", "karate", "--edges", "[[0, 1]]"], "cannot be combined"),
    ("two sources", lambda d: ["--graph", "karate", "--synthetic", "4", "4", "1"], "not allowed with argument"),
    ("empty synthetic", lambda d: ["--synthetic", "0", "5", "1"], "N, E and F must be >= 1"),
    ("huge synthetic", lambda d: ["--synthetic", "10", str(1 << 31), "1"], "below 2^31"),
    ("bad degrees", lambda d: ["--synthetic", "10", "5", "1", "--degrees", "zipf"], "invalid choice: 'zipf'"),
    ("zero features", lambda d: ["--graph", "florentine", "--num-features", "0"], "--num-features: must be between 1"),
    ("repeated flag", lambda d: ["--seed", "1", "--seed", "2"], "--seed: given more than once; give each flag once"),
    ("repeated alias", lambda d: ["--node-features", "[1, 2]", "--node_features", "[3, 4]"],
     "--node_features: given more than once"),
    ("repeated switch", lambda d: ["--validate", "--validate"], "--validate: given more than once"),
]


@pytest.mark.parametrize(("case", "make_args", "needle"), BAD_FILES, ids=[case for case, _, _ in BAD_FILES])
def test_bad_graph_inputs_exit_2_with_one_line(tmp_path: Path, case: str, make_args, needle: str) -> None:
    assert_one_line_error(run_cli(*make_args(tmp_path)), 2, needle.replace("FEATURES", str(tmp_path / "f.csv")))


@pytest.mark.skipif(trt_skip_reason() is None, reason="TensorRT is installed here")
@pytest.mark.parametrize("args", [["--graph", "karate"], ["--synthetic", "2000", "30000", "4", "--degrees", "powerlaw"]])
def test_graph_sources_reach_the_environment_checks(args: list[str]) -> None:
    """The graph loads and is summarised; only then the missing GPU (exit 4) or TensorRT (exit 3)."""
    result = run_cli(*args, "--seed", "1")
    assert_one_line_error(result, *environment_stop())
    assert "In-degree: min" in result.stdout and "Adjacency" not in result.stdout


def test_a_feature_file_in_text_is_read_one_row_per_node(tmp_path: Path) -> None:
    """--help says text is accepted; it is, as CSV, TSV or whitespace, one row per node."""
    csv = made.load_feature_file(write(tmp_path / "f.csv", "# x, y\n1,2\n3,4\n5,6\n"))
    column = made.load_feature_file(write(tmp_path / "f.txt", "1\n3\n5\n"))
    assert csv.tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] and column.tolist() == [[1.0], [3.0], [5.0]]
    graph = made.read(inputs.state_files(GraphChoice(edge_file=write(tmp_path / "e.tsv", "0\t2\n1\t2\n"), feature_file=str(tmp_path / "f.csv")), 4, 0)).graph
    assert graph.num_nodes == 3 and graph.num_features == 2


def test_a_byte_order_mark_is_not_part_of_the_first_number(tmp_path: Path) -> None:
    """Spreadsheets write UTF-8 with a byte-order mark; NumPy alone would read '\\ufeff0' as a word."""
    path = tmp_path / "e.csv"
    path.write_bytes(b"\xef\xbb\xbf0,1\n1,0\n")
    assert made.load_edge_file(str(path)).tolist() == [[0, 1], [1, 0]]
    features = tmp_path / "f.csv"
    features.write_bytes(b"\xef\xbb\xbf1.5\n2\n")
    assert made.load_feature_file(str(features)).tolist() == [[1.5], [2.0]]


def test_a_word_in_a_feature_file_names_its_line_and_column(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        made.load_feature_file(write(tmp_path / "f.csv", "1,2\n3,x\n"))
    assert str(caught.value).endswith("cannot read it as numbers: line 2, column 2 is not a number: 'x'")


@pytest.mark.parametrize(("value", "written"), [(-1.0, "-1"), (2.5, "2.5"), (1e20, "1e+20"), (float("nan"), "nan"),
                                                (-3, "-3")])
def test_a_node_id_is_echoed_as_the_file_wrote_it(value: float, written: str) -> None:
    assert inputs._bad_id(value).split(", which ")[0] == written


def test_one_node_is_singular() -> None:
    from gnn.inputs import nodes_with_features

    assert [nodes_with_features(n) for n in (1, 2)] == ["1 node has features", "2 nodes have features"]


def test_text_features_on_one_line_blame_the_feature_file(tmp_path: Path) -> None:
    """Features written across one line of text are one node's; the line names --feature-file first."""
    edges, features = write(tmp_path / "e.csv", "0,1\n1,2\n"), write(tmp_path / "f.txt", "1 3 5\n")
    result = run_cli("--edge-file", edges, "--feature-file", features)
    assert_one_line_error(result, 2, f"error: --feature-file {features!r} (one row per node): 1 node has features, "
                                     f"but edge 0 [0, 1] of --edge-file {edges!r} names node 1\n".strip())
