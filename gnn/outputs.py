# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The files a run writes (the picture, the engine and its description), their paths checked before
any work, and the build's progress. What an engine depends on besides the code is saved beside it as
``PATH.json``, so that a stale engine is rebuilt, saying why, rather than failing in TensorRT."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from typing import TextIO

from gnn.cli import Bounds, InputError, Options, OutputFailure, file_in_the_way, quote_path


# -- the paths a run writes, checked before any work -----------------------------------------------
# The checks make the calls the write will make (stat() for the name, an open for writing), not
# os.access(), and leave nothing behind: a file there is opened, not truncated, and a new one is
# made without a name. A saved engine is loaded, read-only or not: only TensorRT can tell, after the
# GPU check, that it must be rebuilt, and check_rebuild then checks the path again.


def check_paths(options: Options) -> None:
    """After the flags, before any work: each file the run would write can be written."""
    if options.engine is not None:
        check_engine_path(options.engine)
    if options.inputs.draw_graph is not None:
        check_picture_path(options.inputs.draw_graph)


def check_path(flag: str, path: str) -> str:
    """Check that a file can be at ``path``; returns the flag and path as messages quote them."""
    where = f"{flag} {quote_path(path)}"
    if not path.strip():  # else '' passes as the current directory and fails after the build
        raise InputError(f"{where}: an empty path; give a file name")
    if os.path.isdir(path):
        raise InputError(f"{where}: is a directory")
    if os.path.basename(path) in ("", ".", ".."):  # names a directory: the write would fail
        raise InputError(f"{where}: a directory's name (it ends in {path[path.rfind('/'):]!r}); "
                         f"give a file name")
    problem = _name_problem(path)
    if problem:
        raise InputError(f"{where}: {problem}")
    return where


def check_picture_path(path: str) -> None:
    where = check_path("--draw-graph", path)
    check_writable(path, f"{where}: the picture will be written there", engine=False)
    if not path.lower().endswith(".png"):  # always PNG: a .jpg would hold data its viewer refuses
        raise InputError(f"{where}: the picture is a PNG; give a name ending in .png")


def description_path(engine_path: str) -> str:
    return f"{engine_path}.json"


def check_engine_path(path: str) -> None:
    """--engine: a readable engine there is loaded; else one is built and saved there."""
    where = check_path("--engine", path)
    for name, target in (("the engine", path), ("its description", description_path(path))):
        if os.path.exists(target) and not os.path.isfile(target):
            kind = "a directory" if os.path.isdir(target) else "not a regular file"
            raise InputError(f"{where}: {name} is saved as a file, but {quote_path(target)} is "
                             f"{kind}")
        problem = _name_problem(target)
        if problem:
            raise InputError(f"{where}: {name} is saved as {quote_path(target)}, but {problem}")
    try:
        open(path, "rb").close()  # an engine to load, read-only or not
    except OSError:  # none to load: one is built and saved there
        check_writable(path, f"{where}: the engine will be built and saved there", engine=True)


def check_rebuild(path: str, reason: str) -> None:
    """Before the engine at ``path``, which cannot serve this run (``reason``), is rebuilt."""
    check_writable(path, f"--engine {quote_path(path)}: the engine there must be rebuilt "
                         f"({reason}) and saved", engine=True)


def _name_problem(path: str) -> str | None:
    """Why no file can be at ``path`` (its directory, or its name), or None."""
    parent = os.path.dirname(os.path.abspath(path))
    try:
        if len(os.fsencode(os.path.basename(path))) > os.pathconf(parent, "PC_NAME_MAX"):
            return os.strerror(errno.ENAMETOOLONG)
        os.stat(path)
    except FileNotFoundError:  # a file the run makes; through a link, in the link's directory
        if os.path.islink(path):
            folder = os.path.dirname(os.path.join(parent, os.readlink(path)))
            if not os.path.isdir(folder):
                return f"it is a link into {quote_path(folder)}, which does not exist"
        elif not os.path.isdir(parent):
            return f"the directory {quote_path(parent)} does not exist"
    except NotADirectoryError:
        return f"{quote_path(file_in_the_way(parent))} is not a directory"
    except OSError as error:
        return error.strerror or str(error)
    return None


