# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The sample's CLI end to end on TensorRT-RTX on a GPU, with the STAND-IN aggregation.

NOT a test of the plugin: TensorRT-RTX cannot hold one. ``tests/rtx_cli.py`` runs the real CLI
with ``stand_in_aggregation.py`` in the plugin's place (TensorRT layers) and fp32 held to the TF32
tolerance; everything else is the sample's: flags, inputs, the network's rest, Polygraphy, build
progress, engine files, the execution context, CUDA graphs, validation, output and exit codes.
Each run is its own process, so a saved engine is loaded by a process that did not build it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import hub_graphs
from gnn import model
from conftest import ROOT

pytestmark = [pytest.mark.gpu, pytest.mark.rtx]

HARNESS = str(ROOT / "tests" / "rtx_cli.py")
STAND_IN = "the one-hot MatMul stand-in from tests/ (TensorRT layers, NOT the plugin)"


def rtx_cli(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, HARNESS, *args], capture_output=True, text=True, timeout=600, cwd=cwd,
                          env={**os.environ, **(env or {})})


def passed(result: subprocess.CompletedProcess[str], precision: str) -> None:
    assert result.returncode == 0, result.stdout + result.stderr
    held_to = ", held to the TF32 (TensorRT-RTX's fp32 MatMul) tolerance" if precision == "fp32" else ""
    assert f"Validation against the NumPy float64 reference PASSED ({precision}{held_to})" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def one_line_error(result: subprocess.CompletedProcess[str], code: int, needle: str) -> None:
    assert result.returncode == code, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def skip_unsupported(precision: str) -> None:
    import cupy as cp

    props = cp.cuda.runtime.getDeviceProperties(0)
    reason = model.unsupported_reason(precision, (int(props["major"]), int(props["minor"])))
    if reason:
        pytest.skip(reason)


@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16"])
def test_default_graph_validates(precision: str) -> None:
    skip_unsupported(precision)
    result = rtx_cli("--precision", precision, "--validate", "--seed", "3")
    passed(result, precision)
    assert f"Building engine: N up to 16, E up to 16, F 1, {precision}, {STAND_IN}, aliasing on ..." in result.stdout
    assert "Building: " in result.stderr and "Building: " not in result.stdout  # progress on stderr only
    assert "[I]" not in result.stdout and "[W]" not in result.stdout  # Polygraphy kept off stdout
    assert "Class probabilities [classes x nodes] = 3 x 4:" in result.stdout
    assert "\ntensorrt_rtx 1." in result.stdout and " (not TensorRT) on " in result.stdout
    assert ("In place: X_out has its own buffer (the stand-in works out of place (it is not the plugin): TensorRT's X "
            "is never written); the caller's X is left unchanged") in result.stdout
    assert "  X_out: max abs error" in result.stdout and "  X (unchanged): max abs error 0.000e+00" in result.stdout
    assert "(first run, CUDA events; TensorRT layers only)" in result.stdout


def test_fp32_against_the_samples_own_fp32_tolerance_is_exit_1() -> None:
    """TensorRT-RTX computes fp32 MatMul in TF32 although the builder configuration clears TF32:
    held to the sample's fp32 tolerance (which assumes fp32 MatMul), the probabilities miss (and
    the means too: the stand-in's sums are a MatMul). Measured on an H200: probs 5.2e-4, means 3.1e-4."""
    result = rtx_cli("--synthetic", "200", "2000", "16", "--validate", "--seed", "3", env={"RTX_TOLERANCES": "sample"})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "probs: max abs error" in result.stdout and "MISMATCH at" in result.stdout
    assert "Validation against the NumPy float64 reference FAILED (fp32)" in result.stdout


@pytest.mark.parametrize(("args", "precision"), [
    (["--graph", "karate"], "fp16"),
    (["--graph", "karate"], "fp32"),
    (["--node-features", "[[1, 2], [2, 1], [3, 3], [4, 0], [9, 9]]", "--edges", "[[0, 1], [2, 1], [4, 3], [3, 0]]"],
     "bf16"),
    (["--edge-file", "graphs/example_edges.csv", "--feature-file", "graphs/example_features.npy"], "fp32"),
    (["--synthetic", "300", "3000", "8", "--degrees", "powerlaw"], "fp16"),
])
def test_graphs_validate(args: list[str], precision: str) -> None:
    skip_unsupported(precision)
    result = rtx_cli(*args, "--precision", precision, "--validate", "--seed", "7")
    passed(result, precision)
    if "karate" in args:
        assert "predictions: 34 of 34 nodes in the reference's class ok" in result.stdout
        assert "member  0: predicted Mr. Hi   joined Mr. Hi" in result.stdout
        assert "Accuracy: 33 of 34 members predicted in the faction they joined (wrong: member 8)" in result.stdout


