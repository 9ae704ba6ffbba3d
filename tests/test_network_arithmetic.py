# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The network's arithmetic at each precision, modelled in NumPy (gnn/model.py, modelled_network):
every documented example validates within the stated tolerance, never refused; a hub of 257 to
70,000 in-edges validates, or is refused in one line; what overflows a layer's type is refused.
The inputs go through the CLI's own parsing and preparation (inputs.prepare), as a run's do.
No TensorRT: tests/test_rtx_stand_in_cli_gpu.py runs the same graphs through a built network."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest

import hub_graphs
from conftest import ROOT
from gnn import cli, inputs, model
from gnn.cli import InputError
from test_hostile_inputs import documented_commands

PRECISIONS = ("fp32", "fp16", "bf16")


def prepared_for(argv: list[str]) -> tuple[inputs.PreparedInputs, cli.Options]:
    options = cli.options_from(cli.parse_args(argv))
    return inputs.prepare(options.inputs), options


def test_each_kernel_is_modelled_as_it_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast kernel sums a row in fp32 and rounds once; the reference kernel rounds after every
    edge; --aot after every piece; a kernel a user adds to kernels.KERNELS is taken as the fast one."""
    import kernels

    monkeypatch.setitem(kernels.KERNELS, "mine", kernels.KERNELS["fast"])
    rounding = {name: cli.options_from(cli.parse_args(["--kernel", name])).inputs.rounding
                for name in kernels.KERNELS}
    assert rounding == {**{name: "run" for name in kernels.KERNELS}, "reference": "edge"}
    assert cli.options_from(cli.parse_args(["--aot"])).inputs.rounding == "piece"
    assert set(rounding.values()) < set(model.ROUNDINGS)


def modelled_verdict(argv: list[str]) -> tuple[bool, list[str]]:
    """The CLI's inputs for ``argv``, run through the modelled network and validated as a run's
    outputs are, at the precision's own tolerance."""
    return verdict_of(*prepared_for(argv))


def verdict_of(prepared: inputs.PreparedInputs, options: cli.Options) -> tuple[bool, list[str]]:
    """:func:`modelled_verdict` of inputs already prepared."""
    result = model.modelled_network(prepared.inputs, options.precision, options.inputs.rounding)
    return model.validate(result, prepared.inputs, prepared.source.graph, options.precision,
                          check_predictions=prepared.source.labels is not None)


