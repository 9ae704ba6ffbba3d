# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""What the real CLI answers, in a subprocess: output that cannot be written (--help's too) is
exit 7; a flag that takes no value says so; an engine is refused for being read-only only where
it will be written; the extras a run asks for are named in the one line with everything else
missing. And docs/usage.md's statements that these answers hold up, each held by a test."""

from __future__ import annotations

import importlib
import importlib.util
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import ROOT, environment_stop, rtx_build_skip_reason
from gnn import cli
from hide_packages import hiding
from permission_bits import honour_permission_bits
from test_cli import BASE_HINT, NO_TENSORRT, PREFIX, SCRIPT, hidden_gpu_problem, problems
from test_hostile_inputs import one_line

USAGE = " ".join((ROOT / "docs" / "usage.md").read_text().split())
EXTRAS_HINT = "python3 -m pip install -r requirements/extras.txt"


def run(*args: str, env: dict[str, str] | None = None, preexec: Callable[[], None] | None = None,
        **streams: object) -> subprocess.CompletedProcess[str]:
    """The CLI from the repository's root; stdout and stderr captured unless ``streams`` says
    otherwise."""
    settings: dict[str, object] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **streams}
    return subprocess.run([sys.executable, SCRIPT, *args], text=True, cwd=ROOT, timeout=300,
                          preexec_fn=preexec, env={**os.environ, **(env or {})},
                          **settings)  # type: ignore[call-overload]


# -- output that cannot be written: exit 7 --------------------------------------------------------

def test_help_into_a_full_device_is_exit_7_with_one_line() -> None:
    with open("/dev/full", "w") as full:
        result = run("--help", stdout=full)
    assert result.returncode == 7 == cli.Exit.OUTPUT
    assert result.stderr == f"{PREFIX}cannot write the output: No space left on device\n"


def test_help_into_a_closed_pipe_is_exit_7_quietly() -> None:
    """As a run into a closed pipe (`| head`): the reader's choice, not worth a line."""
    reader, writer = os.pipe()
    os.close(reader)  # closed before the child starts: no race with its first write
    try:
        result = run("--help", stdout=writer)
    finally:
        os.close(writer)
    assert result.returncode == 7 and result.stderr == ""


@pytest.mark.parametrize("args", [["--help"], ["--seed", "1"]])
def test_a_closed_stdout_is_exit_7_with_one_line(args: list[str]) -> None:
    """Started with stdout closed (`>&-`), Python has no sys.stdout: print() would drop it all."""
    result = run(*args, stdout=None, preexec=lambda: os.close(1))
    assert result.returncode == 7
    assert result.stderr == f"{PREFIX}cannot write the output: stdout is closed\n"


def test_an_error_that_stderr_cannot_take_is_exit_7() -> None:
    with open("/dev/full", "w") as full:
        result = run("--num-classes", "0", stderr=full)
    assert result.returncode == 7 and result.stdout == ""


def test_an_error_with_stderr_closed_is_exit_7_and_stays_off_stdout() -> None:
    result = run("--num-classes", "0", stderr=None, preexec=lambda: os.close(2))
    assert result.returncode == 7 and result.stdout == ""


# -- flags that take no value ---------------------------------------------------------------------

NO_VALUE_FLAGS = sorted(option for action in cli.build_parser()._actions if action.nargs == 0
                        for option in action.option_strings if option.startswith("--"))


def test_the_flags_without_a_value_are_found() -> None:
    assert NO_VALUE_FLAGS == ["--aot", "--cuda-graph", "--help", "--no-alias", "--validate",
                              "--verbose"]


@pytest.mark.parametrize("flag", NO_VALUE_FLAGS)
def test_a_flag_given_a_value_says_it_takes_none(tmp_path: Path, flag: str) -> None:
    result = run(f"{flag}=yes", env=hiding(tmp_path, "numpy"))  # a flag error needs no package
    one_line(result, 2)
    assert result.stderr == f"{PREFIX}{flag} takes no value, got 'yes'\n"


@pytest.mark.parametrize(("flag", "value"), [("-v=2", "2"), ("-vv=1", "1"), ("-vvv=3", "3")])
def test_a_counted_short_flag_given_a_value_says_it_takes_none(flag: str, value: str) -> None:
    """-vv=1 is read as -v, then v=1: the value is the 1, not '=1'."""
    result = run(flag)
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}--verbose takes no value, got {value!r}\n"


