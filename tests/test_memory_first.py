# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The run's memory is estimated as soon as N, E and F are known, before any array of N rows
exists, and a run that cannot fit is refused in one line that names the flags as typed and calls
the defaults defaults. The slowest case's figures (an edge file naming node 300000000, no feature
file) are measured in docs/usage.md, not timed here."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT
from gnn import graph_sources, inputs, memory_budget
from gnn.errors import InputError
from gnn.options import GraphChoice, InputOptions
from test_hostile_inputs import one_line, run_cli

STATEMENT = "Before anything large is allocated, the run's memory is estimated"
DEFAULTS = "with the default --num-features 4 and the default --num-classes 3"


class Refused(Exception):
    """What a stand-in memory check raises, to see when it is asked."""


def test_the_usage_states_it() -> None:
    assert STATEMENT in " ".join((ROOT / "docs" / "usage.md").read_text().split())


def test_the_estimate_comes_before_the_random_features_of_an_edge_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With 2 GiB to use, node 10000000 makes a run of about 3.4 GiB: refused with nothing of N
    rows made (the random features alone would be 305 MiB of float64)."""
    monkeypatch.setattr(memory_budget, "available_bytes", lambda: 2 << 30)
    path = tmp_path / "e.csv"
    path.write_text("0,1\n1,10000000\n")
    options = InputOptions(graph=GraphChoice(edge_file=str(path)), seed=1)
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as caught:
            inputs.prepare(options)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    needed = memory_budget.gib(memory_budget.host_bytes(10_000_001, 2, 4, 3, 4))
    assert str(caught.value) == (
        f"--edge-file {str(path)!r} {DEFAULTS} (N = 10000001, E = 2, F = 4, C = 3; node ids up to "
        f"10000000): needs about {needed} of memory, this process may use 2.0 GiB")
    assert peak < 16 << 20, f"{peak} bytes traced before the refusal"


def test_a_feature_npy_is_sized_from_its_header_before_its_data_is_read(tmp_path: Path) -> None:
    np.save(tmp_path / "e.npy", np.array([[0, 1]]))
    header = {"descr": "<f8", "fortran_order": False, "shape": (1000000, 8)}
    with (tmp_path / "f.npy").open("wb") as file:  # 61 MiB of zeros, sparse: no disk used
        np.lib.format.write_array_header_1_0(file, header)
        file.truncate(file.tell() + 8 * 8 * 1000000)
    seen = []

    def fits(num_nodes: int, num_edges: int, num_features: int) -> None:
        seen.append((num_nodes, num_edges, num_features))
        raise Refused

    tracemalloc.start()
    try:
        with pytest.raises(Refused):
            graph_sources.graph_from_files(str(tmp_path / "e.npy"), str(tmp_path / "f.npy"), 4, 0,
                                           fits)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seen == [(1000000, 1, 8)] and peak < 8 << 20


def test_a_synthetic_graph_is_sized_before_any_of_it_is_made() -> None:
    seen = []

    def fits(num_nodes: int, num_edges: int, num_features: int) -> None:
        seen.append((num_nodes, num_edges, num_features))
        raise Refused

    with pytest.raises(Refused):  # 1e9 nodes x 64 features would be 477 GiB
        graph_sources.synthetic_graph(1_000_000_000, 2_000_000_000, 64, "uniform", 0, fits)
    assert seen == [(1_000_000_000, 2_000_000_000, 64)]


def test_a_node_id_of_300000000_is_refused_naming_the_defaults_as_defaults(tmp_path: Path) -> None:
    """The case a new user met: its line named --num-classes 3, which was never typed."""
    path = tmp_path / "e.csv"
    path.write_text("0,1\n1,300000000\n")
    one_line(run_cli("--edge-file", str(path)), 2,
             f"error: --edge-file {str(path)!r} {DEFAULTS} (N = 300000001, E = 2, F = 4, C = 3; "
             f"node ids up to 300000000): needs about 100.6 GiB of memory, this process may use ")


@pytest.mark.parametrize(("args", "named"), [
    (["--synthetic", "100000", "1000000", "64", "--num-classes", "60000"],
     "--synthetic 100000 1000000 64 with --num-classes 60000 (N = 100000, E = 1000000, F = 64, "
     "C = 60000)"),
    (["--synthetic", "1000000000", "1000000000", "64"],
     "--synthetic 1000000000 1000000000 64 with the default --num-classes 3 (N = 1000000000, "
     "E = 1000000000, F = 64, C = 3)"),
])
def test_what_was_typed_is_named_as_typed(args: list[str], named: str) -> None:
    one_line(run_cli(*args), 2, f"error: {named}: needs about ")


@pytest.mark.parametrize(("choice", "num_classes", "named"), [
    (GraphChoice(edge_file="e.csv", num_features=8), 5,
     "--edge-file 'e.csv' with --num-features 8 and --num-classes 5"),
    (GraphChoice(edge_file="e.csv", feature_file="f.npy"), None,
     "--edge-file 'e.csv' with --feature-file 'f.npy' and the default --num-classes 3"),
    (GraphChoice(graph="karate"), None, "--graph karate with the default --num-classes 2"),
    (GraphChoice(), None,
     "the default --node-features and --edges with the default --num-classes 3"),
    (GraphChoice(edges="[[0, 1]]"), None, "--edges with the default --num-classes 3"),
])
def test_the_flags_are_named_as_given(choice: GraphChoice, num_classes: int | None,
                                      named: str) -> None:
    options = InputOptions(graph=choice, num_classes=num_classes)
    check = inputs.HostMemory(options, num_classes or inputs.default_num_classes(choice))
    assert check.flags() == named
