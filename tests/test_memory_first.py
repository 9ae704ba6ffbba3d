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

import aliased_io_plugin
from conftest import ROOT, extras_missing, nvidia_driver_missing
from gnn import cli, inputs, machine, model
from gnn.cli import GraphChoice, InputError, InputOptions, NoGpu
from gnn.inputs import Sizes
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
    monkeypatch.setattr(inputs, "available_bytes", lambda: 2 << 30)
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
    needed = cli.gib(inputs.host_bytes(10_000_001, 2, 4, 3, 4))
    assert str(caught.value) == (
        f"--edge-file {str(path)!r} {DEFAULTS} (N = 10000001, E = 2, F = 4, C = 3; node ids up to "
        f"10000000): needs about {needed} of memory, this process may use 2.0 GiB")
    assert peak < 16 << 20, f"{peak} bytes traced before the refusal"


def sizes_stated(choice: GraphChoice, monkeypatch: pytest.MonkeyPatch) -> tuple[list[Sizes], int]:
    """The sizes the memory estimate is first asked about, and the peak memory traced until then:
    a stand-in estimate records them and refuses."""
    seen = []

    def check(options: InputOptions, precision: model.Precision, num_classes: int, sizes: Sizes,
              *rest: object) -> None:
        seen.append(sizes)
        raise Refused

    monkeypatch.setattr(inputs, "check_host_memory", check)
    tracemalloc.start()
    try:
        with pytest.raises(Refused):
            inputs.prepare(InputOptions(graph=choice, seed=0))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return seen, peak


def test_a_feature_npy_is_sized_from_its_header_before_its_data_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    np.save(tmp_path / "e.npy", np.array([[0, 1]]))
    header = {"descr": "<f8", "fortran_order": False, "shape": (1000000, 8)}
    with (tmp_path / "f.npy").open("wb") as file:  # 61 MiB of zeros, sparse: no disk used
        np.lib.format.write_array_header_1_0(file, header)
        file.truncate(file.tell() + 8 * 8 * 1000000)
    choice = GraphChoice(edge_file=str(tmp_path / "e.npy"), feature_file=str(tmp_path / "f.npy"))
    seen, peak = sizes_stated(choice, monkeypatch)
    assert [(s.nodes, s.edges, s.features) for s in seen] == [(1000000, 1, 8)] and peak < 8 << 20


def test_a_synthetic_graph_is_sized_before_any_of_it_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    # 1e9 nodes x 64 features would be 477 GiB
    seen, peak = sizes_stated(GraphChoice(synthetic=(1_000_000_000, 2_000_000_000, 64)), monkeypatch)
    assert [(s.nodes, s.edges, s.features) for s in seen] == [(1_000_000_000, 2_000_000_000, 64)]
    assert peak < 8 << 20


def test_a_node_id_of_300000000_is_refused_naming_the_defaults_as_defaults(tmp_path: Path) -> None:
    """The case a new user met: its line named --num-classes 3, which was never typed."""
    path = tmp_path / "e.csv"
    path.write_text("0,1\n1,300000000\n")
    one_line(run_cli("--edge-file", str(path)), 2,
             f"error: --edge-file {str(path)!r} {DEFAULTS} (N = 300000001, E = 2, F = 4, C = 3; "
             f"node ids up to 300000000): needs about 128.5 GiB of memory, this process may use ")


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
    default = inputs.KARATE_CLASSES if choice.graph == "karate" else inputs.DEFAULT_NUM_CLASSES
    assert inputs.flags_named(options, num_classes or default) == named


# -- every array sized by C, F, N or E: the class weights W (C x F) too ---------------------------

def test_the_estimates_hold_the_class_weights() -> None:
    """W is C x F: 32 GiB of float64 at 65536 x 65536, whatever the graph's size. The host holds
    it drawn and rounded, in float64, and in the run's precision; the GPU holds it once."""
    classes = features = 1 << 16
    assert inputs.host_bytes(1, 1, features, classes, 4) >= (2 * 8 + 4) * classes * features
    assert inputs.device_bytes(1, 1, features, classes, 4, 0) >= 4 * classes * features


def test_the_engines_outputs_are_counted_in_the_precision_they_come_back_in() -> None:
    """means [N, F] and probs [C, N] come back as float32, whatever the precision; the reference
    and the comparison hold several float64 copies of probs."""
    nodes, classes = 100_000, 512
    assert inputs.host_bytes(nodes, 1, 1, classes, 2) >= (6 * 8 + 4) * classes * nodes


