# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The sample's shape: each stage owns its checks, and only the command line sees argparse.

``gnn/cli.py`` holds the flags, the exit codes and what is printed; the stages take typed values
(``gnn/options.py``), so none of them imports argparse or climbs back up to the command line.
"""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT
from import_graph import closure, imported_names

MAX_CLI_LINES = 300


def product_files() -> set[Path]:
    """The sample's own files: what running it can import (benchmarks and tests are not the sample)."""
    files, _ = closure(ROOT / "aliased_io_plugin.py")
    return files


def importers_of(module: str) -> list[str]:
    return sorted(path.relative_to(ROOT).as_posix() for path in product_files() if module in imported_names(path))


def test_the_story_reaches_every_stage() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in product_files()}
    assert {"gnn/options.py", "gnn/inputs.py", "gnn/environment.py", "gnn/kernel_prep.py", "gnn/trt_network.py",
            "gnn/engine_runner.py", "gnn/model.py", "scatter_add_plugin.py"} <= names


def test_only_the_command_line_imports_argparse() -> None:
    assert importers_of("argparse") == ["gnn/cli.py"]


def test_no_stage_climbs_back_up_to_the_command_line() -> None:
    assert importers_of("gnn.cli") == ["aliased_io_plugin.py"]


def test_the_command_line_module_stays_short() -> None:
    assert len((ROOT / "gnn" / "cli.py").read_text().splitlines()) <= MAX_CLI_LINES
