# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The files a plugin author copies, and the driver that shows the plugin (the script and gnn/),
read one statement at a time: no line over 100 columns, no statements joined by the comma
operator in the CUDA, no nested conditional expressions and no two statements on one line in the
Python."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from conftest import ROOT

COPY = sorted([ROOT / "scatter_add_plugin.py", *(ROOT / "kernels").glob("*.py"),
               *(ROOT / "kernels").glob("*.cu")])
DRIVER = sorted([ROOT / "aliased_io_plugin.py", *(ROOT / "gnn").glob("*.py")])
OPEN, CLOSE = "([{", ")]}"


def _code(text: str) -> str:
    """The CUDA without comments, string literals and preprocessor lines (macros included)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    return re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)


def _opens_template(code: str, i: int) -> bool:
    """A '<' that opens template arguments (``Raw<K, T>``, ``template <int V>``), not a comparison."""
    glued = i > 0 and (code[i - 1].isalnum() or code[i - 1] == "_")
    return (glued or code[:i].rstrip().endswith("template")) and code[i + 1:i + 2] not in "<="


def _initializer(code: str, i: int) -> bool:
    """A '{' that opens a braced initializer (``Args{a, b}``, ``= {0, 1}``), not a block."""
    before = code[:i].rstrip()
    glued = i > 0 and not code[i - 1].isspace()
    return glued or before.endswith(("=", "(", ",", "{", "return"))


def comma_statements(text: str) -> list[str]:
    """Statements holding a comma outside any brackets: the comma operator (``a = 1, b = 2;``,
    ``f(x), y = z;``) or several declarators in one declaration."""
    code = _code(text)
    found: list[str] = []
    nesting: list[str] = []  # open brackets and initializer braces; a block's braces are not
    angles = 0
    start = 0  # where the statement began
    for i, ch in enumerate(code):
        if ch in "([" or ch == "{" and _initializer(code, i):
            nesting.append(ch)
        elif ch in ")]" or ch == "}" and nesting and nesting[-1] == "{":
            nesting.pop()
        elif ch in "{};" and not nesting:  # a block opens or closes, or a statement ends
            start = i + 1
            angles = 0
        elif ch == "<" and _opens_template(code, i):
            angles += 1
        elif ch == ">" and angles and code[i + 1:i + 2] not in "=>":
            angles -= 1
        elif ch == "," and not nesting and not angles:
            found.append(" ".join(code[start:code.find(";", i) + 1].split()))
    return found


def test_the_comma_check_finds_what_it_is_for() -> None:
    text = ("int a = 1, b = 2;\nx += y, ++n;\nr.n = p >> 1, r.s = p & 1;\n"
            "if (k) atomicAdd(c + row, n), *piece(s, 0) = v;\n")
    assert len(comma_statements(text)) == 4
    inside = "struct S { int n; };\n__device__ void f(S s) {\n    if (s.n) { g(s), s.n = 0; }\n}\n"
    assert comma_statements(inside) == ["g(s), s.n = 0;"]
    fine = ("template <int V, bool P> __device__ void f(Raw<V, T> r, int n) { for (int i = 0, j = 1;"
            " i < n; ++i) g(a, b); }\nconst Raw<K, I> keys = load<K, false>(idx, e);\n"
            "if (a < b && c > d) h(a, b);\n#define M(x, y) x, y\n// a, b = 1;\n")
    assert comma_statements(fine) == []


@pytest.mark.parametrize("path", COPY + DRIVER, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_line_is_over_100_columns(path: Path) -> None:
    long = [no for no, line in enumerate(path.read_text().splitlines(), 1) if len(line) > 100]
    assert long == [], f"{path.name}: lines {long}"


@pytest.mark.parametrize("path", [p for p in COPY if p.suffix == ".cu"], ids=lambda p: p.name)
def test_no_statements_joined_by_commas(path: Path) -> None:
    assert comma_statements(path.read_text()) == []


@pytest.mark.parametrize("path", [p for p in COPY if p.suffix == ".py"] + DRIVER,
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_python_reads_one_statement_and_one_condition_at_a_time(path: Path) -> None:
    tree = ast.parse(path.read_text())
    nested = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.IfExp)
              and any(isinstance(part, ast.IfExp) for part in (node.body, node.orelse, node.test))]
    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt)]
    assert nested == [], f"nested conditional expressions at lines {nested}"
    assert sorted(set(lines)) == sorted(lines), "two statements on one line"
