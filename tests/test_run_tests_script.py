# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""run_tests.sh says what it does, step by step, and which .venv it installs the dev packages
into; a new one is one flag away; where the Python that runs it has TensorRT, the new .venv sees
that TensorRT; a Python older than 3.11 is refused in one line; tensorrt-stubs are installed once, so
that a warm run needs no package index.

The script runs in a scratch copy of the repository's top level, with stand-ins for Python: the
one that makes a venv writes a stand-in interpreter that records its arguments, so nothing is
downloaded or installed. Each answers run_tests.sh's probe (``-c``: "<Python version> <TensorRT
version or ->") from the environment, without recording it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

# Records each call as one line of its arguments; answers --version as Python would.
INTERPRETER = """#!/bin/sh
[ "$1" = -c ] && { echo "${VENV_PROBE:-3.99 -}"; exit 0; }
echo "$*" >> "$CALLS"
[ "$1" = --version ] && echo "Python 3.99.1"
exit 0
"""
# `python3 -m venv [--system-site-packages] .venv`, as far as run_tests.sh can tell.
MAKE_VENV = """#!/bin/sh
[ "$1" = -c ] && { echo "${SYSTEM_PROBE:-3.99 -}"; exit 0; }
echo "venv $*" >> "$CALLS"
mkdir -p .venv/bin
cp "$INTERPRETER" .venv/bin/python
[ "$3" = --system-site-packages ] && system=true || system=false
echo "include-system-site-packages = $system" > .venv/pyvenv.cfg
"""


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    if shutil.which("bash") is None:
        pytest.skip("no bash")
    shutil.copy(ROOT / "run_tests.sh", tmp_path)
    for name, text in (("interpreter", INTERPRETER), ("make_venv", MAKE_VENV)):
        (tmp_path / name).write_text(text)
        (tmp_path / name).chmod(0o755)
    return tmp_path


