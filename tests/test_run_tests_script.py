"""run_tests.sh says which .venv it installs the dev packages into, and a new one is one flag away.

The script runs in a scratch copy of the repository's top level, with stand-ins for Python: the
one that makes a venv writes a stand-in interpreter that records its arguments, so nothing is
downloaded or installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT

# Records each call as one line of its arguments; answers --version as Python would.
INTERPRETER = """#!/bin/sh
echo "$*" >> "$CALLS"
[ "$1" = --version ] && echo "Python 3.99.1"
exit 0
"""
# `python3 -m venv [--system-site-packages] .venv`, as far as run_tests.sh can tell.
MAKE_VENV = """#!/bin/sh
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
    settings = {key: value for key, value in os.environ.items() if key not in ("SYSTEM_SITE_PACKAGES", "WITH_TENSORRT")}
    settings.update(PYTHON=str(scratch / "make_venv"), INTERPRETER=str(scratch / "interpreter"),
                    CALLS=str(scratch / "calls"), **env)
    result = subprocess.run(["bash", str(scratch / "run_tests.sh"), *args], capture_output=True, text=True,
                            cwd=scratch, timeout=60, env=settings)
    calls = (scratch / "calls").read_text().splitlines() if (scratch / "calls").exists() else []
    (scratch / "calls").unlink(missing_ok=True)
    return result, calls


def test_a_new_venv_is_made_where_there_is_none(scratch: Path) -> None:
    result, calls = run_tests(scratch, "-k", "cli")
    assert result.returncode == 0, result.stderr
    assert result.stderr == "run_tests.sh: making a new .venv\n"
    assert calls[0] == "venv -m venv .venv" and calls[-1] == "-m pytest -k cli"
    assert "-m pip install -q --disable-pip-version-check -r requirements/dev.txt" in calls


def test_an_existing_venv_is_named_before_the_dev_packages_go_into_it(scratch: Path) -> None:
    run_tests(scratch)
    (scratch / ".venv" / "kept").touch()
    result, calls = run_tests(scratch, "-x")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ("run_tests.sh: reusing .venv (Python 3.99.1, without the system's site packages) and "
                             "installing requirements/dev.txt into it; 'bash run_tests.sh --fresh' makes a new one\n")
    assert not [call for call in calls if call.startswith("venv")] and (scratch / ".venv" / "kept").exists()
    assert "-m pip install -q --disable-pip-version-check -r requirements/dev.txt" in calls


def test_fresh_replaces_the_venv_and_is_not_passed_to_pytest(scratch: Path) -> None:
    run_tests(scratch)
    (scratch / ".venv" / "kept").touch()
    result, calls = run_tests(scratch, "--fresh", "-m", "gpu", SYSTEM_SITE_PACKAGES="1")
    assert result.returncode == 0, result.stderr
    assert result.stderr == "run_tests.sh: making a new .venv (--system-site-packages)\n"
    assert calls[0] == "venv -m venv --system-site-packages .venv" and calls[-1] == "-m pytest -m gpu"
    assert not (scratch / ".venv" / "kept").exists()


def test_system_site_packages_on_a_venv_made_without_them_is_one_line_and_installs_nothing(scratch: Path) -> None:
    run_tests(scratch)
    result, calls = run_tests(scratch, SYSTEM_SITE_PACKAGES="1")
    assert result.returncode == 2 and calls == []
    assert result.stderr == ("run_tests.sh: error: the .venv here was made without the system's site packages, which "
                             "SYSTEM_SITE_PACKAGES=1 asks for: run 'bash run_tests.sh --fresh'\n")
