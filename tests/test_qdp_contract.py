# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""scatter_add_qdp.py against the rules tensorrt.plugin enforces, read from its source, on CPU; and
its build-time contract (scatter_add_aot.refusal, and scatter_add_qdp.py's reading of TensorDescs) against every hostile
combination of ranks, types and sizes.

``tensorrt.plugin`` cannot be imported here (it needs the TensorRT library) and pyright cannot
see its names (they are attached at import time), so the rules that its validators apply when
the module is imported are checked on the module's syntax tree instead. Each rule names where
TensorRT 11.4's ``tensorrt/plugin`` (bindings wheel) enforces it.

scatter_add_qdp.py's ``_dims`` and ``_check`` are taken from its syntax tree and run on stand-in TensorDescs that
behave as ``tensorrt/plugin/_tensor.py``'s do (a fake ShapeExpr raises on ``is_constant``).

TensorRT 11.4's lean runtime ships its own ``tensorrt/plugin``; the ``lean`` test imports it and
the product's module on it, and skips with the import's own error for as long as it fails.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest

from conftest import ROOT, tensorrt_replaced_by
from kernels import scatter_add_aot as aot

SOURCE = (ROOT / "scatter_add_qdp.py").read_text()
TREE = ast.parse(SOURCE)


def function(decorator: str) -> ast.FunctionDef:
    """The function decorated with ``@trtp.<decorator>(PLUGIN_ID)``."""
    for node in TREE.body:
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and ast.unparse(dec.func) == f"trtp.{decorator}":
                    return node
    raise AssertionError(f"no @trtp.{decorator} function")


def names(fn: ast.FunctionDef) -> list[str]:
    return [arg.arg for arg in fn.args.args]


def test_annotations_are_real_classes() -> None:
    # _validate: issubclass(param.annotation, TensorDesc) fails on string annotations.
    assert not any(isinstance(node, ast.ImportFrom) and node.module == "__future__" for node in TREE.body)


def test_register_takes_four_tensors_and_returns_two_aliased_outputs() -> None:
    # _validate._parse_register_inputs / _parse_register_return: every argument annotated, a
    # Tuple of TensorDesc returned; aliased() gives get_aliased_input (_plugin_class).
    fn = function("register")
    assert names(fn) == ["x", "src", "idx", "counts"]
    assert all(ast.unparse(a.annotation) == "trtp.TensorDesc" for a in fn.args.args if a.annotation)
    assert fn.returns is not None and ast.unparse(fn.returns) == "Tuple[trtp.TensorDesc, trtp.TensorDesc]"
    assert ast.unparse(fn.body[-1]) == "return (x.aliased(), counts.aliased())"


def test_aot_impl_schema_is_inputs_outputs_tactic_with_a_return_annotation() -> None:
    # _validate._validate_aot_impl: "(inputs..., outputs, tactic)" and a 4-tuple return annotation;
    # _plugin_class.get_launch_params passes every attribute positionally (there are none).
    fn = function("aot_impl")
    assert names(fn) == names(function("register")) + ["outputs", "tactic"]
    assert fn.returns is not None
    assert ast.unparse(fn.returns) == ("Tuple[Union[str, bytes], Union[str, bytes], trtp.KernelLaunchParams, "
                                       "trtp.SymIntExprs]")


def test_autotune_names_six_positions_in_io_order() -> None:
    # _autotune: one type per input and output position; '|' groups must have equal lengths.
    fn = function("autotune")
    assert names(fn) == names(function("register")) + ["outputs"]
    combination = re.search(r'AutoTuneCombination\(\s*"([^"]+)"\)', SOURCE)
    assert combination is not None
    positions = [p.strip() for p in combination.group(1).split(",")]
    assert len(positions) == 4 + 2
    assert positions[3] == positions[5] == "INT32"  # counts in and out
    assert positions[0] == positions[1] == positions[4] and len(positions[0].split("|")) == 3


def test_kernel_arguments_follow_the_plugin_inputs() -> None:
    """TensorRT passes inputs, scalars, outputs: the .cu entry must list them in that order."""
    cu = (ROOT / "kernels" / "scatter_add_aot.cu").read_text()
    entry = re.search(r"scatter_add_aot\(([^)]*)\)\s*\{", cu)
    assert entry is not None
    params = [p.split()[-1].lstrip("*") for p in entry.group(1).split(",")]
    assert params == ["x", "src", "idx", "counts_in", "n_edges", "n_nodes", "n_feat", "src_rows", "counts_rows",
                      "columns", "lanes", "passes", "span", "dst", "counts"]
    assert params[4:-2] == list(aot.SCALAR_NAMES)
    assert len(params) == len(aot._ARGS) == 4 + len(aot.scalars(1, 1, 1, 1, 1, "fp32")) + 2


def test_aot_impl_passes_the_sizes_from_the_right_tensors() -> None:
    """E from idx, N and F from X, and the rows src and counts have: the kernel compares the last two."""
    fn = function("aot_impl")
    calls = [node for node in ast.walk(fn) if isinstance(node, ast.Call) and ast.unparse(node.func) == "aot.scalars"]
    assert len(calls) == 1
    assert [ast.unparse(a) for a in calls[0].args] == ["n_edges", "x.shape_expr[0]", "f", "src.shape_expr[0]",
                                                        "counts.shape_expr[0]", "float_type", "trtp.min", "trtp.max"]
    assert "n_edges = idx.shape_expr[0]" in ast.unparse(fn)
    assert "f = x.shape_expr[1].constant_value()" in ast.unparse(fn)


@pytest.mark.parametrize("decorator", ["register", "aot_impl"])
def test_describe_and_aot_impl_check_the_inputs_first(decorator: str) -> None:
    # aot_impl reads the types and F's value only after _check accepted them.
    assert ast.unparse(function(decorator).body[0]) == "_check(x, src, idx, counts)"


# -- the build-time contract: scatter_add_aot.refusal-----------------------------------------------------------

GOOD_TYPES = ("fp16", "fp16", "int32", "int32")
SYMBOLIC = ((None, 16), (None, 16), (None,), (None,))  # the sample's network: F fixed, N and E dynamic


@pytest.mark.parametrize("types", [(f, f, i, "int32") for f in ("fp32", "fp16", "bf16") for i in ("int32", "int64")])
@pytest.mark.parametrize("dims", [SYMBOLIC, ((4, 1), (6, 1), (6,), (4,)), ((0, 3), (0, 3), (0,), (0,)),
                                  ((None, 16), (7, 16), (None,), (5,)), ((2**31 - 1, 1), (None, 1), (None,), (None,))])
def test_what_the_kernel_takes_is_accepted(types: tuple[str, ...], dims: tuple[aot.Dims, ...]) -> None:
    assert aot.refusal(types, dims) is None


def test_the_refusal_is_one_line_naming_the_inputs() -> None:
    line = aot.refusal(GOOD_TYPES, ((None, 16), (None, 8), (None,), (None,)))
    assert line == "src must have X's F columns; got X [?, 16] fp16, src [?, 8] fp16, idx [?] int32, counts [?] int32"


@pytest.mark.parametrize("dims", [
    ((None,), (None, 16), (None,), (None,)),  # X [N]
    ((None, 16, 1), (None, 16), (None,), (None,)),  # X [N, F, 1]
    ((None, 16), (None,), (None,), (None,)),  # src [E]
    ((None, 16), (None, 16, 1), (None,), (None,)),
    ((None, 16), (None, 16), (None, 1), (None,)),  # idx [E, 1]
    ((None, 16), (None, 16), (), (None,)),
    ((None, 16), (None, 16), (None,), (None, 1)),  # counts [N, 1]
    ((None, 16), (None, 16), (None,), ()),
    ((None, 16), (None, 16), (None,)),  # counts missing
])
@pytest.mark.parametrize("sized", [True, False])
def test_wrong_ranks_are_refused(dims: tuple[aot.Dims, ...], sized: bool) -> None:
    types = GOOD_TYPES[:len(dims)]
    if len(dims) != len(aot.INPUTS):
        with pytest.raises(ValueError):  # TensorRT always passes four: zip(strict=True) says so
            aot.refusal(types, dims, sized)
        return
    line = aot.refusal(types, dims, sized)
    assert line is not None and line.startswith("expected X [N, F], src [E, F], idx [E], counts [N]; got X [")


@pytest.mark.parametrize("types", [
    ("fp32", "fp16", "int32", "int32"),  # src not X's type
    ("bf16", "fp32", "int32", "int32"),
    ("fp16", "fp16", "fp16", "int32"),  # a float index
    ("fp16", "fp16", "DataType.INT8", "int32"),  # what scatter_add_qdp.py names a type it does not know
    ("fp16", "fp16", "int32", "int64"),  # counts not int32
    ("fp16", "fp16", "int32", "fp16"),
    ("int32", "int32", "int32", "int32"),  # integer features
    ("DataType.DOUBLE", "DataType.DOUBLE", "int32", "int32"),
])
@pytest.mark.parametrize("sized", [True, False])
def test_unsupported_types_are_refused(types: tuple[str, ...], sized: bool) -> None:
    line = aot.refusal(types, SYMBOLIC, sized)
    assert line is not None
    assert line.startswith("expected X and src of one type (fp32, fp16 or bf16), idx int32 or int64, counts int32; ")
    assert f"idx [?] {types[2]}, counts [?] {types[3]}" in line


@pytest.mark.parametrize(("dims", "problem"), [
    (((None, None), (None, 16), (None,), (None,)), "F must be a number at build time"),
    (((None, 16), (None, None), (None,), (None,)), "F must be a number at build time"),
    (((None, None), (None, None), (None,), (None,)), "F must be a number at build time"),
    (((None, 16), (None, 15), (None,), (None,)), "src must have X's F columns"),
    (((None, 16), (None, 17), (None,), (None,)), "src must have X's F columns"),
    (((None, 1), (None, 0), (None,), (None,)), "src must have X's F columns"),
    (((None, 16), (5, 16), (6,), (None,)), "src must have a row per entry of idx"),
    (((None, 16), (7, 16), (6,), (None,)), "src must have a row per entry of idx"),
    (((4, 16), (None, 16), (None,), (3,)), "counts must have a row per row of X"),
    (((4, 16), (None, 16), (None,), (5,)), "counts must have a row per row of X"),
    (((2**31, 1), (None, 1), (None,), (None,)), "N = 2147483648 is past the kernel's 32-bit limit"),
    (((None, 1), (2**31, 1), (2**31,), (None,)), "E = 2147483648 is past the kernel's 32-bit limit"),
    (((None, 2**30), (None, 2**30), (None,), (None,)), "a row of F = 1073741824 fp16 (2147483648 bytes)"),
])
def test_sizes_the_descs_show_wrong_are_refused(dims: tuple[aot.Dims, ...], problem: str) -> None:
    line = aot.refusal(GOOD_TYPES, dims)
    assert line is not None and line.startswith(problem), line
    assert "; got X [" in line and ", src [" in line and ", idx [" in line and ", counts [" in line


@pytest.mark.parametrize("dims", [((None, None), (None, None), (None,), (None,)),  # fake: no number at all
                                  ((None, 16), (None, 8), (None,), (None,))])
def test_with_fake_shapes_only_ranks_and_types_count(dims: tuple[aot.Dims, ...]) -> None:
    """TensorRT's first call of describe (get_output_data_types) has fake shapes: nothing to compare yet."""
    assert aot.refusal(GOOD_TYPES, dims, sized=False) is None


def test_symbolic_rows_are_left_to_the_kernel() -> None:
    """src's rows and counts' rows that are not numbers pass here: the kernel gets them as scalars."""
    assert aot.refusal(GOOD_TYPES, ((4, 16), (None, 16), (6,), (None,))) is None
    assert aot.refusal(GOOD_TYPES, ((None, 16), (6, 16), (None,), (4,))) is None


# -- qdp.py's reading of TensorDescs, on stand-ins ----------------------------------------------------------

class StandInShapeExpr:
    """tensorrt.plugin's ShapeExpr as qdp.py uses it: a fake one raises on is_constant (_tensor.py)."""

    def __init__(self, value: int | None, fake: bool = False) -> None:
        self.value, self.is_fake = value, fake

    @property
    def is_constant(self) -> bool:
        if self.is_fake:
            raise RuntimeError("Not accessible for fake 'ShapeExpr's. Check is_fake to determine accessibility.")
        return self.value is not None

    def constant_value(self) -> int:
        if self.value is None:
            raise RuntimeError("Not accessible for non-constant shape expressions.")
        return self.value


@dataclass
class StandInDesc:
    shape_expr: list[StandInShapeExpr]
    dtype: str


STAND_IN_TYPES = {"float": "fp32", "half": "fp16", "bf16": "bf16", "int32": "int32", "int64": "int64"}


def defined(node: ast.stmt) -> set[str]:
    """The names a top-level function or assignment defines."""
    if isinstance(node, ast.FunctionDef):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else []
    return {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}


def qdp_functions() -> dict[str, Any]:
    """qdp.py's PLUGIN_ID, _dims and _check, run with stand-ins for tensorrt's names."""
    wanted = [node for node in TREE.body if defined(node) and defined(node) <= {"_dims", "_check", "NAMESPACE", "NAME",
                                                                                "PLUGIN_ID"}]
    namespace: dict[str, Any] = {"aot": aot, "trtp": SimpleNamespace(TensorDesc=StandInDesc), "_TYPES": STAND_IN_TYPES}
    exec(compile(ast.Module(body=wanted, type_ignores=[]), "qdp.py", "exec"), namespace)
    assert {"PLUGIN_ID", "_dims", "_check"} <= namespace.keys()
    return namespace


def descs(dims: tuple[aot.Dims, ...], types: tuple[str, ...], fake: bool = False) -> list[StandInDesc]:
    return [StandInDesc([StandInShapeExpr(d, fake) for d in shape], dtype) for shape, dtype in zip(dims, types)]


def test_qdp_reads_numbers_and_symbols_from_the_descs() -> None:
    qdp = qdp_functions()
    assert qdp["_dims"](descs(((None, 16),), ("half",))[0]) == (None, 16)
    assert qdp["_dims"](descs(((None, None),), ("half",), fake=True)[0]) == (None, None)
    qdp["_check"](*descs(SYMBOLIC, ("half", "half", "int64", "int32")))
    qdp["_check"](*descs(((None, None), (None, None), (None,), (None,)), ("half", "half", "int32", "int32"), True))


@pytest.mark.parametrize(("dims", "types", "fake", "line"), [
    (SYMBOLIC, ("half", "float", "int32", "int32"), True,
     "expected X and src of one type (fp32, fp16 or bf16), idx int32 or int64, counts int32; "
     "got X [?, ?] fp16, src [?, ?] fp32, idx [?] int32, counts [?] int32"),
    (SYMBOLIC, ("half", "half", "int8", "int32"), False,
     "expected X and src of one type (fp32, fp16 or bf16), idx int32 or int64, counts int32; "
     "got X [?, 16] fp16, src [?, 16] fp16, idx [?] int8, counts [?] int32"),
    (((None, 16), (None, 16), (None, 1), (None,)), ("half", "half", "int32", "int32"), True,
     "expected X [N, F], src [E, F], idx [E], counts [N]; got X [?, ?] fp16, src [?, ?] fp16, idx [?, ?] int32, "
     "counts [?] int32"),
    (((4, 16), (6, 8), (6,), (4,)), ("half", "half", "int32", "int32"), False,
     "src must have X's F columns; got X [4, 16] fp16, src [6, 8] fp16, idx [6] int32, counts [4] int32"),
    (((4, 16), (None, 16), (None,), (3,)), ("half", "half", "int32", "int32"), False,
     "counts must have a row per row of X; got X [4, 16] fp16, src [?, 16] fp16, idx [?] int32, counts [3] int32"),
])
def test_qdp_refuses_in_one_line_naming_the_plugin_and_inputs(dims: tuple[aot.Dims, ...], types: tuple[str, ...],
                                                             fake: bool, line: str) -> None:
    qdp = qdp_functions()
    with pytest.raises(ValueError) as refused:
        qdp["_check"](*descs(dims, types, fake))
    assert str(refused.value) == f"aliased_io_sample::scatter_add: {line}"


@pytest.mark.lean
def test_qdp_plugin_registers_on_tensorrt_11_4_lean() -> None:
    """scatter_add_qdp.py on TensorRT 11.4's lean runtime (under the name ``tensorrt``): importing it
    registers aliased_io_sample::scatter_add in TensorRT's C++ plugin registry and in ``trtp.op``."""
    import tensorrt_lean_bindings as lean

    with tensorrt_replaced_by(lean, ("scatter_add_qdp",)):
        try:
            trtp = importlib.import_module("tensorrt.plugin")
        except Exception as error:  # the runtime's own module only: errors in qdp.py fail below
            pytest.skip(f"tensorrt.plugin does not import on TensorRT 11.4's lean runtime: "
                        f"{type(error).__name__}: {error}")
        qdp_plugin = importlib.import_module("scatter_add_qdp")
        creator = lean.get_plugin_registry().get_creator(qdp_plugin.NAME, "1", qdp_plugin.NAMESPACE)
        assert creator is not None
        assert (creator.name, creator.plugin_namespace) == ("scatter_add", "aliased_io_sample")
        assert callable(getattr(trtp.op.aliased_io_sample, "scatter_add", None))
