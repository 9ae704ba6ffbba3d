"""qdp/plugin.py against the rules tensorrt.plugin enforces, read from its source, on CPU.

``tensorrt.plugin`` cannot be imported here (it needs the TensorRT library) and pyright cannot
see its names (they are attached at import time), so the rules that its validators apply when
the module is imported are checked on the module's syntax tree instead. Each rule names where
TensorRT 11.4's ``tensorrt/plugin`` (bindings wheel) enforces it.
"""

from __future__ import annotations

import ast
import re

from qdp import aot_kernel as aot
from conftest import ROOT

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
    cu = (ROOT / "kernels" / "scatter_add.cu").read_text()
    entry = re.search(r"SCATTER_AOT_NAME\(([^)]*)\)\s*\{", cu)
    assert entry is not None
    params = [p.split()[-1].lstrip("*") for p in entry.group(1).split(",")]
    assert params == ["x", "src", "idx", "counts_in", "n_edges", "n_nodes", "n_feat", "dst", "counts"]
    assert len(params) == len(aot._ARGS)
    assert "aot.scalar_args(n_edges, n_nodes, n_feat)" in SOURCE
