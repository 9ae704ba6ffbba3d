# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Profile bounds and the saved-engine description, on CPU (no TensorRT needed)."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from gnn.outputs import EngineSpec, read_description, save_engine, stale_reason
from gnn.cli import Bounds, choose_bounds, default_bound
from gnn.cli import InputError
from test_cli import assert_one_line_error, run_cli

SPEC = EngineSpec(tensorrt="10.13.0", gpu="NVIDIA H100", compute_capability="90", precision="fp16",
                  num_features=4, num_classes=3, max_nodes=64, max_edges=256, aliased=True, plugin="ScatterAddPlugin 1",
                  route="class", kernel="0123456789abcdef")


def test_default_bounds_are_the_next_power_of_two_at_least_16() -> None:
    assert [default_bound(n) for n in (1, 16, 17, 34, 1000, 1 << 20)] == [16, 16, 32, 64, 1024, 1 << 20]
    assert choose_bounds(34, 156, None, None) == Bounds(64, 256)
    assert choose_bounds(34, 156, 100, None) == Bounds(100, 256)


@pytest.mark.parametrize(("nodes", "edges", "max_nodes", "max_edges", "needle"), [
    (34, 156, 20, None, "--max-nodes: the graph has 34 nodes, more than the profile's maximum 20"),
    (34, 156, None, 100, "--max-edges: the graph has 156 edges, more than the profile's maximum 100"),
    (34, 156, 0, None, "--max-nodes: must be between 1 and 2^31 - 1, got 0"),
    (34, 156, None, 1 << 31, "--max-edges: must be between 1 and 2^31 - 1"),
])
def test_bounds_that_cannot_hold_the_graph_are_refused(nodes: int, edges: int, max_nodes: int | None,
                                                       max_edges: int | None, needle: str) -> None:
    with pytest.raises(InputError) as caught:
        choose_bounds(nodes, edges, max_nodes, max_edges)
    assert str(caught.value) == needle or needle in str(caught.value)


def test_a_saved_engine_serves_any_graph_its_profile_covers() -> None:
    assert stale_reason(SPEC, SPEC, 64, 256, exact_bounds=False) is None
    smaller_request = replace(SPEC, max_nodes=16, max_edges=16)
    assert stale_reason(SPEC, smaller_request, 10, 12, exact_bounds=False) is None


@pytest.mark.parametrize(("field", "value", "needle"), [
    ("tensorrt", "11.0.0", "built for TensorRT 10.13.0, this run needs 11.0.0"),
    ("gpu", "NVIDIA L4", "built for GPU NVIDIA H100"),
    ("compute_capability", "89", "compute capability 90"),
    ("precision", "bf16", "precision fp16, this run needs bf16"),
    ("num_features", 8, "features per node 4"),
    ("num_classes", 2, "classes 3"),
    ("aliased", False, "plugin aliasing True"),
    ("plugin", "ScatterAddPlugin 2", "plugin version"),
    ("route", "aot", "built for plugin route class, this run needs aot"),
    ("kernel", "fedcba9876543210", "its kernel was compiled by another version of this code (fingerprint "
                                   "0123456789abcdef, this code's fedcba9876543210)"),
])
def test_every_field_that_changes_the_engine_forces_a_rebuild(field: str, value: object, needle: str) -> None:
    reason = stale_reason(SPEC, replace(SPEC, **{field: value}), 10, 10, exact_bounds=False)
    assert reason is not None and needle in reason and "\n" not in reason


def test_a_new_precision_is_named_as_such_though_the_fingerprint_changes_with_it() -> None:
    reason = stale_reason(SPEC, replace(SPEC, precision="bf16", kernel="fedcba9876543210"), 10, 10, exact_bounds=False)
    assert reason == "it was built for precision fp16, this run needs bf16"


def test_bounds_too_small_or_different_from_explicit_flags_force_a_rebuild() -> None:
    assert "the graph has 65 and 10" in (stale_reason(SPEC, SPEC, 65, 10, exact_bounds=False) or "")
    wider = replace(SPEC, max_nodes=128)
    assert "ask for 128 and 256" in (stale_reason(SPEC, wider, 10, 10, exact_bounds=True) or "")
    assert stale_reason(SPEC, wider, 10, 10, exact_bounds=False) is None
    assert "no readable description" in (stale_reason(None, SPEC, 1, 1, exact_bounds=False) or "")


def test_description_round_trip_and_damaged_descriptions(tmp_path: Path) -> None:
    engine = tmp_path / "gnn.plan"
    save_engine(b"", str(engine), SPEC)
    assert read_description(engine) == SPEC
    (tmp_path / "gnn.plan.json").write_text("{not json")
    assert read_description(engine) is None
    (tmp_path / "gnn.plan.json").write_text('{"tensorrt": "10.13.0"}')  # another layout
    assert read_description(engine) is None
    for bound in ('"1k"', "true", "1.5"):  # a bound of another type: rebuilt, not a traceback
        fields = {**dataclasses.asdict(SPEC), "max_nodes": "BOUND"}
        (tmp_path / "gnn.plan.json").write_text(json.dumps(fields).replace('"BOUND"', bound))
        assert read_description(engine) is None
    assert read_description(tmp_path / "missing.plan") is None


@pytest.mark.parametrize(("args", "needle"), [
    (["--max-nodes", "3"], "--max-nodes: the graph has 4 nodes, more than the profile's maximum 3"),
    (["--graph", "karate", "--max-edges", "100"], "the graph has 156 edges"),
    (["--iterations", "-1"], "--iterations: must be between 0 and 1000000, got -1"),
    (["--cuda-graph"], "--cuda-graph: needs --iterations N"),
])
def test_run_flags_are_checked_before_tensorrt(args: list[str], needle: str) -> None:
    assert_one_line_error(run_cli(*args), 2, needle)


def test_a_saved_engine_replaces_the_old_one_whole_with_the_usual_mode(tmp_path: Path) -> None:
    """The engine and its description go through a temporary file beside them, renamed onto their
    names: nothing else is left there, and each gets the mode a plain write would give it."""
    engine = tmp_path / "gnn.plan"
    engine.write_bytes(b"old engine")
    save_engine(b"new engine", str(engine), SPEC)
    assert engine.read_bytes() == b"new engine" and read_description(engine) == SPEC
    assert sorted(path.name for path in tmp_path.iterdir()) == ["gnn.plan", "gnn.plan.json"]
    mask = os.umask(0o022)
    os.umask(mask)
    assert {stat.S_IMODE(path.stat().st_mode) for path in tmp_path.iterdir()} == {0o666 & ~mask}
