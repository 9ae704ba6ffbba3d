# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Contract tests of ScatterAddPlugin and its creator, on two of NVIDIA's runtimes, on CPU.

Full TensorRT cannot be installed here; two of NVIDIA's real Python runtimes can, from PyPI, and
import without a GPU. Each is loaded under the name ``tensorrt``, our plugin module is imported on
it, and its methods are called the way TensorRT's build and runtime phases call them:

- ``tensorrt_11_4_lean``: TensorRT 11.4's own lean runtime (tensorrt-lean-cu13-bindings, module
  ``tensorrt_lean_bindings``): TensorRT's IPluginV3 classes, field collections and C++ plugin
  registry, but no builder. It has no ``TensorFormat`` and cannot read a descriptor's format, so
  the tests of format negotiation, which only a builder asks for, run on TensorRT-RTX alone.
- ``tensorrt_rtx``: TensorRT-RTX (tensorrt-rtx-cu13), a different product with the same plugin
  classes, descriptors and enums, and a builder (but no ``add_plugin_v3``).

Calls made through a base class (``runtime.IPluginCreatorV3One.create_plugin(creator, ...)``) go
through the runtime's C++ virtual method, which converts the field collection to the C++
``nvinfer1::PluginFieldCollection`` and calls our Python override back, as TensorRT does when it
builds or deserializes an engine. None of this builds or runs an engine, and nothing stands in
for TensorRT.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
import kernels
from conftest import ROOT, gpu_skip_reason, tensorrt_replaced_by
from kernels import plan
from kernels import scatter_add as sak

# The marks make conftest skip each runtime's tests where its package is missing (fail, in CI).
RTX = pytest.param("tensorrt_rtx", marks=pytest.mark.rtx, id="tensorrt_rtx")
LEAN = pytest.param("tensorrt_lean_bindings", marks=pytest.mark.lean, id="tensorrt_11_4_lean")

# For tests that need what only a builder has: TensorRT 11.4's lean runtime has no TensorFormat
# and raises "Unregistered type : nvinfer1::TensorFormat" when a descriptor's format is read.
on_tensorrt_rtx_only = pytest.mark.parametrize("runtime", [RTX], indirect=True)


@pytest.fixture(scope="module", params=[RTX, LEAN])
def runtime(request: pytest.FixtureRequest) -> ModuleType:
    return importlib.import_module(request.param)


@pytest.fixture(scope="module")
def plugin_module(runtime: ModuleType) -> Iterator[ModuleType]:
    """scatter_add_plugin imported with ``runtime`` under the name `tensorrt`, then unloaded."""
    with tensorrt_replaced_by(runtime, ("scatter_add_plugin",)):
        yield importlib.import_module("scatter_add_plugin")


def desc(rt: ModuleType, dtype: Any, dims: list[int], fmt: Any = None, low: list[int] | None = None,
         high: list[int] | None = None) -> Any:
    """A build-phase descriptor as TensorRT fills it: dims (-1 where the profile varies), min and max."""
    d = rt.DynamicPluginTensorDesc()
    d.desc.type = dtype
    if fmt is not None:  # only where the runtime has TensorFormat (not the lean one)
        d.desc.format = fmt
    d.desc.dims = rt.Dims(dims)
    d.min, d.max = rt.Dims(low or dims), rt.Dims(high or dims)
    return d


def profile(rt: ModuleType, dtype: Any, low: list[int], high: list[int]) -> Any:
    return desc(rt, dtype, [a if a == b else -1 for a, b in zip(low, high)], low=low, high=high)


def shape(rt: ModuleType, dtype: Any, dims: list[int]) -> Any:
    """A runtime descriptor, as on_shape_change and enqueue get it."""
    d = rt.PluginTensorDesc()
    d.type, d.dims = dtype, rt.Dims(dims)
    return d


def io_descs(rt: ModuleType, x: Any, src: Any, idx: Any, out: Any, counts: Any, fmt: Any = None) -> list[Any]:
    return [desc(rt, x, [4, 3], fmt), desc(rt, src, [6, 3], fmt), desc(rt, idx, [6], fmt),
            desc(rt, out, [4, 3], fmt), desc(rt, counts, [4, 1], fmt)]


def linear_descs(rtx: ModuleType, x: Any, src: Any, idx: Any, out: Any, counts: Any) -> list[Any]:
    return io_descs(rtx, x, src, idx, out, counts, rtx.TensorFormat.LINEAR)


IDENTITY = ("ScatterAddPlugin", "4", "aliased_io_sample")
FP32 = {"float_type": "fp32", "index_type": "int32"}
ENGINE_FIELDS = ["aliased", "kernel", "types", "arch", "cubin", "fingerprint", "workspace"]
FIELD_LIST = ", ".join(ENGINE_FIELDS)


def configure(plugin: Any, inputs: list[Any], outputs: list[Any]) -> None:
    """configure_plugin as the build calls it. Past the contract it compiles for the current GPU and loads the
    kernel: where there is no GPU (CI), that step fails, and only that step may."""
    try:
        plugin.configure_plugin(inputs, outputs)
    except Exception as error:  # noqa: BLE001 - which error it is, is the assertion
        if gpu_skip_reason() is None or isinstance(error, ValueError):
            raise
        assert "driver" in str(error) or "cuInit" in str(error), error


def through_tensorrt(rt: ModuleType, creator: Any, fields: Any, phase: Any) -> Any:
    """create_plugin as TensorRT calls it: the runtime's C++ createPlugin, given the C++ field
    collection, calls our Python override back (and returns None if it raised)."""
    return rt.IPluginCreatorV3One.create_plugin(creator, "ScatterAddPlugin", fields, phase)


def compiled_plugin(plugin_module: ModuleType, aliased: bool = True, kernel: str = "fast") -> Any:
    """A plugin holding the kernel as configure_plugin leaves it, for sm_90 (NVRTC runs on CPU too), and a workspace
    of 1 MiB (configure_plugin's for the tests' small shapes is less)."""
    code = kernels.choose(kernel).compile(float_type="fp32", index_type="int32", arch="sm_90")
    return plugin_module.ScatterAddPlugin(aliased, kernel, code, 1 << 20)


def aliased_fields(rt: ModuleType, value: int) -> tuple[Any, Any]:
    """A field collection with ``aliased = value``, and the array it points into (keep it alive)."""
    data = np.array([value], np.int32)
    return rt.PluginFieldCollection([rt.PluginField("aliased", data, rt.PluginFieldType.INT32)]), data


def accepted(plugin: Any, in_out: list[Any]) -> list[bool]:
    return [plugin.supports_format_combination(pos, in_out, 3) for pos in range(len(in_out))]


