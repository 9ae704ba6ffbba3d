"""TensorRT smoke tests for a GPU runner with TensorRT installed. Skipped everywhere else.

They were never run by the authors: no machine available to us can install TensorRT.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import gnn_reference as ref
from conftest import ROOT

pytestmark = pytest.mark.trt


@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16"])
def test_cli_validates(precision: str) -> None:
    for extra in ([], ["--node_features", "[[1, 2], [2, 1], [3, 3], [4, 0], [9, 9]]"]):
        result = subprocess.run([sys.executable, str(ROOT / "aliased_io_plugin.py"), "--precision", precision,
                                 "--validate", "--seed", "3", *extra], capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"Validation against the NumPy float64 reference PASSED ({precision})" in result.stdout
        assert "In place: " in result.stdout


def test_engine_serialize_deserialize_round_trip() -> None:
    import tensorrt as trt
    from polygraphy.backend.trt import engine_from_bytes

    import aliased_io_plugin as cli
    from graph_inputs import DEFAULT_EDGES, DEFAULT_NODE_FEATURES, parse_graph

    graph = parse_graph(DEFAULT_NODE_FEATURES, DEFAULT_EDGES)
    inputs = cli.make_run_inputs(graph, 3, "fp16", seed=3)
    engine = cli.build_engine(inputs, "fp16")
    first = cli.run_engine(engine, inputs, "fp16")
    blob = bytes(engine.serialize())
    # The creator is registered (build_engine did it); deserialization calls create_plugin(RUNTIME).
    reloaded = engine_from_bytes(blob)
    assert reloaded is not None and reloaded.num_io_tensors == engine.num_io_tensors
    second = cli.run_engine(reloaded, inputs, "fp16")
    # Atomics may reorder fp16 additions between runs: equal within the fp16 tolerance.
    assert ref.compare(second.probs, first.probs, ref.TOLERANCES["fp16"]).passed
    assert ref.compare(second.means, first.means, ref.TOLERANCES["fp16"]).passed
    assert reloaded.get_tensor_dtype("probs") == trt.float32


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "aliased_io_plugin.py"), *args],
                          capture_output=True, text=True, timeout=900)


def test_one_engine_serves_two_graph_sizes() -> None:
    import aliased_io_plugin as cli
    import graph_sources
    from engine_spec import Bounds

    small = graph_sources.synthetic_graph(20, 60, 4, "uniform", seed=1).graph
    large = graph_sources.synthetic_graph(50, 200, 4, "powerlaw", seed=2).graph
    engine = None
    for graph in (small, large):
        inputs = cli.make_run_inputs(graph, 3, "fp16", seed=5)
        engine = engine or cli.build_engine(inputs, "fp16", Bounds(64, 256))
        result = cli.run_engine(engine, inputs, "fp16")
        assert result.probs.shape == (3, graph.num_nodes)
        assert cli.validate(result, inputs, graph, "fp16")


def test_engine_file_is_saved_reused_and_rebuilt_when_stale(tmp_path: Path) -> None:
    plan = str(tmp_path / "karate.plan")
    first = _cli("--graph", "karate", "--engine", plan, "--validate", "--seed", "1")
    assert first.returncode == 0 and "Saved engine to" in first.stdout, first.stdout + first.stderr
    assert "(faction: Mr. Hi)" in first.stdout and "(faction: Officer)" in first.stdout
    again = _cli("--graph", "karate", "--engine", plan, "--validate", "--seed", "1")
    assert again.returncode == 0 and "Loaded engine" in again.stdout and "Building engine" not in again.stdout
    other = _cli("--graph", "karate", "--engine", plan, "--precision", "fp16", "--validate", "--seed", "1")
    assert other.returncode == 0 and "precision fp32, this run needs fp16" in other.stdout
    Path(plan).write_bytes(b"not an engine")  # the description still matches, the bytes do not
    broken = _cli("--graph", "karate", "--engine", plan, "--precision", "fp16", "--validate", "--seed", "1")
    assert broken.returncode == 0 and "TensorRT could not deserialize it" in broken.stdout


def test_cuda_graph_replay_equals_a_normal_run() -> None:
    import numpy as np

    import aliased_io_plugin as cli
    import graph_sources
    from engine_timing import run_both_ways

    graph = graph_sources.karate_club(num_features=8, seed=0).graph
    inputs = cli.make_run_inputs(graph, 2, "bf16", seed=0)
    engine = cli.build_engine(inputs, "bf16")
    (means, probs), (graph_means, graph_probs) = run_both_ways(engine, cli.upload(inputs, "bf16"))
    # Sorted edges take the deterministic path: the replay must give the same bits.
    assert np.array_equal(means, graph_means) and np.array_equal(probs, graph_probs)


def test_aliasing_on_and_off_give_the_same_results() -> None:
    import aliased_io_plugin as cli
    import graph_sources

    graph = graph_sources.synthetic_graph(300, 3000, 8, "powerlaw", seed=3).graph
    inputs = cli.make_run_inputs(graph, 4, "fp16", seed=3)
    aliased = cli.run_engine(cli.build_engine(inputs, "fp16", aliased=True), inputs, "fp16")
    copied = cli.run_engine(cli.build_engine(inputs, "fp16", aliased=False), inputs, "fp16")
    assert ref.compare(copied.means, aliased.means, ref.TOLERANCES["fp16"]).passed
    assert ref.compare(copied.probs, aliased.probs, ref.TOLERANCES["fp16"]).passed
    assert copied.x_changed_in_place is False  # without aliasing the plugin never writes X


def test_timing_lines_with_and_without_a_cuda_graph() -> None:
    result = _cli("--graph", "karate", "--iterations", "20", "--cuda-graph", "--seed", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Steady-state latency over 20 runs: median" in result.stdout
    assert "As a CUDA graph replay: median" in result.stdout
