# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Edge and feature files as new users give them: the separator read from the text, not from the
name; the kind (.npy or text) from the first bytes, whatever the name's case; and every problem of
a .npy file, or of a file NumPy would read some other way (.npz, compressed), in the sample's
words with sizes in bytes. In process, and through the real CLI in a subprocess."""

from __future__ import annotations

import bz2
import gzip
import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, environment_stop
import made_graphs as made
from gnn import inputs
from gnn.cli import GraphChoice, InputError
from test_hostile_inputs import one_line, run_cli

EDGES = [[0, 1], [1, 2]]
USAGE = " ".join((ROOT / "docs" / "usage.md").read_text().split())

# The same two edges, in files whose names say nothing, or the wrong thing, about how the columns
# are separated; the first seven are the cases a new user met.
SAME_EDGES = [
    ("commas.tsv", "0,1\n1,2\n"),
    ("commas.txt", "0,1\n1,2\n"),
    ("no_extension", "0,1\n1,2\n"),
    ("UPPER.CSV", "0,1\n1,2\n"),
    ("tabs.csv", "0\t1\n1\t2\n"),
    ("semicolons.csv", "0;1\n1;2\n"),
    ("spaces.csv", "0 1\n1  2\n"),
    ("comma_and_space.txt", "# source, target\n0, 1\n1 ,2\n"),
    ("windows.tsv", "0\t1\r\n1\t2\r\n"),
    ("bom_semicolons.txt", "\ufeff0;1\n1;2\n"),
]


@pytest.mark.parametrize(("name", "text"), SAME_EDGES, ids=[name for name, _ in SAME_EDGES])
def test_the_separator_is_read_from_the_text(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_bytes(text.encode())
    assert made.load_edge_file(str(tmp_path / name)).tolist() == EDGES


@pytest.mark.parametrize("name", [name for name, _ in SAME_EDGES[:7]])
def test_a_new_users_edge_files_pass_every_input_check(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(dict(SAME_EDGES)[name].encode())
    result = run_cli("--edge-file", str(tmp_path / name), "--seed", "1")
    assert result.returncode == environment_stop()[0], result.stderr  # past the inputs: not 2
    assert "Graph: 3 nodes, 2 edges, 4 feature(s) per node" in result.stdout


def test_an_edge_file_on_stdin_is_read_by_its_content(tmp_path: Path) -> None:
    (tmp_path / "good.csv").write_text("0,1\n1,2\n")
    with (tmp_path / "good.csv").open() as stdin:
        result = run_cli("--edge-file", "/dev/stdin", "--seed", "1", stdin=stdin)
    assert result.returncode == environment_stop()[0], result.stderr
    assert "Graph: 3 nodes, 2 edges" in result.stdout


def test_features_in_text_take_any_separator(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("1;2.5\n3;4\n")
    (tmp_path / "g.dat").write_text("1,2.5\n3,4\n")
    assert made.load_feature_file(str(tmp_path / "f.txt")).tolist() == [[1.0, 2.5], [3.0, 4.0]]
    assert made.load_feature_file(str(tmp_path / "g.dat")).tolist() == [[1.0, 2.5], [3.0, 4.0]]


NO_SEPARATOR = "holds numbers with no separator this sample reads between them"
# A line that holds numbers is never called a header to comment out; each answer names the fault.
BAD_LINES = [
    ("0|1\n1|2\n", f"line 1 {NO_SEPARATOR} ('0|1'): separate the columns by a comma, a semicolon, "
                   f"tabs or spaces"),
    ("0:1\n", f"line 1 {NO_SEPARATOR} ('0:1')"),
    ("0,1\n1;2\n", "line 2 separates its columns by a semicolon, line 1 by a comma; use one "
                   "separator throughout"),
    ("0\t1\n1,2\n", "line 2 separates its columns by a comma, line 1 by tabs or spaces; use one "
                    "separator throughout"),
    ("0,1\n1,2,3\n", "line 2 has 3 columns, line 1 has 2; every line needs as many"),
    ("src,dst\n0,1\n", "line 1 holds no numbers ('src,dst'): start a header line with '#', which "
                       "makes it a comment"),
    ("source target\n0 1\n", "line 1 holds no numbers ('source target'): start a header line"),
]


@pytest.mark.parametrize(("text", "expected"), BAD_LINES)
def test_a_line_that_holds_numbers_is_never_called_a_header(tmp_path: Path, text: str,
                                                            expected: str) -> None:
    path = tmp_path / "e.csv"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        made.load_edge_file(str(path))
    message = str(caught.value)
    assert message.startswith(f"--edge-file {str(path)!r}: cannot read it as numbers: {expected}")
    assert ("'#'" in message) == ("holds no numbers" in expected)


@pytest.mark.parametrize("separator", [",", ";", "\t", " "])
def test_a_line_numpy_cannot_read_is_named_by_its_number_and_column(tmp_path: Path,
                                                                    separator: str) -> None:
    """docs/usage.md's statement, for every separator, in a file whose name says none."""
    assert "A line NumPy cannot read is named by its number and column" in USAGE
    path = tmp_path / "e.txt"
    path.write_text(f"# edges\n0{separator}1\n1{separator}x\n")
    one_line(run_cli("--edge-file", str(path)), 2,
             f"--edge-file {str(path)!r}: cannot read it as numbers: line 3, column 2 is not a "
             f"number: 'x'")


