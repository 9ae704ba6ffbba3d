"""Contract tests of ScatterAddPlugin and its creator, run against TensorRT-RTX's Python bindings.

TensorRT itself cannot be installed here. The pip package tensorrt-rtx-cu13 ships NVIDIA's real
Python plugin bindings (the same IPluginV3 classes, descriptors, enums and field collections as
TensorRT) and imports without a GPU. These tests load our plugin module on top of those bindings
and call its methods the way TensorRT's build and runtime phases do. They check the plugin's
contract only: they do not build or run a network, and they stand in for nothing else.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from conftest import tensorrt_replaced_by

pytestmark = pytest.mark.rtx


@pytest.fixture(scope="module")
def rtx() -> ModuleType:
    return pytest.importorskip("tensorrt_rtx", reason="tensorrt-rtx-cu13 (requirements/dev.txt) is not installed")


@pytest.fixture(scope="module")
def plugin_module(rtx: ModuleType) -> Iterator[ModuleType]:
    """scatter_add_plugin imported with the RTX bindings under the name `tensorrt`, then unloaded."""
    with tensorrt_replaced_by(rtx, ("scatter_add_plugin",)):
        yield importlib.import_module("scatter_add_plugin")


def desc(rtx: ModuleType, dtype: Any, dims: list[int], fmt: Any = None) -> Any:
    d = rtx.DynamicPluginTensorDesc()
    d.desc.type = dtype
    d.desc.format = rtx.TensorFormat.LINEAR if fmt is None else fmt
    d.desc.dims = rtx.Dims(dims)
    return d


def io_descs(rtx: ModuleType, x: Any, src: Any, idx: Any, out: Any, counts: Any) -> list[Any]:
    return [desc(rtx, x, [4, 3]), desc(rtx, src, [6, 3]), desc(rtx, idx, [6]),
            desc(rtx, out, [4, 3]), desc(rtx, counts, [4, 1])]


def accepted(plugin: Any, in_out: list[Any]) -> list[bool]:
    return [plugin.supports_format_combination(pos, in_out, 3) for pos in range(len(in_out))]


def test_required_attributes_are_set(plugin_module: ModuleType, rtx: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin()
    creator = plugin_module.ScatterAddPluginCreator()
    assert (plugin.plugin_name, plugin.plugin_version, plugin.plugin_namespace) == ("ScatterAddPlugin", "1", "")
    assert (creator.name, creator.plugin_version, creator.plugin_namespace) == ("ScatterAddPlugin", "1", "")
    assert plugin.num_outputs == 2
    assert [f.name for f in creator.field_names] == ["aliased"]
    for capability in rtx.PluginCapabilityType.__members__.values():
        assert plugin.get_capability_interface(capability) is plugin


def test_output_types_follow_x_and_counts_are_int32(plugin_module: ModuleType, rtx: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin()
    for float_type in (rtx.float32, rtx.float16, rtx.bfloat16):
        for index_type in (rtx.int32, rtx.int64):
            assert plugin.get_output_data_types([float_type, float_type, index_type]) == [float_type, rtx.int32]


@pytest.mark.parametrize("float_name", ["FLOAT", "HALF", "BF16"])
@pytest.mark.parametrize("index_name", ["INT32", "INT64"])
def test_supported_combinations_are_accepted(plugin_module: ModuleType, rtx: ModuleType, float_name: str, index_name: str) -> None:
    f, i = rtx.DataType.__members__[float_name], rtx.DataType.__members__[index_name]
    assert accepted(plugin_module.ScatterAddPlugin(), io_descs(rtx, f, f, i, f, rtx.int32)) == [True] * 5


def test_unsupported_combinations_are_rejected(plugin_module: ModuleType, rtx: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin()
    f16, f32 = rtx.float16, rtx.float32
    assert accepted(plugin, io_descs(rtx, rtx.int8, f16, rtx.int32, f16, rtx.int32))[0] is False
    assert accepted(plugin, io_descs(rtx, f16, f32, rtx.int32, f16, rtx.int32))[1] is False  # src must match X
    assert accepted(plugin, io_descs(rtx, f16, f16, rtx.float32, f16, rtx.int32))[2] is False
    assert accepted(plugin, io_descs(rtx, f16, f16, rtx.int32, f32, rtx.int32))[3] is False  # aliased output = X
    assert accepted(plugin, io_descs(rtx, f16, f16, rtx.int32, f16, rtx.int64))[4] is False
    in_out = io_descs(rtx, f16, f16, rtx.int32, f16, rtx.int32)
    in_out[0] = desc(rtx, f16, [4, 3], rtx.TensorFormat.HWC8)
    assert accepted(plugin, in_out)[0] is False


def test_build_phase_calls_accept_dynamic_dimensions(plugin_module: ModuleType, rtx: ModuleType) -> None:
    """The engine's N and E are dynamic: TensorRT passes -1 for them during the build."""
    plugin = plugin_module.ScatterAddPlugin()
    f16 = rtx.float16
    in_out = [desc(rtx, f16, [-1, 8]), desc(rtx, f16, [-1, 8]), desc(rtx, rtx.int32, [-1]),
              desc(rtx, f16, [-1, 8]), desc(rtx, rtx.int32, [-1, 1])]
    for d, high in zip(in_out, ([64, 8], [256, 8], [256], [64, 8], [64, 1])):
        d.max = rtx.Dims(high)
    assert accepted(plugin, in_out) == [True] * 5
    plugin.configure_plugin(in_out[:3], in_out[3:])  # ranks are checked, sizes are not needed
    assert plugin.get_output_data_types([f16, f16, rtx.int32]) == [f16, rtx.int32]
    assert plugin.get_workspace_size(in_out[:3], in_out[3:]) > 0


