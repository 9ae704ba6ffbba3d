# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""A table of numbers from a file the user names (an edge or a feature file), opened in one place,
:func:`open_table`, which decides its format from its first bytes, never from its name: a NumPy
``.npy`` file, whose header ``numpy.lib.format`` reads without the data, or text, whose lines are
counted and whose first line of data gives the columns. So a table's shape is known before any of
its data is read (:func:`read_table`), and the run's memory is estimated from it first.

Every read is bounded, whatever size the system reports for the file: text up to MAX_TEXT_BYTES
and lines up to MAX_LINE characters; a .npy file's data up to what its header says, once the file
is seen to hold it. Every problem is an InputError naming the flag and the file, in the sample's
words: NumPy's type codes, parameters and internals ("magic string", "usecols") never reach the
user; a file's kind is named in words (text, bytes, a record of fields).
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from gnn.cli import InputError, file_in_the_way, gib, quote_path

MAX_TEXT_BYTES = 1 << 30  # text beyond this takes minutes to parse: use .npy
MAX_LINE = 1 << 22  # characters: 65536 features of 64 characters each
TEXT_PARSE_FACTOR = 12  # bytes NumPy may hold per byte of text (16 B per 4-byte edge, x3)
CHUNK = 1 << 20  # below MAX_LINE: a line longer than MAX_LINE spans chunks
UTF8_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8's bytes after a character's first byte
TOO_LONG = f"line {{}} is longer than {MAX_LINE} characters: not a table of numbers"
NPY_MAGIC = b"\x93NUMPY"
NPY_READERS = {(1, 0): np.lib.format.read_array_header_1_0,
               (2, 0): np.lib.format.read_array_header_2_0,
               (3, 0): np.lib.format.read_array_header_2_0}
MAX_HEADER = 10_000  # NumPy's own bound on a header it parses
ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")  # a zip file (.npz is one), with entries or without
COMPRESSED_STARTS = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"),
                     (b"\x28\xb5\x2f\xfd", "zstd"))
KINDS = {"U": "text", "S": "bytes", "V": "raw bytes", "b": "true/false values",
         "c": "complex numbers", "M": "dates and times", "m": "time spans", "O": "Python objects"}
# A decimal comma makes a semicolon the separator (1,5;2,5), so a semicolon is looked for first.
SEPARATORS = ((";", "a semicolon"), (",", "a comma"))
WHITESPACE = "tabs or spaces"
READ = "a comma, a semicolon, tabs or spaces"
# Where NumPy refuses text that the line-by-line reading finds nothing wrong with: NumPy's own words
# name its parameters (usecols, max_rows) and count rows from 0, so they are not passed on.
NOT_A_TABLE = f"it is not one number per column on every line, separated by {READ}"
# What cannot be part of a number, in any script: a line with a number among the pieces between
# holds numbers.
NOT_NUMBER_TEXT = re.compile(r"[^\w.+\-]+")
# A piece that starts as a number does (a digit of any script, after signs or a point): 0x1F,
# Arabic-Indic digits, 1_000. Such a line is data this sample cannot read, never a header.
NUMBER_LIKE = re.compile(r"[+\-.]*\d")
QUOTE_LIMIT = 40  # characters of a line or field as quoted in a message: a binary file is not text


@dataclass(frozen=True)
class Table:
    """A file of numbers, opened: its shape (text: rows at most, every line counted, and the first
    data line's columns), its type (None: text, read as float64), what NumPy may hold reading it."""

    path: str
    flag: str
    shape: tuple[int, ...]
    dtype: np.dtype | None
    read_bytes: int
    separator: str | None = None

    def kind(self) -> str:
        """The type of its values, in words: "int64", "text", "a record of fields (a, b)"."""
        if self.dtype is None:
            return "float64"
        if self.dtype.names:
            return f"a record of fields ({', '.join(self.dtype.names)})"
        return KINDS.get(self.dtype.kind, self.dtype.name)

    def holds_numbers(self, kinds: str = "fiu") -> bool:
        return self.dtype is None or (self.dtype.names is None and self.dtype.kind in kinds)


