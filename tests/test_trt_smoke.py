"""TensorRT smoke tests for a GPU runner with TensorRT installed. Skipped everywhere else.

They were never run by the authors: no machine available to us can install TensorRT.
"""

from __future__ import annotations

import subprocess
import sys

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
