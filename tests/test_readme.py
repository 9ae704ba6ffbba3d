# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The README cannot drift from the code.

* It stays short: at most 280 lines, NVIDIA's sample skeleton with the captured output and the
  performance table.
* Its usage block is ``--help``'s usage, and docs/usage.md holds ``--help`` whole; docs/usage.md's
  options table names every option, and the numbers it and ``--help`` state are the code's.
* Each of its three aliasing snippets is code from the file and function it names; the lines that put
  the copied plugin in a network call what the plugin, the network and the runner really have.
* "What you see": its first block is the real CLI on a machine without a GPU, checked against the CLI
  here (exactly, where this machine has no driver and no TensorRT either). The second goes on from
  there: every line not marked ``# [TensorRT]`` is what the real CLI prints, checked here as far as
  the machine reaches and on a GPU under TensorRT-RTX (with the stand-in aggregation from tests/, NOT
  the plugin) to the end. The marked lines come only from TensorRT with the plugin; the rtx tests
  check them against the strings the plugin route's code builds (``plugin_aggregation``,
  ``binding_note``, ``validate``).
* Each abbreviation and runtime name is spelled out where it first appears, and the performance
  table's bold marks exactly the cases where ours is the faster.
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

from conftest import (ROOT, environment_stop, nvidia_driver_missing, product_on_rtx, real_tensorrt_version,
                      tensorrt_replaced_by)
from gnn import cli, inputs, machine, model
from import_graph import closure
from test_reference import gnn_reference

README = (ROOT / "README.md").read_text()
USAGE_DOC = (ROOT / "docs" / "usage.md").read_text()
TENSORRT_ONLY = "  # [TensorRT]"
HARNESS = str(ROOT / "tests" / "rtx_cli.py")


def section(text: str, heading: str) -> str:
    """The section under a ``##`` or ``###`` heading, to the next heading of its level or above."""
    found = re.search(rf"^(#{{2,3}}) {re.escape(heading)}\n", text, flags=re.M)
    assert found, heading
    after = re.search(rf"^#{{2,{len(found.group(1))}}} ", text[found.end():], flags=re.M)
    return text[found.start():found.end() + after.start() if after else len(text)]


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


# 280 lines in NVIDIA's skeleton, and since then the skew table (twelve skews in random order, each against uniform
# order and against its limit), which users of real, Zipf-like graphs need to see before they pick the kernel.
def test_readme_is_at_most_305_lines() -> None:
    assert len(README.splitlines()) <= 305


def test_readme_usage_block_is_the_usage_help_prints() -> None:
    usage = next(block for block in blocks(section(README, "Sample `--help` options"), "text")
                 if block.startswith("usage:"))
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
    from gnn.cli import MIN_DEFAULT_BOUND
    from gnn.machine import WARMUP

    rows, helps = option_rows(), option_helps()
    for option in ("--max-nodes", "--max-edges"):
        assert f"at least {MIN_DEFAULT_BOUND})" in helps[option] and f"at least {MIN_DEFAULT_BOUND}." in rows[option]
    aot_floor = ".".join(map(str, cli.MIN_TENSORRT_AOT))
    assert f"needs TensorRT >= {aot_floor}" in helps["--aot"] and f"(TensorRT {aot_floor}+)" in rows["--aot"]
    assert f"1 to {cli.MAX_CLASSES}." in rows["--num-classes"]
    assert f"up to {inputs.MAX_DRAW_NODES} nodes" in rows["--draw-graph"] and cli.EXTRAS in helps["--draw-graph"]
    assert f"{WARMUP} warm-up runs" in rows["--iterations"]
    assert cli.MAX_SEED == 2**63 - 1 and "0 to 2^63 - 1" in rows["--seed"]


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
                     ("aliased_io_plugin.py", "builder_config"), ("aliased_io_plugin.py", "Runner.__init__")]


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


KERNELS = ROOT / "kernels"