def run_tests(scratch: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    settings = {key: value for key, value in os.environ.items() if key not in ("SYSTEM_SITE_PACKAGES", "WITH_TENSORRT",
                                                                        "SYSTEM_PROBE", "VENV_PROBE")}
    settings.update({"PYTHON": str(scratch / "make_venv"), "INTERPRETER": str(scratch / "interpreter"),
                     "CALLS": str(scratch / "calls"), **env})
    result = subprocess.run(["bash", str(scratch / "run_tests.sh"), *args], capture_output=True, text=True,
                            cwd=scratch, timeout=60, env=settings)
    calls = (scratch / "calls").read_text().splitlines() if (scratch / "calls").exists() else []
    (scratch / "calls").unlink(missing_ok=True)
    return result, calls


SCRIPT = (ROOT / "run_tests.sh").read_text()
STUBS_VERSION = re.search(r"^STUBS_VERSION=(\S+)$", SCRIPT, flags=re.M).group(1)  # type: ignore[union-attr]
DEV_STEP = ("run_tests.sh: installing requirements/dev.txt into .venv (when new: about 1.2 GB from the package index, "
            "about a minute)\n")
PYTEST_STEP = "run_tests.sh: running pytest (2 to 7 minutes on two cores)\n"
STEPS = DEV_STEP + f"run_tests.sh: installing tensorrt-stubs {STUBS_VERSION} into .typings (for pyright)\n" + PYTEST_STEP
STUBS_INSTALL = ("-m pip install -q --disable-pip-version-check --no-deps --target .typings "
                 f"tensorrt-stubs=={STUBS_VERSION}")
DEV_INSTALL = "-m pip install -q --disable-pip-version-check -r requirements/dev.txt"
REUSING = ("run_tests.sh: reusing .venv (Python 3.99.1, without the system's site packages) and installing "
           "requirements/dev.txt into it; 'bash run_tests.sh --fresh' makes a new one\n")


def test_a_new_venv_is_made_where_there_is_none(scratch: Path) -> None:
    result, calls = run_tests(scratch, "-k", "cli")
    assert result.returncode == 0, result.stderr
    assert result.stderr == "run_tests.sh: making a new .venv\n" + STEPS
    assert calls[0] == "venv -m venv .venv" and calls[-1] == "-m pytest -k cli"
    assert DEV_INSTALL in calls and not [call for call in calls if "requirements.txt" in call]


def test_an_existing_venv_is_named_before_the_dev_packages_go_into_it(scratch: Path) -> None:
    run_tests(scratch)
    (scratch / ".venv" / "kept").touch()
    result, calls = run_tests(scratch, "-x")
    assert result.returncode == 0, result.stderr
    assert result.stderr == REUSING + STEPS
    assert not [call for call in calls if call.startswith("venv")] and (scratch / ".venv" / "kept").exists()
    assert DEV_INSTALL in calls


def test_fresh_replaces_the_venv_and_is_not_passed_to_pytest(scratch: Path) -> None:
    run_tests(scratch)
    (scratch / ".venv" / "kept").touch()
    result, calls = run_tests(scratch, "--fresh", "-m", "gpu", SYSTEM_SITE_PACKAGES="1")
    assert result.returncode == 0, result.stderr
    assert result.stderr == "run_tests.sh: making a new .venv (--system-site-packages)\n" + STEPS
    assert calls[0] == "venv -m venv --system-site-packages .venv" and calls[-1] == "-m pytest -m gpu"
    assert not (scratch / ".venv" / "kept").exists()


def test_system_site_packages_on_a_venv_made_without_them_is_one_line_and_installs_nothing(scratch: Path) -> None:
    run_tests(scratch)
    result, calls = run_tests(scratch, SYSTEM_SITE_PACKAGES="1")
    assert result.returncode == 2 and calls == []
    assert result.stderr == ("run_tests.sh: error: the .venv here was made without the system's site packages, which "
                             "SYSTEM_SITE_PACKAGES=1 asks for: run 'bash run_tests.sh --fresh'\n")


def test_a_new_venv_sees_the_tensorrt_of_the_python_that_makes_it(scratch: Path) -> None:
    """NVIDIA's container: its python3 has TensorRT, and the README's one command must test it."""
    result, calls = run_tests(scratch, SYSTEM_PROBE="3.12 10.13.3.9")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ("run_tests.sh: making a new .venv with the system's site packages, so that the tests "
                             f"use TensorRT 10.13.3.9 of {scratch / 'make_venv'}\n" + STEPS)
    assert calls[0] == "venv -m venv --system-site-packages .venv"
    assert (scratch / ".venv" / "pyvenv.cfg").read_text() == "include-system-site-packages = true\n"


def test_a_reused_venv_that_cannot_see_the_systems_tensorrt_says_how_to_get_one_that_does(scratch: Path) -> None:
    run_tests(scratch)
    result, _ = run_tests(scratch, SYSTEM_PROBE="3.12 10.13.3.9")
    assert result.returncode == 0, result.stderr
    assert result.stderr == REUSING + (
        f"run_tests.sh: note: {scratch / 'make_venv'} has TensorRT 10.13.3.9, which this .venv cannot see, so the "
        "TensorRT tests may skip: 'bash run_tests.sh --fresh' makes a .venv that sees it\n") + STEPS


def test_a_reused_venv_with_its_own_tensorrt_gets_no_note(scratch: Path) -> None:
    run_tests(scratch)
    result, _ = run_tests(scratch, SYSTEM_PROBE="3.12 10.13.3.9", VENV_PROBE="3.12 10.13.2.6")
    assert result.returncode == 0 and result.stderr == REUSING + STEPS


def test_with_tensorrt_installs_requirements_txt_and_says_so(scratch: Path) -> None:
    result, calls = run_tests(scratch, WITH_TENSORRT="1")
    assert result.returncode == 0, result.stderr
    assert "run_tests.sh: installing requirements.txt (TensorRT, from NVIDIA's package index) into .venv\n" in result.stderr
    assert "-m pip install -q --disable-pip-version-check -r requirements.txt" in calls


@pytest.mark.parametrize("version", ["3.10", "3.9", "2.7"])
def test_a_python_older_than_3_11_is_one_line_and_makes_nothing(scratch: Path, version: str) -> None:
    result, calls = run_tests(scratch, SYSTEM_PROBE=f"{version} -")
    assert result.returncode == 3 and calls == [] and not (scratch / ".venv").exists()
    assert result.stderr == (f"run_tests.sh: error: Python {version} ({scratch / 'make_venv'}) is too old: the sample "
                             "and its tests need Python 3.11 or later; set PYTHON to Python 3.11 or later\n")


def test_a_reused_venv_of_an_old_python_is_refused_too(scratch: Path) -> None:
    run_tests(scratch)
    result, calls = run_tests(scratch, VENV_PROBE="3.10 -")
    assert result.returncode == 3 and calls == []
    assert result.stderr == ("run_tests.sh: error: Python 3.10 (.venv/bin/python) is too old: the sample and its tests "
                             "need Python 3.11 or later; set PYTHON to Python 3.11 or later and run 'bash run_tests.sh "
                             "--fresh'\n")


def test_a_python_that_does_not_run_is_one_line(scratch: Path) -> None:
    result, calls = run_tests(scratch, PYTHON=str(scratch / "no-such-python"))
    assert result.returncode == 3 and calls == []
    assert result.stderr == (f"run_tests.sh: error: '{scratch / 'no-such-python'}' does not run as Python; set PYTHON "
                             "to Python 3.11 or later\n")


def test_the_stubs_are_installed_once_and_again_only_for_another_pin(scratch: Path) -> None:
    """A warm run asks no package index: pip finds requirements/dev.txt installed, and the stubs are not
    reinstalled while .typings holds the pinned version."""
    result, calls = run_tests(scratch)
    assert result.returncode == 0 and STUBS_INSTALL in calls
    (scratch / ".typings" / f"tensorrt_stubs-{STUBS_VERSION}.dist-info").mkdir(parents=True)
    result, calls = run_tests(scratch)
    assert result.returncode == 0 and not [call for call in calls if "tensorrt-stubs" in call]
    assert result.stderr == REUSING + DEV_STEP + (f"run_tests.sh: tensorrt-stubs {STUBS_VERSION} is in .typings already "
                                                  "(for pyright)\n") + PYTEST_STEP
    # Another pin: the old stubs go, the new ones come.
    (scratch / ".typings" / f"tensorrt_stubs-{STUBS_VERSION}.dist-info").rename(
        scratch / ".typings" / "tensorrt_stubs-10.3.0.0.dist-info")
    result, calls = run_tests(scratch)
    assert result.returncode == 0 and STUBS_INSTALL in calls and not (scratch / ".typings").exists()


def test_the_probe_reads_this_pythons_tensorrt_as_the_tests_do() -> None:
    """The probe itself, run by this Python: a real TensorRT's version, or "-" where there is none
    or only tensorrt-stubs (a namespace package without __version__), as conftest decides."""
    from conftest import real_tensorrt_version

    script = (ROOT / "run_tests.sh").read_text()
    probe = script[script.index("PROBE='") + len("PROBE='"):script.index("'", script.index("PROBE='") + 7)]
    typings = ROOT / ".typings"
    env = {**os.environ, "PYTHONPATH": str(typings)} if typings.is_dir() else dict(os.environ)
    answer = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120)
    assert answer.stdout == f"{sys.version_info[0]}.{sys.version_info[1]} {real_tensorrt_version() or '-'}\n"


def test_the_trt_skip_reason_names_the_commands_tested_here() -> None:
    """A skipped TensorRT test names the commands whose effect the tests above check: --fresh (a
    .venv that sees python3's TensorRT) and WITH_TENSORRT=1 (requirements.txt into .venv)."""
    from conftest import TRT_TEST_COMMANDS, real_tensorrt_version, trt_skip_reason

    assert re.findall(r"`([^`]+)`", TRT_TEST_COMMANDS) == ["bash run_tests.sh --fresh", "WITH_TENSORRT=1 bash run_tests.sh"]
    if real_tensorrt_version() is None:
        assert trt_skip_reason() == f"TensorRT is not installed for {sys.executable}: {TRT_TEST_COMMANDS}"
