# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""A NumPy ``.npy`` file, read as the sample reads it: the header first, checked against the
file's size, then the data. Every problem is told in the sample's words, sizes in bytes, never in
NumPy's own, which name its internals ("magic string", "EOF: reading array header").
Pure Python + NumPy.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from gnn import memory_budget
from gnn.errors import InputError

MAGIC = b"\x93NUMPY"
# The format versions np.save writes, and the bytes of the header's length field in each.
LENGTH_BYTES: dict[tuple[int, ...], int] = {(1, 0): 2, (2, 0): 4, (3, 0): 4}
PREFIX = len(MAGIC) + 2  # the magic and the version
MAX_HEADER = 10_000  # NumPy's own bound on a header it parses


@dataclass(frozen=True)
class NpyHeader:
    """What a .npy header says, and where the data starts."""

    shape: tuple[int, ...]
    dtype: np.dtype
    data_offset: int

    @property
    def count(self) -> int:
        return int(np.prod(self.shape, dtype=object))

    @property
    def data_bytes(self) -> int:
        return self.count * self.dtype.itemsize


def read_header(file: Path, flag: str) -> NpyHeader:
    """The header of a .npy file, or InputError naming what is wrong with it; no data is read."""
    size = file.stat().st_size
    with file.open("rb") as handle:
        start = handle.read(PREFIX + 4)  # the magic, the version and the longest length field
        version = _version(start, size, flag)
        length_end = PREFIX + LENGTH_BYTES[version]
        if len(start) < length_end:
            raise InputError(f"{flag}: its .npy header is cut short: the file holds only {size} "
                             f"bytes")
        offset = length_end + int.from_bytes(start[PREFIX:length_end], "little")
        if size < offset:
            raise InputError(f"{flag}: its .npy header is cut short: it needs {offset} bytes, the "
                             f"file holds {size}")
        handle.seek(0)
        shape, dtype = _parse(handle, version, flag)
    return NpyHeader(shape, dtype, offset)


def _version(start: bytes, size: int, flag: str) -> tuple[int, ...]:
    """The format version from the file's first bytes, once they are seen to start a .npy file."""
    if not start:
        raise InputError(f"{flag}: not a NumPy .npy file: it is empty")
    if not start.startswith(MAGIC) and not MAGIC.startswith(start):
        raise InputError(f"{flag}: not a NumPy .npy file: it does not start as np.save writes "
                         f"one")
    if len(start) < PREFIX:
        raise InputError(f"{flag}: its .npy header is cut short: the file holds only {size} bytes")
    version = tuple(start[len(MAGIC):PREFIX])
    if version not in LENGTH_BYTES:
        raise InputError(f"{flag}: a .npy file of format version {version[0]}.{version[1]}, which "
                         f"this sample cannot read (np.save writes 1.0 to 3.0)")
    return version


def _parse(handle: BinaryIO, version: tuple[int, ...],
           flag: str) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and type of a whole header, parsed by NumPy's reader for its version."""
    reader = np.lib.format.read_array_header_2_0
    if version == (1, 0):
        reader = np.lib.format.read_array_header_1_0
    try:
        with warnings.catch_warnings():  # a header written by Python 2 warns before it is read
            warnings.simplefilter("ignore")
            np.lib.format.read_magic(handle)
            shape, _, dtype = reader(handle, max_header_size=MAX_HEADER)
    except (ValueError, TypeError, OverflowError):
        raise InputError(f"{flag}: its .npy header is not one NumPy can read (np.save writes one "
                         f"it can)") from None
    if any(length < 0 for length in shape):
        raise InputError(f"{flag}: its .npy header gives a negative length: shape {list(shape)}")
    return shape, dtype


def read_checked_header(file: Path, flag: str) -> NpyHeader:
    """The header, once it is seen to describe numbers the file holds whole; no data is read."""
    header = read_header(file, flag)
    if header.dtype.hasobject:
        raise InputError(f"{flag}: holds Python objects (pickles are not loaded)")
    held = file.stat().st_size - header.data_offset
    if header.data_bytes > held:
        raise InputError(f"{flag}: its data is cut short: its header describes shape "
                         f"{list(header.shape)} of {header.dtype}, {_bytes(header.data_bytes)}, "
                         f"and the file holds {_bytes(held)} after the {header.data_offset}-byte "
                         f"header")
    return header


def load(file: Path, flag: str) -> np.ndarray:
    """The array of a .npy file whose header promises what the file holds and memory can take."""
    header = read_checked_header(file, flag)
    memory_budget.ensure_fits(flag, 2 * header.data_bytes + 8 * header.count)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.load(file, allow_pickle=False)
    except (ValueError, OSError) as error:  # the file changed between the checks and here
        raise InputError(f"{flag}: cannot read its data ({type(error).__name__})") from None


def _bytes(size: int) -> str:
    """``"800 bytes"``; ``"160000000000 bytes (149.0 GiB)"`` where a rounder figure helps."""
    return f"{size} bytes" + (f" ({memory_budget.gib(size)})" if size >= 1 << 20 else "")
