# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Each version floor is written once in code (gnn/cli.py); the README's Prerequisites state the
TensorRT floors, and every other place that names one is held to the same numbers here. Versions
are compared in pip's order, as pip records them. The cuda-python check refuses a release without
cuda.pathfinder, which kernels/scatter_add.py imports."""

from __future__ import annotations

import importlib.metadata
import re
import sys

import pytest

from conftest import ROOT
from gnn import cli, machine
from gnn.cli import MIN_TENSORRT_AOT, MissingPackage, dotted
from gnn.machine import MIN_CUDA_PYTHON, MIN_POLYGRAPHY, MIN_TENSORRT
from test_readme import section

README = (ROOT / "README.md").read_text()
INSTALL = " ".join((ROOT / "docs" / "install.md").read_text().split())
PREREQUISITES = section(README, "Prerequisites")


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
    assert machine.at_least(floor, MIN_TENSORRT)
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


def recorded(monkeypatch: pytest.MonkeyPatch, **versions: str) -> None:
    """pip's record says ``versions`` (by distribution, ``_`` for ``-``); the others as installed."""
    real = importlib.metadata.version
    wanted = {name.replace("_", "-"): version for name, version in versions.items()}
    monkeypatch.setattr(importlib.metadata, "version", lambda name: wanted.get(name) or real(name))


def test_cuda_python_without_pathfinder_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """cuda-python 12.6.1 and 12.9.0 have no cuda.pathfinder; 12.9.1 and every 13.x do."""
    for old in ("12.6.1", "12.8.0", "12.9.0", "12.9.1rc1"):
        recorded(monkeypatch, cuda_bindings=old)
        with pytest.raises(MissingPackage) as caught:
            machine.check_versions()
        assert str(caught.value) == (
            f"cuda-python {old} is too old: kernels/cuda_calls.py imports cuda.pathfinder, which comes with cuda-python "
            ">= 12.9.1 (CUDA 12) or 13 (CUDA 13): python3 -m pip install -r requirements/base.txt")
    for new in ("12.9.1", "12.9.4", "13.0.0", "13.4.4"):
        recorded(monkeypatch, cuda_bindings=new)
        machine.check_versions()


def test_a_release_candidate_is_older_than_its_release(monkeypatch: pytest.MonkeyPatch) -> None:
    """pip's order: 0.50.3rc1 comes before the floor 0.50.3 (read digit by digit it was 0.50.31)."""
    recorded(monkeypatch, polygraphy="0.50.3rc1")
    with pytest.raises(MissingPackage, match=r"^Polygraphy 0\.50\.3rc1 is too old: pip install 'polygraphy>=0\.50\.3'$"):
        machine.check_versions()
    assert machine.at_least("0.50.3", MIN_POLYGRAPHY) and machine.at_least("0.50.10", MIN_POLYGRAPHY)
    assert machine.at_least("10.13.2.6", MIN_TENSORRT) and not machine.at_least("10.2.0", MIN_TENSORRT)


def test_without_packaging_the_release_numbers_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    """packaging comes with CuPy: where it is missing, a pre-release counts as its release."""
    monkeypatch.setitem(sys.modules, "packaging.version", None)  # its import raises ImportError
    assert not machine.at_least("0.50.2rc1", MIN_POLYGRAPHY) and machine.at_least("0.50.3rc1", MIN_POLYGRAPHY)
    assert machine.at_least("0.50.10", MIN_POLYGRAPHY) and not machine.at_least("unknown", MIN_POLYGRAPHY)


def test_the_installed_pathfinder_has_the_call_the_kernel_code_makes() -> None:
    """Here, requirements/dev.txt's cuda-pathfinder: the check passes, and the call it looks for exists."""
    import cuda.pathfinder

    machine.check_versions()
    assert callable(cuda.pathfinder.find_nvidia_header_directory)


def test_a_pathfinder_before_the_call_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    recorded(monkeypatch, cuda_pathfinder="1.2.2")
    with pytest.raises(MissingPackage, match=r"^cuda-pathfinder 1\.2\.2 is too old: need >= 1\.2\.3 "
                                             r"\(find_nvidia_header_directory\): "):
        machine.check_versions()


def test_base_requirements_ask_for_a_pathfinder_with_that_call() -> None:
    """base.txt takes the plugin's own requirements, which name it."""
    base, plugin = ((ROOT / "requirements" / name).read_text() for name in ("base.txt", "plugin.txt"))
    assert "-r plugin.txt" in base and f"cuda-pathfinder>={dotted(machine.MIN_CUDA_PATHFINDER)}" in plugin


def test_the_plugin_calls_what_the_check_looks_for() -> None:
    """The plugin's code (wherever in the repository it lives) imports the call the check names."""
    callers = [path for path in ROOT.rglob("*.py") if not path.relative_to(ROOT).parts[0].startswith((".", "tests"))
               and "from cuda.pathfinder import find_nvidia_header_directory" in path.read_text()]
    assert callers, "no file imports find_nvidia_header_directory: the pathfinder check guards nothing"
