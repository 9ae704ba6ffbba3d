#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""A TensorRT plugin that writes into its input (aliased I/O), in a one-layer graph neural network.

For a graph with N nodes, F features per node and E directed edges s -> t:

    X[t] += features[s] for every edge s -> t        ScatterAddPlugin, in place: output 0 IS input 0
    means  = X / max(counts, 1)                       Cast to fp32, ElementWise MAX and DIV
    probs  = softmax_over_classes(relu(W @ means^T))  MatMul, ReLU, SoftMax, in fp32

Top to bottom: the network, the builder configuration, the engine, ``X_out`` bound to X's own
buffer and the run; last, what a plugin author can skip. The plugin is ``scatter_add_plugin.py``;
flags, inputs and the NumPy model are in ``gnn/``.
"""

from __future__ import annotations

import sys

# Checked first: an older Python fails the imports below as if a package were missing (exit 3 too).
MIN_PYTHON = (3, 11)
if sys.version_info < MIN_PYTHON:
    print(f"aliased_io_plugin.py: error: Python {sys.version_info[0]}.{sys.version_info[1]} is too "
          f"old: the sample needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or later", file=sys.stderr)
    sys.exit(3)

import contextlib  # noqa: E402 (after the Python check)
import functools  # noqa: E402
import os  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Mapping  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

from gnn import cli, machine, outputs  # noqa: E402 (none imports NumPy)
from gnn.cli import Exit, TensorRTFailure, quote_path  # noqa: E402
from gnn.outputs import EngineSpec, ProgressPrinter  # noqa: E402

if TYPE_CHECKING:
    import numpy as np
    import tensorrt as trt

    from gnn.cli import Bounds, Options
    from gnn.inputs import PreparedInputs
    from gnn.machine import Gpu
    from gnn.model import RunInputs, RunResult, Tolerance

INPUT_NAMES = ("X", "src", "idx", "W")
UPDATED_X = "X_out"  # the plugin's output 0, X + the sums: X's own buffer when aliased
OUTPUT_NAMES = ("means", "probs")  # float32 whatever the precision: the classifier runs in fp32
BuildConfig = Callable[["trt.Builder", "trt.INetworkDefinition"], "trt.IBuilderConfig"]


# -- The network, strongly typed: the plugin layer, then the classifier ---------------------------


def define_network(inputs: RunInputs, precision: str,
                   aggregation: Aggregation) -> tuple[trt.Builder, trt.INetworkDefinition]:
    """Inputs ``X [N, F]``, ``src [E, F]``, ``idx [E]`` int32 and ``W [C, F]`` (N and E dynamic);
    the plugin, whose output 0 is also the network output ``X_out``; then the classifier.
    ``aggregation`` holds the plugin (:func:`plugin_aggregation`, near the end of this file)."""
    import tensorrt as trt
    from polygraphy.backend.trt import create_network

    from gnn import model

    # builder.create_network(1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED)): each
    # layer's type follows its inputs', and the casts below say where fp32 takes over.
    builder, network = create_network(strongly_typed=True)
    dt = getattr(trt.DataType, model.get(precision).trt_type)
    f = inputs.x.shape[1]
    try:
        x = network.add_input(INPUT_NAMES[0], dt, trt.Dims([-1, f]))
        src = network.add_input(INPUT_NAMES[1], dt, trt.Dims([-1, f]))
        idx = network.add_input(INPUT_NAMES[2], trt.int32, trt.Dims([-1]))
        weights = network.add_input(INPUT_NAMES[3], dt, trt.Dims([inputs.weights.shape[0], f]))
        if aggregation.plugin is not None:
            # X is input 0: the plugin's get_aliased_input(0) == 0 makes output 0 X's own buffer.
            plugin = aggregation.plugin()  # scatter_add_plugin.ScatterAddPlugin(aliased, kernel)
            layer = network.add_plugin_v3([x, src, idx], [], plugin)
            sums = layer.get_output(0)
            int_counts = layer.get_output(1)
        elif aggregation.add is not None:  # --aot's QDP, or TensorRT layers (tests on TensorRT-RTX)
            sums, int_counts = aggregation.add(network, x, src, idx)
        else:
            raise ValueError("the aggregation names neither a plugin nor layers")
        # X + the sums is a network output too: the run binds it to X's own buffer, so that the
        # plugin's in-place update reaches the caller.
        sums.name = UPDATED_X
        network.mark_output(sums)
        add_classifier(network, sums, int_counts, weights)
    # The bindings' and tensorrt.plugin's errors; AttributeError: a runtime without plugin layers
    # (TensorRT-RTX has no add_plugin_v3).
    except (AttributeError, ImportError, RuntimeError, TypeError, ValueError) as error:
        raise TensorRTFailure("build", f"the network could not be defined: "
                                       f"{_first_line(error)}") from None
    return builder, network


def add_classifier(network: trt.INetworkDefinition, sums: trt.ITensor, int_counts: trt.ITensor,
                   weights: trt.ITensor) -> None:
    """The mean over incoming edges, then MatMul(W, means^T) -> ReLU -> SoftMax over classes:
    ``means [N, F]`` and ``probs [C, N]``, in fp32 at every precision, since in fp16 an in-degree
    of 65,520 or more is inf (the casts up are exact: docs/usage.md, "Tolerances")."""
    import tensorrt as trt

    x32 = network.add_cast(sums, trt.float32).get_output(0)
    counts = network.add_cast(int_counts, trt.float32).get_output(0)  # exact below 2^24 edges
    one = network.add_constant(trt.Dims([1, 1]), trt.Weights(_one())).get_output(0)
    # A node with no incoming edge keeps its X: divide by max(count, 1), never by 0.
    degree = network.add_elementwise(counts, one, trt.ElementWiseOperation.MAX).get_output(0)
    # DIV, not FLOOR_DIV: a mean is not an integer (NVIDIA's sample floors it).
    means = network.add_elementwise(x32, degree, trt.ElementWiseOperation.DIV).get_output(0)
    w32 = network.add_cast(weights, trt.float32).get_output(0)
    logits = network.add_matrix_multiply(w32, trt.MatrixOperation.NONE, means,
                                         trt.MatrixOperation.TRANSPOSE)
    relu = network.add_activation(logits.get_output(0), trt.ActivationType.RELU)
    softmax = network.add_softmax(relu.get_output(0))
    softmax.axes = 1 << 0  # over classes (axis 0 of [C, N]), not TensorRT's default rule
    for name, tensor in zip(OUTPUT_NAMES, (means, softmax.get_output(0))):
        tensor.name = name
        network.mark_output(tensor)


# -- The builder configuration, with the aliasing preview feature ---------------------------------


def builder_config(inputs: RunInputs, bounds: Bounds, monitor: trt.IProgressMonitor) -> BuildConfig:
    """One optimization profile; the aliasing preview feature, without which TensorRT never asks
    the plugin which input its output aliases; build progress; and TF32 off: the fp32 tolerance
    assumes fp32 MatMul (Polygraphy's default, said here so that no default can change it)."""
    import tensorrt as trt
    from polygraphy.backend.trt import CreateConfig, Profile

    profile = Profile()
    for name, (low, opt, high) in profile_shapes(inputs, bounds).items():
        profile.add(name, min=low, opt=opt, max=high)
    # Polygraphy calls config.set_preview_feature(trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03, True).
    return CreateConfig(profiles=[profile],
                        preview_features=[trt.PreviewFeature.ALIASED_PLUGIN_IO_10_03],
                        progress_monitor=monitor, tf32=False)


def profile_shapes(inputs: RunInputs, bounds: Bounds) -> dict[str, tuple[tuple[int, ...], ...]]:
    """(min, opt, max) of every input: N and E from 1 to the bounds, optimized for this graph."""
    n, f = inputs.x.shape
    e = inputs.idx.shape[0]
    c = inputs.weights.shape[0]
    return {"X": ((1, f), (n, f), (bounds.max_nodes, f)),
            "src": ((1, f), (e, f), (bounds.max_edges, f)),
            "idx": ((1,), (e,), (bounds.max_edges,)), "W": ((c, f), (c, f), (c, f))}


# -- The engine: built, or loaded from --engine ---------------------------------------------------


def build_engine_bytes(inputs: RunInputs, precision: str, aggregation: Aggregation,
                       bounds: Bounds | None = None) -> bytes:
    """Define, configure and build: the serialized engine, with build progress on stderr."""
    import scatter_add_plugin

    bounds = bounds or cli.Bounds(inputs.x.shape[0], inputs.idx.shape[0])
    scatter_add_plugin.register()  # idempotent; the creator is in place for the whole build
    scatter_add_plugin.last_error()  # reading it clears a reason an earlier build left
    builder, network = define_network(inputs, precision, aggregation)
    printer = ProgressPrinter(sys.stderr)
    monitor = progress_monitor(printer)  # referenced until the build ends, as TensorRT requires
    try:
        return serialize_network(builder, network, builder_config(inputs, bounds, monitor))
    finally:
        printer.close()


def serialize_network(builder: trt.Builder, network: trt.INetworkDefinition,
                      config: BuildConfig) -> bytes:
    """The builder's serialized engine: the bytes to save (a re-serialized deserialized engine
    may not load again), or a one-line failure with the plugin's reason."""
    from polygraphy.backend.trt import engine_bytes_from_network
    from polygraphy.exception import PolygraphyException

    try:
        blob = engine_bytes_from_network((builder, network), config=config)
    except PolygraphyException as error:
        raise TensorRTFailure("build", refused(_first_line(error))) from None
    return bytes(blob)  # Polygraphy raises where the builder returns no engine


def deserialize(blob: bytes) -> trt.ICudaEngine | None:
    """The engine in ``blob``, or None where TensorRT refuses it (:func:`refused` says why). A
    Python plugin is not in the engine: each process that deserializes one registers its creator."""
    import scatter_add_plugin
    from polygraphy.backend.trt import engine_from_bytes
    from polygraphy.exception import PolygraphyException

    scatter_add_plugin.register()
    scatter_add_plugin.last_error()  # reading it clears a reason an earlier call left
    try:
        return engine_from_bytes(blob)
    except PolygraphyException:
        return None


def deserialize_built(blob: bytes) -> trt.ICudaEngine:
    """The engine just built: TensorRT refusing its own bytes is a one-line failure."""
    engine = deserialize(blob)
    if engine is None:
        raise TensorRTFailure("deserialize", refused("TensorRT could not deserialize the engine it "
                                                     "just built"))
    return engine


def obtain_engine(path: str | None, inputs: RunInputs, spec: EngineSpec, exact_bounds: bool,
                  aggregation: Aggregation, say: Callable[[str], None] = print) -> trt.ICudaEngine:
    """The engine saved at ``path`` where it fits this run; otherwise one built, and saved there."""
    if path is not None and os.path.isfile(path):
        engine = load_saved_engine(path, inputs, spec, exact_bounds, say)
        if engine is not None:
            return engine
    say(f"Building engine: N up to {spec.max_nodes}, E up to {spec.max_edges}, F "
        f"{spec.num_features}, {spec.precision}, {aggregation.name}, aliasing "
        f"{'on' if spec.aliased else 'off'} ...")
    start = time.perf_counter()
    blob = build_engine_bytes(inputs, spec.precision, aggregation, spec.bounds)
    say(f"Engine build time: {time.perf_counter() - start:.2f} s")
    if path is not None:
        outputs.save_engine(blob, path, spec)
        say(f"Saved engine to {quote_path(path)} (and its description to "
            f"{quote_path(outputs.description_path(path))})")
    return deserialize_built(blob)


# -- X_out bound to X's own buffer, and the run ---------------------------------------------------


class Runner:
    """TensorRT's execution context with every tensor's shape and address set. Uploads, the reset
    of X, every run and every read-back are enqueued on one CuPy stream, in that order, so nothing
    depends on the legacy default stream. ``X_out`` aliases the input X, so it is bound to X's own
    buffer (one pointer, two tensor names), unless ``separate_x_out`` says why it has its own;
    after a run the caller's X holds X + the sums. Every run adds into X, so each starts by
    restoring X from a copy taken at upload, outside any timed region."""

    def __init__(self, engine: trt.ICudaEngine, inputs: dict[str, Any], stream: Any,
                 separate_x_out: str | None = None,
                 failure_reason: Callable[[], str] = str) -> None:
        self.stream = stream
        self.inputs = inputs
        self.failure_reason = failure_reason  # TensorRT says only False when a run fails
        failure_reason()  # reading it clears a reason an earlier run left
        context = engine.create_execution_context()
        if context is None:
            raise TensorRTFailure("execute", "could not create an execution context (out of GPU "
                                             "memory?)")
        self.context = context
        for name, array in inputs.items():
            if not context.set_input_shape(name, tuple(array.shape)):
                raise TensorRTFailure("execute", f"input {name} of shape {tuple(array.shape)} is "
                                                 f"outside the engine's optimization profile")
            self._bind(name, array)
        shapes = {name: _dims(context.get_tensor_shape(name)) for name in OUTPUT_NAMES}
        if any(dim < 0 for shape in shapes.values() for dim in shape):
            raise TensorRTFailure("execute", f"output shapes are not fully known: {shapes}")
        self.outputs = machine.allocate_outputs(shapes, stream)
        for name, array in self.outputs.items():
            self._bind(name, array)
        engine_says = _aliased_input(engine)
        with stream:
            self.initial_x = inputs["X"].copy()
        self.x_out = inputs["X"]  # the plugin writes X + the sums into X's own buffer
        if separate_x_out is not None:
            self.x_out = machine.own_buffer(UPDATED_X, inputs["X"], stream)
        self._bind(UPDATED_X, self.x_out)  # as a rule X's address again: one buffer, two names
        self.binding = binding_note(engine_says, separate_x_out)

    def _bind(self, name: str, array: Any) -> None:
        if not self.context.set_tensor_address(name, array.data.ptr):
            raise TensorRTFailure("execute", f"set_tensor_address refused tensor {name}")

    def reset_x(self) -> None:
        machine.reset_x(self.inputs["X"], self.initial_x, self.stream)

    def execute(self) -> None:
        if not self.context.execute_async_v3(self.stream.ptr):
            reason = self.failure_reason()
            said = f": {reason}" if reason else ""
            raise TensorRTFailure("execute", f"execute_async_v3 returned False{said}")

    def run_once(self, precision: str) -> RunResult:
        """One run from a fresh X: the outputs, and the caller's X and X_out as stored."""
        from gnn import model

        self.reset_x()
        inference_ms = machine.elapsed_ms(self.stream, self.execute)  # the run, in CUDA events
        x = model.from_storage(self.inputs["X"].get(stream=self.stream), precision)
        x_out = x
        if self.x_out is not self.inputs["X"]:
            x_out = model.from_storage(self.x_out.get(stream=self.stream), precision)
        means, probs = self.read_outputs()  # synchronizes the stream
        return model.RunResult(means, probs, x, x_out, inference_ms)

    def read_outputs(self) -> tuple[np.ndarray, np.ndarray]:
        means = self.outputs["means"].get(stream=self.stream)
        probs = self.outputs["probs"].get(stream=self.stream)
        self.stream.synchronize()
        return means, probs


def _aliased_input(engine: trt.ICudaEngine) -> str | None:
    """The input TensorRT (>= 10.15) says ``X_out`` aliases, which must be X, or None: NVIDIA's
    TensorRT cookbook (AliasedIOPlugin) shows it answering None where a plugin does the aliasing."""
    ask = getattr(engine, "get_aliased_input_tensor", None)
    engine_says = ask(UPDATED_X) if ask is not None else None
    if engine_says not in (None, "X"):
        raise TensorRTFailure("execute", f"the engine says {UPDATED_X} aliases {engine_says}, "
                                         f"not X")
    return engine_says


def binding_note(engine_says: str | None, separate_x_out: str | None) -> str:
    """How ``X_out`` was bound, in a sentence (printed after "In place: ")."""
    if separate_x_out is not None:
        return (f"{UPDATED_X} has its own buffer ({separate_x_out}); the caller's X is left "
                f"unchanged")
    said = (f"the plugin declares that {UPDATED_X} aliases X (the engine names no input for "
            f"it)")
    if engine_says:
        said = f"the engine says {UPDATED_X} aliases {engine_says}"
    return f"{said}: {UPDATED_X} and X share one buffer, which now holds X + the sums"


def run_engine(engine: trt.ICudaEngine, prepared: PreparedInputs, options: Options,
               aggregation: Aggregation) -> RunResult:
    """The first run, printed, then the optional timing: one execution context, one stream."""
    import cupy as cp

    from gnn import model

    source = prepared.source
    try:
        stream = cp.cuda.Stream(non_blocking=True)
        device_inputs = machine.upload(prepared.inputs, options.precision, stream)
        runner = Runner(engine, device_inputs, stream, aggregation.separate_x_out,
                        aggregation.failure_reason)
        result = runner.run_once(options.precision)
        print(f"Inference time: {result.inference_ms:.3f} ms (first run, CUDA events; "
              f"{aggregation.timing_covers})")
        print("\n".join(model.probability_lines(result.probs)))
        if source.labels is not None:
            print("Predicted faction (argmax over classes) and the faction each member really "
                  "joined:")
            print("\n".join(model.predicted_vs_true(result.probs, source.labels,
                                                    source.label_names)))
        print(f"In place: {runner.binding}")
        if options.iterations:
            print("\n".join(machine.time_engine(runner, options.iterations, options.cuda_graph)))
    except cp.cuda.runtime.CUDARuntimeError as error:  # an engine's fault shows at the next sync
        raise TensorRTFailure("execute", f"CUDA error {error}") from None
    return result


# -- The whole run: inputs, kernel, network, engine, run, verdict ---------------------------------


def run(options: Options, aggregation: Aggregation | None = None,
        tolerances: Mapping[str, Tolerance] | None = None) -> int:
    """Once the flags are checked: raises the failures cli.exit_status reports."""
    precision = options.precision
    outputs.check_paths(options)  # before any work: a path that cannot be written fails now
    # The inputs, checked before anything large exists: NumPy and the extras the flags ask for
    # first (without them one line names everything missing), then the graph, sized first.
    machine.check_numpy_first(options.aot, machine.missing_extras(options.inputs))
    from gnn import inputs, model

    find_gpu = functools.cache(functools.partial(machine.usable_gpu, precision, options.aot))
    prepared = inputs.prepare(options.inputs, before_large=find_gpu)
    print("\n".join(inputs.input_lines(prepared)))
    if options.inputs.draw_graph:
        inputs.draw_picture(prepared.source, options.inputs.draw_graph)
        print(f"Drew the input graph to {quote_path(options.inputs.draw_graph)}")

    # The GPU, and the kernel compiled now, so that a compile error has its own exit status;
    # TensorRT last, so that its absence costs nothing earlier.
    gpu = find_gpu()
    print(machine.compile_kernel(precision, options.aot, options.kernel))
    runtime = machine.runtime_name(machine.load_tensorrt(options.aot))
    print(f"{runtime} on {gpu.name}, precision {precision}")
    workspace = machine.kernel_workspace(options.kernel, precision, options.aot, prepared.bounds,
                                         prepared.inputs.x.shape[1], gpu)
    inputs.check_gpu_memory(prepared, precision, workspace, machine.free_gpu_memory())

    if aggregation is None:
        aggregation = (qdp_aggregation() if options.aot
                       else plugin_aggregation(options.aliased, options.kernel))
    spec = engine_spec(runtime, gpu, prepared, aggregation.name, options)
    engine = obtain_engine(options.engine, prepared.inputs, spec, options.exact_bounds, aggregation)
    result = run_engine(engine, prepared, options, aggregation)

    if not options.validate:
        return Exit.OK
    tolerance = (tolerances or {}).get(precision, model.TOLERANCES[precision])
    passed, lines = model.validate(result, prepared.inputs, prepared.source.graph, precision,
                                   tolerance, check_predictions=prepared.source.labels is not None,
                                   in_place=aggregation.separate_x_out is None)
    print("\n".join(lines))
    return Exit.OK if passed else Exit.MISMATCH


def main(argv: list[str] | None = None, *, aggregation: Aggregation | None = None,
         tolerances: Mapping[str, Tolerance] | None = None) -> int:
    """The command line; the keyword arguments serve tests/rtx_cli.py (TensorRT-RTX, which cannot
    hold a plugin): layers in the plugin's place, and the tolerances that runtime is held to."""
    args = cli.parse_args(argv)
    return cli.exit_status(lambda: run(cli.options_from(args), aggregation, tolerances),
                           args.verbose)


# -- What a plugin author can skip: the plugin's holder, --aot, progress, the engine file ---------


@dataclass(frozen=True)
class Aggregation:
    """What makes X + the sums [N, F] and the in-degrees [N, 1] (int32): the plugin ``plugin()``,
    or else layers ``add(network, X, src, idx)``: ``--aot``'s quickly deployable plugin, or in
    tests on TensorRT-RTX, which cannot hold a plugin, TensorRT's own layers."""

    name: str  # printed, and stored with a saved engine
    add: Callable[[Any, Any, Any, Any], tuple[Any, Any]] | None
    timing_covers: str  # what a timed run includes besides the engine
    # None where X_out is X's own buffer; otherwise why X_out gets a buffer of its own.
    separate_x_out: str | None = None
    # Why the plugin failed, since TensorRT only says False; the default, str(), says nothing.
    failure_reason: Callable[[], str] = str
    plugin: Callable[[], Any] | None = None


def plugin_aggregation(aliased: bool = True, kernel: str = "fast") -> Aggregation:
    """The class-based Python plugin; its output 0 aliases X unless ``aliased`` is False."""
    import scatter_add_plugin

    name = (f"the class-based plugin {scatter_add_plugin.PLUGIN_NAME} "
            f"{scatter_add_plugin.PLUGIN_VERSION}")
    if kernel != "fast":  # a saved engine's description names it
        name += f" with the {kernel} kernel"
    copied = None
    if not aliased:
        copied = "aliasing is off (--no-alias): the plugin copied X into a separate output first"
    return Aggregation(name, None, "includes the plugin's Python enqueue", copied,
                       scatter_add_plugin.last_error,
                       functools.partial(scatter_add_plugin.ScatterAddPlugin, aliased, kernel))


def qdp_aggregation() -> Aggregation:
    """--aot: the quickly deployable plugin (QDP) whose ahead-of-time kernel the engine stores."""
    return Aggregation("the QDP with its ahead-of-time kernel", _qdp_layers,
                       "the AOT kernel, no Python")


def _qdp_layers(network: trt.INetworkDefinition, x: trt.ITensor, src: trt.ITensor,
                idx: trt.ITensor) -> tuple[trt.ITensor, trt.ITensor]:
    import scatter_add_qdp  # registers the QDP; needs tensorrt.plugin (TensorRT >= 10.9)

    return scatter_add_qdp.add_layers(network, x, src, idx)


def progress_monitor(printer: ProgressPrinter) -> trt.IProgressMonitor:
    """TensorRT's build progress callbacks, handed to the printer; a printing problem is ignored:
    progress output is best effort, and must never stop the build."""
    import tensorrt as trt

    class BuildProgress(trt.IProgressMonitor):
        def __init__(self) -> None:
            trt.IProgressMonitor.__init__(self)  # a pybind class: the base, not super()

        def phase_start(self, phase_name: str, parent_phase: str, num_steps: int) -> None:
            with contextlib.suppress(Exception):
                printer.phase_start(phase_name, parent_phase, num_steps)

        def step_complete(self, phase_name: str, step: int) -> bool:
            with contextlib.suppress(Exception):
                printer.step_complete(phase_name, step)
            return True  # False would cancel the build

        def phase_finish(self, phase_name: str) -> None:
            with contextlib.suppress(Exception):
                printer.phase_finish(phase_name)

    return BuildProgress()


def load_saved_engine(path: str, inputs: RunInputs, spec: EngineSpec, exact_bounds: bool,
                      say: Callable[[str], None]) -> trt.ICudaEngine | None:
    """The engine saved at ``path`` where its description fits this run and TensorRT takes it;
    otherwise None, after saying why it will be rebuilt (and checking that it can be written)."""
    saved = outputs.read_description(path)
    reason = outputs.stale_reason(saved, spec, inputs.x.shape[0], inputs.idx.shape[0],
                                      exact_bounds)
    if saved is not None and reason is None:
        engine = deserialize(outputs.read_engine(path))
        if engine is not None:
            say(f"Loaded engine {quote_path(path)} (profile up to {saved.max_nodes} nodes, "
                f"{saved.max_edges} edges)")
            return engine
    reason = reason or refused("TensorRT could not deserialize it")
    outputs.check_rebuild(path, reason)  # it will be written: say so now, not after the build
    say(f"Rebuilding engine {quote_path(path)}: {reason}")
    return None


def engine_spec(runtime: str, gpu: Gpu, prepared: PreparedInputs, plugin: str,
                options: Options) -> EngineSpec:
    """What this run's engine is built for: a saved engine is reused where all of it matches."""
    bounds = prepared.bounds
    fingerprint = machine.kernel_fingerprint(options.kernel, options.precision, options.aot)
    return EngineSpec(tensorrt=runtime, gpu=gpu.name,
                      compute_capability="".join(map(str, gpu.compute_capability)),
                      precision=options.precision, num_features=prepared.inputs.x.shape[1],
                      num_classes=prepared.inputs.weights.shape[0], max_nodes=bounds.max_nodes,
                      max_edges=bounds.max_edges, aliased=options.aliased, plugin=plugin,
                      route="aot" if options.aot else "class", kernel=fingerprint)


def refused(what: str) -> str:
    """``what`` failed, and the plugin's reason where it refused (TensorRT then says nothing)."""
    import scatter_add_plugin

    reason = scatter_add_plugin.last_error()
    return f"{what}: {reason}" if reason else what


@functools.cache
def _one() -> np.ndarray:
    """1.0 as [1, 1] float32, cached: trt.Weights points into it without owning it."""
    import numpy as np

    return np.ones((1, 1), dtype=np.float32)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _dims(dims: trt.Dims) -> tuple[int, ...]:
    return tuple(int(dims[i]) for i in range(len(dims)))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(cli.quiet_exit())
