# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""A workflow on a self-hosted runner never runs a pull request's code: that runner is a machine of its
owner's, and on a public repository anyone can open a pull request."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def triggers(text: str) -> list[str]:
    """The events of a workflow's top-level ``on:`` mapping, read as text (no YAML package is installed)."""
    block = re.search(r"^on:\n((?:[ \t]+.*\n|\n)*)", text, flags=re.M)
    assert block, "no `on:` mapping"
    return re.findall(r"^  ([\w-]+):", block.group(1), flags=re.M)


def test_there_is_a_workflow() -> None:
    assert [path.name for path in WORKFLOWS] == ["gpu-smoke.yml"]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda path: path.name)
def test_a_self_hosted_workflow_runs_no_pull_request(path: Path) -> None:
    text = path.read_text()
    if "self-hosted" not in text:
        pytest.skip("runs on GitHub's own runners")
    events = triggers(text)
    assert events and not [event for event in events if event.startswith("pull_request")], events
    assert set(events) <= {"workflow_dispatch", "push"} and "Why no pull_request trigger" in text


def test_the_trigger_reader_sees_a_pull_request() -> None:
    assert triggers("on:\n  push:\n    branches: [main]\n  pull_request:\njobs:\n") == ["push", "pull_request"]
