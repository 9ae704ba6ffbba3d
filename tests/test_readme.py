# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The README cannot drift from the code.

* It fits on one screen's worth of scrolling: at most 200 lines.
* Its usage block is ``--help``'s usage, and docs/usage.md holds ``--help`` whole; docs/usage.md's
  options table names every option, and the numbers it and ``--help`` state are the code's.
* Each of its three aliasing snippets is code from the file and function it names.
* "What you see": every line not marked ``# [TensorRT]`` is what the real CLI prints, checked here
  as far as the machine reaches (CPU: up to the GPU check) and on a GPU under TensorRT-RTX (with
  the stand-in aggregation from tests/, NOT the plugin) to the end. The marked lines come only from
  TensorRT with the plugin; the rtx tests check them against the strings the plugin route's code
  builds (``plugin_aggregation``, ``binding_note``, ``validate``).
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from conftest import ROOT, environment_stop, product_on_rtx
from gnn import cli, environment, inputs, options, precisions
from import_graph import closure

README = (ROOT / "README.md").read_text()
USAGE_DOC = (ROOT / "docs" / "usage.md").read_text()
TENSORRT_ONLY = "  # [TensorRT]"
HARNESS = str(ROOT / "tests" / "rtx_cli.py")


def section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


@functools.lru_cache(maxsize=None)
def help_output(columns: str | None = None) -> str:
    """``--help`` as a user sees it on a terminal ``columns`` wide (argparse reads COLUMNS), or on
    none at all."""
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    result = subprocess.run([sys.executable, str(ROOT / "aliased_io_plugin.py"), "--help"], capture_output=True,
                            text=True, timeout=120, env={**env, **({"COLUMNS": columns} if columns else {})})
    assert result.returncode == 0, result.stderr
    return result.stdout


def words(text: str) -> list[str]:
    """Compared word by word: line wrapping is argparse's and may differ between Python versions."""
    return text.split()


def test_readme_is_at_most_200_lines() -> None:
    assert len(README.splitlines()) <= 200


def test_readme_usage_block_is_the_usage_help_prints() -> None:
    usage = next(block for block in blocks(section(README, "Usage"), "text") if block.startswith("usage:"))
    printed = help_output()
    assert words(usage) == words(printed[:printed.index("\n\n")])


def test_docs_usage_holds_help_whole() -> None:
    assert words(blocks(USAGE_DOC, "text")[0]) == words(help_output())


@pytest.mark.parametrize("columns", ["40", "80", "200"])
def test_help_is_the_same_on_every_terminal_width(columns: str) -> None:
    """--help wraps at one width, so docs/usage.md's block is what any terminal shows: line for
    line up to Python 3.12; Python 3.13 wraps the usage's long group in two lines."""
    assert help_output(columns) == help_output()
    if sys.version_info < (3, 13):
        assert help_output(columns) == blocks(USAGE_DOC, "text")[0]


def option_rows() -> dict[str, str]:
    """docs/usage.md's options table: each option its first column names -> the row's text."""
    table = section(USAGE_DOC, "The options in detail")
    rows = re.findall(r"^\| (`-.*?) \| (.*) \|$", table, flags=re.M)
    return {option: text for names, text in rows for option in re.findall(r"`(-[-\w]+)", names)}


def option_helps() -> dict[str, str]:
    """--help's text for each option string, as the parser holds it."""
    parser = cli.build_parser()
    return {option: action.help or "" for action in parser._actions if action.help != argparse.SUPPRESS
            for option in action.option_strings}


def test_docs_options_table_names_every_option_and_no_other() -> None:
    rows, helps = option_rows(), option_helps()
    assert set(rows) - {"-vv"} <= set(helps), set(rows) - set(helps)
    parser = cli.build_parser()
    for action in parser._actions:
        if action.help != argparse.SUPPRESS and "--help" not in action.option_strings:
            assert set(action.option_strings) & set(rows), f"docs/usage.md's table lacks {action.option_strings}"


