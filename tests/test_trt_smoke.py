# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""TensorRT smoke tests for a GPU runner with TensorRT installed. Skipped everywhere else.

They were never run by the authors: no machine available to us can install TensorRT.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gnn import model
from conftest import ROOT
from gnn.model import RunInputs, RunResult, make_run_inputs, validate

pytestmark = pytest.mark.trt


def _compute_capability() -> tuple[int, int]:
    import cupy as cp

    props = cp.cuda.runtime.getDeviceProperties(0)
    return int(props["major"]), int(props["minor"])


def _skip_unsupported(precision: str) -> None:
    reason = model.unsupported_reason(precision, _compute_capability())
    if reason is not None:
        pytest.skip(reason)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "aliased_io_plugin.py"), *args],
                          capture_output=True, text=True, timeout=900)


def _run(engine: Any, inputs: RunInputs, precision: str, in_place: bool = True) -> RunResult:
    import cupy as cp

    from aliased_io_plugin import Runner
    from gnn.machine import upload

    stream = cp.cuda.Stream(non_blocking=True)
    separate_x_out = None if in_place else "--no-alias"
    return Runner(engine, upload(inputs, precision, stream), stream, separate_x_out).run_once(precision)


@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16"])
def test_cli_validates(precision: str) -> None:
    _skip_unsupported(precision)
    for extra in ([], ["--node-features", "[[1, 2], [2, 1], [3, 3], [4, 0], [9, 9]]"]):
        result = _cli("--precision", precision, "--validate", "--seed", "3", *extra)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"Validation against the NumPy float64 reference PASSED ({precision})" in result.stdout
        assert "In place: " in result.stdout and "share one buffer, which now holds X + the sums" in result.stdout
        assert "  X (in place): max abs error" in result.stdout
        assert result.stderr.count("Traceback") == 0


def test_bf16_below_ampere_is_refused_with_one_line() -> None:
    if model.unsupported_reason("bf16", _compute_capability()) is None:
        pytest.skip("this GPU builds bf16")
    result = _cli("--precision", "bf16")
    assert result.returncode == 2 and "--precision bf16: TensorRT builds bf16 only" in result.stderr


def test_engine_serialize_deserialize_round_trip() -> None:
    import tensorrt as trt

    import aliased_io_plugin as script
    from gnn.cli import DEFAULT_EDGES, DEFAULT_NODE_FEATURES
    from gnn.inputs import parse_graph

    graph = parse_graph(DEFAULT_NODE_FEATURES, DEFAULT_EDGES)
    inputs = make_run_inputs(graph, 3, "fp16", seed=3)
    blob = script.build_engine_bytes(inputs, "fp16", script.plugin_aggregation())
    engine = script.deserialize(blob)
    assert engine is not None
    first = _run(engine, inputs, "fp16")
    runtime = trt.Runtime(trt.Logger(trt.Logger.WARNING))
    reloaded = runtime.deserialize_cuda_engine(blob)  # the creator is registered (build_engine_bytes did it)
    assert reloaded is not None and reloaded.num_io_tensors == engine.num_io_tensors
    second = _run(reloaded, inputs, "fp16")
    # Sorted edges take the deterministic path: a reloaded engine gives the same bits.
    assert (second.probs == first.probs).all() and (second.means == first.means).all()
    assert reloaded.get_tensor_dtype("probs") == trt.float32


def test_one_engine_serves_two_graph_sizes() -> None:
    import aliased_io_plugin as script
    from gnn.cli import Bounds
    from made_graphs import synthetic_graph

    small = synthetic_graph(20, 60, 4, "uniform", seed=1).graph
    large = synthetic_graph(50, 200, 4, "powerlaw", seed=2).graph
    engine = None
    for graph in (small, large):
        inputs = make_run_inputs(graph, 3, "fp16", seed=5)
        engine = engine or script.deserialize_built(
            script.build_engine_bytes(inputs, "fp16", script.plugin_aggregation(), Bounds(64, 256)))
        result = _run(engine, inputs, "fp16")
        assert result.probs.shape == (3, graph.num_nodes)
        passed, lines = validate(result, inputs, graph, "fp16")
        assert passed, lines


def test_engine_file_is_saved_reused_and_rebuilt_when_stale(tmp_path: Path) -> None:
    plan = str(tmp_path / "karate.plan")
    first = _cli("--graph", "karate", "--engine", plan, "--validate", "--seed", "1")
    assert first.returncode == 0 and "Saved engine to" in first.stdout, first.stdout + first.stderr
    assert "member  0: predicted Mr. Hi   joined Mr. Hi" in first.stdout
    assert "Accuracy: " in first.stdout and "joined Officer" in first.stdout
    again = _cli("--graph", "karate", "--engine", plan, "--validate", "--seed", "1")
    assert again.returncode == 0 and "Loaded engine" in again.stdout and "Building engine" not in again.stdout
    assert "the engine stores it" in again.stdout  # the loaded engine runs the kernel it stored
    other = _cli("--graph", "karate", "--engine", plan, "--precision", "fp16", "--validate", "--seed", "1")
    assert other.returncode == 0 and "precision fp32, this run needs fp16" in other.stdout
    Path(plan).write_bytes(b"not an engine")  # the description still matches, the bytes do not
    broken = _cli("--graph", "karate", "--engine", plan, "--precision", "fp16", "--validate", "--seed", "1")
    assert broken.returncode == 0 and "TensorRT could not deserialize it" in broken.stdout