def with_precision(command: str, precision: str) -> list[str]:
    """The command's flags at ``precision``, seeded (seed 0) where it draws a random seed, so that
    a failure repeats."""
    words = shlex.split(command, comments=True)[2:]  # past "python3 aliased_io_plugin.py"
    if "--seed" not in words:
        words += ["--seed", "0"]
    if "--precision" in words:
        words[words.index("--precision") + 1] = precision
        return words
    return [*words, "--precision", precision]


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("command", documented_commands())
def test_every_documented_example_validates_at_every_precision(
        command: str, precision: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # the examples name graphs/ from the repository's root
    passed, lines = modelled_verdict(with_precision(command, precision))
    assert passed, "\n".join(lines)
    assert lines[-1] == f"Validation against the NumPy float64 reference PASSED ({precision})"


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("in_degree", hub_graphs.IN_DEGREES)
def test_a_hub_validates_with_the_fast_kernel(tmp_path: Path, in_degree: int,
                                              precision: str) -> None:
    """fp16's old mean cast the in-degree to fp16: 65,520 became inf and the hub's mean 0."""
    argv = [*hub_graphs.write(tmp_path, in_degree), "--precision", precision, "--seed", "0"]
    prepared, options = prepared_for(argv)
    assert int(np.sum(prepared.inputs.idx == hub_graphs.HUB)) == in_degree
    passed, lines = verdict_of(prepared, options)
    assert passed, "\n".join(lines)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("in_degree", hub_graphs.IN_DEGREES)
def test_a_hub_with_the_reference_kernel_validates_or_is_refused_in_one_line(
        tmp_path: Path, in_degree: int, precision: str) -> None:
    """The reference kernel rounds X + the sums in X's type after every edge: at fp16 and bf16 a
    long run of roundings can lose the hub's sum, which the CLI refuses before any build."""
    argv = [*hub_graphs.write(tmp_path, in_degree), "--precision", precision, "--seed", "0",
            "--kernel", "reference"]
    try:
        passed, lines = modelled_verdict(argv)
    except InputError as refusal:
        # fp16 sticks at -1024 once -0.36 is under half its step there; bf16's step is wider.
        assert precision == "bf16" or (precision == "fp16" and in_degree > 2048)
        assert "\n" not in str(refusal)
        if in_degree > model.EDGE_STEPS:  # refused unmodelled
            assert str(refusal).startswith(f"node {hub_graphs.HUB}: its {in_degree} incoming "
                                           f"edges are more than this kernel can add to X in "
                                           f"{precision} one at a time")
            return
        assert str(refusal).startswith(f"node {hub_graphs.HUB}: its X + the sums cannot be held "
                                       f"to the {precision} tolerance")
        assert str(refusal).endswith(f"this kernel adds in {precision} an edge at a time, the "
                                     f"fast kernel (the default) sums in fp32")
        return
    assert precision == "fp32" or (precision == "fp16" and in_degree < 2048)
    assert passed, "\n".join(lines)


def test_x_plus_the_sums_past_fp16_is_refused_naming_node_value_and_precision() -> None:
    argv = ["--node-features", "[40000, 30000]", "--edges", "[[1,0],[0,1]]", "--initial-x",
            "features", "--precision", "fp16", "--validate"]
    with pytest.raises(InputError) as caught:
        prepared_for(argv)
    assert str(caught.value) == ("node 0: X + the sum of its incoming features (70000) overflows "
                                 "fp16 (largest finite value 65504)")
    argv[argv.index("fp16")] = "bf16"
    prepared, _ = prepared_for(argv)  # bf16 holds it
    assert prepared.inputs.x[0, 0] == 39936.0  # bf16's nearest to 40000


def test_a_sum_past_fp16_is_refused_whatever_x_is() -> None:
    """The kernel rounds a run's fp32 sum to X's type before adding it: X cannot rescue it."""
    argv = ["--node-features", "[-40000, 40000, 40000]", "--edges", "[[1,0],[2,0]]",
            "--initial-x", "features", "--precision", "fp16"]
    with pytest.raises(InputError) as caught:
        prepared_for(argv)
    assert str(caught.value) == ("node 0: the sum of its incoming features (80000) overflows fp16 "
                                 "(largest finite value 65504)")


def test_the_default_precision_is_named_as_the_default() -> None:
    argv = ["--node-features", "[3e38, 3e38]", "--edges", "[[1,0],[0,0]]", "--initial-x",
            "features"]
    with pytest.raises(InputError) as caught:
        prepared_for(argv)
    assert str(caught.value).endswith("overflows fp32 (the default --precision; largest finite "
                                      "value 3.40282e+38)")


def test_a_logit_past_fp32_is_refused_naming_node_class_and_value() -> None:
    run_inputs = model.RunInputs(x=np.array([[3e38]]), src=np.zeros((0, 1)),
                                 idx=np.zeros(0, dtype=np.int32), weights=np.array([[0.5], [2.0]]),
                                 features=np.array([[3e38]]))
    problem = model.arithmetic_problem(run_inputs, "fp32")
    assert problem == ("node 0, class 1: the logit W @ means (6e+38, of terms reaching 6e+38) "
                       "overflows fp32, the type of the network's MatMul (largest finite value "
                       "3.40282e+38)")


def test_a_result_fp16_cannot_hold_is_refused() -> None:
    """X + the sums cancel: -3000 + 3 * 1000.5 is 1.5, but fp16 holds the sum 3001.5 as 3002."""
    argv = ["--node-features", "[-3000, 1000.5, 1000.5, 1000.5]", "--edges",
            "[[1,0],[2,0],[3,0]]", "--initial-x", "features", "--precision", "fp16"]
    with pytest.raises(InputError) as caught:
        prepared_for(argv)
    assert str(caught.value) == ("node 0: its X + the sums cannot be held to the fp16 tolerance: "
                                 "the network's fp16 arithmetic gives 2 where float64 gives 1.5, "
                                 "beyond 80% of the tolerance (docs/usage.md, Tolerances)")
    argv[argv.index("fp16")] = "fp32"
    prepared_for(argv)


def test_edge_by_edge_rounding_is_a_sequential_sum_in_the_runs_type() -> None:
    rng = np.random.default_rng(5)
    idx = np.sort(rng.integers(0, 6, size=200)).astype(np.int32)
    src = model.round_to(rng.standard_normal((200, 3)) * 300, "fp16")
    x = model.round_to(rng.standard_normal((6, 3)), "fp16")
    expected = x.astype(np.float16)
    for edge in range(200):
        expected[idx[edge]] += src[edge].astype(np.float16)  # NumPy rounds each fp16 addition
    got = model._added_in_turn(x, src, np.bincount(idx, minlength=6), "fp16")
    assert np.array_equal(got, expected.astype(np.float64))
    assert not np.array_equal(got, model.round_to(model.scatter_add_reference(x, src, idx)[0],
                                                  "fp16"))  # the roundings show


def test_the_fast_kernels_model_rounds_the_sum_then_x_plus_the_sum() -> None:
    """X = 1 and 2049 ones: the fp32 sum 2049 rounds to fp16's 2048 (to even), and 1 + 2048 to
    2048 again; rounding once, 2050. Edge by edge, fp16 sticks at 2048 after the 2047th edge."""
    ones = model.RunInputs(x=np.ones((1, 1)), src=np.ones((2049, 1)),
                           idx=np.zeros(2049, dtype=np.int32), weights=np.ones((1, 1)),
                           features=np.ones((1, 1)))
    assert model.modelled_network(ones, "fp16").x_out[0, 0] == 2048.0
    assert model.modelled_network(ones, "fp16", "edge").x_out[0, 0] == 2048.0
    assert model.modelled_network(ones, "bf16", "edge").x_out[0, 0] == 256.0  # bf16 sticks
    assert model.modelled_network(ones, "fp32", "edge").x_out[0, 0] == 2050.0
    assert model.modelled_network(ones, "fp16").means[0, 0] == np.float32(2048.0) / np.float32(2049)


def test_the_fast_kernels_fp32_sum_is_modelled_so_cancellation_is_refused() -> None:
    """1e8 + 1 - 1e8 is 0 in fp32 in any order that meets 1e8 first: X_out would be 0, not 1."""
    argv = ["--node-features", "[0, 1e8, 1, -1e8]", "--edges", "[[1,0],[2,0],[3,0]]",
            "--validate"]
    with pytest.raises(InputError) as caught:
        prepared_for(argv)
    assert str(caught.value).startswith("node 0: its X + the sums cannot be held to the fp32 "
                                        "tolerance: the network's fp32 arithmetic gives 0 where "
                                        "float64 gives 1")


def test_the_fp32_sum_is_a_round_of_edges_at_a_time_then_round_by_round() -> None:
    """Rows of 1, 700 and 300 edges, one row with none: each round of CHUNK edges of a row summed
    on its own (NumPy's order within it), then the rounds in order, all in fp32."""
    rng = np.random.default_rng(3)
    idx = np.repeat(np.arange(4), [1, 700, 0, 300]).astype(np.int32)
    src = rng.standard_normal((1001, 2))
    got = model._fp32_sums(src, np.bincount(idx, minlength=4))
    for row, (start, end) in enumerate([(0, 1), (1, 701), (701, 701), (701, 1001)]):
        for column in range(2):
            values = src[start:end, column].astype(np.float32)
            total = np.float32(0)
            for k in range(0, end - start, model.CHUNK):
                total += np.add.reduceat(values[k:k + model.CHUNK], [0])[0]
            assert got[row, column] == total
    assert got[1, 0] != np.float32(src[1:701, 0].sum())  # the rounding shows


@pytest.mark.parametrize("features", ["[0, 60000, -60000, 60000]", "[0, 60000, 60000, -60000]"])
def test_a_partial_sum_past_fp16_is_refused_in_any_order_of_the_reference_kernels_atomics(
        features: str) -> None:
    argv = ["--node-features", features, "--edges", "[[1,0],[2,0],[3,0]]", "--precision",
            "fp16", "--kernel", "reference"]
    with pytest.raises(InputError) as caught:
        prepared_for(argv)
    assert str(caught.value) == ("node 0: X plus a partial sum of its incoming features (120000) "
                                 "overflows fp16 (largest finite value 65504)")
    prepared_for(argv[:-2])  # the fast kernel adds one fp32 sum, 60000


def test_a_partial_sum_past_fp32_is_refused_whatever_the_kernel() -> None:
    argv = ["--node-features", "[0, 3e38, 3e38, -3e38]", "--edges", "[[1,0],[2,0],[3,0]]"]
    with pytest.raises(InputError) as caught:
        prepared_for(argv)
    assert str(caught.value) == ("node 0: a partial sum of its incoming features (6e+38) overflows "
                                 "fp32 (the default --precision; largest finite value "
                                 "3.40282e+38)")


def test_a_logit_whose_terms_pass_fp32_is_refused_though_it_fits() -> None:
    """3e38 - 3e38 fits, but the MatMul's partial sum 3e38 + 3e38 does not."""
    inputs = model.RunInputs(x=np.array([[3e38, 3e38]]), src=np.zeros((0, 2)),
                             idx=np.zeros(0, dtype=np.int32),
                             weights=np.array([[1.0, -1.0], [1.0, 1.0]]),
                             features=np.array([[3e38, 3e38]]))
    problem = model.arithmetic_problem(inputs, "bf16")
    assert problem is not None
    assert problem.startswith("node 0, class 0: the logit W @ means (0, of terms reaching "
                              "6.00811e+38) overflows fp32")  # bf16 holds 3e38 as 3.004e38
