# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The engine build's progress output, fed a made-up sequence of TensorRT phases (CPU)."""

from __future__ import annotations

import io

from gnn.outputs import ProgressPrinter


def feed(printer: ProgressPrinter) -> None:
    printer.phase_start("Building engine", None, 2)
    printer.phase_start("Tactic timing", "Building engine", 3)
    for step in range(3):
        printer.step_complete("Tactic timing", step)
    printer.phase_finish("Tactic timing")
    printer.step_complete("Building engine", 0)
    printer.step_complete("Building engine", 1)
    printer.phase_finish("Building engine")
    printer.close()


def test_plain_output_is_one_line_per_phase_start_and_end() -> None:
    out = io.StringIO()
    feed(ProgressPrinter(out, interactive=False))
    lines = out.getvalue().splitlines()
    assert lines[0] == "Building: Building engine (2 steps)"
    assert lines[1] == "Building: Building engine > Tactic timing (3 steps)"
    assert lines[2].startswith("Building: Tactic timing done, 3/3 steps in ")
    assert lines[3].startswith("Building: Building engine done, 2/2 steps in ")
    assert len(lines) == 4 and "\r" not in out.getvalue()


def test_a_terminal_gets_one_line_redrawn_in_place() -> None:
    out = io.StringIO()
    feed(ProgressPrinter(out, interactive=True, width=60))
    text = out.getvalue()
    assert "\n" not in text  # never scrolls
    frames = [frame.rstrip() for frame in text.split("\r") if frame.strip()]
    assert "Building: Building engine 0/2 > Tactic timing 2/3" in frames
    assert "Building: Building engine 2/2" in frames
    assert text.endswith("\r" + " " * 60 + "\r")  # the line is cleared at the end


def test_interactive_defaults_to_whether_the_stream_is_a_terminal() -> None:
    out = io.StringIO()  # not a TTY
    printer = ProgressPrinter(out)
    printer.phase_start("Phase", None, 1)
    assert out.getvalue() == "Building: Phase (1 step)\n"
