"""pyright checks the TensorRT-facing code against tensorrt-stubs (installed by run_tests.sh)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT

STUBS = ROOT / ".typings" / "tensorrt" / "__init__.pyi"


def pyright(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    if shutil.which("pyright") is None or not STUBS.exists():
        if os.environ.get("CI"):
            pytest.fail("CI must run pyright: install requirements/dev.txt and tensorrt-stubs (run_tests.sh)")
        pytest.skip("pyright or .typings/tensorrt-stubs missing: run run_tests.sh")
    return subprocess.run(["pyright", *args], capture_output=True, text=True, cwd=cwd, timeout=600)


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
