# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The TensorRT side of the sample: the network, and building, loading and saving its engine.

Imported only once ``tensorrt`` is known to be there (the driver checks first). Polygraphy
builds (``create_network``, ``CreateConfig``, ``engine_bytes_from_network``); running is
``gnn/engine_runner.py``'s job, on TensorRT's own execution context. Failures raise
``errors.TensorRTFailure`` naming the stage, so the driver can print one line.

The network has two parts (``build_network``): the *aggregation* (``X, src, idx`` -> the updated
``X`` and the in-degree counts), which is the scatter-add plugin, and the *rest*
(``add_classifier``: mean, MatMul, ReLU, SoftMax, output casts), which is TensorRT's own layers.
The sample only ever builds the plugin (``plugin_aggregation``, ``qdp_aggregation``). The seam
exists so that a test on a runtime that cannot hold a plugin (TensorRT-RTX, see tests/README.md)
can put an aggregation of TensorRT layers in front of the same rest.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import tensorrt as trt

from gnn import precisions
from gnn.build_progress import ProgressPrinter
from gnn.engine_runner import INPUT_NAMES, OUTPUT_NAMES, UPDATED_X
from gnn.engine_spec import EngineSpec, read_sidecar, stale_reason, write_sidecar
from gnn.errors import InputError, OutputFailure, TensorRTFailure, quote_path
from gnn.output_paths import check_rebuild
from gnn.profile_bounds import Bounds
from gnn.model import RunInputs
import scatter_add_plugin as scatter_add

# trt.Weights points into this array without owning it; a module constant outlives every build.
_ONE = np.ones((1, 1), dtype=np.float32)

AddAggregation = Callable[[trt.INetworkDefinition, trt.ITensor, trt.ITensor, trt.ITensor],
                          tuple[trt.ITensor, trt.ITensor]]


@dataclass(frozen=True)
class Aggregation:
    """The network's first part: ``add(network, X, src, idx)`` returns ``(X + sums [N, F]`` in X's
    type, ``counts [N, 1]`` int32). ``name`` is printed and recorded with a saved engine;
    ``enqueue`` says what a timed run includes; ``out_of_place`` is None when output 0 is meant
    to be X's own buffer, else why it is not."""

    name: str
    add: AddAggregation
    enqueue: str
    out_of_place: str | None = None
    refusal: Callable[[], str] = str  # the plugin's own reason for a failed call, which TensorRT does not pass on


class BuildProgress(trt.IProgressMonitor):
    """TensorRT's progress callbacks, handed to a :class:`ProgressPrinter`.

    ``step_complete`` must return True: False asks TensorRT to cancel the build. A printing
    problem (a closed stderr) must not cancel it either, hence the blanket guards.
    """

    def __init__(self, printer: ProgressPrinter) -> None:
        trt.IProgressMonitor.__init__(self)
        self._printer = printer

    def phase_start(self, phase_name: str, parent_phase: str, num_steps: int) -> None:
        try:
            self._printer.phase_start(phase_name, parent_phase, num_steps)
        except Exception:  # noqa: BLE001 - progress output is best effort
            pass

    def step_complete(self, phase_name: str, step: int) -> bool:
        try:
            self._printer.step_complete(phase_name, step)
        except Exception:  # noqa: BLE001
            pass
        return True

    def phase_finish(self, phase_name: str) -> None:
        try:
            self._printer.phase_finish(phase_name)
        except Exception:  # noqa: BLE001
            pass


def trt_dtype(precision: str) -> trt.DataType:
    return getattr(trt.DataType, precisions.get(precision).trt_type)


# -- the aggregation: the plugin ----------------------------------------------------------------

def plugin_aggregation(aliased: bool = True, kernel: str = "fast") -> Aggregation:
    """The class-based Python plugin; output 0 aliases X unless ``aliased`` is False; ``kernel``
    names its kernel (kernels.KERNELS)."""

    def add(network: trt.INetworkDefinition, x: trt.ITensor, src: trt.ITensor,
            idx: trt.ITensor) -> tuple[trt.ITensor, trt.ITensor]:
        plugin = network.add_plugin_v3([x, src, idx], [], scatter_add.ScatterAddPlugin(aliased, kernel))
        return plugin.get_output(0), plugin.get_output(1)

    name = f"the class-based plugin {scatter_add.PLUGIN_NAME} {scatter_add.PLUGIN_VERSION}"
    if kernel != "fast":  # a saved engine's description names it
        name += f" with the {kernel} kernel"
    copied = None if aliased else "aliasing is off (--no-alias): the plugin copied X into a separate output first"
    return Aggregation(name, add, "includes the plugin's Python enqueue", copied, scatter_add.last_error)


