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
import stat
from pathlib import Path

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
    can be read), one will be built and saved, so the path must take it and its description.
    Both are files: a device (/dev/null) or a directory there could neither be loaded nor take
    what the build saves."""
    where = check_path("--engine", path)
    for target, name in ((path, "the engine"), (f"{path}.json", "its description")):
        kind = _not_a_file(target)
        if kind:
            raise InputError(f"{where}: {name} is saved as a file, but {quote_path(target)} is "
                             f"{kind}")
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
        problem = _parent_problem(parent)
        if problem:
            raise InputError(f"{where}: {problem}")
        if len(os.path.basename(path).encode()) > os.pathconf(parent, "PC_NAME_MAX"):
            raise InputError(f"{where}: {os.strerror(errno.ENAMETOOLONG)}")
        _stat_unless_missing(path)
    except OSError as error:  # a name too long, a loop of links, ...
        raise InputError(f"{where}: {error.strerror or error}") from None
    return where


def _parent_problem(parent: str) -> str | None:
    """Why ``parent`` cannot hold a new file, or None; raises OSError for what the system says
    in its own words (a loop of links)."""
    try:
        mode = os.stat(parent).st_mode
    except FileNotFoundError:
        return f"the directory {quote_path(parent)} does not exist"
    except NotADirectoryError:  # a part of the path is a file
        return f"{quote_path(_file_in_the_way(parent))} is not a directory"
    if not stat.S_ISDIR(mode):
        return f"{quote_path(parent)} is not a directory"
    return None


def _file_in_the_way(parent: str) -> str:
    """The first part of ``parent``, from the root down, that exists and is not a directory."""
    parts = [*reversed(Path(parent).parents), Path(parent)]
    return str(next((part for part in parts if part.exists() and not part.is_dir()), parent))


def _stat_unless_missing(path: str) -> None:
    """Raises OSError where the file cannot even be looked at (a loop of symbolic links); a file
    that does not exist yet is what the run makes."""
    try:
        os.stat(path)
    except FileNotFoundError:
        pass


def _not_a_file(path: str) -> str | None:
    """What ``path`` is where it exists and is not a regular file (after links), or None."""
    if not os.path.exists(path) or os.path.isfile(path):
        return None
    return "a directory" if os.path.isdir(path) else "not a regular file"


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