def open_table(path: str, flag: str) -> Table:
    """The file's shape and type, from its first bytes and a .npy header or a count of text lines,
    without reading its data; InputError for a file this sample does not read."""
    try:
        size = _regular_size(path, flag)
        with open(path, "rb") as handle:
            start = handle.read(len(NPY_MAGIC))
        _refuse_other_kinds(start, path, flag)
        if start and (start.startswith(NPY_MAGIC) or NPY_MAGIC.startswith(start)):
            return _open_npy(path, flag, size)
        return _open_text(path, flag, size)
    except OSError as error:
        raise InputError(f"{flag}: cannot read it ({error.strerror or error})") from None


def read_table(table: Table) -> np.ndarray:
    """The table's numbers: a .npy array as saved, or text as float64 ``[rows, columns]``."""
    try:
        if table.dtype is None:
            return _load_text(table)
        with open(table.path, "rb") as handle, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a header written by Python 2 warns before it is read
            return np.lib.format.read_array(handle, allow_pickle=False)
    except InputError:
        raise
    except MemoryError:
        raise InputError(f"{table.flag}: out of memory while reading it") from None
    except (ValueError, OSError) as error:  # the file changed since it was opened, or bad text
        if table.dtype is not None:
            raise InputError(f"{table.flag}: cannot read its data "
                             f"({type(error).__name__})") from None
        found = first_bad_line(table) or NOT_A_TABLE
        raise InputError(f"{table.flag}: cannot read it as numbers: {found}") from None


def _regular_size(path: str, flag: str) -> int:
    """The size of a regular file, with the path as given: ``good.csv/`` is not ``good.csv``."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{flag}: no such file") from None
    except NotADirectoryError:
        in_the_way = quote_path(file_in_the_way(path))
        raise InputError(f"{flag}: {in_the_way} is not a directory") from None
    if not stat.S_ISREG(status.st_mode):
        raise InputError(f"{flag}: not a regular file")
    return status.st_size


def _refuse_other_kinds(start: bytes, path: str, flag: str) -> None:
    """Files NumPy reads some other way than this sample does, with what to give instead."""
    if start.startswith(ZIP_STARTS):
        what = "a .npz archive (np.savez)" if path.lower().endswith(".npz") else "a zip archive"
        raise InputError(f"{flag}: {what}, not one table: save the array with np.save and give "
                         f"that .npy file")
    for magic, name in COMPRESSED_STARTS:
        if start.startswith(magic):
            raise InputError(f"{flag}: compressed ({name}): decompress it first; this sample reads "
                             f".npy and text")


# -- .npy files --------------------------------------------------------------------------------


def _open_npy(path: str, flag: str, size: int) -> Table:
    """A .npy header, read by numpy.lib.format and checked against the file's size."""
    cut_short = InputError(f"{flag}: its .npy header is cut short: the file holds only {size} "
                           f"bytes")
    with open(path, "rb") as handle, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a header written by Python 2 warns before it is read
        try:
            version = np.lib.format.read_magic(handle)
        except ValueError:  # fewer bytes than the magic and the version
            raise cut_short from None
        if version not in NPY_READERS:
            raise InputError(f"{flag}: a .npy file of format version {version[0]}.{version[1]}, "
                             f"which this sample cannot read (np.save writes 1.0 to 3.0)")
        try:
            shape, _, dtype = NPY_READERS[version](handle, max_header_size=MAX_HEADER)
        except (ValueError, TypeError, OverflowError):
            if handle.tell() >= size:  # NumPy's reader met the end of the file
                raise cut_short from None
            raise InputError(f"{flag}: its .npy header is not one NumPy can read (np.save writes "
                             f"one it can)") from None
        offset = handle.tell()
    if any(length < 0 for length in shape):
        raise InputError(f"{flag}: its .npy header gives a negative length: shape {list(shape)}")
    if dtype.hasobject:
        raise InputError(f"{flag}: holds Python objects (pickles are not loaded)")
    count = int(np.prod(shape, dtype=object))
    table = Table(path, flag, tuple(shape), dtype, 2 * count * dtype.itemsize + 8 * count)
    if count * dtype.itemsize > size - offset:
        raise InputError(f"{flag}: its data is cut short: its header describes shape {list(shape)} "
                         f"of {table.kind()}, {_bytes(count * dtype.itemsize)}, and the file holds "
                         f"{_bytes(size - offset)} after the {offset}-byte header")
    return table


def _bytes(size: int) -> str:
    """``"800 bytes"``; ``"160000000000 bytes (149.0 GiB)"`` where a rounder figure helps."""
    return f"{size} bytes" + (f" ({gib(size)})" if size >= 1 << 20 else "")