@pytest.mark.parametrize("name", ["EDGES.NPY", "edges.Npy", "edges.csv", "edges"])
def test_a_npy_file_is_known_by_its_content_whatever_its_name(tmp_path: Path, name: str) -> None:
    with (tmp_path / name).open("wb") as file:
        np.save(file, np.array(EDGES, dtype=np.int32))
    assert made.load_edge_file(str(tmp_path / name)).tolist() == EDGES
    with (tmp_path / "FEATURES.NPY").open("wb") as file:
        np.save(file, np.array([1.0, 2.0, 3.0]))
    features = made.load_feature_file(str(tmp_path / "FEATURES.NPY"))
    assert features.tolist() == [[1.0], [2.0], [3.0]]


def test_an_upper_case_npy_passes_every_input_check(tmp_path: Path) -> None:
    with (tmp_path / "EDGES.NPY").open("wb") as file:
        np.save(file, np.array(EDGES))
    result = run_cli("--edge-file", str(tmp_path / "EDGES.NPY"), "--seed", "1")
    assert result.returncode == environment_stop()[0], result.stderr
    assert "Graph: 3 nodes, 2 edges" in result.stdout


def test_fortran_order_arrays_are_read_as_saved_and_handed_on_in_c_order(tmp_path: Path) -> None:
    edges = np.asfortranarray(np.array([[0, 1], [1, 2], [2, 0]], dtype=np.int64))
    features = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(3, 2))
    np.save(tmp_path / "e.npy", edges)
    np.save(tmp_path / "f.npy", features)
    graph = made.read(inputs.state_files(GraphChoice(edge_file=str(tmp_path / "e.npy"), feature_file=str(tmp_path / "f.npy")), 4, 0)).graph
    assert graph.edges.tolist() == edges.tolist() and graph.features.tolist() == features.tolist()
    assert graph.edges.flags.c_contiguous and graph.features.flags.c_contiguous


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def npz_bytes(directory: Path) -> bytes:
    np.savez(directory / "archive.npz", edges=np.array(EDGES))
    return (directory / "archive.npz").read_bytes()


GOOD = npy_bytes(np.arange(100, dtype=np.int64).reshape(50, 2))  # a 128-byte header, 800 bytes
NOT_A_DICT = GOOD[:10] + b"[1, 2, 3]".ljust(118) + GOOD[128:]
SAVE_INSTEAD = "not one table: save the array with np.save and give that .npy file"
Make = Callable[[Path], bytes]

