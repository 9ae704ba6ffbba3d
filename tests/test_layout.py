# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The sample's shape: each stage owns its checks, and only the command line sees argparse.

``gnn/cli.py`` holds the flags, the exit codes and what is printed; the stages take typed values
(``gnn/options.py``), so none of them imports argparse or climbs back up to the command line.
"""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT
from import_graph import closure, imported_names, local_file

MAX_CLI_LINES = 303  # 300, and the 3 lines of --kernel


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



def imports_among(files: set[Path]) -> dict[str, set[str]]:
    """Which of the files each file imports, by path (type-only imports count: they tie the modules
    together for a reader as much as for Python)."""
    return {path.relative_to(ROOT).as_posix(): {local.relative_to(ROOT).as_posix() for name in imported_names(path)
                                                 if (local := local_file(name)) in files and local != path}
            for path in files}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of the graph, as its nodes in order with the first repeated at the end, or []."""
    state: dict[str, str] = {}

    def visit(node: str, trail: list[str]) -> list[str]:
        state[node] = "open"
        for child in sorted(graph.get(node, ())):
            if state.get(child) == "open":
                return [*trail[trail.index(child):], node, child] if child in trail else [node, child]
            if child not in state and (found := visit(child, [*trail, node])):
                return found
        state[node] = "done"
        return []

    for start in sorted(graph):
        if start not in state and (found := visit(start, [])):
            return found
    return []


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert find_cycle(imports_among(product_files())) == []


def test_the_cycle_finder_names_a_circle_in_order() -> None:
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_profile_bounds_sit_below_the_inputs_and_the_engine_description() -> None:
    graph = imports_among(product_files())
    assert "gnn/profile_bounds.py" in graph["gnn/inputs.py"] & graph["gnn/engine_spec.py"]
    assert "gnn/engine_spec.py" not in graph["gnn/inputs.py"]
