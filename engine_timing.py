"""Steady-state latency of a built engine: CUDA events around ``execute_async_v3``, optionally as
a CUDA graph replay. Separate from the build and from the first (validated) run.

The plugin writes into X in place, so every timed run starts from a fresh copy of X; the copy is
enqueued before the start event, outside the timed region.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np

WARMUP = 10


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


class _Bound:
    """An execution context with every tensor address set, and a fresh-X reset."""

    def __init__(self, engine: Any, device: dict[str, Any]) -> None:
        import cupy as cp

        self.context = engine.create_execution_context()
        self.device = device
        self.fresh_x = device["X"].copy()
        cp.cuda.get_current_stream().synchronize()  # our stream below is non-blocking: no implicit order
        n, f = device["X"].shape
        c = device["W"].shape[0]
        self.outputs = {"means": cp.empty((n, f), np.float32), "probs": cp.empty((c, n), np.float32)}
        for name, array in device.items():
            self.context.set_input_shape(name, array.shape)
            self.context.set_tensor_address(name, array.data.ptr)
        for name, array in self.outputs.items():
            self.context.set_tensor_address(name, array.data.ptr)
        self.stream = cp.cuda.Stream(non_blocking=True)

    def reset(self) -> None:
        """X = its value before the first run, on the timing stream (the plugin updates X in place)."""
        self.device["X"].data.copy_from_device_async(self.fresh_x.data, self.fresh_x.nbytes, self.stream)

    def execute(self) -> None:
        if not self.context.execute_async_v3(self.stream.ptr):
            raise RuntimeError("TensorRT execute_async_v3 failed (see the TensorRT log above)")

    def results(self) -> tuple[np.ndarray, np.ndarray]:
        self.stream.synchronize()
        return self.outputs["means"].get(), self.outputs["probs"].get()


def _timed(bound: _Bound, run: Any, iterations: int) -> list[float]:
    import cupy as cp

    times = []
    for i in range(WARMUP + iterations):
        bound.reset()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record(bound.stream)
        run()
        end.record(bound.stream)
        end.synchronize()
        if i >= WARMUP:
            times.append(cp.cuda.get_elapsed_time(start, end))
    return times


def time_engine(engine: Any, device: dict[str, Any], iterations: int, cuda_graph: bool) -> Timing:
    """Time ``iterations`` runs; with ``cuda_graph`` also capture one run and time its replays."""
    bound = _Bound(engine, device)
    times = _timed(bound, bound.execute, iterations)
    timing = Timing(statistics.median(times), percentile(times, 0.9), iterations)
    if not cuda_graph:
        return timing
    graph = capture(bound)
    replays = _timed(bound, lambda: graph.launch(bound.stream), iterations)
    return Timing(timing.median_ms, timing.p90_ms, iterations, statistics.median(replays), percentile(replays, 0.9))


def capture(bound: _Bound) -> Any:
    """One inference captured as a CUDA graph. The plugin's enqueue only launches on the stream it
    is given (no sync, no allocation), which is what makes it capturable."""
    bound.reset()
    bound.execute()  # a run outside capture first: TensorRT finishes its lazy setup here
    bound.stream.synchronize()
    bound.stream.begin_capture()
    try:
        bound.execute()
    finally:
        graph = bound.stream.end_capture()
    return graph


def run_both_ways(engine: Any, device: dict[str, Any]) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """(means, probs) of one normal run and of one CUDA graph replay, each from a fresh X."""
    bound = _Bound(engine, device)
    bound.reset()
    bound.execute()
    normal = bound.results()
    graph = capture(bound)
    bound.reset()
    graph.launch(bound.stream)
    return normal, bound.results()
