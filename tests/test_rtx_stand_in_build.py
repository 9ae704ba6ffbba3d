# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The product's network, with the STAND-IN aggregation, built by TensorRT-RTX's builder on CPU.

NOT a test of the plugin: TensorRT-RTX cannot hold one. The aggregation here is
``stand_in_aggregation.py`` (TensorRT layers in the plugin's place); everything after it is the
product's own code, unchanged, from ``aliased_io_plugin.py``: ``define_network`` (inputs,
``add_classifier``), ``builder_config`` (profile, aliasing preview feature, TF32 off, progress
monitor), ``serialize_network`` (Polygraphy), ``progress_monitor``, and the one-line
``TensorRTFailure``.
The engine is built for compute capability 8.9, so no GPU is needed (running it needs one:
test_rtx_stand_in_cli_gpu.py).
"""

from __future__ import annotations

import errno
import io
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gnn import outputs
from gnn.outputs import ProgressPrinter
from conftest import product_on_rtx, real_tensorrt_version, rtx_build_skip_reason
from aliased_io_plugin import INPUT_NAMES, OUTPUT_NAMES, UPDATED_X
from gnn.cli import OutputFailure, TensorRTFailure
from gnn.cli import Bounds
from gnn.model import RunInputs, make_run_inputs
from gnn.cli import DEFAULT_EDGES, DEFAULT_NODE_FEATURES
from gnn.inputs import parse_graph
from made_graphs import synthetic_graph
from test_engine_spec import SPEC

pytestmark = pytest.mark.rtx


@pytest.fixture(scope="module")
def rtx() -> Iterator[ModuleType]:
    reason = rtx_build_skip_reason()
    if reason and os.environ.get("CI") and real_tensorrt_version() is None:
        pytest.fail(f"CI must build the network on TensorRT-RTX: {reason}")
    if reason:
        pytest.skip(reason)
    import tensorrt_rtx

    with product_on_rtx(tensorrt_rtx):
        yield tensorrt_rtx


@pytest.fixture(scope="module")
def engine(rtx: ModuleType) -> ModuleType:
    import aliased_io_plugin  # its TensorRT calls import TensorRT-RTX here (product_on_rtx)

    return aliased_io_plugin


def stand_in() -> Any:
    import stand_in_aggregation

    return stand_in_aggregation.stand_in()


def default_inputs(precision: str, num_classes: int = 3) -> RunInputs:
    return make_run_inputs(parse_graph(DEFAULT_NODE_FEATURES, DEFAULT_EDGES), num_classes, precision, seed=1)


def for_sm89(rtx: ModuleType, create: Any, seen: list[Any]) -> Any:
    """The product's configuration, then a target GPU (a TensorRT-RTX setting: builds without one)."""

    def config(builder: Any, network: Any) -> Any:
        made = create(builder, network)
        made.num_compute_capabilities = 1
        made.set_compute_capability(rtx.ComputeCapability.SM89, 0)
        seen.append(made)
        return made

    return config


def build(engine: ModuleType, rtx: ModuleType, inputs: RunInputs, precision: str, bounds: Bounds,
          aggregation: Any) -> tuple[bytes, Any, str, Any]:
    """(serialized engine, network, progress printed, builder config) through the product's functions."""
    builder, network = engine.define_network(inputs, precision, aggregation)
    out, seen = io.StringIO(), []
    printer = ProgressPrinter(out, interactive=False)
    create = engine.builder_config(inputs, bounds, engine.progress_monitor(printer))
    blob = engine.serialize_network(builder, network, for_sm89(rtx, create, seen))
    return blob, network, out.getvalue(), seen[0]


def io_tensors(network: Any) -> dict[str, tuple[Any, tuple[int, ...]]]:
    tensors = [network.get_input(i) for i in range(network.num_inputs)]
    tensors += [network.get_output(i) for i in range(network.num_outputs)]
    return {t.name: (t.dtype, tuple(t.shape)) for t in tensors}


