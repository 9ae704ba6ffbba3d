# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Each version floor is written once in code (gnn/machine.py); the README's Prerequisites state
the TensorRT floors, and every other place that names one is held to the same numbers here. The
cuda-python check refuses a release without cuda.pathfinder, which kernels/scatter_add.py imports."""

from __future__ import annotations

import re

from conftest import ROOT
from gnn import cli, machine
from gnn.cli import MIN_CUDA_PYTHON, MIN_TENSORRT, MIN_TENSORRT_AOT, dotted

README = (ROOT / "README.md").read_text()
INSTALL = " ".join((ROOT / "docs" / "install.md").read_text().split())


START = README.index("\n## Prerequisites\n")
PREREQUISITES = README[START:README.index("\n## ", START + 1)]


def prerequisites() -> str:
    return " ".join(PREREQUISITES.split())


def requirements_floor() -> str:
    match = re.search(r"^tensorrt-cu13>=([\d.]+),<12", (ROOT / "requirements.txt").read_text(), flags=re.M)
    assert match, "requirements.txt names no tensorrt-cu13 floor"
    return match.group(1)


def test_the_prerequisites_state_the_floors_the_code_checks() -> None:
    assert f"**TensorRT {dotted(MIN_TENSORRT)} or later** ({dotted(MIN_TENSORRT_AOT)} for `--aot`)" in prerequisites()


def test_the_readme_states_the_tensorrt_floor_in_one_place() -> None:
    """Elsewhere the README names no TensorRT release as a floor ("TensorRT 10.3 and later" and the like)."""
    outside = README.replace(PREREQUISITES, "")
    assert not re.search(r"TensorRT \d+\.\d+( and later| or later|\+)", outside)


def test_requirements_ask_for_at_least_the_floor_and_the_readme_says_why_more() -> None:
    floor = requirements_floor()
    assert machine._version(floor) >= MIN_TENSORRT
    assert f"`requirements.txt` sets the floor at {floor}, the first release for CUDA 13, and pip picks the newest " \
           "release below 12" in prerequisites()
    assert f"the first CUDA 13 build; aliased plugin I/O itself needs >= {dotted(MIN_TENSORRT)}" in (
        ROOT / "requirements.txt").read_text()


def test_the_cuda_12_set_uses_the_same_floors() -> None:
    assert f"`tensorrt-cu13>={requirements_floor()}` with `tensorrt-cu12>={dotted(MIN_TENSORRT)},<12`" in INSTALL
    assert f"`cuda-python>=13,<14` with `cuda-python>={dotted(MIN_CUDA_PYTHON)},<13`" in INSTALL


def test_messages_and_help_are_made_from_the_floors() -> None:
    assert f"needs TensorRT >= {dotted(MIN_TENSORRT_AOT)}" in cli.build_parser().format_help()
    assert dotted((10, 3)) == "10.3" and dotted((12, 9, 1)) == "12.9.1"


def test_cuda_python_without_pathfinder_is_refused() -> None:
    """cuda-python 12.6.1 and 12.9.0 have no cuda.pathfinder; 12.9.1 and every 13.x do."""
    for old in ("12.6.1", "12.8.0", "12.9.0"):
        assert machine.cuda_python_problem(old) == (
            f"cuda-python {old} is too old: kernels/cuda_calls.py imports cuda.pathfinder, which comes with cuda-python "
            ">= 12.9.1 (CUDA 12) or 13 (CUDA 13): python3 -m pip install -r requirements/base.txt")
    assert [machine.cuda_python_problem(new) for new in ("12.9.1", "12.9.4", "13.0.0", "13.4.4")] == [None] * 4


def test_the_installed_pathfinder_has_the_call_the_kernel_code_makes() -> None:
    """Here, requirements/dev.txt's cuda-pathfinder: the check passes, and the call it looks for exists."""
    import cuda.pathfinder

    assert machine.pathfinder_problem() is None and callable(cuda.pathfinder.find_nvidia_header_directory)


def test_base_requirements_ask_for_a_pathfinder_with_that_call() -> None:
    """base.txt takes the plugin's own requirements, which name it."""
    base, plugin = ((ROOT / "requirements" / name).read_text() for name in ("base.txt", "plugin.txt"))
    assert "-r plugin.txt" in base and f"cuda-pathfinder>={dotted(machine.MIN_CUDA_PATHFINDER)}" in plugin


def test_the_plugin_calls_what_the_check_looks_for() -> None:
    """The plugin's code (wherever in the repository it lives) imports the call the check names."""
    callers = [path for path in ROOT.rglob("*.py") if not path.relative_to(ROOT).parts[0].startswith((".", "tests"))
               and "from cuda.pathfinder import find_nvidia_header_directory" in path.read_text()]
    assert callers, "no file imports find_nvidia_header_directory: the pathfinder check guards nothing"
