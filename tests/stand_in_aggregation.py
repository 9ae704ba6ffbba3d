# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""A STAND-IN for the plugin's arithmetic, made of TensorRT layers only. For tests on TensorRT-RTX.

TensorRT-RTX cannot hold a plugin (its ``INetworkDefinition`` has no ``add_plugin_v3``), so the
tests that run the sample on it put this aggregation in front of the product's unchanged rest
(``aliased_io_plugin.add_classifier``) through the product's seam (``aliased_io_plugin.Aggregation``). It
computes what the plugin computes, out of place and in O(E * N) time and memory, so it serves small
graphs only:

    onehot[e, n] = (idx[e] == n)                  Fill (LINSPACE 0, 1, ... N-1; N = shape(X)[0]), EQUAL
    X + sums     = X + onehot^T @ src             MatMul in float32, ElementWise SUM, cast to X's type
    counts       = sum over e of onehot[e, n]     Reduce SUM, as [N, 1] int32

An index outside ``[0, N)`` matches no column and is skipped, as the kernel skips it. It never
replaces the plugin in the product, and no test that claims to test the plugin uses it.

Also here: the tolerance fp32 results are held to on TensorRT-RTX, which computes fp32 MatMul in
TF32 whatever ``BuilderFlag.TF32`` says (measured on an H200: tests/rtx_harness/README.md).
"""

from __future__ import annotations

from typing import Any

from gnn import model

NAME = "the one-hot MatMul stand-in from tests/ (TensorRT layers, NOT the plugin)"
REJECTED_NAME = "a stand-in the builder rejects (tests/)"
SEPARATE_X_OUT = "the stand-in works out of place (it is not the plugin): TensorRT's X is never written"

# TF32 keeps fp16's 10 mantissa bits (unit roundoff 2^-11) in the MatMul's inputs and keeps fp32
# everywhere else, so its error is at most fp16's, and fp16's tolerance bounds it. The sample's
# own fp32 tolerance (gnn/model.py) stays as it is: these tests name this one instead.
TF32 = model.Tolerance(rtol=1e-2, atol=5e-3, name="TF32 (TensorRT-RTX's fp32 MatMul)")
RTX_TOLERANCES = {"fp32": TF32}


def add_stand_in(network: Any, x: Any, src: Any, idx: Any) -> tuple[Any, Any]:
    """``(X + sums [N, F]`` in X's type, ``counts [N, 1]`` int32), like the plugin's outputs."""
    import tensorrt as trt  # the runtime the test loaded under this name (TensorRT-RTX)

    onehot = _one_hot(trt, network, x, idx)  # [E, N] float32
    src32 = network.add_cast(src, trt.float32).get_output(0)
    sums = network.add_matrix_multiply(onehot, trt.MatrixOperation.TRANSPOSE, src32, trt.MatrixOperation.NONE)
    x32 = network.add_cast(x, trt.float32).get_output(0)
    updated = network.add_elementwise(x32, sums.get_output(0), trt.ElementWiseOperation.SUM).get_output(0)
    per_node = network.add_reduce(onehot, trt.ReduceOperation.SUM, 1 << 0, True).get_output(0)  # [1, N]
    column = network.add_shuffle(per_node)
    column.reshape_dims = trt.Dims([-1, 1])
    counts = network.add_cast(column.get_output(0), trt.int32).get_output(0)
    return network.add_cast(updated, x.dtype).get_output(0), counts


def add_rejected(network: Any, x: Any, src: Any, idx: Any) -> tuple[Any, Any]:
    """Outputs of the right types whose shapes cannot agree: sums of X's F + 1 columns, which
    the rest divides by counts and multiplies by W [C, F]. TensorRT's builder refuses it."""
    import tensorrt as trt

    wide = network.add_concatenation([x, network.add_slice(x, trt.Dims([0, 0]), trt.Dims([1, 1]),
                                                           trt.Dims([1, 1])).get_output(0)])
    wide.axis = 1
    _, counts = add_stand_in(network, x, src, idx)
    return wide.get_output(0), counts


def _one_hot(trt: Any, network: Any, x: Any, idx: Any) -> Any:
    shape = network.add_shape(x).get_output(0)
    n = network.add_slice(shape, trt.Dims([0]), trt.Dims([1]), trt.Dims([1])).get_output(0)
    fill = network.add_fill(trt.Dims([0]), trt.FillOperation.LINSPACE, trt.int32)
    fill.set_input(0, n)  # IOneHotLayer would need N at build time; this takes it from shape(X)
    fill.alpha, fill.beta = 0.0, 1.0
    row = network.add_shuffle(fill.get_output(0))
    row.reshape_dims = trt.Dims([1, -1])  # [1, N]
    column = network.add_shuffle(idx)
    column.reshape_dims = trt.Dims([-1, 1])  # [E, 1]
    equal = network.add_elementwise(column.get_output(0), row.get_output(0), trt.ElementWiseOperation.EQUAL)
    return network.add_cast(equal.get_output(0), trt.float32).get_output(0)


def stand_in() -> Any:
    """The stand-in as the product's ``aliased_io_plugin.Aggregation``."""
    import aliased_io_plugin

    return aliased_io_plugin.Aggregation(NAME, add_stand_in, "TensorRT layers only", SEPARATE_X_OUT)


def rejected() -> Any:
    import aliased_io_plugin

    return aliased_io_plugin.Aggregation(REJECTED_NAME, add_rejected, "TensorRT layers only", SEPARATE_X_OUT)
