# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The README's first screens tell a new user the truth: the Quick start comes first, works in a
virtual environment on the platform it names, and says what each command needs; its run is the one
"What you see" shows; the test command says what it costs; and the claim of the opening paragraph and
each aliasing piece carry their caveat."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from hide_packages import hiding

README = (ROOT / "README.md").read_text()


def section(heading: str) -> str:
    start = README.index(f"\n## {heading}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end]


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_quick_start_installs_into_a_virtual_environment() -> None:
    commands = bash_blocks(section("Quick start"))[0].splitlines()
    assert commands[0] == "python3 -m venv .venv && . .venv/bin/activate"
    assert commands[1] == "python3 -m pip install -r requirements.txt"
    assert not [line for line in commands if "pip install" in line and "--user" in line]


def test_the_quick_start_run_is_the_one_what_you_see_shows() -> None:
    run = bash_blocks(section("Quick start"))[0].splitlines()[-1]
    shown = re.search(r"```text\n\$ (python3 aliased_io_plugin\.py .*)\n", section("What you see"))
    assert shown and run == shown.group(1) and "--seed 0" in run


def test_the_quick_start_is_the_first_section_and_comes_before_the_idea() -> None:
    headings = re.findall(r"^## (.+)$", README, flags=re.M)
    assert headings[:4] == ["Quick start", "What you see", "The idea", "Aliasing in three pieces"]
    assert README[:README.index("## Quick start")].count("\n") < 12  # on the first screen: after the title and the opening


def test_the_quick_start_says_what_each_command_needs_and_what_to_do_without_it() -> None:
    text = flat(section("Quick start"))
    assert "**The sample** needs an NVIDIA GPU" in text and "**The tests** need no GPU, no TensorRT and no NVIDIA index" in text
    assert "where pip cannot reach it, the install fails with `metadata-generation-failed`" in text
    assert "[docs/install.md](docs/install.md): NVIDIA's container" in text


def test_without_nvidias_index_the_first_run_exits_with_3(tmp_path: Path) -> None:
    """The failed install of requirements.txt installs nothing, so the run stops at the missing
    packages (3), before the GPU check whose 4 "What you see" shows."""
    text = flat(section("Quick start"))
    assert "installs nothing, and the run then exits with 3, not the 4 below" in text
    command = shlex.split(bash_blocks(section("Quick start"))[0].splitlines()[-1])
    env = {**os.environ, **hiding(tmp_path, "numpy", "cupy", "cuda", "polygraphy", "tensorrt")}
    result = subprocess.run([sys.executable, *command[1:]], capture_output=True, text=True,
                            cwd=ROOT, env=env, timeout=120)
    assert result.returncode == 3 and result.stderr.startswith(
        "aliased_io_plugin.py: error: NumPy, CuPy, cuda-python and Polygraphy are not installed")


def test_the_quick_start_names_the_platform_and_why() -> None:
    text = flat(section("Quick start"))
    assert "Linux x86-64 with Python 3.11 or later" in text
    assert "`nvidia-cuda-nvrtc` has no macOS wheel" in text and "`tensorrt-rtx-cu13`" in text and "no aarch64 wheel" in text


def test_the_test_command_states_its_size_and_that_it_needs_the_index() -> None:
    text = flat(section("Quick start"))
    assert "about 1.2 GB, from the package index" in text and bash_blocks(section("Quick start"))[1] == "bash run_tests.sh\n"
    assert "Where `python3` has TensorRT, as in NVIDIA's container, a new `.venv` sees it" in text


def test_the_test_command_states_the_time_run_tests_sh_says() -> None:
    """One measured figure, said by the script as it starts pytest and by the README."""
    said = re.search(r'say "running pytest \(([^)]*)\)"', (ROOT / "run_tests.sh").read_text())
    assert said and f"runs pytest, {said.group(1)}" in flat(section("Quick start"))


def test_the_opening_claim_carries_its_caveat() -> None:
    opening = flat(README[:README.index("![")])
    claim = opening.index("the caller's own `X` holds X plus the sums after a run")
    caveat = opening.index("the plugin has never run inside a TensorRT engine here")
    assert 0 < claim < caveat


def test_each_aliasing_piece_says_what_ran_and_what_did_not() -> None:
    pieces = re.split(r"\n\*\*\d\. ", section("Aliasing in three pieces"))[1:]
    assert len(pieces) == 3
    for piece in pieces:
        after_code = flat(piece[piece.index("```python"):].split("```", 2)[2])
        assert re.match(r"\*Ran:\* .+\*Not run:\* .+", after_code), after_code[:120]
    assert "TensorRT 11.4's lean runtime" in pieces[0] and "TensorRT-RTX" in pieces[1] and "TensorRT-RTX" in pieces[2]
