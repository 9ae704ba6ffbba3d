"""The real CLI in a subprocess: bad input is one line on stderr and exit 2, never a traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gnn import precisions
from conftest import ROOT, cuda_packages_missing, extras_missing, trt_skip_reason
from gnn.model import make_run_inputs
from gnn.graph_inputs import parse_graph

SCRIPT = str(ROOT / "aliased_io_plugin.py")


def run_cli(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, cwd=cwd, timeout=300,
                          env={**os.environ, **(env or {})})


def assert_one_line_error(result: subprocess.CompletedProcess[str], code: int, needle: str) -> None:
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("aliased_io_plugin.py: error: ") and needle in lines[0], lines[0]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--node-features", "[1.0, 3.0"], "--node-features: cannot parse"),
        (["--node-features", "[1.0, 'x']"], "non-numeric feature 'x'"),
        (["--node-features", "[[1, 2], [3]]"], "node 1 has 1 features"),
        (["--edges", "[[0, 1], [1, 9]]"], "names node 9, outside [0, 3]"),
        (["--edges", "[[0, 1], [1]]"], "edge 1 [1] is not a pair"),
        (["--num-classes", "0"], "--num-classes: must be between 1 and 65536, got 0"),
        (["--num-classes", "-3"], "got -3"),
        (["--num-classes", "two"], "invalid int value: 'two'"),
        (["--precision", "fp64"], "invalid choice: 'fp64'"),
        (["--precision", "fp16", "--node-features", "[1e6, 1, 1, 1]"], "overflows fp16"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--aot", "--no-alias"], "--no-alias: not with --aot"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], needle: str) -> None:
    assert_one_line_error(run_cli(*args), 2, needle)


def test_help_lists_options_and_exit_codes() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    for option in ("--precision", "--node-features", "--edges", "--num-classes", "--validate", "--seed",
                   "--draw-graph", "--verbose", "bf16", "exit status", "--graph", "--edge-file",
                   "--feature-file", "--synthetic", "--degrees", "--num-features", "--aot"):
        assert option in result.stdout


@pytest.mark.gpu
@pytest.mark.skipif(trt_skip_reason() is None, reason="TensorRT is installed here")
def test_missing_tensorrt_exits_3_after_the_kernel_is_ready() -> None:
    result = run_cli("--seed", "5")
    assert_one_line_error(result, 3, "TensorRT is not installed: python3 -m pip install -r requirements.txt")
    assert "Setting seed to: 5" in result.stdout  # inputs were parsed and the graph printed first
    assert "  0 1 1 0\n  0 0 1 1\n  0 0 0 1\n  1 0 0 0\n" in result.stdout
    assert "Kernel: " in result.stdout  # compiled or loaded before any TensorRT work


@pytest.mark.gpu
@pytest.mark.skipif(trt_skip_reason() is None, reason="TensorRT is installed here")
def test_aot_without_tensorrt_exits_3_after_its_ptx_is_loaded() -> None:
    result = run_cli("--aot", "--seed", "5")
    assert_one_line_error(result, 3, "TensorRT is not installed")
    assert "Kernel: PTX of scatter_add_aot_f32_i32 for the engine" in result.stdout


@pytest.mark.skipif(trt_skip_reason() is None, reason="TensorRT is installed here")
def test_seed_is_printed_when_not_given() -> None:
    result = run_cli()
    seed_lines = [line for line in result.stdout.splitlines() if line.startswith("Setting seed to: ")]
    assert len(seed_lines) == 1 and int(seed_lines[0].split(": ")[1]) >= 0


@pytest.mark.skipif(extras_missing() is not None, reason=f"pictures: {extras_missing()}")
def test_draw_graph_writes_a_png_before_gpu_work(tmp_path: Path) -> None:
    picture = tmp_path / "g.png"
    result = run_cli("--node-features", "[[1, 2], [3, 4], [5, 6]]", "--edges", "[[0, 1], [2, 1]]",
                     "--draw-graph", str(picture), "--seed", "1")
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"Drew the input graph to {str(picture)!r}" in result.stdout
    assert result.returncode in (0, 3, 4)  # then runs, or stops at a missing package or GPU


@pytest.mark.skipif(cuda_packages_missing() is not None, reason=f"the CLI stops earlier: {cuda_packages_missing()}")
def test_no_gpu_is_exit_4_with_one_line() -> None:
    # CUDA_VISIBLE_DEVICES="" hides every GPU, so this runs on GPU machines too.
    result = run_cli("--seed", "1", env={"CUDA_VISIBLE_DEVICES": ""})
    assert_one_line_error(result, 4, "CUDA GPU")
    assert "Setting seed to: 1" in result.stdout


def test_missing_numpy_is_exit_3_with_the_install_line(tmp_path: Path) -> None:
    # A package named numpy that fails to import stands in for an environment without NumPy.
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text("raise ImportError('No module named numpy')\n")
    result = run_cli("--validate", env={"PYTHONPATH": str(tmp_path)})
    assert_one_line_error(result, 3, "NumPy is not installed: python3 -m pip install -r requirements.txt")


@pytest.mark.gpu
def test_a_kernel_that_does_not_compile_is_exit_6_before_tensorrt(tmp_path: Path) -> None:
    # A copy of the sample whose .cu file is broken: NVRTC fails, and nothing TensorRT runs.
    copy = tmp_path / "sample"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".venv", ".typings", ".git", "__pycache__", ".*cache"))
    with (copy / "kernels" / "scatter_add.cu").open("a") as source:
        source.write("\nthis is not C++;\n")
    result = subprocess.run([sys.executable, str(copy / "aliased_io_plugin.py"), "--seed", "1"], capture_output=True,
                            text=True, timeout=300, env={**os.environ, "SCATTER_ADD_KERNEL_CACHE": str(tmp_path / "c")})
    assert_one_line_error(result, 6, "the scatter-add kernel could not be compiled or loaded: NVRTC failed")
    assert "scatter_add.cu(" in result.stderr and "TensorRT" not in result.stdout


def test_bf16_is_refused_below_compute_capability_8() -> None:
    assert precisions.unsupported_reason("bf16", (7, 5)) == (
        "TensorRT builds bf16 only on compute capability 8.0+, this GPU is 7.5")
    assert precisions.unsupported_reason("bf16", (8, 0)) is None
    assert precisions.unsupported_reason("fp16", (7, 5)) is None and precisions.unsupported_reason("fp32", (7, 5)) is None


def test_make_run_inputs_rounds_like_the_engine() -> None:
    graph = parse_graph("[[0.1, 0.2], [0.3, 0.4]]", "[[0, 1], [1, 1]]")
    inputs = make_run_inputs(graph, 3, "fp16", seed=11)
    assert inputs.idx.dtype.name == "int32" and inputs.idx.tolist() == [1, 1]
    assert inputs.src.tolist() == [inputs.features[0].tolist(), inputs.features[1].tolist()]
    assert inputs.features[0, 0] == float(np.float16(0.1))
    assert inputs.weights.shape == (3, 2) and not inputs.x.any()
    again = make_run_inputs(graph, 3, "fp16", seed=11)
    assert (again.weights == inputs.weights).all()  # the seed reproduces the weights


def test_make_run_inputs_sorts_edges_by_target_and_keeps_each_pair() -> None:
    graph = parse_graph("[1, 2, 3, 4]", "[[0, 3], [1, 0], [2, 3], [3, 1], [0, 1], [2, 0]]")
    inputs = make_run_inputs(graph, 2, "fp32", seed=0)
    assert inputs.idx.tolist() == [0, 0, 1, 1, 3, 3]  # the kernel's sorted fast path
    pairs = sorted(zip(inputs.src[:, 0].tolist(), inputs.idx.tolist()))
    assert pairs == sorted((float(graph.features[s, 0]), t) for s, t in graph.edges.tolist())
    assert inputs.src[:, 0].tolist() == [2.0, 3.0, 4.0, 1.0, 1.0, 3.0]  # stable: file order within a target


def test_the_runtime_is_named_as_loaded() -> None:
    """Only TensorRT is called TensorRT: a test's runtime under that name keeps its own."""
    import types

    from gnn import cli

    real = types.ModuleType("tensorrt")
    real.__version__ = "10.13.2"  # type: ignore[attr-defined]
    other = types.ModuleType("tensorrt_rtx")
    other.__version__ = "1.7.1.116"  # type: ignore[attr-defined]
    assert cli.runtime_name(real) == "TensorRT 10.13.2"
    assert cli.runtime_name(other) == "tensorrt_rtx 1.7.1.116 (not TensorRT)"


