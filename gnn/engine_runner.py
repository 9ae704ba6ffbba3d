# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Run a built engine with TensorRT's own execution context, on CuPy buffers and one CuPy stream.

One path serves everything the driver does with an engine: the validated first run,
``--iterations`` timing and ``--cuda-graph`` replay. No Polygraphy here: its runner loads
libcudart by itself and cannot find the CUDA 13 runtime wheel's copy.

In place at the engine boundary: the network's output ``X_out`` is the plugin's output 0, which
aliases its input 0, the network input ``X``. When the aggregation aliases, ``X_out`` is bound to
X's own device buffer, as NVIDIA's quickly_deployable_plugins sample binds its in-place plugin's
input and output (``qdp_runner.py``, ``run_inplace_add``: ``set_tensor_address`` of ``x`` and ``y``
with one pointer) and as Torch-TensorRT binds aliased KV-cache outputs (PR 4251). After a run the
caller's X holds X + the sums by contract. Where the bindings have
``ICudaEngine.get_aliased_input_tensor`` (TensorRT >= 10.15), the engine is asked first.

Streams: uploads, the reset of X, every inference and every read-back are enqueued on the
runner's one non-blocking stream, in that order, so nothing depends on the legacy default
stream. Every run adds into X, so each starts by restoring X from a device copy taken at upload
time (outside any timed region; a CUDA-graph replay updates X too and is restored the same way).

Nothing here imports ``tensorrt``: the engine arrives as an object, and the buffer handling
(``upload``, ``allocate_outputs``, ``reset_x``) runs and is tested with the kernel alone.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from gnn import precisions
from gnn.errors import TensorRTFailure
from gnn.model import RunInputs, RunResult

if TYPE_CHECKING:
    import tensorrt as trt

INPUT_NAMES = ("X", "src", "idx", "W")
UPDATED_X = "X_out"  # the plugin's output 0: X + the sums, in X's type; X's own buffer when aliased
OUTPUT_NAMES = ("means", "probs")  # float32 whatever the precision (the network casts them)
TRT_ALIGNMENT = 256  # bytes; TensorRT's requirement for every address set on a context
WARMUP = 10


def check_bindable(name: str, array: Any) -> None:
    """A buffer TensorRT can use: C-contiguous and 256-byte aligned (CuPy's pool gives 512)."""
    if not array.flags.c_contiguous or array.data.ptr % TRT_ALIGNMENT:
        raise ValueError(f"{name}: TensorRT needs a C-contiguous buffer aligned to {TRT_ALIGNMENT} bytes")


def upload(inputs: RunInputs, precision: str, stream: Any) -> dict[str, Any]:
    """The engine's inputs as CuPy device arrays in the run's precision (bf16 as uint16 bits)."""
    import cupy as cp

    host = {
        "X": precisions.to_storage(inputs.x, precision),
        "src": precisions.to_storage(inputs.src, precision),
        "idx": np.ascontiguousarray(inputs.idx, dtype=np.int32),
        "W": precisions.to_storage(inputs.weights, precision),
    }
    with stream:  # enqueued on the runner's stream, ahead of every inference
        device = {name: cp.asarray(array) for name, array in host.items()}
    for name, array in device.items():
        check_bindable(name, array)
    return device


def allocate_outputs(shapes: Mapping[str, Sequence[int]], stream: Any) -> dict[str, Any]:
    """float32 output buffers of the shapes the execution context reports."""
    import cupy as cp

    with stream:
        outputs = {name: cp.empty(tuple(shape), dtype=np.float32) for name, shape in shapes.items()}
    for name, array in outputs.items():
        check_bindable(name, array)
    return outputs


def aliased_input(engine: trt.ICudaEngine, output: str) -> str | None:
    """The input the engine says ``output`` aliases; None if it names none or cannot be asked
    (``get_aliased_input_tensor`` is TensorRT >= 10.15, and is reported to answer None for
    plugin aliasing: TensorRT cookbook, AliasedIOPlugin)."""
    ask = getattr(engine, "get_aliased_input_tensor", None)
    return ask(output) if ask is not None else None


def binding_note(engine_says: str | None, out_of_place: str | None) -> str:
    """How ``X_out`` was bound, in a sentence (printed after "In place: ")."""
    if out_of_place is not None:
        return f"{UPDATED_X} has its own buffer ({out_of_place}); the caller's X is left unchanged"
    said = (f"the engine says {UPDATED_X} aliases {engine_says}" if engine_says else
            f"the engine names no input for {UPDATED_X}, so it is bound as NVIDIA's sample binds x and y")
    return f"{said}: {UPDATED_X} and X share one buffer, which now holds X + the sums"