def test_help_given_twice_prints_the_help_as_docs_usage_says() -> None:
    """--help ends the run as soon as it is read, so a second one is never refused."""
    assert ("and so is `--help`, which prints the help and ends the run as soon as it is read"
            in USAGE)
    result = run("--help", "--help")
    assert result.returncode == 0 and result.stdout.startswith("usage: ") and result.stderr == ""


# -- engines: refused for being read-only only where they will be written -------------------------

def read_only(path: Path) -> Path:
    path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH | (stat.S_IXUSR if path.is_dir() else 0))
    return path


def test_a_read_only_engine_that_may_be_loaded_is_accepted(tmp_path: Path) -> None:
    """Whether it fits the run only TensorRT can tell, after the GPU check: up to there, fine."""
    engine = tmp_path / "ro.plan"
    engine.write_bytes(b"an engine")
    Path(f"{engine}.json").write_text("{}")
    read_only(engine)
    read_only(Path(f"{engine}.json"))
    result = run("--engine", str(engine), "--seed", "1", preexec=honour_permission_bits)
    assert result.returncode == environment_stop()[0], result.stderr
    assert "Graph: 4 nodes" in result.stdout


def test_an_engine_in_a_read_only_directory_is_accepted_to_be_loaded(tmp_path: Path) -> None:
    (tmp_path / "engines").mkdir()
    engine = tmp_path / "engines" / "karate.plan"
    engine.write_bytes(b"an engine")
    read_only(tmp_path / "engines")
    result = run("--engine", str(engine), "--graph", "karate", preexec=honour_permission_bits)
    assert result.returncode == environment_stop()[0], result.stderr


def test_a_new_engine_in_a_read_only_directory_is_refused_saying_it_would_be_written(
        tmp_path: Path) -> None:
    directory = read_only(tmp_path)
    engine = directory / "new.plan"
    result = run("--engine", str(engine), preexec=honour_permission_bits)
    one_line(result, 2)
    assert result.stderr == (f"{PREFIX}--engine {str(engine)!r}: the engine will be built and "
                             f"saved there, but its directory {str(directory)!r} is not "
                             f"writable\n")


REBUILD = """
import sys
from gnn.cli import InputError
from gnn.outputs import check_rebuild
try:
    check_rebuild(sys.argv[1], "it was built for precision fp16, this run needs fp32")
except InputError as error:
    print(error)
"""


@pytest.mark.parametrize(("unwritable", "why"), [
    ("ro.plan", "the engine file {engine!r} is not writable"),
    ("ro.plan.json", "its description {description!r} is not writable"),
    (".", "its directory {directory!r} is not writable"),
])
def test_an_engine_that_must_be_rebuilt_is_refused_first_if_it_cannot_be_written(
        tmp_path: Path, unwritable: str, why: str) -> None:
    """The script asks this before a rebuild (tested below on TensorRT-RTX)."""
    engine, description = tmp_path / "ro.plan", tmp_path / "ro.plan.json"
    engine.write_bytes(b"an engine")
    description.write_text("{}")
    read_only(tmp_path / unwritable)
    result = subprocess.run([sys.executable, "-c", REBUILD, str(engine)], capture_output=True,
                            text=True, cwd=ROOT, timeout=60, preexec_fn=honour_permission_bits)
    names = {"engine": str(engine), "description": str(description), "directory": str(tmp_path)}
    assert result.stdout == (f"--engine {str(engine)!r}: the engine there must be rebuilt (it was "
                             f"built for precision fp16, this run needs fp32) and saved, but "
                             f"{why.format(**names)}\n"), result.stderr


# What the script's engine step does with a saved engine that cannot serve the run and cannot be
# written, on TensorRT-RTX (as tests/test_rtx_stand_in_build.py runs it): no description beside
# the engine means a rebuild, refused before any build starts or is announced.
OBTAIN = """
import sys
sys.path[:0] = [sys.argv[2], sys.argv[2] + "/tests"]
import tensorrt_rtx
from conftest import product_on_rtx
import aliased_io_plugin
from gnn.outputs import EngineSpec
from gnn.cli import InputError
from gnn.inputs import parse_graph
from gnn.model import make_run_inputs
with product_on_rtx(tensorrt_rtx):
    spec = EngineSpec("TensorRT-RTX", "GPU", "89", "fp32", 1, 3, 16, 16, True, "3", "class", "")
    inputs = make_run_inputs(parse_graph(None, None), 3, "fp32", 0)
    try:
        aliased_io_plugin.obtain_engine(sys.argv[1], inputs, spec, False, None,
                                  say=lambda line: print("said:", line))
    except InputError as error:
        print(error)
"""