def check_writable(path: str, start: str, engine: bool) -> None:
    """Refuse, in a line that begins ``start``, a ``path`` the run could not write (an engine's
    description too): files there are opened for writing, so a read-only one is never replaced,
    and where one is made (always for an engine: replaced whole) a temporary file is made there."""
    files = {"it": path}
    if engine:
        description = description_path(path)
        files = {f"the engine file {quote_path(path)}": path,
                 f"its description {quote_path(description)}": description}
    parent = os.path.dirname(os.path.abspath(path))
    opening = ""  # what is being opened, as the message names it
    try:
        for opening, target in files.items():
            if os.path.exists(target):  # O_NONBLOCK: a pipe without a reader refuses, not waits
                os.close(os.open(target, os.O_WRONLY | os.O_NONBLOCK))
        opening = f"its directory {quote_path(parent)}"
        if engine or not os.path.exists(path):
            tempfile.TemporaryFile(dir=parent).close()
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise InputError(f"{start}, but {opening} is not writable") from None
        raise InputError(f"{start}, but {opening} cannot be written ({error.strerror})") from None


# -- the engine and its description --------------------------------------------------------------


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


_FIELD_WORDS = {
    "tensorrt": "TensorRT", "gpu": "GPU", "compute_capability": "compute capability",
    "precision": "precision", "num_features": "features per node", "num_classes": "classes",
    "aliased": "plugin aliasing", "plugin": "plugin version", "route": "plugin route",
}


def stale_reason(saved: EngineSpec | None, wanted: EngineSpec, num_nodes: int, num_edges: int,
                 exact_bounds: bool) -> str | None:
    """Why a saved engine cannot serve this run, or None. Its profile may be larger than wanted,
    but bounds the user set (``exact_bounds``) must match: the flags describe the engine."""
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
    if num_nodes > saved.max_nodes or num_edges > saved.max_edges:
        return f"{allows}, the graph has {num_nodes} and {num_edges}"
    return None


def read_description(engine_path: str) -> EngineSpec | None:
    """The saved description, or None if it is missing, unreadable or from another layout."""
    try:
        with open(description_path(engine_path)) as file:
            spec = EngineSpec(**json.load(file))
    except (OSError, ValueError, TypeError):  # TypeError: not an object, or other fields
        return None
    # The bounds are compared by size with the graph's (stale_reason), the rest only by equality:
    # a hand-edited "max_nodes": "1k" would raise there, so such a description is unreadable.
    if not all(type(bound) is int for bound in (spec.max_nodes, spec.max_edges)):
        return None
    return spec


def read_engine(path: str) -> bytes:
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError as error:
        raise InputError(f"--engine {quote_path(path)}: cannot read it "
                         f"({error.strerror or error})") from None


def save_engine(blob: bytes, path: str, spec: EngineSpec) -> None:
    """The engine, then its description, each written beside its name and renamed onto it: whole
    or not at all."""
    description = (json.dumps(asdict(spec), indent=2) + "\n").encode()
    folder = os.path.dirname(os.path.abspath(path))
    for target, data in ((path, blob), (description_path(path), description)):
        temporary = os.path.join(folder, f"aliased_io_plugin-{secrets.token_hex(8)}.tmp")
        try:
            with open(temporary, "xb") as file:  # open()'s own mode: mkstemp's 0600 would hide it
                file.write(data)
            os.replace(temporary, target)
        except OSError as error:  # checked before the build, but the disk can still fill up
            raise OutputFailure(f"--engine {quote_path(path)}: cannot write it "
                                f"({error.strerror or error})") from None
        finally:  # after the rename, nothing is left to remove
            with contextlib.suppress(OSError):
                os.unlink(temporary)


class ProgressPrinter:
    """TensorRT's build progress: redrawn in place on a terminal, else a line per phase's start
    and end. TensorRT may call from several threads, hence the lock."""

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
        """Clear the redrawn line, so that the next output starts on a fresh one."""
        with self._lock:
            if self._interactive and self._drawn:
                print("\r" + " " * self._width + "\r", end="", file=self._stream, flush=True)
            self._drawn = False

    def _show(self, line: str | None) -> None:
        if not self._interactive:
            if line is not None:
                print(line, file=self._stream, flush=True)
            return
        parts = [f"{name} {done}/{total}" for name, (done, total, _) in self._open.items()]
        text = ("Building: " + " > ".join(parts))[: self._width] if parts else ""
        print("\r" + text.ljust(self._width) + "\r", end="", file=self._stream, flush=True)
        self._drawn = True
