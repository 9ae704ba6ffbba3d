# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The sample may be copied under Apache-2.0: the LICENSE file holds the terms, and every source
file a plugin author may copy says so in its first lines, where a copy taken alone still carries it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

SPDX = "SPDX-License-Identifier: Apache-2.0"
SOURCE_SUFFIXES = (".py", ".sh", ".c", ".cu", ".yml", ".toml")

def tracked_sources(root: Path = ROOT) -> list[str]:
    """The source files git tracks here. Where the tree is no git checkout of its own (an exported tree,
    with or without a repository around it) the test skips, saying so: git would list nothing of it,
    or another repository's files."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True,
                             check=True).stdout.strip()
        listed = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    if Path(top).resolve() != root.resolve():
        pytest.skip(f"not a git checkout of its own (git's top level is {top}): the tracked files cannot be listed")
    return [name for name in listed.split() if name.endswith(SOURCE_SUFFIXES) or name in (".ci/run", "run_tests.sh")]


def test_the_license_is_apache_2_0() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert text.lstrip().startswith("Apache License\n                           Version 2.0, January 2004")
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text and "END OF TERMS AND CONDITIONS" in text


def test_every_source_file_names_its_license_in_its_first_lines() -> None:
    files = tracked_sources()
    assert "aliased_io_plugin.py" in files and "scatter_add_plugin.py" in files and "tests/rtx_harness/shim.c" in files
    assert "kernels/scatter_add.cu" in files and "kernels/scatter_add_aot.cu" in files
    unlabelled = [name for name in files if SPDX not in "".join((ROOT / name).read_text().splitlines(True)[:4])]
    assert unlabelled == []


def test_the_readme_says_what_may_be_copied_and_under_which_terms() -> None:
    text = (ROOT / "README.md").read_text()
    assert "[LICENSE](LICENSE)" in text and "Apache License 2.0" in text


def test_a_header_precedes_nothing_python_needs_first() -> None:
    # A shebang must stay the first line, or `./run_tests.sh` and the CLI stop being executable.
    for name in ("aliased_io_plugin.py", "run_tests.sh", ".ci/run"):
        lines = Path(ROOT / name).read_text().splitlines()
        assert lines[0].startswith("#!") and SPDX in lines[2], name


@pytest.mark.parametrize("inside_a_repository", [False, True])
def test_an_exported_tree_skips_with_its_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                inside_a_repository: bool) -> None:
    """`git archive` unpacked somewhere, or inside a repository of the user's own."""
    if shutil.which("git") is None:
        pytest.skip("no git here")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # no repository above tmp_path counts
    exported = tmp_path / "outer" / "sample"
    exported.mkdir(parents=True)
    if inside_a_repository:
        subprocess.run(["git", "init", "-q", str(tmp_path / "outer")], check=True, timeout=60)
    with pytest.raises(pytest.skip.Exception, match="not a git checkout"):
        tracked_sources(exported)