@pytest.mark.rtx
def test_the_engine_step_refuses_a_rebuild_it_cannot_write_before_building(tmp_path: Path) -> None:
    if rtx_build_skip_reason():
        pytest.skip(str(rtx_build_skip_reason()))
    engine = tmp_path / "old.plan"
    engine.write_bytes(b"an engine without its description")
    read_only(tmp_path)
    result = subprocess.run([sys.executable, "-c", OBTAIN, str(engine), str(ROOT)],
                            capture_output=True, text=True, timeout=300,
                            preexec_fn=honour_permission_bits)
    assert result.stdout == (f"--engine {str(engine)!r}: the engine there must be rebuilt (no "
                             f"readable description of the engine next to it) and saved, but its "
                             f"directory {str(tmp_path)!r} is not writable\n"), result.stderr


def test_a_picture_into_a_read_only_directory_is_refused_saying_it_would_be_written(
        tmp_path: Path) -> None:
    picture = read_only(tmp_path) / "g.png"
    result = run("--draw-graph", str(picture), preexec=honour_permission_bits)
    one_line(result, 2, f"--draw-graph {str(picture)!r}: the picture will be written there, but "
                        f"its directory {str(tmp_path)!r} is not writable")


# -- one line names everything missing, the extras the run asks for included ---------------------

NO_EXTRAS = ("networkx", "matplotlib")


@pytest.mark.parametrize(("args", "extras_line"), [
    (["--graph", "karate", "--draw-graph", "k.png"],
     f"--draw-graph needs networkx and matplotlib: {EXTRAS_HINT}"),
    (["--graph", "les-miserables"], f"--graph les-miserables needs networkx: {EXTRAS_HINT}"),
    (["--graph", "florentine", "--draw-graph", "f.png"],
     f"--graph florentine and --draw-graph need networkx and matplotlib: {EXTRAS_HINT}"),
])
def test_in_a_bare_environment_one_line_names_the_extras_too(tmp_path: Path, args: list[str],
                                                            extras_line: str) -> None:
    """docs/usage.md: "one line names them all", so that one round of installing fixes it."""
    assert "one line names them all" in USAGE
    env = {"CUDA_VISIBLE_DEVICES": "", **hiding(tmp_path, "numpy", *NO_EXTRAS, "tensorrt")}
    result = run(*[str(tmp_path / word) if word.endswith(".png") else word for word in args],
                 env=env)
    assert result.returncode == 3, result.stderr
    numpy, extras, gpu, tensorrt = problems(result)
    assert numpy == f"NumPy is not installed: {BASE_HINT}" and extras == extras_line
    assert gpu.startswith(hidden_gpu_problem()) and tensorrt == NO_TENSORRT


def test_with_numpy_the_extras_are_named_with_the_other_packages(tmp_path: Path) -> None:
    env = {"CUDA_VISIBLE_DEVICES": "", **hiding(tmp_path, "cupy", *NO_EXTRAS, "tensorrt")}
    result = run("--draw-graph", str(tmp_path / "g.png"), "--seed", "1", env=env)
    assert result.returncode == 3, result.stderr
    packages, extras, gpu, tensorrt = problems(result)
    assert packages == f"CuPy is not installed: {BASE_HINT}"
    assert extras == f"--draw-graph needs networkx and matplotlib: {EXTRAS_HINT}"
    assert gpu.startswith(hidden_gpu_problem()) and tensorrt == NO_TENSORRT


@pytest.mark.skipif(importlib.util.find_spec("networkx") is None,
                    reason="networkx (requirements/extras.txt) is not installed: it would be named too")
def test_only_the_missing_extra_is_named(tmp_path: Path) -> None:
    result = run("--draw-graph", str(tmp_path / "g.png"), env=hiding(tmp_path, "matplotlib"))
    one_line(result, 3, f"{PREFIX}--draw-graph needs matplotlib: {EXTRAS_HINT}")
    assert "run_tests.sh" not in result.stderr  # leaving the flag out is the other answer


# -- the statements of docs/usage.md these answers make true --------------------------------------

# One of each kind of failure a new user met that was not one line, or not the right one.
FAILURES = [
    (["--node-features", "[[]]"], 2),
    (["--verbose=2"], 2),
    (["--validate=yes"], 2),
    (["--edge-file", "tests/README.md"], 2),
    (["--edge-file", "README.md", "--feature-file", "LICENSE"], 2),
    (["--edge-file", "aliased_io_gnn.png"], 2),
]


