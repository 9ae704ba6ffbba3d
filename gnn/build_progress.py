# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""What the user sees while TensorRT builds the engine: its phases and steps, on stderr.

TensorRT reports progress through ``trt.IProgressMonitor`` (``trt_network.BuildProgress`` adapts
it); this module only decides what to print, so that it runs and is tested without TensorRT.
On a terminal the current phases are redrawn in place on one line; otherwise (a log file, CI)
each phase prints one line when it starts and one when it ends, so logs stay short.
TensorRT may call from several threads, hence the lock.
"""

from __future__ import annotations

import threading
import time
from typing import TextIO


class ProgressPrinter:
    """Prints build phases to ``stream``; ``interactive`` (default: ``stream.isatty()``) redraws."""

    def __init__(self, stream: TextIO, interactive: bool | None = None, width: int = 100) -> None:
        self._stream = stream
        self._interactive = stream.isatty() if interactive is None else interactive
        self._width = width
        self._lock = threading.Lock()
        self._open: dict[str, tuple[int, int, float]] = {}  # phase -> (done steps, total, start time)
        self._drawn = False

    def phase_start(self, phase: str, parent: str | None, num_steps: int) -> None:
        with self._lock:
            self._open[phase] = (0, max(num_steps, 1), time.perf_counter())
            if self._interactive:
                self._redraw()
            else:
                self._line(f"Building: {self._path(phase, parent)} ({num_steps} step{'s' if num_steps != 1 else ''})")

    def step_complete(self, phase: str, step: int) -> None:
        with self._lock:
            if phase in self._open:
                _, total, started = self._open[phase]
                self._open[phase] = (min(step + 1, total), total, started)
                if self._interactive:
                    self._redraw()

    def phase_finish(self, phase: str) -> None:
        with self._lock:
            done, total, started = self._open.pop(phase, (0, 1, time.perf_counter()))
            if self._interactive:
                self._redraw()
            else:
                self._line(f"Building: {phase} done, {done}/{total} steps in {time.perf_counter() - started:.1f} s")

    def close(self) -> None:
        """End the redrawn line so that the next output starts on a fresh one."""
        with self._lock:
            if self._interactive and self._drawn:
                self._stream.write("\r" + " " * self._width + "\r")
                self._stream.flush()
            self._drawn = False

    def _path(self, phase: str, parent: str | None) -> str:
        return f"{parent} > {phase}" if parent else phase

    def _redraw(self) -> None:
        parts = [f"{name} {done}/{total}" for name, (done, total, _) in self._open.items()]
        text = ("Building: " + " > ".join(parts))[: self._width] if parts else ""
        self._stream.write("\r" + text.ljust(self._width) + "\r")
        self._stream.flush()
        self._drawn = True

    def _line(self, text: str) -> None:
        self._stream.write(text + "\n")
        self._stream.flush()