@pytest.mark.parametrize("precision", ["fp32", "fp16", "bf16"])
@pytest.mark.parametrize("bounds", [Bounds(16, 16), Bounds(64, 256), Bounds(4096, 65536)])
def test_network_builds_with_the_io_engine_runner_binds(engine: ModuleType, rtx: ModuleType, precision: str,
                                                        bounds: Bounds) -> None:
    graph = synthetic_graph(12, 16, 5, "uniform", seed=2).graph
    inputs = make_run_inputs(graph, 4, precision, seed=2)
    blob, network, progress, _ = build(engine, rtx, inputs, precision, bounds, stand_in())
    assert len(blob) > 10_000  # a real plan, not an empty shell
    dt = {"fp32": rtx.float32, "fp16": rtx.float16, "bf16": rtx.bfloat16}[precision]
    assert io_tensors(network) == {
        "X": (dt, (-1, 5)), "src": (dt, (-1, 5)), "idx": (rtx.int32, (-1,)), "W": (dt, (4, 5)),
        "X_out": (dt, (-1, 5)), "means": (rtx.float32, (-1, 5)), "probs": (rtx.float32, (4, -1)),
    }
    assert tuple(io_tensors(network)) == (*INPUT_NAMES, UPDATED_X, *OUTPUT_NAMES)
    assert progress.startswith("Building: ") and " done, " in progress  # the monitor saw phases start and end


def test_builder_configuration_clears_tf32_and_enables_aliasing(engine: ModuleType, rtx: ModuleType) -> None:
    _, _, _, config = build(engine, rtx, default_inputs("fp32"), "fp32", Bounds(16, 16), stand_in())
    assert config.get_flag(rtx.BuilderFlag.TF32) is False  # gnn/model.py's fp32 tolerance relies on it
    assert config.get_preview_feature(rtx.PreviewFeature.ALIASED_PLUGIN_IO_10_03) is True
    assert config.num_optimization_profiles == 1


def test_the_profile_reaches_the_builder(engine: ModuleType, rtx: ModuleType) -> None:
    """N and E from 1 to the bounds, optimized for this graph; maxima below the graph's own
    sizes make an invalid profile, which TensorRT refuses (one line, as every build failure)."""
    inputs = default_inputs("fp16")  # N = 4, E = 6
    shapes = engine.profile_shapes(inputs, Bounds(64, 256))
    assert shapes["X"] == ((1, 1), (4, 1), (64, 1)) and shapes["idx"] == ((1,), (6,), (256,))
    assert shapes["W"] == ((3, 1), (3, 1), (3, 1))
    assert build(engine, rtx, inputs, "fp16", Bounds(4, 6), stand_in())[0]
    with pytest.raises(TensorRTFailure, match="^TensorRT failed to build the engine: "):
        build(engine, rtx, inputs, "fp16", Bounds(4, 5), stand_in())


def test_a_network_the_builder_rejects_is_one_line(engine: ModuleType, rtx: ModuleType) -> None:
    import stand_in_aggregation

    with pytest.raises(TensorRTFailure) as failure:
        build(engine, rtx, default_inputs("fp16"), "fp16", Bounds(16, 16), stand_in_aggregation.rejected())
    message = str(failure.value)
    assert message.startswith("TensorRT failed to build the engine: ") and "\n" not in message


@pytest.mark.parametrize("aliased", [True, False])
def test_the_plugin_route_on_tensorrt_rtx_is_a_one_line_failure(engine: ModuleType, aliased: bool) -> None:
    """The product's own aggregation needs add_plugin_v3, which TensorRT-RTX lacks: the sample
    says so in one line (exit 5) instead of a traceback."""
    with pytest.raises(TensorRTFailure, match="the network could not be defined: .*add_plugin_v3"):
        engine.define_network(default_inputs("fp16"), "fp16", engine.plugin_aggregation(aliased))


def test_an_engine_the_disk_refuses_is_output_that_cannot_be_written(
        engine: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk after the path passed its checks: exit 7 (gnn/cli.py maps OutputFailure), as
    for the picture, and nothing half-written left beside it."""
    def full_disk(source: str, target: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", full_disk)
    path = tmp_path / "e.plan"
    with pytest.raises(OutputFailure) as caught:
        outputs.save_engine(b"an engine", str(path), SPEC)
    assert str(caught.value) == f"--engine {str(path)!r}: cannot write it (No space left on device)"
    assert list(tmp_path.iterdir()) == []
