# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The engine run path's buffer handling, exercised with the kernel where no TensorRT is needed.

``gnn/machine.py`` uploads the engine's inputs, allocates its outputs and restores X before each
run, all on one non-blocking stream. Here the plugin's kernel stands where the engine would
run, on that same stream: if an upload or a reset were not ordered before it, the sums would
come out wrong or accumulate from run to run.
"""

from __future__ import annotations

import numpy as np
import pytest

from gnn import model
from gnn.inputs import karate_club
from made_graphs import synthetic_graph
import kernel_arrays
from gnn.machine import TRT_ALIGNMENT, allocate_outputs, check_bindable, reset_x, upload
from gnn.model import make_run_inputs

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("precision", model.NAMES)
def test_upload_gives_bindable_buffers_in_the_run_precision(precision: str) -> None:
    import cupy as cp

    karate = karate_club().graph
    inputs = make_run_inputs(karate, 3, precision, seed=1, x0=karate.features)
    stream = cp.cuda.Stream(non_blocking=True)
    device = upload(inputs, precision, stream)
    storage = model.get(precision).storage
    assert {name: (a.shape, a.dtype.name) for name, a in device.items()} == {
        "X": ((34, 34), storage), "src": ((156, 34), storage), "idx": ((156,), "int32"), "W": ((3, 34), storage)}
    for name, host in (("X", inputs.x), ("src", inputs.src), ("W", inputs.weights)):
        assert np.array_equal(model.from_storage(device[name].get(stream=stream), precision), host)
    assert all(a.data.ptr % TRT_ALIGNMENT == 0 for a in device.values())


def test_outputs_are_float32_of_the_reported_shapes_and_aligned() -> None:
    import cupy as cp

    outputs = allocate_outputs({"means": (34, 5), "probs": (3, 34)}, cp.cuda.Stream(non_blocking=True))
    assert {name: (a.shape, a.dtype.name) for name, a in outputs.items()} == {
        "means": ((34, 5), "float32"), "probs": ((3, 34), "float32")}
    assert all(a.data.ptr % TRT_ALIGNMENT == 0 for a in outputs.values())


def test_an_unaligned_or_strided_buffer_is_refused() -> None:
    import cupy as cp

    base = cp.zeros((8, 64), dtype=cp.float32)
    check_bindable("X", base[4:])  # 4 rows of 256 bytes in: still aligned
    with pytest.raises(ValueError, match="aligned to 256 bytes"):
        check_bindable("X", base.reshape(-1)[1:])  # 4 bytes in
    with pytest.raises(ValueError, match="C-contiguous"):
        check_bindable("X", base[:, ::2])


@pytest.mark.parametrize("precision", model.NAMES)
def test_reset_then_run_on_one_stream_gives_the_same_sums_every_time(precision: str) -> None:
    import cupy as cp

    graph = synthetic_graph(5000, 200_000, 16, "powerlaw", seed=4).graph
    inputs = make_run_inputs(graph, 2, precision, seed=4, x0=graph.features)
    stream = cp.cuda.Stream(non_blocking=True)
    device = upload(inputs, precision, stream)
    with stream:
        initial = device["X"].copy()
        counts = cp.empty(graph.num_nodes, dtype=cp.int32)
    expected, expected_counts = model.scatter_add_reference(inputs.x, inputs.src, inputs.idx)
    scale = np.abs(expected).max()
    for _ in range(3):  # no host sync between the steps: only stream order keeps them apart
        reset_x(device["X"], initial, stream)
        kernel_arrays.scatter_add(device["X"], device["src"], device["idx"], counts, stream=stream)
    got = model.from_storage(device["X"].get(stream=stream), precision)
    assert np.array_equal(counts.get(stream=stream), expected_counts)
    assert np.abs(got - expected).max() <= 2e-2 * scale  # summed once, not three times