def test_cuda_graph_replay_equals_a_normal_run() -> None:
    import cupy as cp
    import numpy as np

    import aliased_io_plugin as script
    from aliased_io_plugin import Runner
    from conftest import replay_once
    from gnn.inputs import karate_club
    from gnn.machine import capture, upload

    precision = "bf16" if model.unsupported_reason("bf16", _compute_capability()) is None else "fp16"
    graph = karate_club().graph
    inputs = make_run_inputs(graph, 2, precision, seed=0)
    engine = script.deserialize_built(script.build_engine_bytes(inputs, precision, script.plugin_aggregation()))
    stream = cp.cuda.Stream(non_blocking=True)
    runner = Runner(engine, upload(inputs, precision, stream), stream)
    normal = runner.run_once(precision)
    graph_means, graph_probs = replay_once(runner, capture(runner))
    # Sorted edges take the deterministic path: the replay must give the same bits.
    assert np.array_equal(normal.means, graph_means) and np.array_equal(normal.probs, graph_probs)


def test_aliasing_on_and_off_give_the_same_results() -> None:
    import aliased_io_plugin as script
    from made_graphs import synthetic_graph

    graph = synthetic_graph(300, 3000, 8, "powerlaw", seed=3).graph
    inputs = make_run_inputs(graph, 4, "fp16", seed=3)
    aliased = _run(script.deserialize_built(script.build_engine_bytes(inputs, "fp16", script.plugin_aggregation(True))),
                   inputs, "fp16")
    copied = _run(script.deserialize_built(script.build_engine_bytes(inputs, "fp16", script.plugin_aggregation(False))),
                  inputs, "fp16", in_place=False)
    assert model.compare(copied.means, aliased.means, model.TOLERANCES["fp16"]).passed
    assert model.compare(copied.probs, aliased.probs, model.TOLERANCES["fp16"]).passed
    assert (copied.x == inputs.x).all()  # without aliasing the plugin never writes X
    assert (aliased.x == aliased.x_out).all() and model.compare(aliased.x_out, copied.x_out, model.TOLERANCES["fp16"]).passed


def test_timing_lines_with_and_without_a_cuda_graph() -> None:
    result = _cli("--graph", "karate", "--iterations", "20", "--cuda-graph", "--seed", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Steady-state latency over 20 runs: median" in result.stdout
    assert "As a CUDA graph replay: median" in result.stdout


def test_build_progress_reaches_stderr_and_stdout_stays_clean() -> None:
    result = _cli("--seed", "4")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Building: " in result.stderr  # plain lines: stderr is not a terminal here
    assert "[W]" not in result.stdout and "[I]" not in result.stdout  # Polygraphy kept off stdout


def _skip_without_aot() -> None:
    import tensorrt as trt

    if not hasattr(trt, "QuickPluginCreationRequest"):
        pytest.skip(f"TensorRT {trt.__version__} has no ahead-of-time plugins (needs >= 10.9)")


@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16"])
def test_aot_route_validates(precision: str) -> None:
    _skip_unsupported(precision)
    _skip_without_aot()
    for extra in ([], ["--graph", "karate"], ["--synthetic", "3000", "200000", "8"]):
        result = _cli("--aot", "--precision", precision, "--validate", "--seed", "3", *extra)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "the QDP with its ahead-of-time kernel" in result.stdout
        assert f"Validation against the NumPy float64 reference PASSED ({precision})" in result.stdout


def test_aot_engine_is_saved_with_its_route_and_runs_in_trtexec(tmp_path: Path) -> None:
    """The saved AOT engine needs no Python: trtexec (when on PATH) loads and runs it."""
    import json
    import shutil

    _skip_without_aot()
    plan = str(tmp_path / "gnn_aot.plan")
    first = _cli("--aot", "--engine", plan, "--validate", "--seed", "1")
    assert first.returncode == 0 and "Saved engine to" in first.stdout, first.stdout + first.stderr
    assert json.loads(Path(plan + ".json").read_text())["route"] == "aot"
    again = _cli("--aot", "--engine", plan, "--validate", "--seed", "1")
    assert again.returncode == 0 and "Loaded engine" in again.stdout, again.stdout + again.stderr
    trtexec = shutil.which("trtexec")
    if trtexec is not None:  # docs/aot_route.md's line: the default graph has 4 nodes, F = 1, 6 edges
        run = subprocess.run([trtexec, f"--loadEngine={plan}", "--shapes=X:4x1,src:6x1,idx:6", "--iterations=10"],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    class_route = _cli("--engine", plan, "--validate", "--seed", "1")
    assert class_route.returncode == 0 and "plugin route aot, this run needs class" in class_route.stdout
    if trtexec is None:
        pytest.skip("trtexec is not on PATH: the engine was built and reused, the Python-free run not tried")
