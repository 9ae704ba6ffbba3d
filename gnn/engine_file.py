# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The engine file of ``--engine PATH``, its description, and the build's progress as the user
sees it; the engine arrives and leaves as bytes (no TensorRT here). What an engine depends on
besides the code (TensorRT, the GPU, the precision, F, C, the plugin, the profile's bounds, the
kernel's interface) is stored beside it (``PATH.json``) and compared before reuse, so that a stale
engine is rebuilt with a one-line reason instead of failing inside TensorRT."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, fields
from typing import TextIO

from gnn.cli import Bounds, InputError, OutputFailure, engine_files, quote_path


@dataclass(frozen=True)
class EngineSpec:
    """Everything a built engine depends on besides the network code itself."""

    tensorrt: str
    gpu: str
    compute_capability: str
    precision: str
    num_features: int
    num_classes: int
    max_nodes: int
    max_edges: int
    aliased: bool
    plugin: str
    route: str  # "class" (the Python plugin) or "aot" (the QDP, whose engine runs without Python)
    kernel: str  # the class route's kernel fingerprint ("" for aot)

    @property
    def bounds(self) -> Bounds:
        return Bounds(self.max_nodes, self.max_edges)


# How each field is named in a rebuild message.
_FIELD_WORDS = {
    "tensorrt": "TensorRT", "gpu": "GPU", "compute_capability": "compute capability",
    "precision": "precision", "num_features": "features per node", "num_classes": "classes",
    "aliased": "plugin aliasing", "plugin": "plugin version", "route": "plugin route",
}


def stale_reason(saved: EngineSpec | None, wanted: EngineSpec, num_nodes: int, num_edges: int,
                 exact_bounds: bool) -> str | None:
    """Why a saved engine cannot serve this run, or None. Its profile may be larger than ``wanted``
    asks, but bounds the user set (``exact_bounds``) must match: the flags describe the engine."""
    if saved is None:
        return "no readable description of the engine next to it"
    for name, word in _FIELD_WORDS.items():
        old = getattr(saved, name)
        if old != getattr(wanted, name):
            return f"it was built for {word} {old}, this run needs {getattr(wanted, name)}"
    if saved.kernel != wanted.kernel:  # after the precision, which changes the fingerprint too
        return (f"its kernel was compiled by another version of this code (fingerprint "
                f"{saved.kernel}, this code's {wanted.kernel})")
    allows = f"its profile allows up to {saved.max_nodes} nodes and {saved.max_edges} edges"
    if exact_bounds and saved.bounds != wanted.bounds:
        return (f"{allows}, --max-nodes/--max-edges ask for {wanted.max_nodes} and "
                f"{wanted.max_edges}")
    if not saved.bounds.covers(num_nodes, num_edges):
        return f"{allows}, the graph has {num_nodes} and {num_edges}"
    return None


def read_sidecar(engine_path: str) -> EngineSpec | None:
    """The saved description, or None if it is missing, unreadable or from another layout."""
    try:
        with open(engine_files(engine_path)[1][1]) as file:
            data = json.load(file)
        if not isinstance(data, dict) or set(data) != {field.name for field in fields(EngineSpec)}:
            return None
        return EngineSpec(**data)
    except (OSError, ValueError, TypeError):
        return None


def read_engine(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError as error:
        raise InputError(f"--engine {quote_path(path)}: cannot read it "
                         f"({error.strerror or error})") from None


def save_engine(blob: bytes, path: str, spec: EngineSpec) -> None:
    """The engine, then its description, each whole or not at all."""
    try:
        replace_whole(path, blob)
        description = json.dumps(asdict(spec), indent=2) + "\n"
        replace_whole(engine_files(path)[1][1], description.encode())
    except OSError as error:  # checked before the build, but the disk can still fill up
        raise OutputFailure(f"--engine {quote_path(path)}: cannot write it "
                            f"({error.strerror or error})") from None


def replace_whole(path: str, data: bytes) -> None:
    """``data`` written to a temporary file beside ``path`` (of a short name), then renamed onto it:
    a reader, or a run stopped half-way, finds the old file or the new one, never part of one."""
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                                         prefix="aliased_io_plugin-", suffix=".tmp")
    mask = os.umask(0o077)  # read by setting it, set back at once: mkstemp's 0600 hides the engine
    os.umask(mask)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            os.fchmod(file.fileno(), 0o666 & ~mask)  # the mode open() would have given it
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


class ProgressPrinter:
    """TensorRT's build phases and steps on ``stream`` (stderr). On a terminal (``interactive``)
    the open phases are redrawn in place on one line; elsewhere (a log file, CI) each phase prints
    a line as it starts and as it ends. TensorRT may call from several threads, hence the lock."""

    def __init__(self, stream: TextIO, interactive: bool | None = None, width: int = 100) -> None:
        self._stream = stream
        self._interactive = stream.isatty() if interactive is None else interactive
        self._width = width
        self._lock = threading.Lock()
        self._open: dict[str, tuple[int, int, float]] = {}  # phase -> (done, total, start time)
        self._drawn = False

    def phase_start(self, phase: str, parent: str | None, num_steps: int) -> None:
        path = f"{parent} > {phase}" if parent else phase
        with self._lock:
            self._open[phase] = (0, max(num_steps, 1), time.perf_counter())
            self._show(f"Building: {path} ({num_steps} step{'s' if num_steps != 1 else ''})")

    def step_complete(self, phase: str, step: int) -> None:
        with self._lock:
            if phase in self._open:
                _, total, started = self._open[phase]
                self._open[phase] = (min(step + 1, total), total, started)
                self._show(None)

    def phase_finish(self, phase: str) -> None:
        with self._lock:
            done, total, started = self._open.pop(phase, (0, 1, time.perf_counter()))
            seconds = time.perf_counter() - started
            self._show(f"Building: {phase} done, {done}/{total} steps in {seconds:.1f} s")

    def close(self) -> None:
        """End the redrawn line, so that the next output starts on a fresh one."""
        with self._lock:
            if self._interactive and self._drawn:
                print("\r" + " " * self._width + "\r", end="", file=self._stream, flush=True)
            self._drawn = False

    def _show(self, line: str | None) -> None:
        """On a terminal, the open phases redrawn in place of the last; elsewhere ``line``."""
        if not self._interactive:
            if line is not None:
                print(line, file=self._stream, flush=True)
            return
        parts = [f"{name} {done}/{total}" for name, (done, total, _) in self._open.items()]
        text = ("Building: " + " > ".join(parts))[: self._width] if parts else ""
        print("\r" + text.ljust(self._width) + "\r", end="", file=self._stream, flush=True)
        self._drawn = True
