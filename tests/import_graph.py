# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""What the sample's files import, read from their source with ``ast``: nothing is imported.

Imports inside functions count too: the sample imports its heavy packages where they are needed.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from conftest import ROOT


def imported_names(path: Path) -> set[str]:
    """Every module the file imports: ``import a.b`` gives ``a.b``; ``from a import b`` gives ``a``,
    and ``a.b`` too where that is one of the repository's modules."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
            module = absolute(path, node.module, node.level)
            names.add(module)
            names.update(name for name in (f"{module}.{alias.name}" for alias in node.names) if local_file(name))
    return names


def absolute(path: Path, module: str | None, level: int) -> str:
    """The absolute name of ``from <level dots><module> import ...`` in the file at ``path``."""
    if not level:
        return str(module)
    package = path.relative_to(ROOT).parent.parts[:len(path.relative_to(ROOT).parent.parts) - (level - 1)]
    return ".".join([*package, *([module] if module else [])])


def local_file(name: str) -> Path | None:
    """The repository's file for a module name (``kernels.plan``, ``scatter_add_plugin``), or None."""
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def is_outside(name: str) -> bool:
    """A module neither of the standard library nor of this repository."""
    top = name.split(".")[0]
    return top not in sys.stdlib_module_names and local_file(top) is None


def closure(start: Path) -> tuple[set[Path], set[str]]:
    """The repository's files ``start`` needs, itself included, and the outside modules they import."""
    files, outside, todo = set(), set(), [start]
    while todo:
        path = todo.pop()
        if path in files:
            continue
        files.add(path)
        for name in imported_names(path):
            local = local_file(name)
            if local is not None:
                todo.append(local)
            elif is_outside(name):
                outside.add(name)
    return files, outside