def test_a_rank_mismatch_is_an_error_at_build_time(plugin_module: ModuleType, rtx: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin()
    bad = [desc(rtx, rtx.float16, [-1, 8]), desc(rtx, rtx.float16, [-1]), desc(rtx, rtx.int32, [-1])]
    with pytest.raises(ValueError, match="expected X"):
        plugin.configure_plugin(bad, [])


def test_format_support_reads_descriptors_not_earlier_calls(plugin_module: ModuleType, rtx: ModuleType) -> None:
    # NVIDIA's sample decided from a type captured in get_output_data_types; ours must not.
    plugin = plugin_module.ScatterAddPlugin()
    plugin.get_output_data_types([rtx.float32, rtx.float32, rtx.int32])
    assert accepted(plugin, io_descs(rtx, rtx.float16, rtx.float16, rtx.int64, rtx.float16, rtx.int32)) == [True] * 5


def test_output_zero_aliases_input_zero(plugin_module: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin()
    assert [plugin.get_aliased_input(i) for i in (0, 1)] == [0, -1]
    no_alias = plugin_module.ScatterAddPlugin(aliased=False)
    assert [no_alias.get_aliased_input(i) for i in (0, 1)] == [-1, -1]


def test_clone_and_attach_give_configured_copies(plugin_module: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin(aliased=False)
    plugin._kernel = "loaded"  # a configured plugin (on_shape_change ran)
    for copy in (plugin.clone(), plugin.attach_to_context(None)):
        assert copy is not plugin and copy.aliased is False and copy._kernel == "loaded"
        assert copy.plugin_name == "ScatterAddPlugin" and copy.num_outputs == 2


@pytest.mark.parametrize("aliased", [True, False])
def test_serialized_fields_round_trip_through_the_creator(plugin_module: ModuleType, rtx: ModuleType, aliased: bool) -> None:
    plugin = plugin_module.ScatterAddPlugin(aliased=aliased)  # owns the memory the fields point to
    fields = plugin.get_fields_to_serialize()
    assert [(f.name, f.type, np.asarray(f.data).tolist()) for f in fields] == [
        ("aliased", rtx.PluginFieldType.INT32, [int(aliased)])
    ]
    creator = plugin_module.ScatterAddPluginCreator()
    restored = creator.create_plugin("ScatterAddPlugin", fields, rtx.TensorRTPhase.RUNTIME)
    assert restored.aliased is aliased and restored.get_aliased_input(0) == (0 if aliased else -1)


def test_creator_defaults_to_aliasing_and_rejects_unknown_fields(plugin_module: ModuleType, rtx: ModuleType) -> None:
    creator = plugin_module.ScatterAddPluginCreator()
    assert creator.create_plugin("p", rtx.PluginFieldCollection([]), rtx.TensorRTPhase.BUILD).aliased is True
    bogus = rtx.PluginFieldCollection([rtx.PluginField("chunk", np.array([8], np.int32), rtx.PluginFieldType.INT32)])
    with pytest.raises(ValueError, match="unknown plugin field 'chunk'"):
        creator.create_plugin("p", bogus, rtx.TensorRTPhase.BUILD)


def test_configure_checks_ranks(plugin_module: ModuleType, rtx: ModuleType) -> None:
    plugin = plugin_module.ScatterAddPlugin()
    good = io_descs(rtx, rtx.float16, rtx.float16, rtx.int32, rtx.float16, rtx.int32)
    plugin.configure_plugin(good[:3], good[3:])
    bad = [good[0], good[1], desc(rtx, rtx.int32, [6, 1])]
    with pytest.raises(ValueError, match=r"ranks \[2, 2, 2\]"):
        plugin.configure_plugin(bad, good[3:])


def test_enqueue_refuses_to_run_unprepared(plugin_module: ModuleType) -> None:
    with pytest.raises(RuntimeError, match="before on_shape_change"):
        plugin_module.ScatterAddPlugin().enqueue([], [], [], [], 0, 0)


def test_workspace_is_sized_from_the_profile_maximum(plugin_module: ModuleType, rtx: ModuleType) -> None:
    from kernels import launcher as sak

    def dynamic(dtype: Any, max_dims: list[int]) -> Any:
        d = desc(rtx, dtype, [-1] * len(max_dims))  # dimensions unknown at build time
        d.max = rtx.Dims(max_dims)
        return d

    plugin = plugin_module.ScatterAddPlugin()
    small = [dynamic(rtx.float16, [1000, 64]), dynamic(rtx.float16, [5000, 64]), dynamic(rtx.int32, [5000])]
    large = [dynamic(rtx.float16, [1000, 64]), dynamic(rtx.float16, [4 << 20, 64]), dynamic(rtx.int32, [4 << 20])]
    assert plugin.get_workspace_size(small, []) == sak.workspace_size(5000, 64)
    assert plugin.get_workspace_size(large, []) == sak.workspace_size(4 << 20, 64) > sak.workspace_size(5000, 64)
    assert plugin.get_valid_tactics() == []


def _ours(rtx: ModuleType) -> list[Any]:
    return [c for c in rtx.get_plugin_registry().all_creators if c.name == "ScatterAddPlugin"]


def test_register_twice_registers_once(plugin_module: ModuleType, rtx: ModuleType) -> None:
    first = plugin_module.register()
    second = plugin_module.register()
    assert len(_ours(rtx)) == 1
    assert (second.name, second.plugin_version, second.plugin_namespace) == ("ScatterAddPlugin", "1", "")
    assert (first.name, first.plugin_version) == (second.name, second.plugin_version)


def test_register_finds_a_creator_another_module_registered(plugin_module: ModuleType, rtx: ModuleType) -> None:
    registry = rtx.get_plugin_registry()
    for creator in _ours(rtx):  # start from an empty registry, then register "from elsewhere"
        registry.deregister_creator(creator)
    assert _ours(rtx) == []
    elsewhere = plugin_module.ScatterAddPluginCreator()
    assert registry.register_creator(elsewhere, "")
    found = plugin_module.register()
    assert len(_ours(rtx)) == 1 and found.name == "ScatterAddPlugin"


def test_build_progress_adapter_never_cancels_the_build(rtx: ModuleType) -> None:
    """trt_network.BuildProgress on NVIDIA's real IProgressMonitor class: True from every step."""
    with tensorrt_replaced_by(rtx, ("scatter_add_plugin", "gnn.trt_network")):
        trt_network = importlib.import_module("gnn.trt_network")
        from gnn.build_progress import ProgressPrinter

        class Broken(ProgressPrinter):
            def step_complete(self, phase: str, step: int) -> None:
                raise OSError("stderr is closed")

        import io

        out = io.StringIO()
        monitor = trt_network.BuildProgress(ProgressPrinter(out, interactive=False))
        assert isinstance(monitor, rtx.IProgressMonitor)
        monitor.phase_start("Building", None, 2)
        assert monitor.step_complete("Building", 0) is True
        monitor.phase_finish("Building")
        assert out.getvalue().startswith("Building: Building (2 steps)\nBuilding: Building done, 1/2 steps")
        assert trt_network.BuildProgress(Broken(out)).step_complete("Building", 1) is True
