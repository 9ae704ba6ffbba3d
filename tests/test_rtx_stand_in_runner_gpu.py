# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The script's Runner on a real engine: TensorRT-RTX's, built with the STAND-IN aggregation. In process.

NOT a test of the plugin (TensorRT-RTX cannot hold one). The stand-in works out of place, so
``X_out`` gets its own buffer here; the in-place binding of the plugin's ``X_out`` to X's buffer
is the `trt` tests' (test_trt_smoke.py). What runs for real: the engine's answer to "which input
does X_out alias", binding every tensor, the first run, read-back, and CUDA-graph capture and
replay with X restored before each run.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import numpy as np
import pytest

from gnn import model
from gnn.inputs import karate_club
from conftest import product_on_rtx, replay_once, rtx_build_skip_reason
from gnn.model import make_run_inputs, validate

pytestmark = [pytest.mark.gpu, pytest.mark.rtx]


@pytest.fixture(scope="module")
def rtx() -> Iterator[ModuleType]:
    if rtx_build_skip_reason():
        pytest.skip(str(rtx_build_skip_reason()))
    import tensorrt_rtx

    with product_on_rtx(tensorrt_rtx):
        yield tensorrt_rtx


def test_runner_binds_x_out_apart_and_replays_without_accumulating(rtx: ModuleType) -> None:
    import cupy as cp

    import aliased_io_plugin as script
    import stand_in_aggregation
    from gnn import machine

    graph = karate_club().graph
    inputs = make_run_inputs(graph, 2, "fp16", seed=0, x0=graph.features)
    engine = script.deserialize_built(script.build_engine_bytes(inputs, "fp16", stand_in_aggregation.stand_in()))
    ask = getattr(engine, "get_aliased_input_tensor", None)
    assert ask is None or ask(script.UPDATED_X) is None  # out of place: no alias
    stream = cp.cuda.Stream(non_blocking=True)
    runner = script.Runner(engine, machine.upload(inputs, "fp16", stream), stream,
                                        separate_x_out="stand-in")
    assert runner.x_out.data.ptr != runner.inputs["X"].data.ptr
    assert runner.binding == "X_out has its own buffer (stand-in); the caller's X is left unchanged"
    first = runner.run_once("fp16")
    passed, lines = validate(first, inputs, graph, "fp16", in_place=False)
    assert passed, lines
    updated, _ = model.scatter_add_reference(inputs.x, inputs.src, inputs.idx)
    assert np.array_equal(first.x_out, updated) and np.abs(updated - inputs.x).max() > 0  # one-hot sums: exact
    assert np.array_equal(first.x, inputs.x)  # the caller's X untouched, although the sums are not zero
    replay = machine.capture(runner)
    for _ in range(3):  # restored before each replay: the same answer every time, never X + 2 * sums
        means, probs = replay_once(runner, replay)
        assert np.array_equal(means, first.means) and np.array_equal(probs, first.probs)

