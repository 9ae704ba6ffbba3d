# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The paths a run writes (--draw-graph, --engine) and reads, through the real CLI in a
subprocess: a picture that a full device refuses is exit 7, the documented code for output that
cannot be written; a parent that is a file is "not a directory", not "does not exist"; an engine
path where no engine file can be saved (a device, its description a directory) is refused before
any work; a loop of symbolic links is called one; a name that is not UTF-8 is a name like any
other, and every message shows its bytes as given (\\xff)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import environment_stop, extras_missing
from gnn.cli import quote_path
from test_hostile_inputs import one_line, run_cli

PREFIX = "aliased_io_plugin.py: error: "


@pytest.mark.skipif(extras_missing() is not None, reason=f"pictures: {extras_missing()}")
def test_a_picture_onto_a_full_device_is_exit_7(tmp_path: Path) -> None:
    """Its path passes every check (a link to a device that takes writes); the write fails."""
    picture = tmp_path / "full.png"
    picture.symlink_to("/dev/full")
    result = run_cli("--draw-graph", str(picture), "--seed", "1")
    one_line(result, 7, f"--draw-graph {str(picture)!r}: cannot write it (No space left on device)")


@pytest.mark.parametrize(("flag", "name"), [("--draw-graph", "g.png"), ("--engine", "e.plan")])
def test_a_parent_that_is_a_file_is_not_a_directory(tmp_path: Path, flag: str, name: str) -> None:
    (tmp_path / "file").write_text("x")
    for path in (tmp_path / "file" / name, tmp_path / "file" / "sub" / name):
        result = run_cli(flag, str(path))
        one_line(result, 2, f"{flag} {str(path)!r}: {str(tmp_path / 'file')!r} is not a directory")
        assert result.stdout == ""


def test_an_engine_path_that_cannot_hold_an_engine_file_is_refused_before_any_work(
        tmp_path: Path) -> None:
    """A built engine would be moved onto /dev/null, or the run would fail after the build when
    its description (PATH.json) is a directory."""
    link = tmp_path / "full.plan"
    link.symlink_to("/dev/full")
    (tmp_path / "dir.plan.json").mkdir()
    for path, problem in (("/dev/null", "the engine is saved as a file, but '/dev/null' is not a "
                                        "regular file"),
                          (str(link), f"the engine is saved as a file, but {str(link)!r} is not a "
                                      f"regular file"),
                          (str(tmp_path / "dir.plan"),
                           f"its description is saved as a file, but "
                           f"{str(tmp_path / 'dir.plan.json')!r} is a directory")):
        result = run_cli("--engine", path, "--seed", "1")
        one_line(result, 2, f"--engine {path!r}: {problem}")
        assert result.stdout == ""  # before any work


def test_a_loop_of_symbolic_links_is_called_one(tmp_path: Path) -> None:
    os.symlink("b.csv", tmp_path / "a.csv")
    os.symlink("a.csv", tmp_path / "b.csv")
    loop = str(tmp_path / "a.csv")
    one_line(run_cli("--edge-file", loop), 2,
             f"--edge-file {loop!r}: cannot read it (Too many levels of symbolic links)")
    for picture in (f"{loop}/g.png", str(tmp_path / "loop.png")):
        if picture.endswith("loop.png"):
            os.symlink("loop.png", picture)
        one_line(run_cli("--draw-graph", picture), 2,
                 f"--draw-graph {picture!r}: Too many levels of symbolic links")


# -- names that are not UTF-8 ----------------------------------------------------------------------


def not_utf8(folder: Path, name: bytes) -> str:
    """``folder/name`` as Python holds a name of such bytes (os.fsdecode: surrogateescape)."""
    return os.fsdecode(os.fsencode(folder) + b"/" + name)


def test_an_engine_name_that_is_not_utf8_passes_its_checks(tmp_path: Path) -> None:
    """It was a UnicodeEncodeError, a traceback and exit 1 ("validation failed")."""
    engine = not_utf8(tmp_path, b"\xff.plan")
    result = run_cli("--engine", engine, "--seed", "1")
    assert "Traceback" not in result.stderr
    assert result.returncode == environment_stop()[0], result.stderr  # past the checks: 4 here
    assert os.path.isfile(engine) == (result.returncode == 0)


@pytest.mark.skipif(extras_missing() is not None, reason=f"pictures: {extras_missing()}")
def test_a_picture_name_that_is_not_utf8_is_written_named_as_its_bytes(tmp_path: Path) -> None:
    picture = not_utf8(tmp_path, b"\xff.png")
    result = run_cli("--draw-graph", picture, "--seed", "1")
    assert "Traceback" not in result.stderr
    assert result.returncode == environment_stop()[0], result.stderr
    assert f"Drew the input graph to '{tmp_path}/\\xff.png'" in result.stdout.splitlines()
    with open(os.fsencode(tmp_path) + b"/\xff.png", "rb") as written:
        assert written.read(8) == b"\x89PNG\r\n\x1a\n"


def test_messages_show_a_name_that_is_not_utf8_as_its_bytes(tmp_path: Path) -> None:
    """The new user's bad/\\xff-nodir/x.plan was shown as bad/\\udcff-nodir/x.plan; input paths
    too, the one that is in the way of a directory among them."""
    folder = str(tmp_path.resolve())
    (tmp_path / os.fsdecode(b"\xff")).write_text("a file, not a directory")
    for args, line in (
            (["--engine", os.fsdecode(b"bad/\xff-nodir/x.plan")],
             f"--engine 'bad/\\xff-nodir/x.plan': the directory '{folder}/bad/\\xff-nodir' does "
             f"not exist"),
            (["--edge-file", os.fsdecode(b"\xff.csv")], "--edge-file '\\xff.csv': no such file"),
            (["--edge-file", os.fsdecode(b"\xff/e.csv")],
             "--edge-file '\\xff/e.csv': '\\xff' is not a directory")):
        result = run_cli(*args, cwd=tmp_path)
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == f"{PREFIX}{line}\n"


def test_only_the_bytes_of_a_name_are_shown_as_bytes() -> None:
    """A backslash of the name itself stays one (repr doubles it), before the text "udcff" or a
    byte; a character that is not ASCII stays as it is."""
    assert quote_path(os.fsdecode(b"a\xff\x80b")) == "'a\\xff\\x80b'"
    assert quote_path("a\\udcff") == "'a\\\\udcff'"
    assert quote_path("\\" + os.fsdecode(b"\xff")) == "'\\\\\\xff'"
    assert quote_path("caf\u00e9\n") == "'caf\u00e9\\n'"