# -- text --------------------------------------------------------------------------------------
# The separator is read from the first line that holds data: a semicolon if the line has one, else
# a comma, else tabs or spaces. '#' starts a comment, a line of whitespace is blank whatever the
# separator, and a byte-order mark is not part of the first number. Lines end as Python's text
# files end them (LF, CRLF or a lone CR), for NumPy and for the messages alike.


def _open_text(path: str, flag: str, size: int) -> Table:
    """Text: the columns and separator of the first line of data (its problem, if it has one,
    refused now), and the lines counted in a bounded read of the whole file."""
    if size > MAX_TEXT_BYTES:
        raise InputError(f"{flag}: {gib(size)} of text is more than the {gib(MAX_TEXT_BYTES)} this "
                         f"sample parses; save the table as .npy")
    try:
        first = next(_data_lines(path, flag), None)
    except NotText as error:
        raise InputError(f"{flag}: cannot read it as numbers: {error}") from None
    if first is None:
        return Table(path, flag, (0, 0), None, 0)
    separator = line_separator(first[1])
    fields = [field.strip() for field in first[1].split(separator)]
    problem = _line_problem(first[0], first[1], fields, (separator, len(fields), first[0]))
    if problem:
        raise InputError(f"{flag}: cannot read it as numbers: {problem}")
    lines, size = _count_lines(path, flag)
    return Table(path, flag, (lines, len(fields)), None, TEXT_PARSE_FACTOR * size, separator)


def _count_lines(path: str, flag: str) -> tuple[int, int]:
    """(lines, bytes) of the file, read in chunks up to MAX_TEXT_BYTES (a file that reports size 0
    but never ends, /proc/self/pagemap, is stopped there), a line past MAX_LINE as it passes it. A
    line ends at LF, CR or CRLF, or at the end of the file."""
    lines, size, last, open_line = 0, 0, b"\n", 0
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            if not size and chunk.startswith(b"\xef\xbb\xbf"):  # a byte-order mark: no character
                open_line = -1
            size += len(chunk)
            if size > MAX_TEXT_BYTES:
                raise InputError(f"{flag}: more than {gib(MAX_TEXT_BYTES)} of text, which is more "
                                 f"than this sample parses; save the table as .npy")
            # The open line's characters: UTF-8's first bytes, and 1 for its end, as NumPy reads it.
            ends = [end for end in (chunk.find(b"\n"), chunk.find(b"\r")) if end >= 0]
            head = len(chunk[:min(ends, default=len(chunk))].translate(None, UTF8_CONTINUATION))
            if open_line + head + bool(ends) > MAX_LINE:
                raise InputError(f"{flag}: {TOO_LONG.format(lines + 1)}")
            tail = chunk[max(chunk.rfind(b"\n"), chunk.rfind(b"\r")) + 1:]
            open_line = len(tail.translate(None, UTF8_CONTINUATION)) if ends else open_line + head
            pair = last + chunk[:1] == b"\r\n"  # a CRLF cut between two chunks is one line end
            lines += chunk.count(b"\n") + chunk.count(b"\r") - chunk.count(b"\r\n") - pair
            last = chunk[-1:]
    return lines + (last not in b"\r\n"), size


def _lines(path: str, flag: str, errors: str = "strict") -> Iterator[str]:
    """The lines of the text as NumPy reads them, each bounded by MAX_LINE characters and the whole
    by MAX_TEXT_BYTES, whatever the file's reported size."""
    read = 0
    with open(path, encoding="utf-8-sig", errors=errors) as text:
        for number, line in enumerate(iter(lambda: text.readline(MAX_LINE + 1), ""), 1):
            read += len(line)
            if len(line) > MAX_LINE:
                raise InputError(f"{flag}: {TOO_LONG.format(number)}")
            if read > MAX_TEXT_BYTES:
                raise InputError(f"{flag}: more than {gib(MAX_TEXT_BYTES)} of text, which is more "
                                 f"than this sample parses; save the table as .npy")
            yield line


