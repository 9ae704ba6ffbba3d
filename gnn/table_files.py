# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""A table of numbers from a file the user names, of the kind its first bytes say: a NumPy
``.npy`` file (``gnn/npy_file.py``) or text (``gnn/text_table.py``).

A name is only a hint, compared without regard to case: downloads and spreadsheets get names
wrong. Kinds NumPy would read some other way (``.npz`` archives, compressed files) are refused
with what to give instead, and text is parsed only where its size allows. Every problem is an
InputError naming the flag and the file. Pure Python + NumPy.
"""

from __future__ import annotations

import stat
from pathlib import Path

import numpy as np

from gnn import memory_budget, npy_file, text_table
from gnn.errors import InputError

MAX_TEXT_BYTES = 1 << 30  # text files beyond this take minutes to parse: use .npy
TEXT_PARSE_FACTOR = 12  # bytes NumPy may hold per byte of text (16 B per 4-byte edge, x3)
ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # a zip file (.npz is one), with entries or without
COMPRESSED_STARTS = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"),
                     (b"\x28\xb5\x2f\xfd", "zstd"))
# Where NumPy refuses text that the line-by-line reading finds nothing wrong with: NumPy's own words
# name its parameters (usecols, max_rows) and count rows from 0, so they are not passed on.
NOT_A_TABLE = f"it is not one number per column on every line, separated by {text_table.READ}"


def load_table(path: str, flag: str) -> np.ndarray:
    """The file's numbers: a .npy array as saved, or text as float64 ``[rows, columns]``."""
    file = Path(path)
    try:
        size = regular_size(file, flag)
        refuse_other_kinds(file, flag)
        if is_npy(file):
            return npy_file.load(file, flag)
        if size > MAX_TEXT_BYTES:
            raise InputError(f"{flag}: {memory_budget.gib(size)} of text is more than the "
                             f"{memory_budget.gib(MAX_TEXT_BYTES)} this sample parses; save the "
                             f"table as .npy")
        memory_budget.ensure_fits(flag, TEXT_PARSE_FACTOR * size)
        return text_table.load(file)
    except InputError:
        raise
    except ValueError:  # NumPy could not read the text: say where, in the file's terms
        found = text_table.first_bad_line(file) or NOT_A_TABLE
        raise InputError(f"{flag}: cannot read it as numbers: {found}") from None
    except OSError as error:
        raise InputError(f"{flag}: cannot read it ({error.strerror or error})") from None


def npy_shape(path: str, flag: str) -> tuple[int, ...] | None:
    """The shape a .npy file's header gives, checked, before any data is read; None for text."""
    file = Path(path)
    try:
        regular_size(file, flag)
        refuse_other_kinds(file, flag)
        if not is_npy(file):
            return None
        return npy_file.read_checked_header(file, flag).shape
    except OSError as error:
        raise InputError(f"{flag}: cannot read it ({error.strerror or error})") from None


def regular_size(file: Path, flag: str) -> int:
    """The size of a regular file; raises OSError for what the system says best in its own words
    (a loop of symbolic links, a permission)."""
    try:
        status = file.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(f"{flag}: no such file") from None
    if not stat.S_ISREG(status.st_mode):
        raise InputError(f"{flag}: not a regular file")
    return status.st_size


def first_bytes(file: Path) -> bytes:
    with file.open("rb") as handle:
        return handle.read(8)


def is_npy(file: Path) -> bool:
    """A .npy file by its name, whatever its case (its errors are then .npy errors), or by its
    first bytes, whatever its name."""
    return file.suffix.lower() == ".npy" or first_bytes(file).startswith(npy_file.MAGIC)


def refuse_other_kinds(file: Path, flag: str) -> None:
    """Files NumPy reads some other way than this sample does, with what to give instead."""
    start = first_bytes(file)
    if start.startswith(ZIP_STARTS):
        what = "a .npz archive (np.savez)" if file.suffix.lower() == ".npz" else "a zip archive"
        raise InputError(f"{flag}: {what}, not one table: save the array with np.save and give "
                         f"that .npy file")
    for magic, name in COMPRESSED_STARTS:
        if start.startswith(magic):
            raise InputError(f"{flag}: compressed ({name}): decompress it first; this sample reads "
                             f".npy and text")
