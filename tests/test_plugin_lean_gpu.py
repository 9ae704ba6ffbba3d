# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""ScatterAddPlugin's own methods on a GPU, called with TensorRT 11.4's lean runtime classes and real
device buffers, in the order TensorRT's build and runtime phases call them: configure_plugin and
get_workspace_size (the build's descriptors and profile; the kernel is compiled and loaded there),
on_shape_change, then enqueue on a stream with the aliased output being X's own buffer. The result is
checked against the NumPy float64 reference for every type pair. The runtime phase starts from the
fields an engine stores: TensorRT's C++ createPlugin hands them to the creator, which loads the kernel,
also in a process where NVRTC cannot be imported; a cubin of another architecture is refused. No engine is built (the lean
runtime has no builder): TensorRT itself is not exercised here, only the plugin's side of its contract.

src lies between guard rows of NaN and idx holds no index past it, so a read past src shows as
NaN in X. A mis-shaped call is refused in on_shape_change, before any launch: X keeps its bits.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from conftest import ROOT, tensorrt_replaced_by
from gnn import model as precisions
from hide_packages import hiding
import kernels
from kernels import scatter_add as fast
from test_kernel_gpu import assert_matches_reference, graph, plain_cuda_malloc  # noqa: F401 (autouse fixture)

pytestmark = [pytest.mark.gpu, pytest.mark.lean]
GUARD = 64  # rows of NaN before and after src
FP32 = {"float_type": "fp32", "index_type": "int32"}


@pytest.fixture(scope="module")
def lean() -> ModuleType:
    return importlib.import_module("tensorrt_lean_bindings")


@pytest.fixture(autouse=True)
def current_context() -> None:
    """TensorRT makes its CUDA context current before it builds or deserializes; CuPy's primary context is the
    one current here (with none current, the plugin would take the CUDA runtime's device, the same one)."""
    import cupy as cp

    cp.cuda.runtime.free(0)


@pytest.fixture(scope="module")
def plugin_module(lean: ModuleType) -> Iterator[ModuleType]:
    with tensorrt_replaced_by(lean, ("scatter_add_plugin",)):
        yield importlib.import_module("scatter_add_plugin")


def types(rt: ModuleType, float_type: str, index_type: str) -> tuple[Any, Any]:
    return ({"fp32": rt.float32, "fp16": rt.float16, "bf16": rt.bfloat16}[float_type],
            {"int32": rt.int32, "int64": rt.int64}[index_type])


def build_phase(rt: ModuleType, plugin: Any, dtypes: tuple[Any, Any], n_nodes: int, n_edges: int, n_feat: int) -> int:
    """configure_plugin and get_workspace_size over a profile up to these sizes (its workspace is tightest)."""
    def profile(dtype: Any, low: list[int], high: list[int]) -> Any:
        d = rt.DynamicPluginTensorDesc()
        d.desc.type, d.desc.dims = dtype, rt.Dims([a if a == b else -1 for a, b in zip(low, high)])
        d.min, d.max = rt.Dims(low), rt.Dims(high)
        return d

    f, i = dtypes
    inputs = [profile(f, [1, n_feat], [n_nodes, n_feat]), profile(f, [1, n_feat], [n_edges, n_feat]),
              profile(i, [1], [n_edges])]
    outputs = [profile(f, [1, n_feat], [n_nodes, n_feat]), profile(rt.int32, [1, 1], [n_nodes, 1])]
    plugin.configure_plugin(inputs, outputs)
    return plugin.get_workspace_size(inputs, outputs)


def run_phase(rt: ModuleType, plugin: Any, dtypes: tuple[Any, Any], x_dev: Any, src_dev: Any, idx_dev: Any,
              counts: Any, workspace: Any, stream: Any, out: Any = None) -> None:
    """on_shape_change, then enqueue: output 0 is X's buffer (aliased), or ``out``; output 1 the counts."""
    def shape(dtype: Any, dims: tuple[int, ...]) -> Any:
        d = rt.PluginTensorDesc()
        d.type, d.dims = dtype, rt.Dims(list(dims))
        return d

    f, i = dtypes
    inputs = [shape(f, x_dev.shape), shape(f, src_dev.shape), shape(i, idx_dev.shape)]
    outputs = [shape(f, x_dev.shape), shape(rt.int32, counts.shape)]
    plugin.on_shape_change(inputs, outputs)
    output = x_dev if out is None else out
    plugin.enqueue(inputs, outputs, [x_dev.data.ptr, src_dev.data.ptr, idx_dev.data.ptr],
                   [output.data.ptr, counts.data.ptr], workspace.data.ptr, stream.ptr)


def guarded(src: np.ndarray, float_type: str) -> tuple[Any, Any]:
    """src on the GPU between GUARD rows of NaN: (the whole slab, the src view)."""
    import cupy as cp

    nan = np.full((GUARD, src.shape[1]), np.nan)
    slab = cp.asarray(precisions.to_storage(np.concatenate([nan, src, nan]), float_type))
    return slab, slab[GUARD:GUARD + len(src)]


@pytest.mark.parametrize("float_type", precisions.NAMES)
@pytest.mark.parametrize("index_type", ["int32", "int64"])
@pytest.mark.parametrize("n_feat", [1, 33])
@pytest.mark.parametrize("order", ["sorted", "random"])
def test_the_plugin_runs_in_place_against_numpy(lean: ModuleType, plugin_module: ModuleType, float_type: str,
                                                index_type: str, n_feat: int, order: str) -> None:
    import cupy as cp

    x, src, idx = graph(1000, 20_000, n_feat, seed=n_feat, index_type=index_type)
    idx = np.sort(idx) if order == "sorted" else idx
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    dtypes = types(lean, float_type, index_type)
    plugin = plugin_module.ScatterAddPlugin()
    size = build_phase(lean, plugin, dtypes, len(x), len(idx), n_feat)
    x_dev = cp.asarray(precisions.to_storage(x, float_type))
    _, src_dev = guarded(src, float_type)
    counts = cp.full((len(x), 1), 7, dtype=np.int32)
    workspace = cp.full(size + 256, 0xFF, dtype=np.uint8)
    stream = cp.cuda.Stream(non_blocking=True)
    run_phase(lean, plugin, dtypes, x_dev, src_dev, cp.asarray(idx), counts, workspace, stream)
    stream.synchronize()
    got = precisions.from_storage(cp.asnumpy(x_dev), float_type)  # the caller's X, updated in place
    assert_matches_reference(got, cp.asnumpy(counts)[:, 0], x, src, idx, float_type)
    assert bool((workspace[size:] == 0xFF).all())  # nothing past the workspace TensorRT would give


@pytest.mark.parametrize("float_type", precisions.NAMES)
@pytest.mark.parametrize("index_type", ["int32", "int64"])
def test_the_reference_kernel_runs_in_place_through_the_plugin(lean: ModuleType, plugin_module: ModuleType,
                                                               float_type: str, index_type: str) -> None:
    """kernel="reference": the same build and run phases, no workspace asked for, X updated in place; the engine's
    fields name the kernel, and a plugin made from them runs it too."""
    import cupy as cp

    x, src, idx = graph(1000, 20_000, 33, seed=5, index_type=index_type)
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    dtypes = types(lean, float_type, index_type)
    plugin = plugin_module.ScatterAddPlugin(kernel="reference")
    assert build_phase(lean, plugin, dtypes, len(x), len(idx), 33) == 0
    assert plugin.code.kernel == "reference"
    for runner in (plugin, from_engine_fields(lean, plugin_module, plugin.code, plugin.workspace)):
        x_dev = cp.asarray(precisions.to_storage(x, float_type))
        counts = cp.full((len(x), 1), 7, dtype=np.int32)
        stream = cp.cuda.Stream(non_blocking=True)
        run_phase(lean, runner, dtypes, x_dev, guarded(src, float_type)[1], cp.asarray(idx), counts,
                  cp.zeros(256, dtype=np.uint8), stream)
        stream.synchronize()
        got = precisions.from_storage(cp.asnumpy(x_dev), float_type)
        assert_matches_reference(got, cp.asnumpy(counts)[:, 0], x, src, idx, float_type)


@pytest.mark.parametrize("kernel", list(kernels.KERNELS))
@pytest.mark.parametrize("float_type", precisions.NAMES)
@pytest.mark.parametrize("captured", [False, True], ids=["eager", "graph"])
def test_where_output_0_has_a_buffer_of_its_own_enqueue_copies_x_into_it(
        lean: ModuleType, plugin_module: ModuleType, kernel: str, float_type: str, captured: bool) -> None:
    """TensorRT "may insert copies": given output 0 a buffer of its own (here full of NaN), the plugin's enqueue
    copies X into it on TensorRT's stream, then the kernel adds there, for every kernel; X keeps its bits. The copy
    allocates and waits for nothing: the whole enqueue is captured into a CUDA graph and replayed."""
    import cupy as cp

    x, src, idx = graph(700, 9000, 5, seed=21)
    x, src = precisions.round_to(x, float_type), precisions.round_to(src, float_type)
    dtypes = types(lean, float_type, "int32")
    plugin = plugin_module.ScatterAddPlugin(aliased=False, kernel=kernel)
    size = build_phase(lean, plugin, dtypes, len(x), len(idx), 5)
    x_dev = cp.asarray(precisions.to_storage(x, float_type))
    out = cp.asarray(precisions.to_storage(np.full(x.shape, np.nan), float_type))
    counts = cp.full((len(x), 1), 7, dtype=np.int32)
    workspace = cp.full(max(size, 1), 0xFF, dtype=np.uint8)
    stream = cp.cuda.Stream(non_blocking=True)
    args = (lean, plugin, dtypes, x_dev, guarded(src, float_type)[1], cp.asarray(idx), counts, workspace, stream, out)
    if captured:
        with stream:
            stream.begin_capture()
            run_phase(*args)
            stream.end_capture().launch(stream)
    else:
        run_phase(*args)
    stream.synchronize()
    got = precisions.from_storage(cp.asnumpy(out), float_type)
    assert_matches_reference(got, cp.asnumpy(counts)[:, 0], x, src, idx, float_type)
    assert np.array_equal(precisions.from_storage(cp.asnumpy(x_dev), float_type), x)  # X itself untouched


@pytest.mark.parametrize("float_type", precisions.NAMES)
@pytest.mark.parametrize(("src_rows", "src_feat"), [(4000, 8), (8000, 4)], ids=["half the rows", "F = 4 for 8"])
def test_a_mis_shaped_call_is_refused_before_any_launch(lean: ModuleType, plugin_module: ModuleType,
                                                        float_type: str, src_rows: int, src_feat: int) -> None:
    """The issue's two cases: src with half the rows idx needs, and src with F = 4 under X's F = 8. A first,
    well-shaped call loads the kernel; the mis-shaped one is refused and leaves nothing to launch."""
    import cupy as cp

    x, src, idx = graph(1000, 8000, 8, seed=3)
    x = precisions.round_to(x, float_type)
    dtypes = types(lean, float_type, "int32")
    plugin = plugin_module.ScatterAddPlugin()
    build_phase(lean, plugin, dtypes, 1000, 8000, 8)
    x_dev = cp.asarray(precisions.to_storage(x, float_type))
    counts, workspace = cp.zeros((1000, 1), dtype=np.int32), cp.zeros(1 << 20, dtype=np.uint8)
    stream = cp.cuda.Stream(non_blocking=True)
    run_phase(lean, plugin, dtypes, x_dev, guarded(src, float_type)[1], cp.asarray(idx), counts, workspace, stream)
    stream.synchronize()
    before = cp.asnumpy(x_dev).copy()
    _, bad_src = guarded(np.ones((src_rows, src_feat)), float_type)
    with pytest.raises(ValueError, match=r"^ScatterAddPlugin: src must have a row per entry of idx, and X's F "
                                         rf"columns; got X \[1000, 8\], src \[{src_rows}, {src_feat}\], idx \[8000\]$"):
        run_phase(lean, plugin, dtypes, x_dev, bad_src, cp.asarray(idx), counts, workspace, stream)
    with pytest.raises(RuntimeError, match="enqueue without shapes accepted"):  # what enqueue does if called anyway
        plugin.enqueue([], [], [x_dev.data.ptr, bad_src.data.ptr, 0], [x_dev.data.ptr, counts.data.ptr], 0, stream.ptr)
    stream.synchronize()
    assert np.array_equal(cp.asnumpy(x_dev), before)  # no launch happened


def from_engine_fields(lean: ModuleType, plugin_module: ModuleType, code: kernels.Code, workspace: int) -> Any:
    """The plugin as a deserialized engine gets it: the stored fields (the kernel, and the workspace TensorRT gives
    enqueue), as C++ hands them to the creator."""
    built = plugin_module.ScatterAddPlugin(True, code.kernel, code, workspace)  # owns what its fields point into
    stored = lean.PluginFieldCollection_(built.get_fields_to_serialize())
    creator = plugin_module.ScatterAddPluginCreator()
    return lean.IPluginCreatorV3One.create_plugin(creator, "ScatterAddPlugin", stored, lean.TensorRTPhase.RUNTIME)


def test_a_plugin_from_an_engines_fields_runs_its_stored_kernel(lean: ModuleType, plugin_module: ModuleType) -> None:
    import cupy as cp

    x, src, idx = graph(300, 5000, 33, seed=8)
    arch = kernels.current_arch()
    plugin = from_engine_fields(lean, plugin_module, fast.compile(**FP32, arch=arch), 1 << 20)
    assert isinstance(plugin, plugin_module.ScatterAddPlugin) and plugin.code.arch == arch
    x_dev, counts = cp.asarray(x.astype(np.float32)), cp.zeros((300, 1), dtype=np.int32)
    workspace = cp.zeros(1 << 20, dtype=np.uint8)
    stream = cp.cuda.Stream(non_blocking=True)
    run_phase(lean, plugin, types(lean, "fp32", "int32"), x_dev, guarded(src, "fp32")[1], cp.asarray(idx), counts,
              workspace, stream)
    stream.synchronize()
    assert_matches_reference(cp.asnumpy(x_dev).astype(np.float64), cp.asnumpy(counts)[:, 0], x, src, idx, "fp32")


def test_an_engine_whose_workspace_is_smaller_than_a_shape_needs_is_refused_before_any_launch(
        lean: ModuleType, plugin_module: ModuleType) -> None:
    """D1: the plugin passes launch() the workspace the engine stores. Built for this shape, the engine's plugin runs
    it within that workspace (a canary after it stays); an engine that stores a byte less than the shape needs (one
    built by a plan.py that sized it smaller) is refused by on_shape_change in one line: X and the counts keep their
    bits."""
    import cupy as cp

    x, src, idx = graph(300, 5000, 33, seed=8)
    plugin = plugin_module.ScatterAddPlugin()
    need = build_phase(lean, plugin, types(lean, "fp32", "int32"), 300, 5000, 33)
    arch = plugin.code.arch
    assert need == plugin.workspace == fast.workspace_size(**FP32, nodes=(1, 300), edges=(1, 5000), features=(33, 33),
                                                           arch=arch)
    exact = fast.workspace_size(**FP32, nodes=(300, 300), edges=(5000, 5000), features=(33, 33), arch=arch)
    assert 0 < exact <= need
    for stored in (need, exact - 1):
        runner = from_engine_fields(lean, plugin_module, plugin.code, stored)
        assert runner.workspace == stored
        x_dev, counts = cp.asarray(x.astype(np.float32)), cp.full((300, 1), 7, dtype=np.int32)
        workspace = cp.full(stored + 256, 0xFF, dtype=np.uint8)
        stream = cp.cuda.Stream(non_blocking=True)
        args = (lean, runner, types(lean, "fp32", "int32"), x_dev, guarded(src, "fp32")[1], cp.asarray(idx), counts,
                workspace, stream)
        if stored < exact:
            with pytest.raises(ValueError, match=rf"^ScatterAddPlugin: the engine's workspace holds {stored} "
                                                 rf"bytes, these shapes need {exact}: rebuild the engine$"):
                run_phase(*args)
            stream.synchronize()
            assert np.array_equal(cp.asnumpy(x_dev), x.astype(np.float32)) and bool((counts == 7).all())
            continue
        run_phase(*args)
        stream.synchronize()
        assert_matches_reference(cp.asnumpy(x_dev).astype(np.float64), cp.asnumpy(counts)[:, 0], x, src, idx, "fp32")
        assert bool((workspace[stored:] == 0xFF).all())


def test_a_cubin_of_another_architecture_is_refused_in_one_line(lean: ModuleType, plugin_module: ModuleType) -> None:
    """TensorRT runs an engine only on the architecture that built it, unless built hardware-compatible: then the
    stored cubin cannot run, and the creator says so (the engine stores no PTX)."""
    here = kernels.current_arch()
    other = "sm_75" if here != "sm_75" else "sm_80"
    assert from_engine_fields(lean, plugin_module, fast.compile(**FP32, arch=other), 1 << 20) is None
    assert plugin_module.last_error() == (f"the kernel was compiled for {other}, this GPU is {here}: "
                                          f"rebuild the engine here")


# Run in a process of its own where cuda.bindings.nvrtc cannot be imported: the engine's fields in, the plugin made
# by TensorRT's C++ createPlugin, its first enqueue captured into a CUDA graph, the graph replayed, the result out.
CHILD = """
import sys
import numpy as np
import cupy as cp
import tensorrt_lean_bindings as lean
sys.modules["tensorrt"] = lean
import scatter_add_plugin as sap
try:
    import cuda.bindings.nvrtc
    sys.exit("NVRTC is importable")
except ImportError:
    pass
saved = np.load(sys.argv[1])
data = {name: saved[name] for name in saved.files if name not in ("x", "src", "idx")}
kinds = {"aliased": lean.PluginFieldType.INT32, "workspace": lean.PluginFieldType.INT64}
fields = lean.PluginFieldCollection([lean.PluginField(n, a, kinds.get(n, lean.PluginFieldType.UNKNOWN))
                                     for n, a in data.items()])
cp.cuda.runtime.free(0)
plugin = lean.IPluginCreatorV3One.create_plugin(sap.register(), "ScatterAddPlugin", fields, lean.TensorRTPhase.RUNTIME)
x, src, idx = cp.asarray(saved["x"]), cp.asarray(saved["src"]), cp.asarray(saved["idx"])
counts, workspace = cp.zeros((len(x), 1), np.int32), cp.zeros(1 << 20, np.uint8)

def desc(dtype, shape):
    d = lean.PluginTensorDesc()
    d.type, d.dims = dtype, lean.Dims(list(shape))
    return d

ins = [desc(lean.float32, x.shape), desc(lean.float32, src.shape), desc(lean.int32, idx.shape)]
outs = [desc(lean.float32, x.shape), desc(lean.int32, counts.shape)]
stream = cp.cuda.Stream(non_blocking=True)
with stream:
    stream.begin_capture()
    plugin.on_shape_change(ins, outs)
    plugin.enqueue(ins, outs, [x.data.ptr, src.data.ptr, idx.data.ptr], [x.data.ptr, counts.data.ptr],
                   workspace.data.ptr, stream.ptr)
    graph = stream.end_capture()
    graph.launch(stream)
stream.synchronize()
np.save(sys.argv[2], cp.asnumpy(x))
np.save(sys.argv[3], cp.asnumpy(counts))
print("nvrtc loaded:", "cuda.bindings.nvrtc" in sys.modules)
"""


def test_an_engines_fields_run_where_nvrtc_cannot_be_imported(plugin_module: ModuleType, tmp_path: Path) -> None:
    import cupy as cp

    x, src, idx = graph(500, 20_000, 8, seed=9)
    cp.cuda.runtime.free(0)
    code = fast.compile(**FP32, arch=kernels.current_arch())
    configured = plugin_module.ScatterAddPlugin(True, "fast", code, 1 << 20)  # the child's workspace
    fields = {f.name: np.asarray(f.data) for f in configured.get_fields_to_serialize()}
    np.savez(tmp_path / "engine.npz", x=x.astype(np.float32), src=src.astype(np.float32), idx=idx, **fields)
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    out_x, out_counts = tmp_path / "x.npy", tmp_path / "counts.npy"
    env = {**os.environ, **hiding(tmp_path, "cuda.bindings.nvrtc")}
    env["PYTHONPATH"] = f"{env['PYTHONPATH']}:{ROOT}"
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "engine.npz"), str(out_x), str(out_counts)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "nvrtc loaded: False"
    assert_matches_reference(np.load(out_x).astype(np.float64), np.load(out_counts)[:, 0], x, src, idx, "fp32")