def qdp_aggregation() -> Aggregation:
    """The QDP route: the plugin whose ahead-of-time kernel is stored in the engine."""
    return Aggregation("the QDP with its ahead-of-time kernel", _qdp_scatter_add, "the AOT kernel, no Python")


def _qdp_scatter_add(network: trt.INetworkDefinition, x: trt.ITensor, src: trt.ITensor,
                     idx: trt.ITensor) -> tuple[trt.ITensor, trt.ITensor]:
    """The QDP route: (sums [N, F], counts [N, 1] int32).

    The AOT kernel cannot clear the counts itself (one launch, no workspace), so a Fill layer
    makes N int32 zeros for the plugin's input 3, which its output 1 aliases. A 1-D LINSPACE fill
    may keep start and delta static (alpha = beta = 0.0; only N-D fills need them as tensors);
    its shape input is N, sliced from shape(X) (IFillLayer docs, NvInfer.h: a 1-D Int32/Int64
    tensor whose length constant folding knows).
    """
    import scatter_add_qdp as qdp  # registers the QDP; needs tensorrt.plugin (TensorRT >= 10.9)

    shape = network.add_shape(x).get_output(0)
    n = network.add_slice(shape, trt.Dims([0]), trt.Dims([1]), trt.Dims([1])).get_output(0)
    fill = network.add_fill(trt.Dims([0]), trt.FillOperation.LINSPACE, trt.int32)
    fill.set_input(0, n)
    fill.alpha, fill.beta = 0.0, 0.0  # floats: the binding then sets the double values only
    plugin = qdp.add_to(network, x, src, idx, fill.get_output(0))
    column = network.add_shuffle(plugin.get_output(1))
    column.reshape_dims = trt.Dims([-1, 1])  # [N] -> [N, 1], like the class-based plugin's counts
    return plugin.get_output(0), column.get_output(0)


# -- the network ----------------------------------------------------------------------------------

def build_network(network: trt.INetworkDefinition, num_features: int, num_classes: int, precision: str,
                  aggregation: Aggregation) -> None:
    """Inputs ``X [N, F]``, ``src [E, F]``, ``idx [E]`` int32, ``W [C, F]``; the aggregation,
    whose output 0 is also the output ``X_out``; then :func:`add_classifier`. N and E are dynamic
    (-1, bounded by the optimization profile); F and C are fixed."""
    dt = trt_dtype(precision)
    x = network.add_input(INPUT_NAMES[0], dt, trt.Dims([-1, num_features]))
    src = network.add_input(INPUT_NAMES[1], dt, trt.Dims([-1, num_features]))
    idx = network.add_input(INPUT_NAMES[2], trt.int32, trt.Dims([-1]))
    weights = network.add_input(INPUT_NAMES[3], dt, trt.Dims([num_classes, num_features]))
    sums, int_counts = aggregation.add(network, x, src, idx)
    # X + the sums is a network output too: the caller binds it to X's own buffer, so that the
    # plugin's in-place update reaches the caller (gnn/engine_runner.py says why that is allowed).
    sums.name = UPDATED_X
    network.mark_output(sums)
    add_classifier(network, sums, int_counts, weights, dt)


def add_classifier(network: trt.INetworkDefinition, sums: trt.ITensor, int_counts: trt.ITensor,
                   weights: trt.ITensor, dt: trt.DataType) -> None:
    """cast counts -> clamp >= 1 -> DIV -> MatMul(W, means^T) -> ReLU -> SoftMax(classes).

    Outputs ``means [N, F]`` and ``probs [C, N]``, cast to float32 so that every precision
    returns NumPy-readable values (the widening cast is exact).
    """
    counts = network.add_cast(int_counts, dt).get_output(0)
    one_f32 = network.add_constant(trt.Dims([1, 1]), trt.Weights(_ONE)).get_output(0)
    one = network.add_cast(one_f32, dt).get_output(0)
    # A node with no incoming edge keeps its X: divide by max(count, 1), never by 0.
    degree = network.add_elementwise(counts, one, trt.ElementWiseOperation.MAX).get_output(0)
    # DIV, not FLOOR_DIV: a mean is not an integer (NVIDIA's sample floors it).
    means = network.add_elementwise(sums, degree, trt.ElementWiseOperation.DIV).get_output(0)
    logits = network.add_matrix_multiply(weights, trt.MatrixOperation.NONE, means, trt.MatrixOperation.TRANSPOSE)
    relu = network.add_activation(logits.get_output(0), trt.ActivationType.RELU)
    softmax = network.add_softmax(relu.get_output(0))
    softmax.axes = 1 << 0  # over classes (axis 0 of [C, N]); explicit rather than the default rule

    for name, tensor in zip(OUTPUT_NAMES, (means, softmax.get_output(0))):
        output = network.add_cast(tensor, trt.float32).get_output(0)
        output.name = name
        network.mark_output(output)