def test_required_attributes_are_set(plugin_module: ModuleType, runtime: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin()
    creator = plugin_module.ScatterAddPluginCreator()
    assert (plugin.plugin_name, plugin.plugin_version, plugin.plugin_namespace) == IDENTITY
    assert (creator.name, creator.plugin_version, creator.plugin_namespace) == IDENTITY
    assert plugin.num_outputs == 2
    # field_names is a C++ property: what TensorRT reads back is its own PluginFieldCollection.
    assert isinstance(creator.field_names, runtime.PluginFieldCollection_)
    assert [(f.name, f.type) for f in creator.field_names] == [("aliased", runtime.PluginFieldType.INT32),
                                                              ("kernel", runtime.PluginFieldType.UNKNOWN)]
    for capability in runtime.PluginCapabilityType.__members__.values():
        assert plugin.get_capability_interface(capability) is plugin


def test_output_types_follow_x_and_counts_are_int32(plugin_module: ModuleType, runtime: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin()
    for float_type in (runtime.float32, runtime.float16, runtime.bfloat16):
        for index_type in (runtime.int32, runtime.int64):
            assert plugin.get_output_data_types([float_type, float_type, index_type]) == [float_type, runtime.int32]


@on_tensorrt_rtx_only  # formats (see on_tensorrt_rtx_only)
@pytest.mark.parametrize("float_name", ["FLOAT", "HALF", "BF16"])
@pytest.mark.parametrize("index_name", ["INT32", "INT64"])
def test_supported_combinations_are_accepted(plugin_module: ModuleType, runtime: ModuleType, float_name: str,
                                             index_name: str) -> None:
    rtx = runtime
    f, i = rtx.DataType.__members__[float_name], rtx.DataType.__members__[index_name]
    assert accepted(plugin_module.ScatterAddPlugin(), linear_descs(rtx, f, f, i, f, rtx.int32)) == [True] * 5


@on_tensorrt_rtx_only  # formats
def test_unsupported_combinations_are_rejected(plugin_module: ModuleType, runtime: ModuleType) -> None:
    rtx, plugin = runtime, plugin_module.ScatterAddPlugin()
    f16, f32 = rtx.float16, rtx.float32
    assert accepted(plugin, linear_descs(rtx, rtx.int8, f16, rtx.int32, f16, rtx.int32))[0] is False
    assert accepted(plugin, linear_descs(rtx, f16, f32, rtx.int32, f16, rtx.int32))[1] is False  # src must match X
    assert accepted(plugin, linear_descs(rtx, f16, f16, rtx.float32, f16, rtx.int32))[2] is False
    assert accepted(plugin, linear_descs(rtx, f16, f16, rtx.int32, f32, rtx.int32))[3] is False  # aliased output = X
    assert accepted(plugin, linear_descs(rtx, f16, f16, rtx.int32, f16, rtx.int64))[4] is False
    in_out = linear_descs(rtx, f16, f16, rtx.int32, f16, rtx.int32)
    in_out[0] = desc(rtx, f16, [4, 3], rtx.TensorFormat.HWC8)
    assert accepted(plugin, in_out)[0] is False


@on_tensorrt_rtx_only  # formats
def test_format_support_accepts_dynamic_dimensions(plugin_module: ModuleType, runtime: ModuleType) -> None:
    """The engine's N and E are dynamic: TensorRT passes -1 for them during the build."""
    rtx = runtime
    f16, linear = rtx.float16, rtx.TensorFormat.LINEAR
    in_out = [desc(rtx, f16, [-1, 8], linear), desc(rtx, f16, [-1, 8], linear), desc(rtx, rtx.int32, [-1], linear),
              desc(rtx, f16, [-1, 8], linear), desc(rtx, rtx.int32, [-1, 1], linear)]
    assert accepted(plugin_module.ScatterAddPlugin(), in_out) == [True] * 5


def test_build_phase_calls_accept_dynamic_dimensions(plugin_module: ModuleType, runtime: ModuleType) -> None:
    """The engine's N and E are dynamic: TensorRT passes -1 for them during the build."""
    plugin = compiled_plugin(plugin_module)  # the architecture of a first compile: sm_90
    f16 = runtime.float16
    in_out = [profile(runtime, f16, [1, 8], [64, 8]), profile(runtime, f16, [1, 8], [256, 8]),
              profile(runtime, runtime.int32, [1], [256]), profile(runtime, f16, [1, 8], [64, 8]),
              profile(runtime, runtime.int32, [1, 1], [64, 1])]
    configure(plugin, in_out[:3], in_out[3:])
    assert plugin.get_output_data_types([f16, f16, runtime.int32]) == [f16, runtime.int32]
    assert plugin.get_workspace_size(in_out[:3], in_out[3:]) > 0


def test_a_rank_mismatch_is_an_error_at_build_time(plugin_module: ModuleType, runtime: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin()
    bad = [profile(runtime, runtime.float16, [1, 8], [9, 8]), profile(runtime, runtime.float16, [1], [9]),
           profile(runtime, runtime.int32, [1], [9])]
    with pytest.raises(ValueError, match=r"expected X \[N, F\], src \[E, F\], idx \[E\]; got X \[1, 8\]\.\.\[9, 8\]"):
        plugin.configure_plugin(bad, [])


@on_tensorrt_rtx_only  # formats
def test_format_support_reads_descriptors_not_earlier_calls(plugin_module: ModuleType, runtime: ModuleType) -> None:
    # NVIDIA's sample decided from a type captured in get_output_data_types; ours must not.
    rtx, plugin = runtime, plugin_module.ScatterAddPlugin()
    plugin.get_output_data_types([rtx.float32, rtx.float32, rtx.int32])
    assert accepted(plugin, linear_descs(rtx, rtx.float16, rtx.float16, rtx.int64, rtx.float16, rtx.int32)) == [True] * 5


def test_output_zero_aliases_input_zero(plugin_module: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin()
    assert [plugin.get_aliased_input(i) for i in (0, 1)] == [0, -1]
    no_alias = plugin_module.ScatterAddPlugin(aliased=False)
    assert [no_alias.get_aliased_input(i) for i in (0, 1)] == [-1, -1]


def test_clone_and_attach_give_configured_copies(plugin_module: ModuleType) -> None:
    plugin = compiled_plugin(plugin_module, aliased=False, kernel="reference")
    plugin._launcher, plugin._shapes = "loaded", [(4, 3), (6, 3), (6,)]  # configured, and on_shape_change ran
    plugin.workspace = 1234
    for copy in (plugin.clone(), plugin.attach_to_context(None)):
        assert copy is not plugin and copy.aliased is False and copy.code is plugin.code
        assert copy.kernel == "reference" and copy._launcher == "loaded" and copy._shapes == plugin._shapes
        assert copy.workspace == 1234
        assert copy.plugin_name == "ScatterAddPlugin" and copy.num_outputs == 2


@pytest.mark.parametrize("aliased", [True, False])
def test_tensorrt_creates_the_plugin_for_a_network_from_a_cpp_field_collection(
        plugin_module: ModuleType, runtime: ModuleType, aliased: bool) -> None:
    """The build phase (a network's plugin, made by the creator the registry holds), through C++."""
    creator = plugin_module.register()
    assert runtime.get_plugin_registry().get_creator(*IDENTITY) is creator
    fields, data = aliased_fields(runtime, int(aliased))
    plugin = through_tensorrt(runtime, creator, fields, runtime.TensorRTPhase.BUILD)
    # The registry may hold the creator of an earlier import of the module (register() returns it):
    # the plugin is of the class the creator's own module defines, which may not be this import's.
    made_by = type(creator).create_plugin.__globals__["ScatterAddPlugin"]
    assert type(plugin) is made_by and made_by.__qualname__ == plugin_module.ScatterAddPlugin.__qualname__
    assert plugin.aliased is aliased and plugin.code is None
    assert plugin.kernel == kernels.DEFAULT == "fast"  # the field left out
    assert [plugin.get_aliased_input(i) for i in (0, 1)] == ([0, -1] if aliased else [-1, -1])
    assert (plugin.plugin_name, plugin.plugin_version, plugin.plugin_namespace) == IDENTITY
    twin = plugin.clone()
    assert twin is not plugin and twin.aliased is aliased and twin.get_aliased_input(0) == plugin.get_aliased_input(0)
    del data  # the collection pointed into it until here


@pytest.mark.parametrize("aliased", [True, False])
def test_the_engine_stores_the_setting_and_the_compiled_kernel(plugin_module: ModuleType, runtime: ModuleType,
                                                               aliased: bool) -> None:
    plugin = compiled_plugin(plugin_module, aliased)  # owns the memory the fields point to
    fields = plugin.get_fields_to_serialize()
    unknown, int32, int64 = (runtime.PluginFieldType.UNKNOWN, runtime.PluginFieldType.INT32,
                             runtime.PluginFieldType.INT64)
    assert [(f.name, f.type) for f in fields] == [("aliased", int32), *((n, unknown) for n in ENGINE_FIELDS[1:-1]),
                                                  ("workspace", int64)]
    # What the engine stores is the C++ collection: read back from C++, byte for byte.
    stored = {f.name: np.asarray(f.data) for f in runtime.PluginFieldCollection_(fields)}
    code = plugin.code
    assert stored["aliased"].tolist() == [int(aliased)] and stored["types"].tobytes() == b"fp32 int32"
    assert stored["kernel"].tobytes() == b"fast" and code.kernel == "fast"
    assert stored["arch"].tobytes() == b"sm_90"
    assert stored["cubin"].tobytes() == code.cubin and code.cubin[:4] == b"\x7fELF"
    assert stored["fingerprint"].tobytes() == code.fingerprint.encode() == sak.fingerprint(**FP32).encode()
    assert stored["workspace"].dtype == np.int64 and stored["workspace"].tolist() == [plugin.workspace] == [1 << 20]


# fp32 at F = 1 up to N = 2^30: the scratch's 8N bytes pass 2^32, so the field is an INT64.
WORKSPACE_PROFILES = {"fp16 F = 64": ("HALF", [1, 64], [1000, 64], [1, 64], [5000, 64]),
                      "fp32 F = 1 past 2^32 bytes": ("FLOAT", [1, 1], [1 << 30, 1], [1, 1], [2**31 - 1, 1])}


@pytest.mark.parametrize("case", WORKSPACE_PROFILES)
def test_the_engine_stores_the_workspace_get_workspace_size_asked_for(plugin_module: ModuleType, runtime: ModuleType,
                                                                      case: str) -> None:
    """D1: TensorRT allocates what get_workspace_size asks for the profile; configure_plugin computes the same and the
    engine stores it (INT64, read back from C++), for launch() to check every shape against, whatever code runs it."""
    name, x_low, x_high, src_low, src_high = WORKSPACE_PROFILES[case]
    f = runtime.DataType.__members__[name]
    inputs = [profile(runtime, f, x_low, x_high), profile(runtime, f, src_low, src_high),
              profile(runtime, runtime.int32, src_low[:1], src_high[:1])]
    plugin = compiled_plugin(plugin_module)  # for sm_90: no GPU is asked for the architecture
    configure(plugin, inputs, [])  # past the workspace, it compiles and loads (the load needs a GPU)
    asked = plugin.get_workspace_size(inputs, [])
    assert plugin.workspace == asked > 0
    if "2^32" in case:
        assert asked == 8 * (2**30 - 1) > 2**32  # the scratch for the most nodes that E's range lets use it
    stored = {f.name: np.asarray(f.data) for f in runtime.PluginFieldCollection_(plugin.get_fields_to_serialize())}
    assert stored["workspace"].dtype == np.int64 and stored["workspace"].tolist() == [asked]


def test_an_unconfigured_plugin_stores_its_settings_alone(plugin_module: ModuleType, runtime: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin(aliased=False, kernel="reference")  # owns what the fields point to
    fields = plugin.get_fields_to_serialize()
    assert [(f.name, np.asarray(f.data).tobytes()) for f in fields] == [("aliased", b"\0\0\0\0"),
                                                                        ("kernel", b"reference")]


def test_an_engines_fields_make_a_plugin_that_loads_its_kernel(plugin_module: ModuleType, runtime: ModuleType,
                                                             capfd: pytest.CaptureFixture[str]) -> None:
    """At deserialization TensorRT hands the stored fields to the creator (runtime phase), which loads the kernel
    into the current context at once. Without a GPU, loading is the one step that fails (the GPU tier loads it)."""
    plugin = compiled_plugin(plugin_module)
    stored = runtime.PluginFieldCollection_(plugin.get_fields_to_serialize())
    creator = plugin_module.ScatterAddPluginCreator()
    if gpu_skip_reason() is None:
        pytest.skip("with a GPU the kernel loads: tests/test_plugin_lean_gpu.py")
    capfd.readouterr()
    assert through_tensorrt(runtime, creator, stored, runtime.TensorRTPhase.RUNTIME) is None
    err = capfd.readouterr().err
    assert "driver" in err and "expected the fields" not in err


FIELD_REFUSALS = {  # phase, the fields given, what the message lists
    "NVIDIA's sample's empty collection": ("BUILD", [], "expected the fields aliased, kernel; got none (an engine of"),
    "an unknown field": ("BUILD", ["aliased", "chunk"], "expected the fields aliased, kernel; got aliased, chunk"),
    "a field given twice": ("BUILD", ["aliased", "aliased"], "expected the fields aliased, kernel; got aliased, "
                                                             "aliased"),
    "an engine without the kernel": ("RUNTIME", ["aliased", "kernel"], f"expected the fields {FIELD_LIST}; got "
                                     "aliased, kernel (an engine without its kernel)"),
    "an engine of version 3": ("RUNTIME", ["aliased", "types", "arch", "cubin", "fingerprint"],
                               f"expected the fields {FIELD_LIST}; got aliased, types, arch, cubin, fingerprint (an "
                               "engine of another plugin or version?)"),
}


@pytest.mark.parametrize("case", FIELD_REFUSALS)
def test_the_creator_refuses_fields_it_does_not_expect(plugin_module: ModuleType, runtime: ModuleType, case: str,
                                                       capfd: pytest.CaptureFixture[str]) -> None:
    phase, names, message = FIELD_REFUSALS[case]
    data = np.array([1], np.int32)
    fields = runtime.PluginFieldCollection([runtime.PluginField(n, data, runtime.PluginFieldType.INT32) for n in names])
    creator = plugin_module.ScatterAddPluginCreator()
    with pytest.raises(ValueError, match=re.escape(message)) as refused:
        creator.create_plugin("p", fields, runtime.TensorRTPhase.__members__[phase])
    assert str(refused.value).startswith("ScatterAddPlugin 4: ") and "\n" not in str(refused.value)
    # Through C++, TensorRT gets no plugin and prints our message: that is what a user sees.
    capfd.readouterr()
    assert through_tensorrt(runtime, creator, fields, runtime.TensorRTPhase.__members__[phase]) is None
    assert f"ValueError: ScatterAddPlugin 4: {message}" in capfd.readouterr().err


def test_an_engines_fields_with_types_not_ours_are_refused_before_loading(plugin_module: ModuleType,
                                                                         runtime: ModuleType) -> None:
    plugin = compiled_plugin(plugin_module)
    plugin.get_fields_to_serialize()
    plugin._fields["types"] = np.frombuffer(b"fp64 int32", dtype=np.uint8)
    fields = runtime.PluginFieldCollection([runtime.PluginField(n, a, runtime.PluginFieldType.UNKNOWN
                                                                if n != "aliased" else runtime.PluginFieldType.INT32)
                                            for n, a in plugin._fields.items()])
    with pytest.raises(ValueError, match=r"^ScatterAddPlugin 4: the engine's kernel types \['fp64', 'int32'\] are not "
                                         r"ours$"):
        plugin_module.ScatterAddPluginCreator().create_plugin("p", fields, runtime.TensorRTPhase.RUNTIME)


def test_an_engine_from_changed_code_is_refused_through_cpp(plugin_module: ModuleType, runtime: ModuleType,
                                                            tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                                            capfd: pytest.CaptureFixture[str]) -> None:
    """An engine's cubin expects the argument layout and tiles of the code that compiled it. Once the code
    changes (here: the .cu file), TensorRT's C++ createPlugin gets no plugin, and last_error() says to rebuild."""
    plugin = compiled_plugin(plugin_module)
    stored = runtime.PluginFieldCollection_(plugin.get_fields_to_serialize())
    changed = tmp_path / "scatter_add.cu"
    changed.write_text(sak.KERNEL_SOURCE.read_text() + "// a later version\n")
    monkeypatch.setattr(sak, "KERNEL_SOURCE", changed)
    sak.fingerprint.cache_clear()
    try:
        capfd.readouterr()
        assert through_tensorrt(runtime, plugin_module.ScatterAddPluginCreator(), stored,
                                runtime.TensorRTPhase.RUNTIME) is None
        message = plugin_module.last_error()
        assert re.fullmatch(r"ScatterAddPlugin: the engine's fast kernel was built by another version of this code "
                            r"\(fingerprint [0-9a-f]{16}, this code's [0-9a-f]{16}\): rebuild the engine", message)
        assert message in capfd.readouterr().err
    finally:
        sak.fingerprint.cache_clear()


def engine_fields(rt: ModuleType, plugin: Any, **changed: bytes | np.ndarray) -> Any:
    """The fields ``plugin`` serializes, as the engine's C++ collection, with ``changed`` fields replaced: bytes, or
    an array of int32 or int64 (the plugin keeps the arrays alive)."""
    plugin.get_fields_to_serialize()
    plugin._fields.update({name: data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)
                           for name, data in changed.items()})
    kinds = {"int32": rt.PluginFieldType.INT32, "int64": rt.PluginFieldType.INT64}
    return rt.PluginFieldCollection_(rt.PluginFieldCollection(
        [rt.PluginField(n, a, kinds.get(a.dtype.name, rt.PluginFieldType.UNKNOWN)) for n, a in plugin._fields.items()]))


def created_from_engine(rt: ModuleType, plugin_module: ModuleType, fields: Any) -> tuple[Any, str]:
    """What TensorRT's C++ createPlugin makes of an engine's fields, and last_error() after it. Past the fields, the
    creator loads the kernel: without a GPU that step fails (a driver error), and only that step may."""
    plugin = through_tensorrt(rt, plugin_module.ScatterAddPluginCreator(), fields, rt.TensorRTPhase.RUNTIME)
    return plugin, plugin_module.last_error()


@pytest.mark.parametrize(("name", "value"), [("TARGET_SPANS", 8192), ("SCRATCH_EDGES", 1 << 16), ("SPAN_BYTES", 48)])
def test_an_engine_built_with_another_plan_is_refused(plugin_module: ModuleType, runtime: ModuleType, name: str,
                                                      value: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """D1: TensorRT sized the engine's workspace with the plan.py that built it. Each of these changes makes some
    shape need more than such an engine has (fp32: 4,226,560 bytes for 2,113,024 at N = 256K, E = 4M, F = 64; 400,000
    for 9,576 at N = 50K, E = 200K, F = 1; 1,064,704 for 709,888 at N = 4K, E = 64K, F = 32): the engine is refused
    before its kernel is loaded, in one line that says to rebuild it."""
    plugin = compiled_plugin(plugin_module)
    fields = engine_fields(runtime, plugin)
    monkeypatch.setattr(plan, name, value)
    sak.fingerprint.cache_clear()
    try:
        created, error = created_from_engine(runtime, plugin_module, fields)
        assert created is None
        assert re.fullmatch(r"ScatterAddPlugin: the engine's fast kernel was built by another version of this code "
                            r"\(fingerprint [0-9a-f]{16}, this code's [0-9a-f]{16}\): rebuild the engine", error), error
    finally:
        sak.fingerprint.cache_clear()


def test_an_engines_types_that_are_not_text_are_refused_as_not_ours(plugin_module: ModuleType,
                                                                      runtime: ModuleType) -> None:
    """A ``types`` field that is not UTF-8 gets the same one-line refusal as other types that are not ours."""
    plugin = compiled_plugin(plugin_module)
    created, error = created_from_engine(runtime, plugin_module, engine_fields(runtime, plugin, types=b"\xff\xfe int32"))
    assert created is None
    assert error == "ScatterAddPlugin 4: the engine's kernel types ['\ufffd\ufffd', 'int32'] are not ours"


WORKSPACE_REFUSALS = {"negative": np.array([-1], np.int64), "two values": np.array([4096, 4096], np.int64),
                      "text": b"4096", "int32": np.array([4096], np.int32)}


@pytest.mark.parametrize("case", WORKSPACE_REFUSALS)
def test_an_engines_workspace_that_is_not_a_number_of_bytes_is_refused(plugin_module: ModuleType, runtime: ModuleType,
                                                                       case: str) -> None:
    """The stored workspace is one non-negative INT64; anything else is refused in one line, before any load."""
    plugin = compiled_plugin(plugin_module)
    fields = engine_fields(runtime, plugin, workspace=WORKSPACE_REFUSALS[case])
    created, error = created_from_engine(runtime, plugin_module, fields)
    assert created is None
    assert re.fullmatch(r"ScatterAddPlugin 4: the engine's workspace \[[-0-9, ]+\] is not a number of bytes", error)


# The field aliased, from a network or an engine: one INT32, 0 or 1. Else NumPy's "index 0 is out of bounds" (empty),
# or a value taken for True (INT64, bytes, 2), or the first of several.
ALIASED_REFUSALS = {"empty": np.array([], np.int32), "INT64": np.array([1], np.int64), "bytes": b"\x01",
                    "two values": np.array([1, 1], np.int32), "2": np.array([2], np.int32)}


@pytest.mark.parametrize("phase", ["BUILD", "RUNTIME"])
@pytest.mark.parametrize("case", ALIASED_REFUSALS)
def test_an_aliased_field_that_is_not_one_int32_0_or_1_is_refused(plugin_module: ModuleType, runtime: ModuleType,
                                                                  case: str, phase: str) -> None:
    plugin = compiled_plugin(plugin_module)
    fields = engine_fields(runtime, plugin, aliased=ALIASED_REFUSALS[case])
    if phase == "BUILD":  # a network's fields: aliased alone (the kernel left out)
        fields = runtime.PluginFieldCollection_(runtime.PluginFieldCollection([f for f in fields if f.name == "aliased"]))
    created = through_tensorrt(runtime, plugin_module.ScatterAddPluginCreator(), fields,
                               runtime.TensorRTPhase.__members__[phase])
    error = plugin_module.last_error()
    assert created is None
    assert re.fullmatch(r"ScatterAddPlugin 4: the field aliased \[[0-9, ]*\] is not one INT32, 0 or 1", error), error


ARCH_REFUSALS = {"no sm_": b"90", "no number": b"sm_", "not a number": b"sm_9x", "PTX's": b"compute_90"}


@pytest.mark.parametrize("case", ARCH_REFUSALS)
def test_an_engines_arch_that_is_not_sm_xy_is_refused(plugin_module: ModuleType, runtime: ModuleType,
                                                      case: str) -> None:
    """Before the kernel is loaded (where arch_number's int() would meet it), in one line."""
    plugin = compiled_plugin(plugin_module)
    created, error = created_from_engine(runtime, plugin_module, engine_fields(runtime, plugin, arch=ARCH_REFUSALS[case]))
    assert created is None
    assert error == f"ScatterAddPlugin 4: the engine's arch {ARCH_REFUSALS[case].decode()!r} is not sm_XY"


# A kernel module whose compile() stamps its Code with something other than its fingerprint(): every engine it built
# would be refused by the creator. It needs no compiler: configure_plugin refuses it before any load.
UNSTAMPED_KERNEL = """from . import Code
from .reference import fingerprint, load, problem, workspace_size


def compile(*, float_type: str, index_type: str, arch: str) -> Code:
    return Code("unstamped", float_type, index_type, arch, b"", "not its fingerprint")
"""


def test_configure_refuses_a_kernel_whose_code_is_not_stamped_with_its_fingerprint(
        plugin_module: ModuleType, runtime: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "unstamped.py").write_text(UNSTAMPED_KERNEL)
    monkeypatch.setattr(kernels, "__path__", [*kernels.__path__, str(tmp_path)])
    monkeypatch.setitem(kernels.KERNELS, "unstamped", "unstamped")
    monkeypatch.setattr(kernels, "unstamped", None, raising=False)  # the import's attribute, removed afterwards
    try:
        code = kernels.Code("unstamped", "fp32", "int32", "sm_90", b"", "")  # the build GPU's arch known: sm_90
        plugin = plugin_module.ScatterAddPlugin(True, "unstamped", code)
        f32 = runtime.float32
        inputs = [profile(runtime, f32, [1, 8], [9, 8]), profile(runtime, f32, [1, 8], [90, 8]),
                  profile(runtime, runtime.int32, [1], [90])]
        message = ("ScatterAddPlugin: the unstamped kernel's Code.fingerprint is not its fingerprint(): no engine of "
                   "it could load")
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            plugin.configure_plugin(inputs, [])
        assert plugin_module.last_error() == message
        assert plugin.code is code and plugin._launcher is None  # nothing of the refused kernel kept
    finally:
        sys.modules.pop("kernels.unstamped", None)


# N = 300, E = 5000, F = 33 at fp32: what the fast kernel's launch needs, whatever profile it is part of.
N_E_F = (300, 5000, 33)


def test_a_shape_that_needs_more_than_the_engines_workspace_is_refused_before_enqueue(
        plugin_module: ModuleType, runtime: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """D1: an engine's plugin (made by TensorRT's C++ createPlugin from its fields) knows the workspace the engine
    stores, not only what this code would need: a shape that needs more (an engine built by a plan.py that sized it
    smaller, say) is refused by on_shape_change in one line, and enqueue then launches nothing. The kernel's load, the
    one step that needs a GPU, gives a launcher with no functions: a launch would fail, a refusal cannot."""
    nodes, edges, features = ((n, n) for n in N_E_F)
    need = sak.workspace_size(**FP32, nodes=nodes, edges=edges, features=features, arch="sm_90")
    assert need == plan.launch(*N_E_F, "fp32", 528, 90).workspace > 0
    monkeypatch.setattr(sak, "load", lambda code: sak.ScatterAddKernel((None,) * 4, code.float_type, 528, 90))
    n_nodes, n_edges, n_feat = N_E_F
    f32, i32 = runtime.float32, runtime.int32
    inputs = [shape(runtime, f32, [n_nodes, n_feat]), shape(runtime, f32, [n_edges, n_feat]),
              shape(runtime, i32, [n_edges])]
    code = sak.compile(**FP32, arch="sm_90")
    built = plugin_module.ScatterAddPlugin(True, "fast", code, need)  # kept: the fields point into it
    enough, error = created_from_engine(runtime, plugin_module, engine_fields(runtime, built))
    assert error == "", error
    enough.on_shape_change(inputs, [])  # exactly what it needs: accepted
    plugin = plugin_module.ScatterAddPlugin(True, "fast", code, need - 1)
    created, error = created_from_engine(runtime, plugin_module, engine_fields(runtime, plugin))
    assert error == "" and created.workspace == need - 1
    refusal = (f"ScatterAddPlugin: the engine's workspace holds {need - 1} bytes, these shapes need {need}: "
               f"rebuild the engine")
    with pytest.raises(ValueError, match=f"^{refusal}$"):
        created.on_shape_change(inputs, [])
    assert plugin_module.last_error() == refusal
    pointers = [1 << 20, 2 << 20, 3 << 20]  # 16-byte aligned, never dereferenced
    with pytest.raises(RuntimeError, match="enqueue without shapes accepted by on_shape_change"):
        created.enqueue(inputs, [], pointers, [pointers[0], 4 << 20], 5 << 20, 0)


def test_last_error_forgets_a_refusal_once_a_later_call_succeeds(plugin_module: ModuleType, runtime: ModuleType) -> None:
    """What a user reads after a failure: the reason of the call that failed, never one from before a call that
    succeeded since (the CLI reads it after a failed build or deserialization)."""
    plugin = compiled_plugin(plugin_module)
    plugin._launcher = "loaded"
    x, i = runtime.float32, runtime.int32
    with pytest.raises(ValueError, match="src must have a row per entry of idx"):
        plugin.on_shape_change([shape(runtime, x, [10, 3]), shape(runtime, x, [5, 3]), shape(runtime, i, [6])], [])
    plugin.on_shape_change([shape(runtime, x, [10, 3]), shape(runtime, x, [6, 3]), shape(runtime, i, [6])], [])
    assert plugin_module.last_error() == ""
    with pytest.raises(ValueError, match="src must have a row per entry of idx"):
        plugin.on_shape_change([shape(runtime, x, [10, 3]), shape(runtime, x, [5, 3]), shape(runtime, i, [6])], [])
    assert plugin_module.last_error().startswith("ScatterAddPlugin: src must have a row per entry of idx")
    assert plugin_module.last_error() == ""  # read once


def test_no_workspace_for_the_scratch_below_sm_90(plugin_module: ModuleType, runtime: ModuleType) -> None:
    """D3: the F = 1 scratch (8N bytes, checked here at fp32) is asked for only where the kernel uses it: a build for sm_80 asks for
    the flags and pieces alone."""
    f32, i32 = runtime.float32, runtime.int32
    inputs = [profile(runtime, f32, [1, 1], [100_000, 1]), profile(runtime, f32, [1, 1], [1 << 20, 1]),
              profile(runtime, i32, [1], [1 << 20])]
    sm_80 = plugin_module.ScatterAddPlugin(True, "fast", sak.compile(**FP32, arch="sm_80"))
    pieces = plan.workspace_size(float_type="fp32", nodes=(0, 0), edges=(1, 1 << 20), features=(1, 1))
    assert sm_80.get_workspace_size(inputs, []) == pieces < 8 * 100_000
    assert compiled_plugin(plugin_module).get_workspace_size(inputs, []) == 8 * 100_000  # sm_90


def test_the_reference_kernel_goes_from_a_network_into_the_engine(plugin_module: ModuleType,
                                                                  runtime: ModuleType) -> None:
    """The build-phase field ``kernel`` chooses it; the engine stores its name and code, and the creator checks them
    against the reference kernel's own fingerprint, not the fast one's."""
    data = np.array([1], np.int32), np.frombuffer(b"reference", np.uint8)
    fields = runtime.PluginFieldCollection([runtime.PluginField("aliased", data[0], runtime.PluginFieldType.INT32),
                                            runtime.PluginField("kernel", data[1], runtime.PluginFieldType.UNKNOWN)])
    built = through_tensorrt(runtime, plugin_module.ScatterAddPluginCreator(), fields, runtime.TensorRTPhase.BUILD)
    assert built.kernel == "reference" and built.aliased is True
    plugin = compiled_plugin(plugin_module, kernel="reference")
    stored = {f.name: np.asarray(f.data).tobytes() for f in engine_fields(runtime, plugin)}
    assert stored["kernel"] == b"reference" and stored["fingerprint"] == kernels.choose("reference").fingerprint(
        **FP32).encode() != sak.fingerprint(**FP32).encode()
    created, error = created_from_engine(runtime, plugin_module, engine_fields(runtime, plugin, kernel=b"fast"))
    assert created is None and error.startswith("ScatterAddPlugin: the engine's fast kernel was built by another")
    created, error = created_from_engine(runtime, plugin_module, engine_fields(runtime, plugin, kernel=b"quick"))
    assert created is None and error == f"ScatterAddPlugin: no kernel named 'quick': the kernels are {', '.join(kernels.KERNELS)}"
    created, error = created_from_engine(runtime, plugin_module, engine_fields(runtime, plugin))
    if gpu_skip_reason() is not None:  # the fields are accepted: loading the kernel is the step that needs a GPU
        assert created is None and ("driver" in error or "cuInit" in error), error
    else:
        assert created.kernel == "reference" and created.code.kernel == "reference"
    del data


@pytest.mark.parametrize("kind", ["UNKNOWN", "CHAR"])
def test_the_kernel_field_is_utf8_bytes_as_unknown_or_char(plugin_module: ModuleType, runtime: ModuleType,
                                                           kind: str) -> None:
    """What docs/copying.md says of the field: the creator lists it as UNKNOWN (bytes), and CHAR is accepted too,
    through TensorRT's C++ field collection."""
    data = np.array([0], np.int32), np.frombuffer(b"reference", np.uint8 if kind == "UNKNOWN" else np.int8)
    fields = runtime.PluginFieldCollection([
        runtime.PluginField("aliased", data[0], runtime.PluginFieldType.INT32),
        runtime.PluginField("kernel", data[1], runtime.PluginFieldType.__members__[kind])])
    built = through_tensorrt(runtime, plugin_module.ScatterAddPluginCreator(), fields, runtime.TensorRTPhase.BUILD)
    assert built is not None, plugin_module.last_error()
    assert built.kernel == "reference" and built.aliased is False
    del data


def test_a_plugin_serialized_unconfigured_compiles_from_its_output_types(plugin_module: ModuleType,
                                                                          runtime: ModuleType) -> None:
    """An engine needs the kernel: with the input types seen in get_output_data_types, serializing compiles for the
    build GPU rather than writing fields no creator accepts. Without a GPU that compile is what fails."""
    plugin = plugin_module.ScatterAddPlugin()
    plugin.get_output_data_types([runtime.float16, runtime.float16, runtime.int64])
    if gpu_skip_reason() is not None:
        with pytest.raises(Exception, match="driver|cuInit"):  # noqa: B017 - the message is the assertion
            plugin.get_fields_to_serialize()
        return
    names = [f.name for f in plugin.get_fields_to_serialize()]
    assert names == ENGINE_FIELDS and (plugin.code.float_type, plugin.code.index_type) == ("fp16", "int64")


def test_enqueue_refuses_shapes_other_than_those_accepted(plugin_module: ModuleType, runtime: ModuleType) -> None:
    plugin = compiled_plugin(plugin_module)
    plugin._launcher = "loaded"
    accepted = [shape(runtime, runtime.float32, [10, 3]), shape(runtime, runtime.float32, [6, 3]),
                shape(runtime, runtime.int32, [6])]
    plugin.on_shape_change(accepted, [])
    other = [accepted[0], shape(runtime, runtime.float32, [9, 3]), shape(runtime, runtime.int32, [9])]
    with pytest.raises(RuntimeError, match=re.escape("(got [(10, 3), (9, 3), (9,)], accepted [(10, 3), (6, 3), (6,)])")):
        plugin.enqueue(other, [], [0, 0, 0], [0, 0], 0, 0)
    assert plugin_module.last_error().startswith("ScatterAddPlugin: enqueue without shapes accepted")


def test_a_kernel_of_other_types_is_refused_in_on_shape_change(plugin_module: ModuleType, runtime: ModuleType) -> None:
    """One instance may be configured for several type pairs; the kernel it holds runs only on its own."""
    plugin = compiled_plugin(plugin_module)  # fp32 and int32
    plugin._launcher = "loaded"
    for f, i in ((runtime.float16, runtime.int32), (runtime.float32, runtime.int64)):
        inputs = [shape(runtime, f, [10, 3]), shape(runtime, f, [6, 3]), shape(runtime, i, [6])]
        with pytest.raises(ValueError, match=r"^ScatterAddPlugin: the kernel was built for fp32 and int32, the inputs "
                                             r"are (fp16 and int32|fp32 and int64)$"):
            plugin.on_shape_change(inputs, [])
        assert plugin._shapes is None
    good = [shape(runtime, runtime.float32, [10, 3]), shape(runtime, runtime.float32, [6, 3]),
            shape(runtime, runtime.int32, [6])]
    plugin.on_shape_change(good, [])
    assert plugin._shapes == [(10, 3), (6, 3), (6,)]


def test_configure_checks_ranks(plugin_module: ModuleType, runtime: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin()
    good = io_descs(runtime, runtime.float16, runtime.float16, runtime.int32, runtime.float16, runtime.int32)
    configure(plugin, good[:3], good[3:])
    bad = [good[0], good[1], desc(runtime, runtime.int32, [6, 1])]
    with pytest.raises(ValueError, match=r"expected X .*; got X \[4, 3\], src \[6, 3\], idx \[6, 1\]$"):
        plugin.configure_plugin(bad, good[3:])


def test_enqueue_refuses_to_run_unprepared(plugin_module: ModuleType) -> None:
    with pytest.raises(RuntimeError, match="enqueue without shapes accepted by on_shape_change"):
        plugin_module.ScatterAddPlugin().enqueue([], [], [], [], 0, 0)


def test_the_workspace_is_what_the_kernels_use_over_the_profile(plugin_module: ModuleType, runtime: ModuleType) -> None:
    """TensorRT asks once, for the profile: the largest workspace any shape in it uses (plan.py's
    layout), found here by trying every edge count."""
    plugin = compiled_plugin(plugin_module)  # for sm_90
    f16, i32 = runtime.float16, runtime.int32
    for high in (5000, 4 << 20):
        inputs = [profile(runtime, f16, [1, 64], [1000, 64]), profile(runtime, f16, [1, 64], [high, 64]),
                  profile(runtime, i32, [1], [high])]
        assert plugin.get_workspace_size(inputs, []) == plan.workspace_size(float_type="fp16", nodes=(1, 1000),
                                                                            edges=(1, high), features=(64, 64))
    t = plan.tile(8, 4)
    step = plan.TARGET_SPANS * t.step  # where the span length steps up: the most spans just below
    inputs = [profile(runtime, runtime.float32, [1, 8], [10, 8]), profile(runtime, runtime.float32, [step - 50, 8],
              [step + 50, 8]), profile(runtime, i32, [step - 50], [step + 50])]
    used = max(plan.workspace_bytes(plan.ceil_div(e, plan.span_length(e, t, 4, 8)), 8) for e in range(step - 50, step + 51))
    assert plugin.get_workspace_size(inputs, []) == used
    # Only where src and idx agree can a shape run: src's E up to 1000 bounds the workspace, not idx's 2^31 - 1.
    inputs = [profile(runtime, f16, [1, 64], [10, 64]), profile(runtime, f16, [1, 64], [1000, 64]),
              profile(runtime, i32, [1], [2**31 - 1])]
    assert plugin.get_workspace_size(inputs, []) == plan.workspace_size(float_type="fp16", nodes=(1, 10), edges=(1, 1000),
                                                                        features=(64, 64))
    # F = 1 also holds the scratch's [N, 2] fp32 for the largest N that E's range lets use it (fp32 here).
    inputs = [profile(runtime, runtime.float32, [1, 1], [100_000, 1]),
              profile(runtime, runtime.float32, [1, 1], [1 << 20, 1]), profile(runtime, i32, [1], [1 << 20])]
    assert plugin.get_workspace_size(inputs, []) == 8 * 100_000
    assert plugin.get_valid_tactics() == []


# What a network can get wrong, each refused at build time in one line naming the inputs.
BUILD_REFUSALS = {
    "src rows != idx entries": ([[4, 8], [4, 8]], [[5, 8], [5, 8]], [[6], [6]], "src must have a row per entry of idx"),
    "src F != X F": ([[4, 8], [4, 8]], [[6, 4], [6, 4]], [[6], [6]], "and X's F columns"),
    "E ranges cannot meet": ([[1, 8], [9, 8]], [[1, 8], [100, 8]], [[200], [300]], "src must have a row"),
    "E past 2^31 - 1": ([[1, 8], [9, 8]], [[1, 8], [2**31, 8]], [[1], [2**31]], "E = 2147483648 is past the kernel"),
    "N past 2^31 - 1": ([[1, 8], [2**31, 8]], [[1, 8], [9, 8]], [[1], [9]], "N = 2147483648 is past the kernel"),
    "a row past 2^31 - 1 bytes": ([[1, 2**30], [9, 2**30]], [[1, 2**30], [9, 2**30]], [[1], [9]],
                                   "a row of F = 1073741824 fp16 (2147483648 bytes)"),
}


@pytest.mark.parametrize("case", BUILD_REFUSALS)
def test_shapes_the_kernel_cannot_take_are_refused_at_build_time(plugin_module: ModuleType, runtime: ModuleType,
                                                                  case: str) -> None:
    (x, src, idx, message) = BUILD_REFUSALS[case]
    f16 = runtime.float16
    inputs = [profile(runtime, f16, *x), profile(runtime, f16, *src), profile(runtime, runtime.int32, *idx)]
    plugin = compiled_plugin(plugin_module)  # the build GPU's architecture known (sm_90): no GPU is asked
    for call in (plugin.configure_plugin, plugin.get_workspace_size):
        with pytest.raises(ValueError, match=re.escape(message)) as refused:
            call(inputs, [])
        text = str(refused.value)
        assert text.startswith("ScatterAddPlugin: ") and "\n" not in text
        assert f"; got X {x[0]}" in text and f"src {src[0]}" in text and f"idx {idx[0]}" in text


@pytest.mark.parametrize("case", BUILD_REFUSALS)
def test_build_time_refusals_come_before_the_gpu_is_asked_anything(plugin_module: ModuleType, runtime: ModuleType,
                                                                   case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin as a network makes it (nothing compiled, so the build GPU's architecture unknown): what problem()
    refuses holds on every GPU, so it is refused before the driver is asked for the architecture, on a machine
    without a GPU too."""
    asked: list[str] = []

    def no_gpu() -> str:
        asked.append("current_arch")
        raise RuntimeError("the GPU was asked")

    monkeypatch.setattr(kernels, "current_arch", no_gpu)
    x, src, idx, message = BUILD_REFUSALS[case]
    f16 = runtime.float16
    inputs = [profile(runtime, f16, *x), profile(runtime, f16, *src), profile(runtime, runtime.int32, *idx)]
    takes = {"N past 2^31 - 1", "a row past 2^31 - 1 bytes"}  # the reference kernel's N and F are 64-bit
    for kernel in ["fast"] + ([] if case in takes else ["reference"]):
        plugin = plugin_module.ScatterAddPlugin(kernel=kernel)
        for call in (plugin.configure_plugin, plugin.get_workspace_size):
            with pytest.raises(ValueError) as refused:
                call(inputs, [])
            text = str(refused.value)
            assert text.startswith("ScatterAddPlugin: ") and "\n" not in text and f"; got X {x[0]}" in text
            if kernel == "fast":  # the reference kernel words its E limit its own way
                assert message in text
    assert asked == []


def test_ranges_that_can_meet_are_left_to_on_shape_change(plugin_module: ModuleType, runtime: ModuleType) -> None:
    f16 = runtime.float16
    inputs = [profile(runtime, f16, [1, 8], [9, 8]), profile(runtime, f16, [1, 8], [100, 8]),
              profile(runtime, runtime.int32, [50], [300])]
    configure(plugin_module.ScatterAddPlugin(), inputs, [])  # E = 50..100 fits both


# Shapes that reach a run, each refused before any launch, with or without a GPU.
RUN_REFUSALS = {
    "src with half the rows idx needs": ([8000, 8], [4000, 8], [8000], "src must have a row per entry of idx"),
    "src with F = 4 under X's F = 8": ([1000, 8], [8000, 4], [8000], "and X's F columns"),
    "idx of rank 2": ([1000, 8], [8000, 8], [8000, 1], "expected X [N, F], src [E, F], idx [E]"),
    "E past 2^31 - 1": ([1000, 8], [2**31, 8], [2**31], "E = 2147483648 is past the kernel's 32-bit limit"),
}


@pytest.mark.parametrize("case", RUN_REFUSALS)
def test_shapes_the_kernel_cannot_take_are_refused_in_on_shape_change(plugin_module: ModuleType,
                                                                      runtime: ModuleType, case: str) -> None:
    x, src, idx, message = RUN_REFUSALS[case]
    plugin = compiled_plugin(plugin_module)  # fp32 and int32, as from an engine's fields
    plugin._launcher = "loaded"
    inputs = [shape(runtime, runtime.float32, x), shape(runtime, runtime.float32, src),
              shape(runtime, runtime.int32, idx)]
    with pytest.raises(ValueError, match=re.escape(message)) as refused:
        plugin.on_shape_change(inputs, [])
    assert str(refused.value).startswith("ScatterAddPlugin: ")
    assert str(refused.value).endswith(f"; got X {x}, src {src}, idx {idx}") and "\n" not in str(refused.value)
    assert plugin._shapes is None  # so enqueue refuses too
    with pytest.raises(RuntimeError, match="enqueue without shapes accepted"):
        plugin.enqueue(inputs, [], [0, 0, 0], [0, 0], 0, 0)


def _ours(rt: ModuleType) -> list[Any]:
    return [c for c in rt.get_plugin_registry().all_creators
            if (c.name, c.plugin_version, c.plugin_namespace) == IDENTITY]


def test_register_twice_registers_once(plugin_module: ModuleType, runtime: ModuleType) -> None:
    first = plugin_module.register()
    second = plugin_module.register()
    assert len(_ours(runtime)) == 1
    assert (second.name, second.plugin_version, second.plugin_namespace) == IDENTITY
    assert (first.name, first.plugin_version) == (second.name, second.plugin_version)
    assert runtime.get_plugin_registry().get_creator(*IDENTITY) is second


def start_without_ours(rt: ModuleType) -> Any:
    registry = rt.get_plugin_registry()
    for creator in _ours(rt):
        registry.deregister_creator(creator)
    assert _ours(rt) == []
    return registry


def test_register_finds_a_creator_another_module_registered(plugin_module: ModuleType, runtime: ModuleType) -> None:
    registry = start_without_ours(runtime)  # then register "from elsewhere": another import of this module
    elsewhere = plugin_module.ScatterAddPluginCreator()
    assert registry.register_creator(elsewhere, IDENTITY[2])
    found = plugin_module.register()
    assert len(_ours(runtime)) == 1 and found is elsewhere
    assert registry.get_creator(*IDENTITY) is elsewhere


def other_creator(rt: ModuleType, name: str, version: str, namespace: str) -> Any:
    """A creator of another plugin under the given identity (as NVIDIA's aliased_io_plugin sample registers
    ScatterAddPlugin / "1" / ""), whose plugins are of its own class."""

    class OtherPlugin(rt.IPluginV3, rt.IPluginV3OneCore):
        def __init__(self) -> None:
            rt.IPluginV3.__init__(self)
            rt.IPluginV3OneCore.__init__(self)
            self.plugin_name, self.plugin_version, self.plugin_namespace = name, version, namespace

    class OtherCreator(rt.IPluginCreatorV3One):
        def __init__(self) -> None:
            rt.IPluginCreatorV3One.__init__(self)
            self.name, self.plugin_version, self.plugin_namespace = name, version, namespace
            self.field_names = rt.PluginFieldCollection([])

        def create_plugin(self, plugin_name: str, fields: Any, phase: Any) -> Any:
            return OtherPlugin()

    return OtherCreator()


def test_a_different_creator_under_our_identity_is_refused(plugin_module: ModuleType, runtime: ModuleType) -> None:
    registry = start_without_ours(runtime)
    impostor = other_creator(runtime, *IDENTITY)
    assert registry.register_creator(impostor, IDENTITY[2])
    try:
        with pytest.raises(RuntimeError, match=r"^aliased_io_sample::ScatterAddPlugin 4 is already registered by "
                                               r"another creator \(.*OtherCreator\)$"):
            plugin_module.register()
    finally:
        registry.deregister_creator(impostor)


@pytest.mark.parametrize("runtime", [LEAN], indirect=True)
def test_nvidias_sample_identity_and_ours_live_side_by_side(plugin_module: ModuleType, runtime: ModuleType) -> None:
    """NVIDIA's sample's creator registered first (in TensorRT 11.4's own registry), then ours: each identity
    finds its own creator, and each creator builds its own plugin from TensorRT's C++ field collection."""
    registry = start_without_ours(runtime)
    sample = other_creator(runtime, "ScatterAddPlugin", "1", "")
    assert registry.register_creator(sample, "")
    try:
        ours = plugin_module.register()
        assert ours is not sample and registry.get_creator("ScatterAddPlugin", "1", "") is sample
        assert registry.get_creator(*IDENTITY) is ours
        fields, data = aliased_fields(runtime, 1)
        mine = through_tensorrt(runtime, ours, fields, runtime.TensorRTPhase.BUILD)
        theirs = through_tensorrt(runtime, sample, runtime.PluginFieldCollection([]), runtime.TensorRTPhase.BUILD)
        assert isinstance(mine, plugin_module.ScatterAddPlugin) and mine.plugin_namespace == "aliased_io_sample"
        assert not isinstance(theirs, plugin_module.ScatterAddPlugin) and theirs.plugin_namespace == ""
        del data
    finally:
        registry.deregister_creator(sample)


# The script builds networks: its TensorRT calls do not run on the lean runtime (no INetworkDefinition).
@on_tensorrt_rtx_only
def test_build_progress_adapter_never_cancels_the_build(runtime: ModuleType) -> None:
    """The script's progress_monitor on NVIDIA's real IProgressMonitor class: True from every step."""
    rtx = runtime
    with tensorrt_replaced_by(rtx, ("scatter_add_plugin", "aliased_io_plugin")):
        script = importlib.import_module("aliased_io_plugin")
        from gnn.outputs import ProgressPrinter

        class Broken(ProgressPrinter):
            def step_complete(self, phase: str, step: int) -> None:
                raise OSError("stderr is closed")

        import io

        out = io.StringIO()
        monitor = script.progress_monitor(ProgressPrinter(out, interactive=False))
        assert isinstance(monitor, rtx.IProgressMonitor)
        monitor.phase_start("Building", None, 2)
        assert monitor.step_complete("Building", 0) is True
        monitor.phase_finish("Building")
        assert out.getvalue().startswith("Building: Building (2 steps)\nBuilding: Building done, 1/2 steps")
        assert script.progress_monitor(Broken(out)).step_complete("Building", 1) is True


@on_tensorrt_rtx_only
def test_the_cli_names_the_plugins_reason_for_a_failed_call(runtime: ModuleType) -> None:
    """TensorRT sees a null plugin where the creator refused; the CLI's line carries the plugin's reason, once."""
    with tensorrt_replaced_by(runtime, ("scatter_add_plugin", "aliased_io_plugin")):
        script = importlib.import_module("aliased_io_plugin")
        plugin_module = importlib.import_module("scatter_add_plugin")  # the script's, on this runtime
        fields = runtime.PluginFieldCollection([])
        assert through_tensorrt(runtime, plugin_module.ScatterAddPluginCreator(), fields,
                                runtime.TensorRTPhase.RUNTIME) is None
        assert script.refused("TensorRT could not deserialize it") == (
            f"TensorRT could not deserialize it: ScatterAddPlugin 4: expected the fields {FIELD_LIST}; got none (an "
            "engine of another plugin or version?)")
        assert script.refused("again") == "again"  # read once: a later failure gets no stale reason
        assert script.plugin_aggregation().failure_reason is plugin_module.last_error
        # --kernel: a saved engine's description names the kernel (beside its fingerprint).
        assert script.plugin_aggregation().name == "the class-based plugin ScatterAddPlugin 4"
        assert script.plugin_aggregation(True, "reference").name == (
            "the class-based plugin ScatterAddPlugin 4 with the reference kernel")


# What a plugin author does (README "Copying the plugin"): first the minimal copy, the plugin, the interface, the CUDA
# plumbing and the reference kernel, exactly, in an empty folder, run from there with none of this repository on the
# path; then the fast kernel's files dropped in beside them. NVRTC compiles on CPU; loading needs a GPU.
MINIMAL_COPY = ["kernels/__init__.py", "kernels/cuda_calls.py", "kernels/reference.cu", "kernels/reference.py",
                "scatter_add_plugin.py"]
FAST_KERNEL = ["kernels/plan.py", "kernels/scatter_add.cu", "kernels/scatter_add.py"]
COPIED = """
import sys
import numpy as np
import tensorrt_lean_bindings as trt
sys.modules["tensorrt"] = trt
import kernels
import scatter_add_plugin
creator = scatter_add_plugin.register()
aliased, kernel = np.array([1], np.int32), np.frombuffer(sys.argv[1].encode(), np.uint8)  # the fields point into them
fields = trt.PluginFieldCollection([trt.PluginField("aliased", aliased, trt.PluginFieldType.INT32),
                                    trt.PluginField("kernel", kernel, trt.PluginFieldType.UNKNOWN)])
plugin = trt.IPluginCreatorV3One.create_plugin(creator, "ScatterAddPlugin", fields, trt.TensorRTPhase.BUILD)
print("plugin:", plugin.kernel if plugin else scatter_add_plugin.last_error())
code = kernels.choose("reference").compile(float_type="fp16", index_type="int64", arch="sm_90")
print("reference:", code.kernel, code.cubin[:4] == b"\\x7fELF")
try:
    code = kernels.choose("fast").compile(float_type="fp32", index_type="int32", arch="sm_90")
    print("fast:", code.kernel, code.cubin[:4] == b"\\x7fELF")
except ValueError as missing:
    print("fast:", missing)
"""


def run_copied(folder: Path, kernel: str) -> list[str]:
    (folder / "check.py").write_text(COPIED)
    elsewhere = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)  # packages, not this repository
                 if p and not Path(p).resolve().is_relative_to(ROOT)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(elsewhere)}
    done = subprocess.run([sys.executable, "check.py", kernel], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    (folder / "check.py").unlink()
    return done.stdout.splitlines()


def copy_files(names: list[str], folder: Path) -> list[str]:
    for name in names:
        (folder / name).parent.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, folder / name)
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if "__pycache__" not in p.parts)


@pytest.mark.lean
def test_the_minimal_copy_works_alone_and_takes_the_fast_kernel_dropped_in(tmp_path: Path) -> None:
    assert copy_files(MINIMAL_COPY, tmp_path) == ["kernels", *MINIMAL_COPY]
    assert run_copied(tmp_path, "reference") == ["plugin: reference", "reference: reference True",
                                                 "fast: the kernel 'fast' is not here: kernels/scatter_add.py is "
                                                 "missing"]
    # The default kernel is the fast one: a network that leaves the field out is refused in one line.
    assert run_copied(tmp_path, "fast")[0] == ("plugin: ScatterAddPlugin: the kernel 'fast' is not here: "
                                               "kernels/scatter_add.py is missing")
    assert copy_files(FAST_KERNEL, tmp_path) == sorted(["kernels", *MINIMAL_COPY, *FAST_KERNEL])
    assert run_copied(tmp_path, "fast") == ["plugin: fast", "reference: reference True", "fast: fast True"]


@pytest.mark.lean
def test_the_whole_kernels_folder_serves_both_routes_copied_alone(tmp_path: Path) -> None:
    """The README's other way: scatter_add_plugin.py and kernels/ whole, the QDP route's files included."""
    shutil.copy(ROOT / "scatter_add_plugin.py", tmp_path)
    shutil.copytree(ROOT / "kernels", tmp_path / "kernels", ignore=shutil.ignore_patterns("__pycache__"))
    assert sorted(p.name for p in (tmp_path / "kernels").iterdir()) == sorted(
        [*(Path(name).name for name in MINIMAL_COPY + FAST_KERNEL if name.startswith("kernels/")),
         "scatter_add_aot.cu", "scatter_add_aot.py"])
    assert run_copied(tmp_path, "fast") == ["plugin: fast", "reference: reference True", "fast: fast True"]
    (tmp_path / "ptx.py").write_text("from kernels import scatter_add_aot\n"
                                     "print(b'.entry scatter_add_aot(' in scatter_add_aot.ptx('fp16', 'int32', 'sm_90'))")
    done = subprocess.run([sys.executable, "ptx.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (0, "True\n"), done.stderr
