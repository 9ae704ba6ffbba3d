# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The README tells a new user the truth, in the order of NVIDIA's Python samples: the description
points to the commands; the prerequisites name the platform and what each command needs; "Running the
sample" works in a virtual environment, says what happens without NVIDIA's index, and its run is the
one "What you see" shows; the test command says what it costs; and the claim of the description and
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
from test_readme import section as readme_section

README = (ROOT / "README.md").read_text()


def section(heading: str) -> str:
    """The README's section under ``heading`` (test_readme.section)."""
    return readme_section(README, heading)


def getting_started() -> str:
    """What a new user reads before the first command's output: the prerequisites and the commands."""
    return section("Prerequisites") + section("Running the sample")


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def flat(text: str) -> str:
    return " ".join(text.split())


def test_the_sample_installs_into_a_virtual_environment() -> None:
    commands = bash_blocks(section("Running the sample"))[0].splitlines()
    assert commands[0] == "python3 -m venv .venv && . .venv/bin/activate"
    assert commands[1] == "python3 -m pip install -r requirements.txt"
    assert not [line for line in commands if "pip install" in line and "--user" in line]


def test_the_sample_run_is_the_one_what_you_see_shows() -> None:
    run = bash_blocks(section("Running the sample"))[0].splitlines()[-1]
    shown = re.search(r"```text\n\$ (python3 aliased_io_plugin\.py .*)\n", section("What you see"))
    assert shown and run == shown.group(1) and "--seed 0" in run


def test_the_sections_follow_nvidias_python_samples() -> None:
    """NVIDIA's samples/python/*/README.md: description, how it works, running it, --help, additional
    resources, license, changelog, known issues; this sample adds its prerequisites, copying the plugin
    and the performance table."""
    headings = re.findall(r"^(##|###) (.+)$", README, flags=re.M)
    assert headings == [("##", "Description"), ("##", "How does this sample work?"),
                        ("###", "Aliasing in three pieces"), ("###", "The files"), ("##", "Prerequisites"),
                        ("##", "Running the sample"), ("###", "What you see"), ("##", "Sample `--help` options"),
                        ("##", "Copying the plugin"), ("##", "Performance"), ("##", "Additional resources"),
                        ("##", "License"), ("##", "Changelog"), ("##", "Known issues")]
    assert "[Running the sample](#running-the-sample)" in flat(section("Description"))  # the commands, one click away
    assert "[docs/changelog.md](docs/changelog.md)" in section("Changelog")


def test_the_readme_says_what_each_command_needs_and_what_to_do_without_it() -> None:
    text = flat(getting_started())
    assert "**The sample** needs an NVIDIA GPU" in text
    assert "**The tests** need no GPU, no TensorRT and no NVIDIA index" in text
    assert "Where pip cannot reach NVIDIA's index, the install fails with `metadata-generation-failed`" in text
    assert "NVIDIA's TensorRT container has TensorRT already ([docs/install.md](docs/install.md))" in text


def test_without_nvidias_index_the_first_run_exits_with_3(tmp_path: Path) -> None:
    """The failed install of requirements.txt installs nothing, so the run stops at the missing
    packages (3), before the GPU check whose 4 "What you see" shows."""
    text = flat(section("Running the sample"))
    assert ("`metadata-generation-failed` and installs nothing. The run then exits with 3, not the 4 shown below"
            in text)
    command = shlex.split(bash_blocks(section("Running the sample"))[0].splitlines()[-1])
    env = {**os.environ, **hiding(tmp_path, "numpy", "cupy", "cuda", "polygraphy", "tensorrt")}
    result = subprocess.run([sys.executable, *command[1:]], capture_output=True, text=True,
                            cwd=ROOT, env=env, timeout=120)
    assert result.returncode == 3 and result.stderr.startswith(
        "aliased_io_plugin.py: error: NumPy, CuPy, cuda-python and Polygraphy are not installed")


def test_the_prerequisites_name_the_platform_and_why() -> None:
    text = flat(section("Prerequisites"))
    assert "Linux x86-64 with Python 3.11 or later" in text
    assert "`nvidia-cuda-nvrtc` has no macOS wheel" in text and "`tensorrt-rtx-cu13`" in text and "no aarch64 wheel" in text


def test_the_test_command_states_its_size_and_that_it_needs_the_index() -> None:
    text = flat(section("Running the sample"))
    assert "about 1.2 GB, from the package index" in text
    assert bash_blocks(section("Running the sample"))[1] == "bash run_tests.sh\n"
    assert "Where `python3` has TensorRT, as in NVIDIA's container, a new `.venv` sees it" in text


def test_the_test_command_states_the_time_run_tests_sh_says() -> None:
    """One measured figure, said by the script as it starts pytest and by the README."""
    said = re.search(r'say "running pytest \(([^)]*)\)"', (ROOT / "run_tests.sh").read_text())
    assert said and f"runs pytest, {said.group(1)}" in flat(section("Running the sample"))


def test_the_descriptions_claim_carries_its_caveat() -> None:
    opening = flat(section("Description"))
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
