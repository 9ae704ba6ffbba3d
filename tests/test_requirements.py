# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The dependency set tells the truth: it resolves on the Python floor the README states (CPU).

pip resolves requirements.txt without its tensorrt line (that is, requirements/base.txt: TensorRT's
libraries come from NVIDIA's own package index) and requirements/extras.txt for CPython at the floor, as a new user would, in a
dry run that installs nothing. Needs the package index; CI has it.
"""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

PYTHON_FLOOR = "3.11"
PLATFORMS = ("manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux_2_24_x86_64", "manylinux_2_27_x86_64",
             "manylinux_2_28_x86_64", "manylinux_2_34_x86_64")


def test_readme_states_the_floor() -> None:
    assert f"Python {PYTHON_FLOOR} or later" in (ROOT / "README.md").read_text()


def test_requirements_resolve_on_the_python_floor(tmp_path: Path) -> None:
    runtime = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    assert [line for line in runtime if line] == ["tensorrt-cu13>=10.13.2,<12", "-r requirements/base.txt"]
    platforms = [arg for platform in PLATFORMS for arg in ("--platform", platform)]
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--target",
         str(tmp_path / "t"), "--only-binary=:all:", "--implementation", "cp", "--python-version", PYTHON_FLOOR,
         *platforms, "--report", str(tmp_path / "report.json"), "-r", str(ROOT / "requirements/base.txt"),
         "-r", str(ROOT / "requirements/extras.txt")], capture_output=True, text=True, timeout=600)
    unreachable = "Failed to establish a new connection" in result.stderr or "(from versions: none)" in result.stderr
    if result.returncode and unreachable and not os.environ.get("CI"):
        pytest.skip("the package index is not reachable from this machine")
    assert result.returncode == 0, result.stderr
    resolved = {item["metadata"]["name"].lower(): item["metadata"]["version"]
                for item in json.loads((tmp_path / "report.json").read_text())["install"]}
    assert int(resolved["numpy"].split(".")[0]) >= 2 and int(resolved["cupy-cuda13x"].split(".")[0]) >= 14
    assert resolved["cuda-python"].startswith("13.") and resolved["cuda-bindings"].startswith("13.")


def requirement_names(path: Path) -> set[str]:
    lines = [line.split("#")[0].strip() for line in path.read_text().splitlines()]
    return {re.split(r"[<>=!~ ]", line)[0].lower() for line in lines if line}


def test_the_plugins_own_requirements_are_apart_from_the_samples() -> None:
    """requirements/plugin.txt is what the plugin with kernels/ imports, TensorRT aside (cuda-python, NVRTC and the
    CUDA headers to build, NumPy); base.txt takes it and adds what only the sample imports, CuPy and Polygraphy."""
    from import_graph import closure

    plugin = requirement_names(ROOT / "requirements" / "plugin.txt")
    assert plugin == {"cuda-python", "cuda-pathfinder", "nvidia-cuda-nvrtc", "nvidia-cuda-runtime", "numpy"}
    assert requirement_names(ROOT / "requirements" / "base.txt") == {"-r", "polygraphy", "cupy-cuda13x"}
    assert "-r plugin.txt" in (ROOT / "requirements" / "base.txt").read_text()
    # The plugin, and each kernel it may choose (imported by name, so each is a start of its own).
    starts = [ROOT / "scatter_add_plugin.py", *(ROOT / "kernels").glob("*.py")]
    imported = {name.split(".")[0] for start in starts for name in closure(start)[1]}
    assert imported == {"tensorrt", "numpy", "cuda"}  # cuda.bindings, cuda.pathfinder: cuda-python's
