# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The seven classes of wrong answers a new user found in 439 hostile or odd invocations, each
through the real CLI in a subprocess, with its neighbours: NumPy's type codes in messages; a text
file named .npy refused; edges read before the memory estimate; a read without bound; --engine's
derived names unchecked; a trailing slash on an input file ignored; a single-dash long flag
misread. Every test here failed on the code before the fix."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, environment_stop
from gnn.cli import quote_path
from test_hostile_inputs import LIMIT, SCRIPT, one_line, run_cli

PREFIX = "aliased_io_plugin.py: error: "
# A NumPy type code (<U21, |S21, |V4, <f8) or a NumPy word, which mean nothing to a user.
NUMPY_WORDS = re.compile(r"[<>|=][a-zA-Z]\d*\b|\bdtype\b|\bndarray\b|\bdescr\b|\bmagic\b|\bEOF\b|"
                         r"\bbool\b|complex128|datetime64|timedelta64")

USAGE = " ".join((ROOT / "docs" / "usage.md").read_text().split())


def sparse_npy(path: Path, shape: tuple[int, ...], descr: str = "|i1") -> str:
    """A .npy file of zeros, its data a hole: no disk used, nothing to read but the header."""
    with path.open("wb") as file:
        np.lib.format.write_array_header_1_0(file, {"descr": descr, "fortran_order": False,
                                                    "shape": shape})
        file.truncate(file.tell() + np.dtype(descr).itemsize * int(np.prod(shape)))
    return str(path)


# Runs the CLI as its only child, so that the children's peak resident memory is the CLI's own.
MEASURED = """
import json, resource, subprocess, sys, time
limit = int(sys.argv[1])
start = time.perf_counter()
result = subprocess.run(sys.argv[2:], capture_output=True, text=True, timeout=300,
                        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
print(json.dumps({"returncode": result.returncode, "stdout": result.stdout, "stderr": result.stderr,
                  "seconds": time.perf_counter() - start,
                  "peak_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def measured(*args: str) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """The CLI's result, its peak resident memory in MiB and its wall time in seconds."""
    command = [sys.executable, "-c", MEASURED, str(LIMIT), sys.executable, SCRIPT, *args]
    outer = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=360,
                           check=True)
    seen = json.loads(outer.stdout)
    result = subprocess.CompletedProcess(args, seen["returncode"], seen["stdout"], seen["stderr"])
    return result, seen["peak_mib"], seen["seconds"]


# -- 1. NumPy's type codes in messages ------------------------------------------------------------

KINDS = [
    (np.array([["0", "1"], ["1", "2"]]), "text"),
    (np.array([["0" * 21, "1"]]), "text"),
    (np.array([[b"0", b"1"]]), "bytes"),
    (np.zeros((2, 2), dtype="V4"), "raw bytes"),
    (np.zeros((2, 2), dtype="<U0"), "text"),
    (np.zeros((2, 2), dtype=[("source", "<i4"), ("target", "<i4")]),
     "a record of fields (source, target)"),
    (np.array([[True, False]]), "true/false values"),
    (np.array([[1 + 0j, 2]]), "complex numbers"),
    (np.array([["2020-01-01", "2020-01-02"]], dtype="datetime64[D]"), "dates and times"),
    (np.array([[1, 2]], dtype="timedelta64[s]"), "time spans"),
]


@pytest.mark.parametrize(("array", "words"), KINDS, ids=[str(array.dtype) for array, _ in KINDS])
def test_the_kind_of_a_file_is_named_in_words_never_by_numpys_code(tmp_path: Path,
                                                                    array: np.ndarray,
                                                                    words: str) -> None:
    """docs/usage.md: "No NumPy words reach the user": a file's kind in words, edges and
    features alike."""
    assert "No NumPy words reach the user" in USAGE
    edges, features = str(tmp_path / "e.npy"), str(tmp_path / "f.npy")
    np.save(edges, array)
    result = run_cli("--edge-file", edges)
    one_line(result, 2, f"--edge-file {edges!r}: node ids must be integers, got {words}")
    assert not NUMPY_WORDS.search(result.stderr.removeprefix(PREFIX)), result.stderr
    np.save(edges, np.array([[0, 1]]))
    np.save(features, array.reshape(-1)[:2] if array.dtype.names is None else array[0])
    result = run_cli("--edge-file", edges, "--feature-file", features)
    one_line(result, 2, f"--feature-file {features!r}: features must be numbers, got {words}")
    assert not NUMPY_WORDS.search(result.stderr.removeprefix(PREFIX)), result.stderr