def test_the_file_table_says_what_the_plugin_needs() -> None:
    """The plugin's row names what it imports, as its real import closure has them (read with ast from
    scatter_add_plugin.py, imports inside functions included), and the packages it names for NVRTC and
    the CUDA headers are requirements/plugin.txt's; the kernels' row names every file in kernels/."""
    quoted = re.findall(r"`([^`]+)`", file_row("scatter_add_plugin.py"))
    modules = {name for name in quoted if re.fullmatch(r"[a-z_][a-z0-9_.]*", name)} - {"kernels/", "register"}
    packages = {name for name in quoted if re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", name)}
    files, outside = closure(ROOT / "scatter_add_plugin.py")
    assert covers(modules, outside), f"imported, not named: {sorted(outside)}"
    assert all(any(covers({name}, {module}) for module in outside) for name in modules), \
        f"named, not imported: {sorted(modules)}"
    plugin = (ROOT / "requirements" / "plugin.txt").read_text()
    assert packages and all(re.search(rf"^{package}\b", plugin, flags=re.M) for package in packages), packages
    named = set(re.findall(r"`(\w+\.(?:py|cu))`", file_row("kernels/")))
    assert named | {"__init__.py"} == {path.name for path in KERNELS.iterdir() if path.suffix in (".py", ".cu")}


@pytest.mark.parametrize("route", ["scatter_add_plugin.py", "scatter_add_qdp.py"])
def test_each_route_needs_only_its_file_and_kernels(route: str) -> None:
    """What "Copying the plugin" and the file table tell a plugin author to copy is all the route imports
    of this repository (the .cu files are read from kernels/ too)."""
    files, _ = closure(ROOT / route)
    assert {path.relative_to(ROOT).parts[0] for path in files} == {route, "kernels"}
    copying = " ".join(section(README, "Copying the plugin").split())
    assert f"`{route}` and the folder `kernels/`" in copying or f"copy `{route}` and `kernels/`" in copying
    assert "copy it with `kernels/`" in file_row(route)


MINIMAL_COPY = ("scatter_add_plugin.py", "kernels/__init__.py", "kernels/cuda_calls.py", "kernels/reference.py",
                "kernels/reference.cu")


def test_the_minimal_copy_is_what_copying_names_and_as_long_as_it_says() -> None:
    """"Copying the plugin" names the minimal copy's files and their lines (tests/test_plugin_contract.py runs
    exactly these copied alone); the fast kernel's files drop in."""
    copying = " ".join(section(README, "Copying the plugin").split())
    lines = sum(len((ROOT / name).read_text().splitlines()) for name in MINIMAL_COPY)
    assert f"**The minimal copy** ({lines} lines)" in copying
    assert all(f"`{Path(name).name}`" in copying for name in MINIMAL_COPY)
    assert "add `plan.py`, `scatter_add.py` and `scatter_add.cu`" in copying


# -- what you see --------------------------------------------------------------------------------

PROMPT = "$ python3 aliased_io_plugin.py "


def without_a_gpu() -> tuple[list[str], list[str], str]:
    """The first block of "What you see", captured on a machine without a GPU: the command's arguments,
    what it printed on stdout, and its one line on stderr."""
    block = blocks(section(README, "What you see"), "text")[0].splitlines()
    assert block[0].startswith(PROMPT), block[0]
    return block[0].removeprefix(PROMPT).split(), block[1:-1], block[-1]


def shown() -> tuple[list[str], list[str]]:
    """The command "What you see" names (its arguments), and the lines it shows for a GPU with TensorRT:
    the inputs of the first block, then the second block, which goes on from them."""
    args, printed, _ = without_a_gpu()
    return args, printed + blocks(section(README, "What you see"), "text")[1].splitlines()


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
        tolerance = model.TOLERANCES[precision]
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
def script_on_rtx() -> Iterator[ModuleType]:
    rtx = pytest.importorskip("tensorrt_rtx", reason="tensorrt-rtx-cu13 (requirements/dev.txt) is not installed")
    with product_on_rtx(rtx):
        yield importlib.import_module("aliased_io_plugin")


@pytest.mark.rtx
def test_marked_lines_are_what_the_plugin_route_prints(script_on_rtx: ModuleType) -> None:
    """The lines only TensorRT prints, rebuilt from the strings the plugin route's code makes."""
    binding_note = script_on_rtx.binding_note
    args, block = shown()
    marked = [line[:-len(TENSORRT_ONLY)] for line in block if line.endswith(TENSORRT_ONLY)]
    plugin = script_on_rtx.plugin_aggregation()
    precision = args[args.index("--precision") + 1]
    assert matches(marked[0], f"TensorRT 11.4.0 on NVIDIA H200, precision {precision}")
    assert marked[1] == f"Building engine: N up to 16, E up to 16, F 1, {precision}, {plugin.name}, aliasing on ..."
    assert matches(marked[2], f"Inference time: 0.456 ms (first run, CUDA events; {plugin.timing_covers})")
    assert plugin.separate_x_out is None and marked[3] == f"In place: {binding_note(None, plugin.separate_x_out)}"
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
    sums, _ = model.scatter_add_reference(run_inputs.x, run_inputs.src, run_inputs.idx)
    means, probs = gnn_reference(run_inputs.x, run_inputs.features, source.graph.edges, run_inputs.weights)
    result = RunResult(means=means, probs=probs, x=sums, x_out=sums, inference_ms=0.0)
    matrix = model.probability_lines(probs)
    start = block.index(matrix[0])
    assert block[start + 1:start + len(matrix)] == matrix[1:]
    passed, lines = validate(result, run_inputs, source.graph, precision, model.TOLERANCES[precision],
                             check_predictions=False, in_place=True)
    assert passed
    shown_lines = [line.removesuffix(TENSORRT_ONLY) for line in block[-len(lines):]]
    assert all(matches(shown_line, line) for shown_line, line in zip(shown_lines, lines, strict=True)), lines


def test_the_run_without_a_gpu_is_what_the_cli_prints_there(tmp_path: Path) -> None:
    """Its stdout is the inputs, the same on every machine; its stderr line is the one the CLI makes from
    its own strings for a machine with CuPy for CUDA 13 but no driver and no TensorRT, and where this
    machine is such a one, the whole run is compared, exit status included."""
    from gnn import machine
    from gnn.cli import MissingPackage, NoGpu

    args, printed, error = without_a_gpu()
    no_driver = machine.driver_problem(machine.Driver(missing="libcuda.so.1"), 13)
    no_tensorrt = MissingPackage(f"TensorRT is not installed: {machine.TENSORRT_INSTALL}")
    assert error == f"{cli.PROG}: error: {no_driver}; {no_tensorrt}. {NoGpu.what_runs}"
    result = subprocess.run([sys.executable, str(ROOT / "aliased_io_plugin.py"), *args], capture_output=True,
                            text=True, timeout=600, cwd=tmp_path)
    assert result.stdout.splitlines()[:len(printed)] == printed
    stop = environment_stop()
    if stop[0] == 4 and nvidia_driver_missing() and real_tensorrt_version() is None:
        import cupy

        if cupy.cuda.runtime.runtimeGetVersion() // 1000 == 13:
            assert (result.returncode, result.stdout.splitlines(), result.stderr) == (4, printed, f"{error}\n")


def test_the_lines_that_put_the_plugin_in_a_network_call_what_exists() -> None:
    """Each call of "Copying the plugin" is the one the sample makes, with the names the code has."""
    snippet = blocks(section(README, "Copying the plugin"), "python")[0]
    calls = code_lines(snippet)
    assert calls[0] == "import scatter_add_plugin" and calls[1] == "scatter_add_plugin.register()"
    assert calls[2] == 'plugin = scatter_add_plugin.ScatterAddPlugin(kernel="reference")'  # the minimal copy's
    assert calls[3] == "layer = network.add_plugin_v3([X, src, idx], [], plugin)"
    assert calls[4] == 'layer.get_output(0).name = "X_out"'
    assert calls[5] == "network.mark_output(layer.get_output(0))"
    assert calls[6] == "config.set_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03, True)"
    assert calls[7] == 'context.set_tensor_address("X_out", x_address)' and len(calls) == 8
    plugin = ast.parse((ROOT / "scatter_add_plugin.py").read_text())
    functions = {node.name: node for node in ast.walk(plugin) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    assert {"register", "last_error", "ScatterAddPlugin"} <= set(functions)
    init = next(node for node in functions["ScatterAddPlugin"].body
                if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    assert init.args.args[1].arg == "aliased" and ast.literal_eval(init.args.defaults[0]) is True
    assert init.args.args[2].arg == "kernel"
    made = function_source(ROOT / "aliased_io_plugin.py", "plugin_aggregation")
    assert "functools.partial(scatter_add_plugin.ScatterAddPlugin, aliased, kernel)" in made
    added = function_source(ROOT / "aliased_io_plugin.py", "define_network")
    assert "layer = network.add_plugin_v3([x, src, idx], [], plugin)" in added
    assert re.search(r'^UPDATED_X = "X_out"', (ROOT / "aliased_io_plugin.py").read_text(), flags=re.M)
    stubs = ROOT / ".typings" / "tensorrt_bindings" / "tensorrt.pyi"
    if stubs.is_file():  # tensorrt-stubs (run_tests.sh): TensorRT's own signatures
        text = stubs.read_text()
        assert "def set_preview_feature(" in text and "def set_tensor_address(" in text and "def add_plugin_v3(" in text


class Recorder:
    """A network, builder configuration, execution context, layer or tensor that records the calls made on it;
    a call returns a recorder of its own, the same one for the same call (a layer's output 0 twice is one tensor)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[object, ...]]] = []
        self.results: dict[str, Recorder] = {}

    def __getattr__(self, name: str) -> object:
        def call(*args: object) -> Recorder:
            self.calls.append((name, args))
            return self.results.setdefault(f"{name}{args!r}", Recorder())

        return call


@pytest.mark.lean
def test_the_lines_that_put_the_plugin_in_a_network_run_on_tensorrts_classes() -> None:
    """The lines as written, on TensorRT 11.4's lean runtime: a real plugin from a real registry, handed to
    a network, a configuration and a context that record what they get (the lean runtime has no builder)."""
    lean = pytest.importorskip("tensorrt_lean_bindings")
    snippet = blocks(section(README, "Copying the plugin"), "python")[0]
    network, config, context = Recorder(), Recorder(), Recorder()
    with tensorrt_replaced_by(lean, ("scatter_add_plugin",)):
        names = {"network": network, "config": config, "context": context, "trt": lean, "X": "X", "src": "src",
                 "idx": "idx", "x_address": 1 << 40}
        exec(compile(snippet, "README.md", "exec"), names)  # noqa: S102 - the README's own lines
        plugin = names["plugin"]
        assert lean.get_plugin_registry().get_creator("ScatterAddPlugin", "4", "aliased_io_sample") is not None
    layer = network.results[f"add_plugin_v3{(['X', 'src', 'idx'], [], plugin)!r}"]
    x_out = layer.results["get_output(0,)"]
    assert network.calls == [("add_plugin_v3", (["X", "src", "idx"], [], plugin)), ("mark_output", (x_out,))]
    assert layer.calls == [("get_output", (0,)), ("get_output", (0,))] and x_out.name == "X_out"
    assert plugin.get_aliased_input(0) == 0 and plugin.get_aliased_input(1) == -1 and plugin.kernel == "reference"
    assert config.calls == [("set_preview_feature", (lean.PreviewFeature.ALIASED_PLUGIN_IO_10_03, True))]
    assert context.calls == [("set_tensor_address", ("X_out", 1 << 40))]


# Where each is first named, it is spelled out (the patterns end where the README's expansion does).
FIRST_USE = {
    "QDP": r"quickly deployable plugin \(QDP\)",
    "AOT": r"ahead of time \(AOT\)",
    "lean runtime": r"lean runtime \(the part of TensorRT that loads and runs engines",
    "stand-in": r"stand-in for the plugin: TensorRT layers that compute the same sums and counts",
    "TensorRT-RTX": r"TensorRT-RTX \(NVIDIA's TensorRT for RTX GPUs\)",
}


@pytest.mark.parametrize("term", FIRST_USE)
def test_each_term_is_spelled_out_where_it_first_appears(term: str) -> None:
    text = " ".join(README.split())
    first = re.search(FIRST_USE[term], text)
    assert first is not None, FIRST_USE[term]
    assert text.index(term) == first.start() + first.group(0).index(term), f"{term} appears before it is spelled out"


def test_bold_marks_exactly_the_cases_we_win() -> None:
    rows = [line for line in section(README, "Performance").splitlines() if re.match(r"^\| [^|]+ \| [\d.]+ \|", line)]
    cells = [cell for line in rows for cell in re.findall(r"\| (\*\*)?([\d.]+)x(\*\*)? (?=\|)", line)]
    assert len(rows) >= 5 and len(cells) >= len(rows)
    for bold, ratio, closing in cells:
        assert bool(bold) == bool(closing) == (float(ratio) > 1.0), ratio


def test_what_you_see_writes_what_varies_as_placeholders() -> None:
    """A time or an error that changes from run to run is a word in angle brackets, never a number
    that looks like output; the exact zeros are claims, checked like any other line."""
    _, block = shown()
    assert not [line for line in block if RUN_DEPENDENT.search(line)]
    assert {"<seconds>", "<ms>", "<error>"} <= set(re.findall(r"<[a-z ]+>", "\n".join(block)))
    assert matches("Engine build time: <seconds> s", "Engine build time: 1.23 s")
    assert not matches("Engine build time: 1.23 s", "Engine build time: 1.24 s")