def test_the_numbers_help_and_the_docs_state_are_the_codes() -> None:
    from gnn.engine_runner import WARMUP
    from gnn.profile_bounds import MIN_DEFAULT_BOUND

    rows, helps = option_rows(), option_helps()
    for option in ("--max-nodes", "--max-edges"):
        assert f"at least {MIN_DEFAULT_BOUND})" in helps[option] and f"at least {MIN_DEFAULT_BOUND}." in rows[option]
    aot_floor = ".".join(map(str, environment.MIN_TENSORRT_AOT))
    assert f"needs TensorRT >= {aot_floor}" in helps["--aot"] and f"(TensorRT {aot_floor}+)" in rows["--aot"]
    assert f"1 to {options.MAX_CLASSES}." in rows["--num-classes"]
    assert f"up to {inputs.MAX_DRAW_NODES} nodes" in rows["--draw-graph"] and environment.EXTRAS in helps["--draw-graph"]
    assert f"{WARMUP} warm-up runs" in rows["--iterations"]
    assert options.MAX_SEED == 2**63 - 1 and "0 to 2^63 - 1" in rows["--seed"]


def test_help_and_docs_say_the_engine_without_python_was_not_run() -> None:
    """docs/aot_route.md lists trtexec loading the engine among what was never run, so neither
    --help nor the options table may claim it as done."""
    aot_route = " ".join((ROOT / "docs" / "aot_route.md").read_text().split())
    assert re.search(r"Never run:[^.]* trtexec loading the engine\.", aot_route)
    help_text, row = option_helps()["--aot"], option_rows()["--aot"]
    assert "run without Python" in help_text and "not run by us" in help_text
    assert "run without Python" in row and "has not been run by us" in row
    assert "then runs without Python" not in help_text + row


# -- the three snippets ------------------------------------------------------------------------

SNIPPET = re.compile(r"\*\*\d\. [^*]+\*\* \(`([^`]+)`,\s+`([^`]+)`.*?```python\n(.*?)```", flags=re.S)


