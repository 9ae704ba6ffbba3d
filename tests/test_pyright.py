# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""pyright checks the TensorRT-facing code against tensorrt-stubs (installed by run_tests.sh)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT

STUBS = ROOT / ".typings" / "tensorrt" / "__init__.pyi"


def pyright_executable() -> str | None:
    """The pyright beside this interpreter (the venv's, even when the venv is not on PATH), else PATH's."""
    beside = Path(sys.executable).parent / "pyright"
    return str(beside) if beside.exists() else shutil.which("pyright")


def missing() -> str | None:
    if pyright_executable() is None:
        return f"pyright is not installed beside {sys.executable} or on PATH (requirements/dev.txt; run_tests.sh)"
    if not STUBS.exists():
        return f"{STUBS.relative_to(ROOT)} is missing (run_tests.sh installs tensorrt-stubs there with --no-deps)"
    return None


def pyright(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    reason, executable = missing(), pyright_executable()
    if reason is not None or executable is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run pyright: {reason}")
        pytest.skip(f"pyright: {reason}")
    # pyright's node wrapper finds node through PATH; the venv's bin comes first so its node is used.
    env = {**os.environ, "PATH": f"{Path(executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([executable, *args], capture_output=True, text=True, cwd=cwd, timeout=600, env=env)


def test_project_has_zero_pyright_errors() -> None:
    result = pyright()
    assert result.returncode == 0, result.stdout
    assert "0 errors" in result.stdout


def test_stubs_are_really_used(tmp_path: Path) -> None:
    # A check that cannot fail is worthless: a TensorRT API typo must be an error.
    probe = tmp_path / "probe.py"
    probe.write_text("import tensorrt as trt\ntrt.Builder(trt.Logger()).create_networkk()\n")
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pyright"]
    settings.update(include=["probe.py"], stubPath=str(ROOT / ".typings"))
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(settings))
    result = pyright("probe.py", cwd=tmp_path)
    assert result.returncode == 1 and 'Cannot access attribute "create_networkk"' in result.stdout, result.stdout
