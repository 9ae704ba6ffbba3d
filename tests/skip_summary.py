# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The skipped tests in a few lines: one line per marker group, with how many were skipped, why, and the
command that runs them where they can run. On a machine without a GPU most of the suite skips, and a line
per test location (pytest's ``-rs``) would bury the few commands that matter; ``pytest -rs`` still lists
every test's own reason. conftest.py hands pytest this module's hook.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

import pytest

# Checked in this order: a test in two groups counts in the first. Each command runs the group where its
# hardware or runtime is present (tests/README.md says more).
GROUPS = (
    ("trt", {"trt"}, "on a GPU machine with TensorRT: bash run_tests.sh -m trt"),
    ("gpu and rtx", {"gpu", "rtx"}, 'on a GeForce or RTX GPU: bash run_tests.sh -m "gpu and rtx"; on an H100 or H200: '
                                    'bash tests/rtx_harness/with_rtx.sh python3 -m pytest -m "gpu and rtx"'),
    ("gpu", {"gpu"}, "on a machine with an NVIDIA GPU: bash run_tests.sh -m gpu"),
    ("lean", {"lean"}, "bash run_tests.sh -m lean, which installs the lean runtime (requirements/dev.txt)"),
    ("rtx", {"rtx"}, "bash run_tests.sh -m rtx, which installs TensorRT-RTX (requirements/dev.txt)"),
)
OTHER = "other"
TITLE = "skipped, by marker (pytest -rs lists each test's reason)"
# conftest.py skips a test for want of what its markers need, with a reason that begins with the kind of
# test ("GPU test: "); the group's name says that already. Any other reason is the test's own.
_KIND = re.compile(r"^[\w .-]*test: ")


def group_of(markers: Iterable[str], reason: str) -> str:
    """The group whose command would run the test: the first its markers fit, where it was skipped for
    want of what they need; else "other"."""
    present = set(markers)
    if not _KIND.match(reason):
        return OTHER
    return next((name for name, needed, _ in GROUPS if needed <= present), OTHER)


def lines(skips: Iterable[tuple[Iterable[str], str]]) -> list[str]:
    """One line per group, from (a skipped test's markers, its reason): the count, the group, the most
    common reason and the command that runs the group, unless the reason names a command itself. The
    others get a line per reason."""
    reasons: dict[str, Counter[str]] = {}
    for markers, reason in skips:
        reasons.setdefault(group_of(markers, reason), Counter())[_KIND.sub("", reason)] += 1
    found = []
    for name, _, command in GROUPS:
        if name in reasons:
            (reason, _), *others = reasons[name].most_common()
            also = f" (and {len(others)} other reason{'s' if len(others) > 1 else ''})" if others else ""
            runs = "" if "run_tests.sh" in reason or "with_rtx.sh" in reason else f"; {command}"
            found.append(f"{sum(reasons[name].values()):5} {name}: {reason}{also}{runs}")
    found += [f"{count:5} {OTHER}: {reason}" for reason, count in reasons.get(OTHER, Counter()).most_common()]
    return found


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    # A module skipped whole (a CollectReport) has no markers: it counts among the others.
    skipped = terminalreporter.stats.get("skipped", [])
    found = lines((getattr(report, "keywords", {}), skip_reason(report)) for report in skipped)
    if found:
        terminalreporter.section(TITLE, sep="-")
        for line in found:
            terminalreporter.line(line)
