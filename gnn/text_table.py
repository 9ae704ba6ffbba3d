# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""A table of numbers written as text: its separator read from its content, and a line NumPy
cannot read named by its number and column.

The separator is read from the first line that holds data, not from the file's name, which a
download or a spreadsheet may get wrong: a semicolon if the line has one, else a comma, else tabs
or spaces. ``#`` starts a comment, a line of whitespace is a blank line whatever the separator,
and a byte-order mark is not part of the first number. Lines end as Python's text files end them
(LF, CRLF or a lone CR), for NumPy and for the messages alike. Pure Python + NumPy.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

# A decimal comma makes a semicolon the separator (1,5;2,5), so a semicolon is looked for first.
SEPARATORS = ((";", "a semicolon"), (",", "a comma"))
WHITESPACE = "tabs or spaces"
READ = "a comma, a semicolon, tabs or spaces"
# What cannot be part of a number, in any script: a line with a number among the pieces between
# holds numbers.
NOT_NUMBER_TEXT = re.compile(r"[^\w.+\-]+")
# A piece that starts as a number does (a digit of any script, after signs or a point): 0x1F,
# Arabic-Indic digits, 1_000. Such a line is data this sample cannot read, never a header.
NUMBER_LIKE = re.compile(r"[+\-.]*\d")
QUOTE_LIMIT = 40  # characters of a line or field as quoted in a message: a binary file is not text


def load(file: Path) -> np.ndarray:
    """The table as float64 ``[rows, columns]``; raises ValueError or OSError as NumPy does. The
    file is opened here, not by NumPy, which would decompress a name ending in .gz, unbounded by
    the checks made on the file's size."""
    separator = separator_of(file)
    with file.open(encoding="utf-8-sig") as text, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an empty file warns; the caller reports it as an error
        return np.loadtxt(_blanks_emptied(text), delimiter=separator, comments="#",
                          dtype=np.float64, ndmin=2)


def _blanks_emptied(text: Iterable[str]) -> Iterator[str]:
    """The lines, each that holds only whitespace (before any comment) made empty: NumPy skips an
    empty line, but with a comma or a semicolon between columns it reads spaces as one column."""
    for line in text:
        if line[:1].isspace() and not line.split("#", 1)[0].strip():
            line = "\n"
        yield line


def separator_of(file: Path) -> str | None:
    """The separator of the first line that holds data: ';', ',', or None (tabs or spaces)."""
    for _, text in data_lines(file):
        return line_separator(text)
    return None


def line_separator(text: str) -> str | None:
    return next((separator for separator, _ in SEPARATORS if separator in text), None)


def separator_name(separator: str | None) -> str:
    return dict(SEPARATORS).get(separator or "", WHITESPACE)


class NotText(ValueError):
    """A line that is not UTF-8 text, by its number."""

    def __init__(self, number: int) -> None:
        super().__init__(f"line {number} is not UTF-8 text")


def data_lines(file: Path) -> Iterator[tuple[int, str]]:
    """(number, text without its comment) of each line that is not blank or a comment, counted
    from 1 as :func:`load` reads the lines (a lone CR ends one too); raises :class:`NotText` at a
    line that is not UTF-8."""
    # Undecodable bytes kept as lone surrogates, so that the line holding them can be named.
    with file.open(encoding="utf-8-sig", errors="surrogateescape") as lines:
        for number, text in enumerate(lines, 1):
            if not is_utf8(text):
                raise NotText(number)
            data = text.split("#", 1)[0].strip()
            if data:
                yield number, data


def is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: a byte that was not UTF-8
        return False
    return True


def first_bad_line(file: Path) -> str | None:
    """What is wrong with the first line NumPy could not read, in the file's own terms (lines
    counted from 1, the columns of the first line of data), or None where this reading finds
    nothing wrong. Called only after NumPy has failed: NumPy's words name its own parameters and
    count rows from 0."""
    separator, columns, first = None, 0, 0
    try:
        for number, text in data_lines(file):
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
    """Whether a piece of the text starts as a number does, a number or not (0x1F, Arabic-Indic
    digits): such a line was meant as data, and commenting it out would drop it."""
    return any(NUMBER_LIKE.match(piece) for piece in NOT_NUMBER_TEXT.split(text))


def is_number(field: str) -> bool:
    """A number as NumPy reads one: Python's float() also takes 1_000 and other scripts' digits."""
    try:
        float(field)
    except ValueError:
        return False
    return field.isascii() and "_" not in field
