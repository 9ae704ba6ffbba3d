# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The sample's shape: the script tells the TensorRT story and holds every TensorRT call of it, as
NVIDIA's one-file sample does; the rest sits in a few modules of gnn/, named for what they hold,
importing one way (the command line at the bottom), at most four deep counting the script."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT
from import_graph import closure, imported_names, local_file

SCRIPT = ROOT / "aliased_io_plugin.py"
MAX_MODULES = 8
# The aim is 2,900 lines (the script and gnn/); a ratchet at the measured figure until then: it
# may not grow. The model of the network's arithmetic (gnn/model.py) took it from 3,460 to 3,633;
# it came down to 3,321, then 3,326 for two fixes (a kernel added to KERNELS crashed the flags'
# parsing; three refusals of an output path raised where the golden table counts them), 3,315
# with a test-only helper moved to tests/, and 3,322 once four lines that packed several
# statements into one (tuple assignments, a call chained with `or`) were written out. It is 3,258
# since docstrings stopped retelling signatures and history, a check argparse makes first went,
# and three ways of joining words into a list became one; 3,253 with the profile's one-use
# covers() written where it is used; 3,261 once a review put back eight lines of docstrings
# and comments that had lost their reasons (the stream order, the index convention, why fp32 after
# the plugin), readability over the line count; 3,263 with the Aggregation's alternative and its
# default failure reason said in plain words; 3,264 once the plugin's holder moved to the end of
# the script, so that the story opens with the network, and define_network says where it is;
# 3,142 once gnn/inputs.py lost its one-use helpers, its second layer of table readers and a
# note worked out again from the flags; gnn/cli.py and gnn/outputs.py 41 lines (--max-nodes and
# --max-edges checked as parsed, the write check refusing itself, the engine and its description
# saved in one loop, the examples' common prefix written once); and gnn/model.py its separate
# bf16 helpers, a second copy of the in-turn loop, the Modelled class, an error no caller reaches
# and the test-only whole-network reference; 3,149 once a review asked for the description's
# name in one place (outputs.description_path, not PATH.json built four times) and a chained
# assignment written out; 3,133 once the script lost its one-use trt_dtype and _quietly, a branch
# Polygraphy never lets the builder reach (an empty engine: it raises) and a doubled check, and
# machine.load_tensorrt named a missing TensorRT in one place (no import and no __version__ alike);
# 3,134 once a review found the no-alias note easier to read as the if statement it was; 3,142
# once a saved description whose bounds are not integers reads as unreadable (rebuilt, where it
# raised in stale_reason), and the arithmetic check counts the in-degrees once, not twice; 3,109
# once docstrings that restated their names, bodies or fields, and comments that restated the code
# or each other, were cut (prose only).
MAX_DRIVER_LINES = 3109
MAX_FLOORS = 4
# What a reader of NVIDIA's sample finds in its one file, in the order of the story.
STORY = {
    "the plugin layer, X as input 0": r"network\.add_plugin_v3\(\[x, src, idx\]",
    "the mean": r"add_elementwise\(x32, degree, trt\.ElementWiseOperation\.DIV\)",
    "MatMul": r"add_matrix_multiply\(", "ReLU": r"add_activation\(", "SoftMax": r"add_softmax\(",
    "the aliasing preview feature": r"preview_features=\[trt\.PreviewFeature\.ALIASED_PLUGIN_IO_10_03\]",
    "the engine built": r"engine_bytes_from_network\(", "the engine loaded": r"engine_from_bytes\(",
    "X_out bound to X's buffer": r"self\.x_out = inputs\[\"X\"\]",
    "set_tensor_address": r"\.set_tensor_address\(", "the run": r"\.execute_async_v3\(",
}


def driver_files() -> set[Path]:
    """The sample's own files but the plugin's: what running it can import, kernels/ apart."""
    files, _ = closure(SCRIPT)
    return {path for path in files if path.parent.name != "kernels" and not path.name.startswith("scatter_add")}


def imports_among(files: set[Path]) -> dict[str, set[str]]:
    """Which of the files each file imports, by path (type-only imports count: they tie the modules
    together for a reader as much as for Python)."""
    return {path.relative_to(ROOT).as_posix(): {local.relative_to(ROOT).as_posix() for name in imported_names(path)
                                                 if (local := local_file(name)) in files and local != path}
            for path in files}


def floors(graph: dict[str, set[str]], start: str) -> int:
    """How many modules deep the imports from ``start`` go, ``start`` counted."""
    return 1 + max((floors(graph, child) for child in graph[start]), default=0)


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


def test_the_script_holds_every_tensorrt_call_of_the_story_in_its_order() -> None:
    text = SCRIPT.read_text()
    found = {what: re.search(pattern, text) for what, pattern in STORY.items()}
    assert [what for what, match in found.items() if match is None] == []
    assert [match.start() for match in found.values() if match] == sorted(
        match.start() for match in found.values() if match)


def test_no_module_of_gnn_imports_tensorrt_but_the_machine_check() -> None:
    """TensorRT's calls are the script's: the modules of gnn/ run and are tested without it; the
    machine imports it only to see that it is there, and new enough."""
    assert [path.name for path in driver_files() - {SCRIPT}
            if any(name.split(".")[0] == "tensorrt" for name in imported_names(path))] == ["machine.py"]


def test_the_driver_is_the_script_and_a_few_modules_within_its_size() -> None:
    files = driver_files()
    assert len(files - {SCRIPT}) <= MAX_MODULES, sorted(path.name for path in files)
    assert sum(len(path.read_text().splitlines()) for path in files) <= MAX_DRIVER_LINES


def test_imports_run_one_way_at_most_four_deep() -> None:
    graph = imports_among(driver_files())
    assert find_cycle(graph) == []
    assert floors(graph, "aliased_io_plugin.py") <= MAX_FLOORS


def test_the_command_line_is_the_bottom_and_alone_imports_argparse() -> None:
    """Every module may raise the failures gnn/cli.py defines, so it imports none of them."""
    graph = imports_among(driver_files())
    assert graph["gnn/cli.py"] == set()
    assert sorted(path.relative_to(ROOT).as_posix() for path in driver_files()
                  if "argparse" in imported_names(path)) == ["gnn/cli.py"]


def test_no_module_shares_a_name_with_a_kernel_module() -> None:
    kernels = {path.stem for path in (ROOT / "kernels").glob("*.py")} - {"__init__"}
    assert sorted(kernels & {path.stem for path in driver_files()}) == []


def test_the_profile_bounds_sit_below_the_inputs_and_the_engine_description() -> None:
    graph = imports_among(driver_files())
    assert "gnn/cli.py" in graph["gnn/inputs.py"] & graph["gnn/outputs.py"]
    assert "gnn/outputs.py" not in graph["gnn/inputs.py"] and "gnn/inputs.py" not in graph["gnn/outputs.py"]


def test_the_cycle_finder_names_a_circle_in_order() -> None:
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []
    assert floors({"a": {"b"}, "b": {"c"}, "c": set()}, "a") == 3