WEIGHTS = "needs about 9"  # 96 GiB and more: W alone is 32 GiB of float64


@pytest.mark.parametrize(("args", "named"), [
    (["--synthetic", "10", "10", "65536", "--num-classes", "65536"],
     "--synthetic 10 10 65536 with --num-classes 65536 (N = 10, E = 10, F = 65536, C = 65536)"),
    (["--synthetic", "10", "10", "16384", "--num-classes", "65536"],
     "--synthetic 10 10 16384 with --num-classes 65536 (N = 10, E = 10, F = 16384, C = 65536)"),
    # Refused from the file's lines (78 edges, 2 lines of comments), before any node id is read.
    (["--edge-file", "graphs/karate_club.csv", "--num-features", "65536", "--num-classes",
      "65536"],
     "--edge-file 'graphs/karate_club.csv' with --num-features 65536 and --num-classes 65536 "
     "(E = 80, F = 65536, C = 65536, from its lines, before any node id is read)"),
])
def test_class_weights_too_large_for_memory_are_refused_before_they_are_made(
        args: list[str], named: str) -> None:
    """These ran out of memory drawing W, with a traceback and exit 1 (a failed validation)."""
    one_line(run_cli(*args), 2, f"error: {named}: needs about ", "GiB of memory")


@pytest.mark.skipif(extras_missing() is not None, reason=f"networkx: {extras_missing()}")
def test_a_networkx_graph_is_sized_before_its_random_features_are_made() -> None:
    one_line(run_cli("--graph", "les-miserables", "--num-features", "65536", "--num-classes",
                     "65536"), 2,
             "error: --graph les-miserables with --num-features 65536 and --num-classes 65536 "
             "(N = 77, E = 508, F = 65536, C = 65536): needs about 97.5 GiB of memory")


def huge_edge_npy(path: Path, rows: int) -> Path:
    """A .npy of ``rows`` int8 edges, all zeros and sparse: no disk used, nothing to read."""
    with path.open("wb") as file:
        header = {"descr": "|i1", "fortran_order": False, "shape": (rows, 2)}
        np.lib.format.write_array_header_1_0(file, header)
        file.truncate(file.tell() + 2 * rows)
    return path


def test_an_edge_npy_is_sized_from_its_header_before_its_data_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = huge_edge_npy(tmp_path / "e.npy", 400_000_000)
    seen, peak = sizes_stated(GraphChoice(edge_file=str(path)), monkeypatch)
    assert [(s.nodes, s.edges, s.features) for s in seen] == [(None, 400_000_000, 4)]
    assert peak < 8 << 20


def test_an_edge_npy_of_400000000_edges_is_refused_from_its_header(tmp_path: Path) -> None:
    """It was read (800 MB), range-checked and widened to int64 before the run was sized: 18 to
    28 s at 7.8 GB of RSS."""
    path = huge_edge_npy(tmp_path / "e.npy", 400_000_000)
    one_line(run_cli("--edge-file", str(path)), 2,
             f"error: --edge-file {str(path)!r} {DEFAULTS} (E = 400000000, F = 4, C = 3, from the "
             f".npy header, before any node id is read): needs about 59.6 GiB of memory")