# (name, the file's bytes, the line after "--edge-file 'PATH': "). NumPy's own words ("magic
# string", "EOF", bytes reprs) never reach the user.
FILE_PROBLEMS: list[tuple[str, Make, str]] = [
    # Text named .npy is read as text, the format being read from the content (an empty file too).
    ("e.npy", lambda d: b"this is not a NumPy file\n",
     "cannot read it as numbers: line 1 holds no numbers ('this is not a NumPy file')"),
    ("e.npy", lambda d: b"", "the graph has no edges"),
    ("e.npy", lambda d: GOOD[:7], "its .npy header is cut short: the file holds only 7 bytes"),
    ("e.npy", lambda d: GOOD[:40], "its .npy header is cut short: the file holds only 40 bytes"),
    ("e.npy", lambda d: GOOD[:-10], "its data is cut short: its header describes shape [50, 2] of "
                                    "int64, 800 bytes, and the file holds 790 bytes after the "
                                    "128-byte header"),
    ("e.npy", lambda d: b"\x93NUMPY\x09\x00" + GOOD[8:], "a .npy file of format version 9.0, which "
                                                         "this sample cannot read (np.save writes "
                                                         "1.0 to 3.0)"),
    ("e.npy", lambda d: NOT_A_DICT,
     "its .npy header is not one NumPy can read (np.save writes one it can)"),
    ("e.npy", lambda d: npy_bytes(np.array([{"a": 1}], dtype=object)),
     "holds Python objects (pickles are not loaded)"),
    ("e.npz", npz_bytes, f"a .npz archive (np.savez), {SAVE_INSTEAD}"),
    ("e.npy", npz_bytes, f"a zip archive, {SAVE_INSTEAD}"),
    ("e.csv.gz", lambda d: gzip.compress(b"0,1\n1,2\n"),
     "compressed (gzip): decompress it first; this sample reads .npy and text"),
    ("e.csv.bz2", lambda d: bz2.compress(b"0,1\n1,2\n"), "compressed (bzip2): decompress it first"),
]


@pytest.mark.parametrize(("name", "make", "expected"), FILE_PROBLEMS,
                         ids=[expected[:30] for _, _, expected in FILE_PROBLEMS])
def test_file_problems_are_told_in_the_samples_words(tmp_path: Path, name: str, make: Make,
                                                     expected: str) -> None:
    path = tmp_path / name
    path.write_bytes(make(tmp_path))
    result = run_cli("--edge-file", str(path))
    one_line(result, 2, f"--edge-file {str(path)!r}: {expected}")
    for numpy_words in ("magic", "EOF", "b'", "0.0 MiB", "expected"):
        assert numpy_words not in result.stderr


def test_a_truncated_feature_file_is_told_in_bytes(tmp_path: Path) -> None:
    np.save(tmp_path / "e.npy", np.array(EDGES))
    features = tmp_path / "f.npy"
    features.write_bytes(npy_bytes(np.ones((3, 2)))[:-1])
    one_line(run_cli("--edge-file", str(tmp_path / "e.npy"), "--feature-file", str(features)), 2,
             f"--feature-file {str(features)!r}: its data is cut short: its header describes shape "
             f"[3, 2] of float64, 48 bytes, and the file holds 47 bytes after the 128-byte header")


def test_text_compressed_by_name_alone_is_not_decompressed_unbounded(tmp_path: Path) -> None:
    """NumPy would decompress a path ending in .gz, past the checks on the compressed size."""
    (tmp_path / "e.csv.gz").write_bytes(gzip.compress(b"0,1\n" * 1000))
    with pytest.raises(InputError, match=r"compressed \(gzip\): decompress it first"):
        made.load_edge_file(str(tmp_path / "e.csv.gz"))


# -- blank lines, number-like text, line ends and binary files ------------------------------------

# A line of whitespace is a blank line whatever separates the columns; before, a comma or a
# semicolon made NumPy read the spaces as a row of one column, in words that name its parameters.
WHITESPACE_LINES = [
    ("comment_after_spaces.csv", "0,1\n   # a comment\n1,2\n"),
    ("spaces_at_the_end.csv", "0,1\n1,2\n   "),
    ("semicolons.csv", "0;1\n  \n1;2\n"),
    ("tabs.tsv", "0\t1\n \t \n1\t2\n"),
    ("many_blanks.csv", "\n\n0,1\n\n   \n1,2\n\t\n\n"),
]


