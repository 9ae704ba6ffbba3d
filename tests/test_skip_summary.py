# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The skips are summed up in a line per marker group, each with the command that runs the group, and no
line per test unless -rs asks for one (tests/skip_summary.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, TRT_TEST_COMMANDS
from skip_summary import GROUPS, TITLE, lines

NO_DRIVER = "GPU test: no NVIDIA driver"


def test_each_group_is_one_line_with_its_count_reason_and_command() -> None:
    gpu_command = dict((name, command) for name, _, command in GROUPS)["gpu"]
    skips = [({"gpu"}, NO_DRIVER)] * 3 + [({"gpu", "lean"}, NO_DRIVER)]
    assert lines(skips) == [f"    4 gpu: no NVIDIA driver; {gpu_command}"]
    assert gpu_command == "on a machine with an NVIDIA GPU: bash run_tests.sh -m gpu"


def test_a_test_in_two_groups_counts_in_the_first() -> None:
    found = lines([({"gpu", "rtx"}, "TensorRT-RTX GPU test: refused"), ({"trt", "gpu"}, "TensorRT test: absent")])
    assert [line.split(":")[0].strip() for line in found] == ["1 trt", "1 gpu and rtx"]


def test_a_reason_that_names_its_command_gets_no_second_one() -> None:
    reason = f"TensorRT test: TensorRT is not installed for python: {TRT_TEST_COMMANDS}"
    assert lines([({"trt"}, reason)]) == [f"    1 trt: TensorRT is not installed for python: {TRT_TEST_COMMANDS}"]


def test_a_reason_of_the_tests_own_is_listed_as_such() -> None:
    """Not skipped for want of what its markers need: the group's command would not run it."""
    found = lines([({"lean"}, "tensorrt.plugin does not import"), ({}, "not a git checkout"),
                   ({}, "not a git checkout"), ({"gpu"}, "GPU test: no device")])
    assert found[0].startswith("    1 gpu: no device; ")
    assert found[1:] == ["    2 other: not a git checkout", "    1 other: tensorrt.plugin does not import"]


def test_several_reasons_in_a_group_are_counted() -> None:
    found = lines([({"gpu"}, "GPU test: a")] * 2 + [({"gpu"}, "GPU test: b"), ({"gpu"}, "GPU test: c")])
    assert found[0].startswith("    4 gpu: a (and 2 other reasons); ")


def test_pytest_prints_the_groups_and_no_line_per_test(tmp_path: Path) -> None:
    """A real pytest run with the sample's settings and the hook, on tests that skip as conftest.py skips."""
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n"
        "@pytest.mark.gpu\n@pytest.mark.parametrize('n', range(3))\n"
        "def test_kernel(n):\n    pytest.skip('GPU test: no NVIDIA driver')\n"
        "@pytest.mark.lean\ndef test_plugin():\n    pytest.skip('TensorRT 11.4 lean test: not installed')\n"
        "def test_git():\n    pytest.skip('not a git checkout')\n"
        "def test_passes():\n    pass\n")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "skip_summary", "-c",
               str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path), str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests")}
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = result.stdout[result.stdout.index(TITLE):].splitlines()[1:4]
    assert [line.split(";")[0] for line in summary] == ["    3 gpu: no NVIDIA driver", "    1 lean: not installed",
                                                        "    1 other: not a git checkout"]
    assert "SKIPPED [" not in result.stdout
    with_reasons = subprocess.run([*command, "-rs"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert "SKIPPED [3]" in with_reasons.stdout and TITLE in with_reasons.stdout