class EngineRunner:
    """An execution context with every tensor's shape and address set, on one stream.

    ``X_out`` is bound to X's own buffer (the plugin aliases it), unless ``out_of_place`` says
    why the aggregation writes elsewhere: then it gets a buffer of its own.
    """

    def __init__(self, engine: trt.ICudaEngine, device_inputs: dict[str, Any], stream: Any,
                 out_of_place: str | None = None, refusal: Callable[[], str] = str) -> None:
        self.stream = stream
        self.refusal = refusal  # the plugin's reason for a failed execute, which TensorRT reports as False
        refusal()  # forgets an earlier one
        self.inputs = device_inputs
        context = engine.create_execution_context()
        if context is None:
            raise TensorRTFailure("execute", "could not create an execution context (out of GPU memory?)")
        for name, array in device_inputs.items():
            if not context.set_input_shape(name, tuple(array.shape)):
                raise TensorRTFailure("execute", f"input {name} of shape {tuple(array.shape)} is outside the "
                                                 f"engine's optimization profile")
            self._bind(context, name, array)
        shapes = {name: _dims(context.get_tensor_shape(name)) for name in OUTPUT_NAMES}
        if any(dim < 0 for shape in shapes.values() for dim in shape):
            raise TensorRTFailure("execute", f"output shapes are not fully known: {shapes}")
        self.outputs = allocate_outputs(shapes, stream)
        for name, array in self.outputs.items():
            self._bind(context, name, array)
        engine_says = aliased_input(engine, UPDATED_X)
        if engine_says not in (None, "X"):
            raise TensorRTFailure("execute", f"the engine says {UPDATED_X} aliases {engine_says}, not X")
        with stream:
            self.initial_x = device_inputs["X"].copy()
            self.x_out = device_inputs["X"] if out_of_place is None else _own_buffer(device_inputs["X"])
        self._bind(context, UPDATED_X, self.x_out)
        self.binding = binding_note(engine_says, out_of_place)
        self.context = context

    @staticmethod
    def _bind(context: trt.IExecutionContext, name: str, array: Any) -> None:
        if not context.set_tensor_address(name, array.data.ptr):
            raise TensorRTFailure("execute", f"set_tensor_address refused tensor {name}")

    def reset_x(self) -> None:
        """X = its uploaded value, on the runner's stream (the plugin updates X in place)."""
        reset_x(self.inputs["X"], self.initial_x, self.stream)

    def execute(self) -> None:
        if not self.context.execute_async_v3(self.stream.ptr):
            reason = self.refusal()
            raise TensorRTFailure("execute", f"execute_async_v3 returned False{': ' + reason if reason else ''}")

    def run_once(self, precision: str) -> RunResult:
        """One inference from a fresh X: the outputs, and the caller's X and X_out as stored."""
        import cupy as cp

        self.reset_x()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record(self.stream)
        self.execute()
        end.record(self.stream)
        x = precisions.from_storage(self.inputs["X"].get(stream=self.stream), precision)
        in_place = self.x_out is self.inputs["X"]
        x_out = x if in_place else precisions.from_storage(self.x_out.get(stream=self.stream), precision)
        means, probs = self.read_outputs()  # synchronizes the stream
        return RunResult(means, probs, x, x_out, cp.cuda.get_elapsed_time(start, end))

    def read_outputs(self) -> tuple[np.ndarray, np.ndarray]:
        means = self.outputs["means"].get(stream=self.stream)
        probs = self.outputs["probs"].get(stream=self.stream)
        self.stream.synchronize()
        return means, probs

    def capture(self) -> Any:
        """One inference as a CUDA graph. Capturable because the plugin's enqueue only launches
        on the stream it is given: no sync, no allocation, no compile."""
        self.reset_x()
        self.execute()  # a run outside capture first: TensorRT finishes its lazy setup here
        self.stream.synchronize()
        self.stream.begin_capture()
        try:
            self.execute()
        finally:
            graph = self.stream.end_capture()
        return graph


def _own_buffer(array: Any) -> Any:
    """A bindable buffer of ``array``'s shape and type (CuPy's pool aligns to 512 bytes)."""
    import cupy as cp

    out = cp.empty_like(array)
    check_bindable(UPDATED_X, out)
    return out


def _dims(dims: trt.Dims) -> tuple[int, ...]:
    return tuple(int(dims[i]) for i in range(len(dims)))


def reset_x(x: Any, initial: Any, stream: Any) -> None:
    """Copy ``initial`` into ``x`` on ``stream`` (device to device, ordered with the runs)."""
    x.data.copy_from_device_async(initial.data, initial.nbytes, stream)


@dataclass(frozen=True)
class Timing:
    """Milliseconds per inference; ``graph_*`` are None unless a CUDA graph was replayed."""

    median_ms: float
    p90_ms: float
    iterations: int
    graph_median_ms: float | None = None
    graph_p90_ms: float | None = None

    def lines(self) -> list[str]:
        lines = [f"Steady-state latency over {self.iterations} runs: median {self.median_ms:.4f} ms, "
                 f"p90 {self.p90_ms:.4f} ms (CUDA events, after {WARMUP} warm-up runs)"]
        if self.graph_median_ms is not None:
            lines.append(f"As a CUDA graph replay: median {self.graph_median_ms:.4f} ms, p90 {self.graph_p90_ms:.4f} ms")
        return lines


def percentile(times: list[float], fraction: float) -> float:
    """Nearest-rank percentile (fraction in [0, 1]) of a non-empty list."""
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, max(0, int(np.ceil(fraction * len(ordered))) - 1))]


def timed(runner: EngineRunner, run: Callable[[], None], iterations: int) -> list[float]:
    """Milliseconds of ``run`` (CUDA events on the runner's stream), X reset before each."""
    import cupy as cp

    times = []
    for i in range(WARMUP + iterations):
        runner.reset_x()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record(runner.stream)
        run()
        end.record(runner.stream)
        end.synchronize()
        if i >= WARMUP:
            times.append(cp.cuda.get_elapsed_time(start, end))
    return times


def time_engine(runner: EngineRunner, iterations: int, cuda_graph: bool) -> Timing:
    """Time ``iterations`` runs; with ``cuda_graph`` also capture one run and time its replays."""
    times = timed(runner, runner.execute, iterations)
    if not cuda_graph:
        return Timing(statistics.median(times), percentile(times, 0.9), iterations)
    graph = runner.capture()
    replays = timed(runner, lambda: graph.launch(runner.stream), iterations)
    return Timing(statistics.median(times), percentile(times, 0.9), iterations,
                  statistics.median(replays), percentile(replays, 0.9))


def replay_once(runner: EngineRunner, graph: Any) -> tuple[np.ndarray, np.ndarray]:
    """(means, probs) of one replay of ``graph`` from a fresh X."""
    runner.reset_x()
    graph.launch(runner.stream)
    return runner.read_outputs()