def _load_text(table: Table) -> np.ndarray:
    """The table as float64 ``[rows, columns]``; raises ValueError or OSError as NumPy does. The
    file is opened here, not by NumPy, which would decompress a name ending in .gz unbounded."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty file warns; the caller reports it
        lines = _blanks_emptied(_lines(table.path, table.flag))
        return np.loadtxt(lines, delimiter=table.separator, comments="#", dtype=np.float64, ndmin=2)


def _blanks_emptied(lines: Iterator[str]) -> Iterator[str]:
    """Each line that holds only whitespace (before any comment) made empty: NumPy skips an empty
    line, but with a comma or a semicolon between columns it reads spaces as one column."""
    for line in lines:
        if line[:1].isspace() and not line.split("#", 1)[0].strip():
            line = "\n"
        yield line


class NotText(ValueError):
    """A line that is not UTF-8 text, by its number."""

    def __init__(self, number: int) -> None:
        super().__init__(f"line {number} is not UTF-8 text")


def _data_lines(path: str, flag: str) -> Iterator[tuple[int, str]]:
    """(number, text without its comment) of each line that holds data, counted from 1 as NumPy
    reads them; raises :class:`NotText` at a line that is not UTF-8."""
    # Undecodable bytes kept as lone surrogates, so that the line holding them can be named.
    for number, line in enumerate(_lines(path, flag, "surrogateescape"), 1):
        if not is_utf8(line):
            raise NotText(number)
        data = line.split("#", 1)[0].strip()
        if data:
            yield number, data


def is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: a byte that was not UTF-8
        return False
    return True


def line_separator(text: str) -> str | None:
    return next((separator for separator, _ in SEPARATORS if separator in text), None)


def separator_name(separator: str | None) -> str:
    return dict(SEPARATORS).get(separator or "", WHITESPACE)


def first_bad_line(table: Table) -> str | None:
    """What is wrong with the first line NumPy could not read (once it failed), in the file's own
    terms (lines from 1, the first data line's columns), or None where this reading finds none."""
    separator, columns, first = None, 0, 0
    try:
        for number, text in _data_lines(table.path, table.flag):
            if not columns:
                separator, first = line_separator(text), number
            fields = [field.strip() for field in text.split(separator)]
            columns = columns or len(fields)
            found = _line_problem(number, text, fields, (separator, columns, first))
            if found is not None:
                return found
    except NotText as error:
        return str(error)
    return None


def _line_problem(number: int, text: str, fields: list[str],
                  table: tuple[str | None, int, int]) -> str | None:
    """What is wrong with one line, given the table's separator, columns and first line of data."""
    separator, columns, first = table
    if len(fields) != columns:
        own = line_separator(text)
        if own != separator:
            return (f"line {number} separates its columns by {separator_name(own)}, line {first} "
                    f"by {separator_name(separator)}; use one separator throughout")
        return (f"line {number} has {len(fields)} columns, line {first} has {columns}; every line "
                f"needs as many")
    bad = [field for field in fields if not is_number(field)]
    if not bad:
        return None
    if number == first and not looks_numeric(text):  # only words, on the first line: a header
        return (f"line {number} holds no numbers ({quoted(text)}): start a header line with '#', "
                f"which makes it a comment")
    if separator is None and holds_numbers(bad[0]):  # numbers run together: a separator not read
        return (f"line {number} holds numbers with no separator this sample reads between them "
                f"({quoted(bad[0])}): separate the columns by {READ}")
    return f"line {number}, column {fields.index(bad[0]) + 1} is not a number: {quoted(bad[0])}"


def quoted(text: str) -> str:
    """``text`` as a message quotes it, shortened: a binary file's line may be kilobytes long."""
    shown = repr(text)
    if len(shown) <= QUOTE_LIMIT:
        return shown
    return shown[:QUOTE_LIMIT - 3] + "..."


def holds_numbers(text: str) -> bool:
    """Whether a number stands among the text's pieces (split at what cannot be part of one)."""
    return any(is_number(piece) for piece in NOT_NUMBER_TEXT.split(text))


def looks_numeric(text: str) -> bool:
    """Whether a piece of the text starts as a number does (0x1F, Arabic-Indic digits): such a line
    was meant as data, and commenting it out would drop it."""
    return any(NUMBER_LIKE.match(piece) for piece in NOT_NUMBER_TEXT.split(text))


def is_number(field: str) -> bool:
    """A number as NumPy reads one: Python's float() also takes 1_000 and other scripts' digits."""
    try:
        float(field)
    except ValueError:
        return False
    return field.isascii() and "_" not in field
