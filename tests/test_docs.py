# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The documents speak of the repository as it is: every file or folder they name exists (the changelog, which
is history, aside), no path points outside the repository, and none speaks of how the project was made (issue
numbers, a "device call")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "tests" / "README.md",
             ROOT / "benchmarks" / "README.md"]
CURRENT = [doc for doc in DOCUMENTS if doc.name != "changelog.md"]
# A name in backquotes with a slash, or with a file suffix; and a link's target.
PATHLIKE = re.compile(r"`([\w.-]*(?:/[\w.*-]*)+|[\w.-]+\.(?:py|cu|md|txt|sh|yml|toml|png|csv|npy|log|json|c))`")
LINK = re.compile(r"\]\(([^)#]+)(?:#[^)]*)?\)")
# Where a document may name a file by its short name: its own folder, the root, and the folders that hold
# what the documents talk about.
FOLDERS = ("", "tests", "tests/rtx_harness", "benchmarks", "benchmarks/results", "gnn", "kernels", "docs", "requirements")
# Named on purpose, and not this repository's: NVIDIA's sources and samples, files a command writes, and
# an elision.
ELSEWHERE = {"05-Plugin/AliasedIOPlugin", "python/src/infer/pyPlugin.cpp", "qdp_runner.py",
             "samples/python/aliased_io_plugin", "samples/python/quickly_deployable_plugins/qdp_runner.py",
             "cuda/std/type_traits", "details/info.h", "PATH.json", ".rtx/", "..._v14_constants.log"}


def named_paths(document: Path) -> set[str]:
    text = document.read_text()
    return set(PATHLIKE.findall(text)) | {link for link in LINK.findall(text) if not link.startswith("http")}


def exists(name: str, document: Path) -> bool:
    places = [document.parent / name, *(ROOT / folder / name for folder in FOLDERS)]
    if "*" in name:
        return any(list(place.parent.glob(place.name)) for place in places)
    # A folder counts only where it holds a file: git keeps no empty folder, so a fresh clone would not have it.
    return any(place.is_file() or (place.is_dir() and any(p.is_file() for p in place.rglob("*"))) for place in places)


@pytest.mark.parametrize("document", CURRENT, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_path_a_document_names_exists(document: Path) -> None:
    missing = sorted(name for name in named_paths(document) - ELSEWHERE if not exists(name, document))
    assert missing == [], f"{document.relative_to(ROOT)} names what is not in the repository: {missing}"


def test_the_path_check_finds_a_path_of_the_old_layout() -> None:
    assert not exists("scatter_add_plugin/plan.py", ROOT / "README.md") and exists("kernels/plan.py", ROOT / "README.md")
    assert PATHLIKE.findall("see `scatter_add_plugin/qdp.py` and `compiler.py`") == ["scatter_add_plugin/qdp.py",
                                                                                      "compiler.py"]


def test_the_changelog_says_its_paths_are_history() -> None:
    assert "Each entry is history" in (ROOT / "docs" / "changelog.md").read_text()


@pytest.mark.parametrize("document", [*DOCUMENTS, ROOT / "benchmarks" / "targets.py"],
                         ids=lambda path: path.relative_to(ROOT).as_posix())
def test_no_document_speaks_of_how_the_project_was_made(document: Path) -> None:
    text = " ".join(document.read_text().split())
    assert not re.findall(r"\bissues? #?\d+\b", text, flags=re.I)  # not "issues 136M warp instructions"
    assert "device call" not in text and "../shared" not in text and "closure.py" not in text


@pytest.mark.parametrize("document", [ROOT / "README.md", ROOT / "benchmarks" / "README.md"],
                         ids=lambda path: path.relative_to(ROOT).as_posix())
def test_bold_ratios_are_cases_ours_wins(document: Path) -> None:
    """In the tables, bold marks the cases where ours is faster than the peer it is compared with."""
    bold = [float(ratio) for ratio in re.findall(r"\*\*([\d.]+)x\*\*", document.read_text())]
    assert bold and min(bold) > 1.0