def profile_shapes(inputs: RunInputs, bounds: Bounds) -> dict[str, tuple[tuple[int, ...], ...]]:
    """(min, opt, max) of every input: N and E from 1 to the bounds, optimized for this graph."""
    (n, f), e, c = inputs.x.shape, inputs.idx.shape[0], inputs.weights.shape[0]
    return {
        "X": ((1, f), (n, f), (bounds.max_nodes, f)),
        "src": ((1, f), (e, f), (bounds.max_edges, f)),
        "idx": ((1,), (e,), (bounds.max_edges,)),
        "W": ((c, f), (c, f), (c, f)),
    }


# -- building ---------------------------------------------------------------------------------

def define_network(inputs: RunInputs, precision: str, aggregation: Aggregation) -> tuple[trt.Builder, trt.INetworkDefinition]:
    """A strongly typed network for these inputs' F and C."""
    from polygraphy.backend.trt import create_network

    builder, network = create_network(strongly_typed=True)
    try:
        build_network(network, inputs.x.shape[1], inputs.weights.shape[0], precision, aggregation)
    # The bindings' and tensorrt.plugin's errors; AttributeError: a runtime without plugin layers
    # (TensorRT-RTX has no add_plugin_v3).
    except (AttributeError, ImportError, RuntimeError, TypeError, ValueError) as error:
        raise TensorRTFailure("build", f"the network could not be defined: {_first_line(error)}") from None
    return builder, network


def builder_config(inputs: RunInputs, bounds: Bounds, monitor: trt.IProgressMonitor) -> Callable[
        [trt.Builder, trt.INetworkDefinition], trt.IBuilderConfig]:
    """One optimization profile, the aliasing preview feature, progress, and TF32 off.

    TF32 off: gnn/precisions.py's fp32 tolerance assumes fp32 MatMul; TF32 would round W and the
    means to 10 mantissa bits. Polygraphy clears the flag by default (CreateConfig ``tf32=False``
    -> ``config.clear_flag(TF32)``); it is said here so that no default can change it.
    """
    from polygraphy.backend.trt import CreateConfig, Profile

    profile = Profile()
    for name, (low, opt, high) in profile_shapes(inputs, bounds).items():
        profile.add(name, min=low, opt=opt, max=high)
    return CreateConfig(profiles=[profile], preview_features=[trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03],
                        progress_monitor=monitor, tf32=False)


def serialize_network(builder: trt.Builder, network: trt.INetworkDefinition,
                      config: Callable[[trt.Builder, trt.INetworkDefinition], trt.IBuilderConfig]) -> bytes:
    """The builder's serialized engine: the bytes to save (a re-serialization of a deserialized
    engine may not load again; TensorRT-RTX refuses such files)."""
    from polygraphy.backend.trt import engine_bytes_from_network
    from polygraphy.exception import PolygraphyException

    try:
        blob = engine_bytes_from_network((builder, network), config=config)
    except PolygraphyException as error:
        raise TensorRTFailure("build", refused(_first_line(error))) from None
    if not blob:
        raise TensorRTFailure("build", refused("the builder returned no engine"))
    return bytes(blob)