@pytest.mark.parametrize(("args", "code"), FAILURES)
def test_every_failure_is_one_line_on_stderr(args: list[str], code: int) -> None:
    assert "Every failure is one line on stderr" in USAGE
    one_line(run(*args), code)


HELD_BY = {
    "Every failure is one line on stderr":
        "test_cli_answers::test_every_failure_is_one_line_on_stderr",
    "Before anything large is allocated, the run's memory is estimated":
        "test_memory_first::test_the_estimate_comes_before_the_random_features_of_an_edge_file",
    "one line names them all":
        "test_cli_answers::test_in_a_bare_environment_one_line_names_the_extras_too",
    "A line NumPy cannot read is named by its number and column":
        "test_table_files::test_a_line_numpy_cannot_read_is_named_by_its_number_and_column",
    "is read from the file itself, not from its name":
        "test_wrong_answers::test_a_text_file_named_npy_is_read_as_text",
    "No NumPy words reach the user":
        "test_wrong_answers::test_the_kind_of_a_file_is_named_in_words_never_by_numpys_code",
    "Memory is estimated before allocation on every path":
        "test_wrong_answers::test_edges_are_not_read_before_a_text_feature_file_is_sized",
    "the derived ones included, are checked before any work":
        "test_wrong_answers::test_engine_paths_derived_from_the_engine_are_checked_before_any_work",
    "Where the inputs are large work, the packages, the GPU and the precision come before":
        "test_memory_first::test_a_large_graph_is_not_made_before_the_gpu_is_sought",
    "a smaller run's inputs are all checked first":
        "test_memory_first::test_a_small_graph_is_made_and_checked_before_the_gpu_is_sought",
    "refused as soon as a line passes them, while the lines are counted":
        "test_table_files::test_a_line_past_the_limit_is_refused_as_the_file_is_opened",
    "a byte of a name that is not UTF-8 as the byte given":
        "test_output_paths::test_messages_show_a_name_that_is_not_utf8_as_its_bytes",
    "such a name is written like any other where the file system takes it":
        "test_output_paths::test_a_picture_name_that_is_not_utf8_is_written_named_as_its_bytes",
}


@pytest.mark.parametrize("statement", HELD_BY)
def test_each_statement_of_the_usage_is_held_by_a_test(statement: str) -> None:
    module, name = HELD_BY[statement].split("::")
    assert statement in USAGE and callable(getattr(importlib.import_module(module), name))


# -- where a value came from, and what is checked before the inputs ------------------------------

@pytest.mark.parametrize(("typed", "bound"), [
    ([], "the default --precision; largest finite value 3.40282e+38"),
    (["--precision", "fp32"], "largest finite value 3.40282e+38"),
])
def test_an_overflow_names_the_precision_as_typed_or_as_the_default(typed: list[str],
                                                                    bound: str) -> None:
    result = run("--node-features", "[1e39, 1, 2, 3]", *typed)
    one_line(result, 2)
    assert result.stderr == (f"{PREFIX}--node-features: a feature of magnitude 1e+39 overflows "
                             f"fp32 ({bound})\n")


@pytest.mark.parametrize(("flag", "value"), [("--max-nodes", "0"), ("--max-edges", "-1"),
                                             ("--max-nodes", str(1 << 31))])
def test_a_profile_bound_out_of_range_is_refused_before_the_inputs_are_read(
        tmp_path: Path, flag: str, value: str) -> None:
    """With the flags, as every other range: not after a graph file has been read."""
    result = run("--edge-file", str(tmp_path / "missing.csv"), flag, value)
    one_line(result, 2)
    assert result.stderr == f"{PREFIX}{flag}: must be between 1 and 2^31 - 1, got {value}\n"


@pytest.mark.parametrize(("flag", "typed", "bounds"), [
    ("--seed", "99999999999999999999999", f"0 and {(1 << 63) - 1}"),
    ("--seed", str(1 << 63), f"0 and {(1 << 63) - 1}"),
    ("--seed", "99_999_999_999_999_999_999_999", f"0 and {(1 << 63) - 1}"),
    ("--seed", "+99999999999999999999999", f"0 and {(1 << 63) - 1}"),
    ("--iterations", "0_2000000", "0 and 1000000"),
])
def test_a_value_out_of_range_is_echoed_as_typed(flag: str, typed: str, bounds: str) -> None:
    """int() also reads underscores and a plus sign: the line quotes the text, which the user can
    find in the command, not the number int() made of it."""
    result = run(flag, typed)
    one_line(result, 2)
    assert result.stderr == f"{PREFIX}{flag}: must be between {bounds}, got {typed}\n"
