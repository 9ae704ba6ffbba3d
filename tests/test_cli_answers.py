# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""What the real CLI answers, in a subprocess: output that cannot be written (--help's too) is
exit 7; a flag that takes no value says so."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import ROOT
from gnn import cli
from hide_packages import hiding
from test_cli import PREFIX, SCRIPT
from test_hostile_inputs import one_line


def run(*args: str, env: dict[str, str] | None = None, preexec: Callable[[], None] | None = None,
        **streams: object) -> subprocess.CompletedProcess[str]:
    """The CLI from the repository's root; stdout and stderr captured unless ``streams`` says
    otherwise."""
    settings: dict[str, object] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **streams}
    return subprocess.run([sys.executable, SCRIPT, *args], text=True, cwd=ROOT, timeout=300,
                          preexec_fn=preexec, env={**os.environ, **(env or {})},
                          **settings)  # type: ignore[call-overload]


# -- output that cannot be written: exit 7 --------------------------------------------------------

def test_help_into_a_full_device_is_exit_7_with_one_line() -> None:
    with open("/dev/full", "w") as full:
        result = run("--help", stdout=full)
    assert result.returncode == 7 == cli.Exit.OUTPUT
    assert result.stderr == f"{PREFIX}cannot write the output: No space left on device\n"


def test_help_into_a_closed_pipe_is_exit_7_quietly() -> None:
    """As a run into a closed pipe (`| head`): the reader's choice, not worth a line."""
    reader, writer = os.pipe()
    os.close(reader)  # closed before the child starts: no race with its first write
    try:
        result = run("--help", stdout=writer)
    finally:
        os.close(writer)
    assert result.returncode == 7 and result.stderr == ""


@pytest.mark.parametrize("args", [["--help"], ["--seed", "1"]])
def test_a_closed_stdout_is_exit_7_with_one_line(args: list[str]) -> None:
    """Started with stdout closed (`>&-`), Python has no sys.stdout: print() would drop it all."""
    result = run(*args, stdout=None, preexec=lambda: os.close(1))
    assert result.returncode == 7
    assert result.stderr == f"{PREFIX}cannot write the output: stdout is closed\n"


def test_an_error_that_stderr_cannot_take_is_exit_7() -> None:
    with open("/dev/full", "w") as full:
        result = run("--num-classes", "0", stderr=full)
    assert result.returncode == 7 and result.stdout == ""


def test_an_error_with_stderr_closed_is_exit_7_and_stays_off_stdout() -> None:
    result = run("--num-classes", "0", stderr=None, preexec=lambda: os.close(2))
    assert result.returncode == 7 and result.stdout == ""


# -- flags that take no value ---------------------------------------------------------------------

NO_VALUE_FLAGS = sorted(option for action in cli.build_parser()._actions if action.nargs == 0
                        for option in action.option_strings if option.startswith("--"))


def test_the_flags_without_a_value_are_found() -> None:
    assert NO_VALUE_FLAGS == ["--aot", "--cuda-graph", "--help", "--no-alias", "--validate",
                              "--verbose"]


@pytest.mark.parametrize("flag", NO_VALUE_FLAGS)
def test_a_flag_given_a_value_says_it_takes_none(tmp_path: Path, flag: str) -> None:
    result = run(f"{flag}=yes", env=hiding(tmp_path, "numpy"))  # a flag error needs no package
    one_line(result, 2)
    assert result.stderr == f"{PREFIX}{flag} takes no value, got 'yes'\n"


def test_a_counted_short_flag_given_a_value_says_it_takes_none() -> None:
    result = run("-v=2")
    assert result.returncode == 2
    assert result.stderr == f"{PREFIX}--verbose takes no value, got '2'\n"