def test_engine_is_saved_loaded_by_another_process_rebuilt_when_stale_or_corrupt(tmp_path: Path) -> None:
    plan = str(tmp_path / "karate.plan")
    first = rtx_cli("--graph", "karate", "--engine", plan, "--validate", "--seed", "1")
    passed(first, "fp32")
    assert "Saved engine to" in first.stdout and Path(plan).stat().st_size > 10_000
    again = rtx_cli("--graph", "karate", "--engine", plan, "--validate", "--seed", "1")
    passed(again, "fp32")
    assert "Loaded engine" in again.stdout and "Building engine" not in again.stdout
    stale = rtx_cli("--graph", "karate", "--engine", plan, "--precision", "fp16", "--validate", "--seed", "1")
    passed(stale, "fp16")
    assert "Rebuilding engine" in stale.stdout and "precision fp32, this run needs fp16" in stale.stdout
    Path(plan).write_bytes(Path(plan).read_bytes()[:4096])  # the description still matches, the bytes do not
    corrupt = rtx_cli("--graph", "karate", "--engine", plan, "--precision", "fp16", "--validate", "--seed", "1")
    passed(corrupt, "fp16")
    assert "TensorRT could not deserialize it" in corrupt.stdout and "Saved engine to" in corrupt.stdout
    reloaded = rtx_cli("--graph", "karate", "--engine", plan, "--precision", "fp16", "--seed", "1")
    assert reloaded.returncode == 0 and "Loaded engine" in reloaded.stdout
    # An engine whose kernel another version of the code compiled (its description says so) is rebuilt.
    description = Path(plan + ".json")
    description.write_text(json.dumps({**json.loads(description.read_text()), "kernel": "0123456789abcdef"}))
    changed = rtx_cli("--graph", "karate", "--engine", plan, "--precision", "fp16", "--validate", "--seed", "1")
    passed(changed, "fp16")
    assert "its kernel was compiled by another version of this code (fingerprint 0123456789abcdef" in changed.stdout
    assert "Saved engine to" in changed.stdout


def test_iterations_and_cuda_graph_replay() -> None:
    result = rtx_cli("--graph", "karate", "--precision", "fp16", "--iterations", "20", "--cuda-graph", "--validate",
                     "--seed", "2")
    passed(result, "fp16")
    assert "Steady-state latency over 20 runs: median" in result.stdout
    assert "As a CUDA graph replay: median" in result.stdout


def test_no_alias() -> None:
    result = rtx_cli("--no-alias", "--precision", "fp16", "--validate", "--seed", "3")
    passed(result, "fp16")
    assert "aliasing off ..." in result.stdout
    assert "In place: X_out has its own buffer (the stand-in" in result.stdout  # it has no aliasing to turn off


def test_a_network_the_builder_rejects_is_exit_5_in_one_line() -> None:
    result = rtx_cli("--seed", "3", env={"STAND_IN": "rejected"})
    one_line_error(result, 5, "aliased_io_plugin.py: error: TensorRT failed to build the engine: ")
    assert "run again with -v" in result.stderr


def test_bad_input_is_exit_2_before_any_build(tmp_path: Path) -> None:
    result = rtx_cli("--max-edges", "3", "--seed", "3")
    one_line_error(result, 2, "--max-edges: the graph has 6 edges, more than the profile's maximum 3")
    result = rtx_cli("--engine", str(tmp_path), "--seed", "3")
    one_line_error(result, 2, "is a directory")


@pytest.mark.parametrize("precision", ["fp16", "bf16", "fp32"])
def test_a_node_with_70000_in_edges_validates(tmp_path: Path, precision: str) -> None:
    """fp16 once counted in-degrees in fp16: 70,000 was inf, and the hub's mean 0."""
    skip_unsupported(precision)
    result = rtx_cli(*hub_graphs.write(tmp_path, 70000), "--precision", precision, "--validate",
                     "--seed", "0")
    passed(result, precision)
    assert "Graph: 8 nodes, 70007 edges, 2 feature(s) per node" in result.stdout


def test_x_plus_the_sums_past_fp16_is_refused_before_the_build() -> None:
    result = rtx_cli("--node-features", "[40000, 30000]", "--edges", "[[1,0],[0,1]]", "--initial-x",
                     "features", "--precision", "fp16", "--validate")
    one_line_error(result, 2, "aliased_io_plugin.py: error: node 0: X + the sum of its incoming "
                              "features (70000) overflows fp16 (largest finite value 65504)")
    assert "Building engine" not in result.stdout