@pytest.mark.parametrize(("name", "text"), WHITESPACE_LINES,
                         ids=[name for name, _ in WHITESPACE_LINES])
def test_a_line_of_whitespace_is_a_blank_line(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    assert made.load_edge_file(str(tmp_path / name)).tolist() == EDGES


def test_edge_and_feature_files_with_lines_of_spaces_pass_every_input_check(
        tmp_path: Path) -> None:
    (tmp_path / "e.csv").write_text("0,1\n   # a comment\n1,2\n")
    (tmp_path / "f.csv").write_text("1,2\n3,4\n \n5,6\n")
    result = run_cli("--edge-file", str(tmp_path / "e.csv"), "--feature-file",
                     str(tmp_path / "f.csv"), "--seed", "1")
    assert result.returncode == environment_stop()[0], result.stderr
    assert "Graph: 3 nodes, 2 edges, 2 feature(s) per node" in result.stdout


def test_numpys_words_never_reach_the_user(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the line-by-line reading finds nothing wrong, NumPy's message (its parameters, its
    rows counted from 0) is not passed on."""
    monkeypatch.setattr(inputs, "_line_problem", lambda *line: None)
    (tmp_path / "e.csv").write_text("0,1\n1\n")
    with pytest.raises(InputError) as caught:
        made.load_edge_file(str(tmp_path / "e.csv"))
    assert str(caught.value) == (f"--edge-file {str(tmp_path / 'e.csv')!r}: cannot read it as "
                                 f"numbers: it is not one number per column on every line, "
                                 f"separated by a comma, a semicolon, tabs or spaces")


# Something that starts as a number does but is none (hex, other scripts' digits): data this
# sample cannot read, never a header to comment out, which would drop an edge.
NUMBER_LIKE = [
    ("0x0,0x1\n1,2\n", "line 1, column 1 is not a number: '0x0'"),
    ("0x0 0x1\n1 2\n", "line 1, column 1 is not a number: '0x0'"),
    ("\u0661,\u0662\n1,2\n", "line 1, column 1 is not a number: '\u0661'"),
    ("\uff10;\uff11\n", "line 1, column 1 is not a number: '\uff10'"),
    ("0,1\n0x1,0x2\n", "line 2, column 1 is not a number: '0x1'"),
]


@pytest.mark.parametrize(("text", "expected"), NUMBER_LIKE)
def test_a_number_like_field_is_not_a_number_not_a_header(tmp_path: Path, text: str,
                                                          expected: str) -> None:
    path = tmp_path / "e.csv"
    path.write_bytes(text.encode())
    result = run_cli("--edge-file", str(path))
    one_line(result, 2, f"--edge-file {str(path)!r}: cannot read it as numbers: {expected}")
    assert "'#'" not in result.stderr


def test_a_file_whose_lines_end_in_a_lone_cr_is_read_and_its_lines_named(tmp_path: Path) -> None:
    """Python's text files, and so NumPy here, end a line at a lone CR (old Mac files): the
    messages count the lines the same way, not the whole file as line 1."""
    (tmp_path / "good.csv").write_bytes(b"0,1\r1,2\r")
    assert made.load_edge_file(str(tmp_path / "good.csv")).tolist() == EDGES
    path = tmp_path / "bad.csv"
    path.write_bytes(b"0,1\r1,2\r2,x\r3,0\r")
    one_line(run_cli("--edge-file", str(path)), 2,
             f"--edge-file {str(path)!r}: cannot read it as numbers: line 3, column 2 is not a "
             f"number: 'x'")


def test_what_a_message_quotes_of_a_binary_file_is_short(tmp_path: Path) -> None:
    """A tar file's first line is its member's name and hundreds of NUL bytes."""
    path = tmp_path / "e.tar"
    path.write_bytes(b"edges.csv" + b"\x00" * 500 + b",1\n")
    result = run_cli("--edge-file", str(path))
    one_line(result, 2, f"--edge-file {str(path)!r}: cannot read it as numbers: line 1, column 1 "
                        f"is not a number: 'edges.csv\\x00")
    assert result.stderr.rstrip().endswith("...") and len(result.stderr) < 200 + len(str(path))


@pytest.mark.parametrize("dtype", ["float16", "float32", "longdouble", "uint8"])
def test_node_ids_of_any_type_are_checked_without_a_warning(tmp_path: Path, dtype: str) -> None:
    """The bound on node ids does not fit float16: compared there, it overflowed, and Python's
    RuntimeWarning reached stderr ahead of the one line the run ends with."""
    np.save(tmp_path / "e.npy", np.array(EDGES, dtype=dtype))
    result = run_cli("--edge-file", str(tmp_path / "e.npy"), "--seed", "1")
    code, line = environment_stop()
    assert result.returncode == code and "Graph: 3 nodes, 2 edges" in result.stdout
    assert "Warning" not in result.stderr
    assert len(result.stderr.splitlines()) == (1 if code else 0), result.stderr
    assert line in result.stderr


# -- a line past the limit -------------------------------------------------------------------------

PREFIX = "aliased_io_plugin.py: error: "
LONG_LINE = f"line 2 is longer than {inputs.MAX_LINE} characters: not a table of numbers"


def bytes_read() -> int:
    """What this process has read from files so far, by the kernel's count."""
    with open("/proc/self/io") as io_counts:
        return next(int(line.split()[1]) for line in io_counts if line.startswith("rchar:"))


def sparse_file(path: Path, start: bytes, size: int) -> Path:
    """``start``, then NUL bytes up to ``size``: a hole, nothing on disk."""
    with path.open("wb") as file:
        file.write(start)
        file.truncate(size)
    return path


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="no /proc/self/io: reads uncounted")
def test_a_line_past_the_limit_is_refused_as_the_file_is_opened(tmp_path: Path) -> None:
    """The new user's 900 MB file, "0,1" then NUL bytes: refused as the lines are counted, once
    line 2 passes 4 Mi characters, with at most 8 MiB read of the 900 MB."""
    path = sparse_file(tmp_path / "e.csv", b"0,1\n", 900_000_000)
    before = bytes_read()
    with pytest.raises(InputError) as refused:
        inputs.open_table(str(path), "--edge-file 'e.csv'", edges=True)
    read = bytes_read() - before
    assert str(refused.value) == f"--edge-file 'e.csv': {LONG_LINE}"
    assert read <= 8 << 20, f"{read} bytes read before the refusal"