# -- 2. A text file named .npy ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["e.npy", "E.NPY", "e.Npy"])
def test_a_text_file_named_npy_is_read_as_text(tmp_path: Path, name: str) -> None:
    """docs/usage.md: "the format is read from the content", whatever the name says."""
    assert "is read from the file itself, not from its name" in USAGE
    (tmp_path / name).write_text("0,1\n1,2\n")
    (tmp_path / f"f{name}").write_text("1.5\n2\n3\n")
    result = run_cli("--edge-file", str(tmp_path / name), "--feature-file",
                     str(tmp_path / f"f{name}"), "--seed", "1")
    assert result.returncode == environment_stop()[0], result.stderr  # past every input check
    assert "Graph: 3 nodes, 2 edges, 1 feature(s) per node" in result.stdout


def test_a_text_file_named_npy_that_is_not_numbers_says_what_its_text_holds(tmp_path: Path) -> None:
    (tmp_path / "e.npy").write_text("this is not a NumPy file\n")
    one_line(run_cli("--edge-file", str(tmp_path / "e.npy")), 2,
             "cannot read it as numbers: line 1 holds no numbers ('this is not a NumPy file')")


# -- 3. Every source sized before its data is read ---------------------------------------------

def test_edges_are_not_read_before_a_text_feature_file_is_sized(tmp_path: Path) -> None:
    """60 million int8 edges (a hole) and one line of 100 features: 1.18 GB was read first.
    docs/usage.md: "Memory is estimated before allocation on every path"."""
    assert "Memory is estimated before allocation on every path" in USAGE
    edges = sparse_npy(tmp_path / "e.npy", (60_000_000, 2))
    (tmp_path / "f.csv").write_text(",".join(["1"] * 100) + "\n")
    result, peak, _ = measured("--edge-file", edges, "--feature-file", str(tmp_path / "f.csv"))
    one_line(result, 2, "(N = 1, E = 60000000, F = 100, C = 3): needs about ")
    assert peak < 200, f"{peak:.0f} MiB before the refusal"


def test_edges_are_not_read_before_a_feature_file_of_the_wrong_shape_is_refused(
        tmp_path: Path) -> None:
    edges = sparse_npy(tmp_path / "e.npy", (60_000_000, 2))
    features = sparse_npy(tmp_path / "f.npy", (2, 2, 2), "<f8")
    result, peak, _ = measured("--edge-file", edges, "--feature-file", features)
    one_line(result, 2, f"--feature-file {features!r}: expected shape [N] or [N, F] with N, "
                        f"F >= 1, got [2, 2, 2]")
    assert peak < 200, f"{peak:.0f} MiB before the refusal"


@pytest.mark.parametrize(("shape", "descr", "needle"), [
    ((60_000_000, 3), "|i1", "expected 2 columns (source, target), got shape [60000000, 3]"),
    ((60_000_000, 2), "<U4", "node ids must be integers, got text"),
])
def test_an_edge_file_of_the_wrong_shape_or_kind_is_refused_from_its_header(
        tmp_path: Path, shape: tuple[int, ...], descr: str, needle: str) -> None:
    edges = sparse_npy(tmp_path / "e.npy", shape, descr)
    result, peak, _ = measured("--edge-file", edges)
    one_line(result, 2, needle)
    assert peak < 200, f"{peak:.0f} MiB before the refusal"


def test_int64_edges_with_text_features_are_refused_before_they_are_read(tmp_path: Path) -> None:
    """300 million int64 edges with a text feature file: 23 s and 5.9 GB before."""
    edges = sparse_npy(tmp_path / "e.npy", (300_000_000, 2), "<i8")
    (tmp_path / "f.txt").write_text("1\n2\n3\n")
    features = str(tmp_path / "f.txt")
    result, peak, seconds = measured("--edge-file", edges, "--feature-file", features)
    one_line(result, 2, "(N = 3, E = 300000000, F = 1, C = 3): needs about ")
    assert peak < 200 and seconds < 20, (peak, seconds)


# -- 4. Reads bounded by what the flags allow ---------------------------------------------------