def test_running_out_of_memory_past_the_estimate_is_one_line_not_a_mismatch(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 1 means that validation failed: a MemoryError the estimate did not foresee is not
    that, nor a traceback."""
    def run() -> int:
        raise MemoryError

    assert cli.exit_status(run, 0) == cli.Exit.BAD_INPUT
    assert capsys.readouterr().err == ("aliased_io_plugin.py: error: out of memory: this run needs "
                                       "more than this process may use\n")


@pytest.mark.parametrize("precision", model.NAMES)
def test_a_conversion_to_the_storage_type_holds_no_more_than_is_counted(precision: str) -> None:
    """bf16's rounding works through float32 and uint64 copies: 36 bytes an element at once, for a
    result of 2."""
    values = np.ones(1_000_000)
    tracemalloc.start()
    try:
        model.to_storage(values, precision)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    counted = model.get(precision)
    assert peak <= (counted.itemsize + counted.conversion_bytes) * values.size + (64 << 10)


def test_the_estimate_counts_a_bf16_conversion(monkeypatch: pytest.MonkeyPatch) -> None:
    """W of 4096 x 4096: 320 MiB at fp16; rounding it to bf16 holds 544 MiB more at once."""
    monkeypatch.setattr(inputs, "available_bytes", lambda: 512 << 20)
    choice = GraphChoice(synthetic=(10, 10, 4096))
    fp16 = InputOptions(graph=choice, precision="fp16", num_classes=4096)
    inputs.check_host_memory(fp16, model.get("fp16"), 4096, Sizes(10, 10, 4096))
    bf16 = InputOptions(graph=choice, precision="bf16", num_classes=4096)
    with pytest.raises(InputError, match="needs about 0.8 GiB of memory"):
        inputs.check_host_memory(bf16, model.get("bf16"), 4096, Sizes(10, 10, 4096))


# -- the machine before large work -----------------------------------------------------------------

PREFIX = "aliased_io_plugin.py: error: "
NO_DRIVER = "no NVIDIA driver (libcuda.so.1 cannot be loaded): the sample needs an NVIDIA GPU"


def graph_made_and_gpu_sought(args: list[str],
                              monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str]]:
    """The CLI in this process on a machine without a driver (a stand-in GPU check that finds
    none): its exit status, and what happened in order, "GPU sought" and "graph made" (edges a
    stand-in never makes), with memory enough for any estimate."""
    happened = []

    def usable_gpu(precision: str, aot: bool) -> machine.Gpu:
        happened.append("GPU sought")
        raise NoGpu(NO_DRIVER)

    def drawn_edges(*drawn: object) -> np.ndarray:
        happened.append("graph made")
        raise Refused

    monkeypatch.setattr(machine, "usable_gpu", usable_gpu)
    monkeypatch.setattr(inputs, "_drawn_edges", drawn_edges)
    monkeypatch.setattr(inputs, "available_bytes", lambda: 1 << 40)
    try:
        code = aliased_io_plugin.main(args)
    except Refused:
        code = -1
    return code, happened


def test_a_large_graph_is_not_made_before_the_gpu_is_sought(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The new user's --synthetic 4000000 64000000 1 --degrees powerlaw spent 43 s and 3.5 GB
    making the graph, then said "no NVIDIA driver"."""
    args = ["--synthetic", "4000000", "64000000", "1", "--degrees", "powerlaw"]
    assert graph_made_and_gpu_sought(args, monkeypatch) == (4, ["GPU sought"])
    assert capsys.readouterr() == ("", f"{PREFIX}{NO_DRIVER}. Without a GPU, `bash run_tests.sh` "
                                       f"runs the sample's tests that need none\n")


def test_a_small_graph_is_made_and_checked_before_the_gpu_is_sought(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Below inputs.LARGE_WORK a machine without a GPU still checks every input: 50 MiB."""
    args = ["--synthetic", "25000", "250000", "4", "--seed", "1"]
    assert inputs.host_bytes(25000, 250000, 4, 3, 4) < inputs.LARGE_WORK
    assert graph_made_and_gpu_sought(args, monkeypatch) == (-1, ["graph made"])
    assert capsys.readouterr().err == ""


def test_sizes_too_large_for_memory_are_refused_before_the_gpu_is_sought(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(inputs, "available_bytes", lambda: 2 << 30)
    monkeypatch.setattr(machine, "usable_gpu", lambda precision, aot: pytest.fail("GPU sought"))
    assert aliased_io_plugin.main(["--synthetic", "4000000", "64000000", "1"]) == 2
    assert capsys.readouterr().err == (
        f"{PREFIX}--synthetic 4000000 64000000 1 with the default --num-classes 3 (N = 4000000, "
        f"E = 64000000, F = 1, C = 3): needs about 5.4 GiB of memory, this process may use "
        f"2.0 GiB\n")


HELP_SYNTHETIC = next(example for example in cli.EXAMPLES if "--synthetic" in example)


@pytest.mark.skipif(nvidia_driver_missing() is None, reason="a driver here: the graph is made")
def test_without_a_driver_the_help_synthetic_example_prints_nothing_before_its_line() -> None:
    """It spent 6.6 s and 1.2 GB making its graph, and printed it, first. Its line is the quick
    start's, which prints its small graph first."""
    large = run_cli(*HELP_SYNTHETIC.split()[2:], "--seed", "1")
    small = run_cli("--seed", "1")
    assert (large.returncode, small.returncode) == (4, 4), large.stderr
    assert large.stdout == "" and small.stdout.startswith("Setting seed to: 1\nGraph: 4 nodes")
    assert large.stderr == small.stderr and small.stderr.startswith(f"{PREFIX}{NO_DRIVER}")