def test_the_new_users_overlong_line_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = sparse_file(tmp_path / "e.csv", b"0,1\n", 900_000_000)
    result = run_cli("--edge-file", str(path), "--seed", "1")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"{PREFIX}--edge-file {str(path)!r}: {LONG_LINE}\n"


def test_an_overlong_line_of_the_edge_file_is_named_before_the_feature_file_is_opened(
        tmp_path: Path) -> None:
    """The edge file is opened first, and its lines are counted as it is opened."""
    edges = sparse_file(tmp_path / "e.csv", b"0,1\n", 3 * inputs.MAX_LINE)
    result = run_cli("--edge-file", str(edges), "--feature-file", str(tmp_path / "missing.npy"))
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}--edge-file {str(edges)!r}: {LONG_LINE}\n"


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_the_line_limit_counts_characters_as_numpy_reads_them(tmp_path: Path, ending: str) -> None:
    """A comment line of 2-byte characters, its end one character whatever its bytes: MAX_LINE
    characters (2 MAX_LINE - 1 bytes and more) are read, one more is refused as the file is
    opened. A byte-order mark is no character."""
    line = "#" + "\u00e9" * (inputs.MAX_LINE - 2) + ending
    at_limit = tmp_path / "at_limit.csv"
    at_limit.write_bytes(("\ufeff0,1" + ending + line + "1,2" + ending).encode())
    assert made.load_edge_file(str(at_limit)).tolist() == EDGES
    past = tmp_path / "past.csv"
    past.write_bytes(("0,1" + ending + "\u00e9" + line + "1,2" + ending).encode())
    with pytest.raises(InputError) as refused:
        inputs.open_table(str(past), "--edge-file 'past.csv'", edges=True)
    assert str(refused.value) == f"--edge-file 'past.csv': {LONG_LINE}"