@pytest.mark.skipif(not os.path.exists("/proc/self/pagemap"), reason="no /proc/self/pagemap here")
@pytest.mark.parametrize("flag", ["--edge-file", "--feature-file"])
def test_a_file_that_reports_size_0_but_never_ends_is_refused_naming_its_flag(tmp_path: Path,
                                                                              flag: str) -> None:
    """/proc/self/pagemap: a regular file of size 0 that reads on for 256 TiB; 4 GB and 8 to 10 s
    before an "out of memory" that named no flag."""
    (tmp_path / "e.csv").write_text("0,1\n")
    args = ["--edge-file", "/proc/self/pagemap"] if flag == "--edge-file" else [
        "--edge-file", str(tmp_path / "e.csv"), "--feature-file", "/proc/self/pagemap"]
    result, peak, _ = measured(*args)
    one_line(result, 2, f"{flag} '/proc/self/pagemap': ")
    assert "out of memory" not in result.stderr and peak < 300, (result.stderr, peak)


# -- 5. --engine's derived names ----------------------------------------------------------------

def engine_cases(tmp_path: Path) -> list[tuple[str, str]]:
    """(the --engine path, what the one line says) for each derived name that cannot be written."""
    os.symlink("loop.plan.json", tmp_path / "loop.plan.json")
    os.symlink(str(tmp_path / "missing" / "x.json"), tmp_path / "dangling.plan.json")
    # PATH.json is 5 characters longer than PATH.
    json_long = str(tmp_path / ("j" * 251))
    loop, dangling = str(tmp_path / "loop.plan"), str(tmp_path / "dangling.plan")
    return [
        (loop, f"its description is saved as {quote_path(loop + '.json')}, but Too many levels of "
               f"symbolic links"),
        (dangling, f"its description is saved as {quote_path(dangling + '.json')}, but it is a link "
                   f"into {str(tmp_path / 'missing')!r}, which does not exist"),
        (json_long, f"its description is saved as {quote_path(json_long + '.json')}, but File name "
                    f"too long"),
        (str(tmp_path / "e.plan") + "/", "a directory's name (it ends in '/'); give a file name"),
        (str(tmp_path / "e.plan") + "/.", "a directory's name (it ends in '/.'); give a file name"),
    ]


def test_engine_paths_derived_from_the_engine_are_checked_before_any_work(tmp_path: Path) -> None:
    """docs/usage.md: output paths, "the derived ones included, are checked before any work"."""
    assert "the derived ones included, are checked before any work" in USAGE
    for path, problem in engine_cases(tmp_path):
        result = run_cli("--engine", path, "--seed", "1")
        one_line(result, 2, f"--engine {quote_path(path)}: ", problem)
        assert result.stdout == ""  # before any work


# -- 6. A trailing slash on an input file -------------------------------------------------------

@pytest.mark.parametrize("ending", ["/", "/.", "//"])
@pytest.mark.parametrize("flag", ["--edge-file", "--feature-file"])
def test_a_trailing_slash_on_an_input_file_is_not_read_as_the_file(tmp_path: Path, flag: str,
                                                                   ending: str) -> None:
    good = tmp_path / "good.csv"
    good.write_text("0,1\n1,2\n")
    args = {"--edge-file": ["--edge-file", f"{good}{ending}"],
            "--feature-file": ["--edge-file", str(good), "--feature-file", f"{good}{ending}"]}[flag]
    one_line(run_cli(*args), 2, f"{flag} {f'{good}{ending}'!r}: {str(good)!r} is not a directory")


# -- 7. A single-dash long flag -----------------------------------------------------------------

@pytest.mark.parametrize(("args", "flag"), [
    (["-validate"], "validate"), (["-help"], "help"), (["-verbose"], "verbose"),
    (["-seed", "3"], "seed"), (["-engine", "x.plan"], "engine"), (["-precision=fp16"], "precision"),
    (["--seed", "1", "-node-features", "[1, 2]"], "node-features"),
])
def test_a_single_dash_long_flag_is_named_with_its_spelling(args: list[str], flag: str) -> None:
    result = run_cli(*args)
    one_line(result, 2)
    assert result.stderr == f"{PREFIX}-{flag} is not a flag; --{flag} is\n"


def test_a_negative_number_after_a_flag_is_still_its_value() -> None:
    one_line(run_cli("--seed", "-1"), 2, "--seed: must be between 0 and")