def build_engine_bytes(inputs: RunInputs, precision: str, aggregation: Aggregation, bounds: Bounds | None = None,
                       printer: ProgressPrinter | None = None) -> bytes:
    """Define, configure and build: the serialized engine, with build progress on stderr."""
    bounds = bounds or Bounds(inputs.x.shape[0], inputs.idx.shape[0])
    scatter_add.register()  # idempotent; the creator is in place for the whole build
    scatter_add.last_error()  # forgets an earlier refusal
    builder, network = define_network(inputs, precision, aggregation)
    printer = printer or ProgressPrinter(sys.stderr)
    monitor = BuildProgress(printer)  # referenced until the build ends, as IProgressMonitor's docs require
    try:
        return serialize_network(builder, network, builder_config(inputs, bounds, monitor))
    finally:
        printer.close()


def deserialize(blob: bytes) -> trt.ICudaEngine | None:
    """The engine in ``blob`` (creator registered first), or None if TensorRT refuses it (then
    :func:`refused` says why)."""
    from polygraphy.backend.trt import engine_from_bytes
    from polygraphy.exception import PolygraphyException

    scatter_add.register()  # Python plugins are not in the engine: the creator must exist
    scatter_add.last_error()  # forgets an earlier refusal
    try:
        return engine_from_bytes(blob)
    except PolygraphyException:
        return None


def refused(what: str) -> str:
    """``what`` failed; with the plugin's own reason where it refused (TensorRT then only sees a null plugin)."""
    reason = scatter_add.last_error()
    return f"{what}: {reason}" if reason else what


def deserialize_built(blob: bytes) -> trt.ICudaEngine:
    """The engine just built; TensorRT refusing its own bytes is a one-line failure."""
    engine = deserialize(blob)
    if engine is None:
        raise TensorRTFailure("deserialize", refused("TensorRT could not deserialize the engine it just built"))
    return engine


def build_engine(inputs: RunInputs, precision: str, bounds: Bounds | None = None,
                 aggregation: Aggregation | None = None) -> trt.ICudaEngine:
    """Build and deserialize in one step (the plugin by default)."""
    return deserialize_built(build_engine_bytes(inputs, precision, aggregation or plugin_aggregation(), bounds))


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# -- engine files ---------------------------------------------------------------------------------

def load_engine(path: str) -> trt.ICudaEngine | None:
    """Deserialize a saved engine; None if TensorRT refuses it."""
    try:
        with open(path, "rb") as file:
            blob = file.read()
    except OSError as error:
        raise InputError(f"--engine {quote_path(path)}: cannot read it ({error.strerror or error})") from None
    return deserialize(blob)


def save_engine(blob: bytes, path: str, spec: EngineSpec) -> None:
    """The engine and its description (``PATH.json``), each written whole or not at all."""
    temporary = f"{path}.tmp{os.getpid()}"
    try:
        with open(temporary, "wb") as file:
            file.write(blob)
        os.replace(temporary, path)
        write_sidecar(path, spec)
    except OSError as error:  # checked before the build, but the disk can still fill up
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise OutputFailure(f"--engine {quote_path(path)}: cannot write it "
                            f"({error.strerror or error})") from None


def obtain_engine(path: str | None, inputs: RunInputs, spec: EngineSpec, exact_bounds: bool,
                  aggregation: Aggregation, say: Callable[[str], None] = print) -> trt.ICudaEngine:
    """Reuse the engine at ``path`` when it fits this run; otherwise build (and save) one."""
    n, e = inputs.x.shape[0], inputs.idx.shape[0]
    if path is not None and os.path.isfile(path):
        saved = read_sidecar(path)
        reason = stale_reason(saved, spec, n, e, exact_bounds)
        engine = load_engine(path) if saved is not None and reason is None else None
        if saved is not None and engine is not None:
            say(f"Loaded engine {quote_path(path)} (profile up to {saved.max_nodes} nodes, {saved.max_edges} edges)")
            return engine
        reason = reason or refused("TensorRT could not deserialize it")
        check_rebuild(path, reason)  # it will be written: say so now, not after the build
        say(f"Rebuilding engine {quote_path(path)}: {reason}")
    say(f"Building engine: N up to {spec.max_nodes}, E up to {spec.max_edges}, F {spec.num_features}, "
        f"{spec.precision}, {aggregation.name}, aliasing {'on' if spec.aliased else 'off'} ...")
    start = time.perf_counter()
    blob = build_engine_bytes(inputs, spec.precision, aggregation, spec.bounds)
    say(f"Engine build time: {time.perf_counter() - start:.2f} s")
    if path is not None:
        save_engine(blob, path, spec)
        say(f"Saved engine to {quote_path(path)} (and its description to {quote_path(path + '.json')})")
    return deserialize_built(blob)
