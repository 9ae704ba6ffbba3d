"""qdp/plugin.py against the rules tensorrt.plugin enforces, read from its source, on CPU.

``tensorrt.plugin`` cannot be imported here (it needs the TensorRT library) and pyright cannot
see its names (they are attached at import time), so the rules that its validators apply when
the module is imported are checked on the module's syntax tree instead. Each rule names where
TensorRT 11.4's ``tensorrt/plugin`` (bindings wheel) enforces it.

TensorRT 11.4's lean runtime ships its own ``tensorrt/plugin``; the ``lean`` test imports it and
the product's module on it, and skips with the import's own error for as long as it fails.
"""

from __future__ import annotations

import ast
import importlib
import re

import pytest

from qdp import aot_kernel as aot
from conftest import ROOT, tensorrt_replaced_by

SOURCE = (ROOT / "qdp/plugin.py").read_text()
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
    combination = re.search(r'AutoTuneCombination\("([^"]+)"\)', SOURCE)
    assert combination is not None
    positions = [p.strip() for p in combination.group(1).split(",")]
    assert len(positions) == 4 + 2
    assert positions[3] == positions[5] == "INT32"  # counts in and out
    assert positions[0] == positions[1] == positions[4] and len(positions[0].split("|")) == 3


def test_kernel_arguments_follow_the_plugin_inputs() -> None:
    """TensorRT passes inputs, scalars, outputs: the .cu entry must list them in that order."""
    cu = (ROOT / "qdp" / "scatter_add_aot.cu").read_text()
    entry = re.search(r"SCATTER_AOT_NAME\(([^)]*)\)\s*\{", cu)
    assert entry is not None
    params = [p.split()[-1].lstrip("*") for p in entry.group(1).split(",")]
    assert params == ["x", "src", "idx", "counts_in", "n_edges", "n_nodes", "n_feat", "columns", "rows", "lanes",
                      "passes", "span", "dst", "counts"]
    assert len(params) == len(aot._ARGS) == 4 + len(aot.scalars(1, 1, 1, "fp32")) + 2
    assert "aot.scalars(n_edges, n_nodes, f, float_type, trtp.min, trtp.max)" in SOURCE


@pytest.mark.lean
def test_qdp_plugin_registers_on_tensorrt_11_4_lean() -> None:
    """qdp/plugin.py on TensorRT 11.4's lean runtime (under the name ``tensorrt``): importing it
    registers aliased_io_sample::scatter_add in TensorRT's C++ plugin registry and in ``trtp.op``."""
    import tensorrt_lean_bindings as lean

    with tensorrt_replaced_by(lean, ("qdp.plugin",)):
        try:
            trtp = importlib.import_module("tensorrt.plugin")
        except Exception as error:  # the runtime's own module only: errors in qdp/plugin.py fail below
            pytest.skip(f"tensorrt.plugin does not import on TensorRT 11.4's lean runtime: "
                        f"{type(error).__name__}: {error}")
        qdp_plugin = importlib.import_module("qdp.plugin")
        creator = lean.get_plugin_registry().get_creator(qdp_plugin.NAME, "1", qdp_plugin.NAMESPACE)
        assert creator is not None
        assert (creator.name, creator.plugin_namespace) == ("scatter_add", "aliased_io_sample")
        assert callable(getattr(trtp.op.aliased_io_sample, "scatter_add", None))
