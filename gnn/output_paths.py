# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The files a run writes, ``--engine`` and ``--draw-graph``, checked before any work, so that no
run fails for want of a writable path after a long build.

Writability matters only where a file will be written. A saved engine may be read-only: it is
there to be loaded, and only TensorRT can tell, after the GPU check, that it must be rebuilt; then
:func:`check_rebuild` refuses it before the build, in a line that says it would be written. Only
the standard library is imported: these checks run before NumPy is looked for.
"""

from __future__ import annotations

import errno
import os

from gnn.errors import InputError, quote_path


def check_output_path(flag: str, path: str, what: str) -> None:
    """A file the run will write (``what`` names it): a name, in a directory that exists, that
    can be written."""
    where = check_path(flag, path)
    problem = unwritable(path)
    if problem:
        raise InputError(f"{where}: {what} will be written there, but {problem}")


def check_engine_path(path: str) -> None:
    """--engine: an engine there may be loaded, writable or not; with none there (or none that
    can be read), one will be built and saved, so the path must take it and its description."""
    where = check_path("--engine", path)
    if os.path.isfile(path) and os.access(path, os.R_OK):
        return
    problem = engine_unwritable(path)
    if problem:
        raise InputError(f"{where}: the engine will be built and saved there, but {problem}")


def check_rebuild(path: str, reason: str) -> None:
    """Before the engine at ``path``, which cannot serve this run (``reason``), is rebuilt."""
    problem = engine_unwritable(path)
    if problem:
        raise InputError(f"--engine {quote_path(path)}: the engine there must be rebuilt "
                         f"({reason}) and saved, but {problem}")


def check_path(flag: str, path: str) -> str:
    """A name for a file, in a directory that exists; returns the flag and path as messages
    write them."""
    where = f"{flag} {quote_path(path)}"
    if not path.strip():  # else '' passes as the current directory and fails after the build
        raise InputError(f"{where}: an empty path; give a file name")
    try:
        parent = os.path.dirname(os.path.abspath(path))
        if os.path.isdir(path):
            raise InputError(f"{where}: is a directory")
        if not os.path.isdir(parent):
            raise InputError(f"{where}: the directory {quote_path(parent)} does not exist")
        if len(os.path.basename(path).encode()) > os.pathconf(parent, "PC_NAME_MAX"):
            raise InputError(f"{where}: {os.strerror(errno.ENAMETOOLONG)}")
    except OSError as error:  # a name too long, a loop of links, ...
        raise InputError(f"{where}: {error.strerror or error}") from None
    return where


def unwritable(path: str) -> str | None:
    """Why the file cannot be written (replaced where it exists, made where not), or None."""
    if os.path.exists(path):
        return None if os.access(path, os.W_OK) else "it is not writable"
    return _directory_unwritable(path)


def engine_unwritable(path: str) -> str | None:
    """Why an engine and its description (PATH.json) cannot be saved at ``path``, or None. The
    engine is written to a temporary file beside it first (gnn/trt_network.py), so the directory
    must be writable too; a read-only engine or description is not replaced behind its owner's
    back."""
    for target, name in ((path, "the engine file"), (f"{path}.json", "its description")):
        if os.path.exists(target) and not os.access(target, os.W_OK):
            return f"{name} {quote_path(target)} is not writable"
    return _directory_unwritable(path)


def _directory_unwritable(path: str) -> str | None:
    parent = os.path.dirname(os.path.abspath(path))
    if os.access(parent, os.W_OK):
        return None
    return f"its directory {quote_path(parent)} is not writable"