def test_the_in_place_note_says_what_the_engine_said() -> None:
    from gnn.engine_runner import binding_note

    assert binding_note("X", None) == ("the engine says X_out aliases X: X_out and X share one buffer, "
                                             "which now holds X + the sums")
    assert binding_note(None, None).startswith("the engine names no input for X_out, so it is bound as "
                                                     "NVIDIA's sample binds x and y")


def test_nvidia_spellings_are_still_accepted() -> None:
    """One spelling (hyphens), and NVIDIA's sample's --node_features / --num_classes as well."""
    from gnn import cli

    parser = cli.build_parser()
    hyphens = parser.parse_args(["--node-features", "[1, 2]", "--num-classes", "4"])
    underscores = parser.parse_args(["--node_features", "[1, 2]", "--num_classes", "4"])
    assert vars(hyphens) == vars(underscores) and hyphens.node_features == "[1, 2]" and hyphens.num_classes == 4
    long_options = [option for action in parser._actions for option in action.option_strings if option.startswith("--")]
    assert [o for o in long_options if "_" in o] == ["--node_features", "--num_classes"]


def test_help_lists_every_exit_status_from_the_enum() -> None:
    from gnn import cli

    result = run_cli("--help")
    listed = result.stdout[result.stdout.index("exit status:"):].splitlines()[1:]
    assert [line.strip() for line in listed] == [f"{int(code)} {meaning}" for code, meaning in
                                                cli.EXIT_MEANINGS.items()]
    assert list(cli.EXIT_MEANINGS) == list(cli.Exit) == list(range(8))


def test_docs_exit_table_starts_each_row_with_the_help_text() -> None:
    import re

    from gnn import cli

    usage = (ROOT / "docs" / "usage.md").read_text()
    rows = dict(re.findall(r"^\| (\d) \| (.*) \|$", usage[usage.index("## Exit status"):], flags=re.M))
    assert sorted(map(int, rows)) == list(range(8))
    for code, meaning in cli.EXIT_MEANINGS.items():
        assert rows[str(int(code))].startswith(meaning), (code, rows[str(int(code))])