def code_lines(text: str) -> list[str]:
    """Lines without comments or indentation; the snippets' comments are the README's own."""
    lines = (line.split("  #")[0].strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def function_source(path: Path, qualified: str) -> str:
    text = path.read_text()
    node: ast.AST = ast.parse(text)
    for name in qualified.split("."):
        node = next(child for child in ast.iter_child_nodes(node)
                    if isinstance(child, (ast.ClassDef, ast.FunctionDef)) and child.name == name)
    return ast.get_source_segment(text, node) or ""


def test_readme_has_the_three_snippets() -> None:
    named = [(path, function) for path, function, _ in SNIPPET.findall(section(README, "Aliasing in three pieces"))]
    assert named == [("scatter_add_plugin.py", "ScatterAddPlugin.get_aliased_input"),
                     ("gnn/trt_network.py", "builder_config"), ("gnn/engine_runner.py", "EngineRunner.__init__")]


@pytest.mark.parametrize("path, function, snippet", SNIPPET.findall(README), ids=lambda value: str(value)[:40])
def test_each_snippet_is_the_code_it_names(path: str, function: str, snippet: str) -> None:
    source = code_lines(function_source(ROOT / path, function))
    wanted = code_lines(snippet)
    assert wanted, "an empty snippet"
    positions = [source.index(line) if line in source else -1 for line in wanted]
    assert -1 not in positions, f"not in {path} {function}: {wanted[positions.index(-1)]}"
    assert positions == sorted(positions), f"out of order in {path} {function}"


# -- the files -----------------------------------------------------------------------------------

def file_row(name: str) -> str:
    rows = dict(re.findall(r"^\| `([^`]+)` \| (.*) \|$", section(README, "The files"), flags=re.M))
    return rows[name]


def covers(names: set[str], modules: set[str]) -> bool:
    """Every module is one of ``names`` or inside one (``cuda.bindings`` covers ``cuda.bindings.driver``)."""
    return all(any(module == name or module.startswith(f"{name}.") for name in names) for module in modules)


def test_the_file_table_says_what_the_plugin_needs() -> None:
    """The package's row names every file in it and what the plugin imports, as its real import closure
    has them (read with ast from scatter_add_plugin.py, imports inside functions included); the
    packages it names for NVRTC and the CUDA headers are requirements/base.txt's."""
    quoted = re.findall(r"`([^`]+)`", file_row("scatter_add_plugin/"))
    named_files = {name for name in quoted if re.fullmatch(r"\w+\.(py|cu)", name)}
    modules = {name for name in quoted if re.fullmatch(r"[a-z_][a-z0-9_.]*", name) and name not in named_files}
    modules -= {"plugin.register"}
    packages = {name for name in quoted if re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", name)}
    package = ROOT / "scatter_add_plugin"
    files, outside = closure(package / "plugin.py")
    assert {path.parent for path in files} == {package}  # the plugin needs nothing outside its folder
    assert named_files | {"__init__.py"} == {path.name for path in package.iterdir() if path.suffix in (".py", ".cu")}
    assert covers(modules, outside), f"imported, not named: {sorted(outside)}"
    assert all(any(covers({name}, {module}) for module in outside) for name in modules), \
        f"named, not imported: {sorted(modules)}"
    base = (ROOT / "requirements" / "base.txt").read_text()
    assert packages and all(re.search(rf"^{package}\b", base, flags=re.M) for package in packages), packages


# -- what you see --------------------------------------------------------------------------------

def shown() -> tuple[list[str], list[str]]:
    """The command "What you see" names (its arguments), and its output block's lines."""
    text = section(README, "What you see")
    command = re.search(r"`python3 aliased_io_plugin\.py ([^`]*)`", text)
    assert command is not None
    return command.group(1).split(), blocks(text, "text")[0].splitlines()


# The README's placeholders, each with what it stands for in real output. The GPU's architecture is
# shown as on the H200 (sm_90) and may be any other.
PLACEHOLDERS = {"<seconds>": r"\d+\.\d+", "<ms>": r"\d+\.\d{3}", "<error>": r"\d\.\d{3}e[-+]\d{2}",
                "<version>": r"\d+\.\S+"}
ARCHITECTURE = re.compile(r"\bsm_\d+")
# Values that change between runs, written as if they were output.
RUN_DEPENDENT = re.compile(r"\b\d+(\.\d+)? m?s\b|max abs error [1-9]|max abs error 0\.\d*[1-9]")


def as_pattern(shown_line: str) -> str:
    """A README line as a regular expression for the line the CLI prints."""
    parts = re.split(f"({'|'.join(map(re.escape, PLACEHOLDERS))}|{ARCHITECTURE.pattern})", shown_line)
    return "".join(PLACEHOLDERS.get(part, ARCHITECTURE.pattern if ARCHITECTURE.fullmatch(part) else re.escape(part))
                   for part in parts)


def matches(shown_line: str, printed: str) -> bool:
    return re.fullmatch(as_pattern(shown_line), printed) is not None


def numbers(line: str) -> list[float] | None:
    """The values of a printed matrix row, e.g. ``[[0.0262 0.2813 ...``, else None."""
    if not re.fullmatch(r"\s*\[*[-\d.e+ ]+\]*", line):
        return None
    return [float(value) for value in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", line)]


def same_line(shown_line: str, printed: str, precision: str) -> bool:
    expected, actual = numbers(shown_line), numbers(printed)
    if expected is not None and actual is not None and len(expected) == len(actual):
        tolerance = precisions.TOLERANCES[precision]
        return bool(np.allclose(actual, expected, rtol=tolerance.rtol, atol=tolerance.atol))
    return matches(shown_line, printed)


def check_against(printed: list[str], block: list[str], precision: str) -> int:
    """Every printed line against the block's line at the same place; returns how many were compared."""
    assert len(printed) <= len(block), "\n".join(printed)
    compared = 0
    for number, (line, actual) in enumerate(zip(block, printed), 1):
        if line.endswith(TENSORRT_ONLY):
            continue
        assert same_line(line, actual, precision), f"README line {number} of What you see:\n  {line}\nprinted:\n  {actual}"
        compared += 1
    return compared


def test_what_you_see_as_far_as_this_machine_reaches(tmp_path: Path) -> None:
    """The real CLI, in its own process: on a CPU machine it prints the graph, then stops at the GPU."""
    args, block = shown()
    result = subprocess.run([sys.executable, str(ROOT / "aliased_io_plugin.py"), *args], capture_output=True,
                            text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == environment_stop()[0], result.stderr
    printed = result.stdout.splitlines()
    assert check_against(printed, block, args[args.index("--precision") + 1]) >= 7  # the graph at least
    if result.returncode == 0:
        assert len(printed) == len(block)


@pytest.mark.gpu
@pytest.mark.rtx
def test_what_you_see_to_the_end_on_tensorrt_rtx(tmp_path: Path) -> None:
    """The real CLI on TensorRT-RTX, with the stand-in aggregation from tests/ (NOT the plugin) in
    front of the network's unchanged rest: every unmarked line, in place, to the last."""
    args, block = shown()
    result = subprocess.run([sys.executable, HARNESS, *args], capture_output=True, text=True, timeout=600,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    printed = result.stdout.splitlines()
    assert len(printed) == len(block), result.stdout
    assert check_against(printed, block, args[args.index("--precision") + 1]) == len(
        [line for line in block if not line.endswith(TENSORRT_ONLY)])


@pytest.fixture(scope="module")
def trt_network_on_rtx() -> Iterator[ModuleType]:
    rtx = pytest.importorskip("tensorrt_rtx", reason="tensorrt-rtx-cu13 (requirements/dev.txt) is not installed")
    with product_on_rtx(rtx):
        yield importlib.import_module("gnn.trt_network")


@pytest.mark.rtx
def test_marked_lines_are_what_the_plugin_route_prints(trt_network_on_rtx: ModuleType) -> None:
    """The lines only TensorRT prints, rebuilt from the strings the plugin route's code makes."""
    from gnn.engine_runner import binding_note

    args, block = shown()
    marked = [line[:-len(TENSORRT_ONLY)] for line in block if line.endswith(TENSORRT_ONLY)]
    plugin = trt_network_on_rtx.plugin_aggregation()
    precision = args[args.index("--precision") + 1]
    assert matches(marked[0], f"TensorRT 11.4.0 on NVIDIA H200, precision {precision}")
    assert marked[1] == f"Building engine: N up to 16, E up to 16, F 1, {precision}, {plugin.name}, aliasing on ..."
    assert matches(marked[2], f"Inference time: 0.456 ms (first run, CUDA events; {plugin.enqueue})")
    assert plugin.out_of_place is None and marked[3] == f"In place: {binding_note(None, plugin.out_of_place)}"
    assert marked[4].startswith("  X (in place): max abs error") and len(marked) == 5


def test_probabilities_and_validation_lines_are_the_references(capsys: pytest.CaptureFixture[str]) -> None:
    """The block's probabilities are the float64 reference's for its inputs, printed as the CLI prints
    them (the engine must match them within the precision's tolerance); its validation lines are
    ``validate``'s words for an in-place run that matched."""
    from gnn.model import RunResult, validate

    args, block = shown()
    precision = args[args.index("--precision") + 1]
    prepared = inputs.prepare(cli.options_from(cli.build_parser().parse_args(args)).inputs)
    source, run_inputs = prepared.source, prepared.inputs
    from gnn.reference import gnn_reference, scatter_add_reference

    sums, _ = scatter_add_reference(run_inputs.x, run_inputs.src, run_inputs.idx)
    means, probs = gnn_reference(run_inputs.x, run_inputs.features, source.graph.edges, run_inputs.weights)
    result = RunResult(means=means, probs=probs, x=sums, x_out=sums, inference_ms=0.0)
    capsys.readouterr()
    cli.print_probs(probs)
    matrix = capsys.readouterr().out.splitlines()
    start = block.index(matrix[0])
    assert block[start + 1:start + len(matrix)] == matrix[1:]
    passed, lines = validate(result, run_inputs, source.graph, precision, precisions.TOLERANCES[precision],
                             check_predictions=False, in_place=True)
    assert passed
    shown_lines = [line.removesuffix(TENSORRT_ONLY) for line in block[-len(lines):]]
    assert all(matches(shown_line, line) for shown_line, line in zip(shown_lines, lines, strict=True)), lines


def test_what_you_see_writes_what_varies_as_placeholders() -> None:
    """A time or an error that changes from run to run is a word in angle brackets, never a number
    that looks like output; the exact zeros are claims, checked like any other line."""
    _, block = shown()
    assert not [line for line in block if RUN_DEPENDENT.search(line)]
    assert {"<seconds>", "<ms>", "<error>"} <= set(re.findall(r"<[a-z ]+>", "\n".join(block)))
    assert matches("Engine build time: <seconds> s", "Engine build time: 1.23 s")
    assert not matches("Engine build time: 1.23 s", "Engine build time: 1.24 s")
