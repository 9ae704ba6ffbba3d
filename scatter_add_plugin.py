# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""``ScatterAddPlugin``, an in-place (aliased I/O) scatter-add TensorRT plugin; its creator; ``register()``.

Inputs X [N, F] (fp32/fp16/bf16), src [E, F] (same type), idx [E] (int32/int64, 0-based rows of X; others are
skipped). Output 0 is X, aliased to input 0 and updated in place: X[idx[e]] += src[e]. Output 1 is counts [N, 1]
int32, the in-degree. The README's "Copying the plugin" and docs/aliasing.md say how to use it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import tensorrt as trt

from kernels import plan
from kernels import scatter_add as sak

# A namespace of our own: NVIDIA's aliased_io_plugin sample registers ScatterAddPlugin/"1" in "", with
# 1-based int64 indices. The version changes whenever the contract or the engine fields do.
PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_NAMESPACE = "ScatterAddPlugin", "3", "aliased_io_sample"

_FLOAT_TYPES = {trt.DataType.FLOAT: "fp32", trt.DataType.HALF: "fp16", trt.DataType.BF16: "bf16"}
_INDEX_TYPES = {trt.DataType.INT32: "int32", trt.DataType.INT64: "int64"}
_COUNTS_TYPE = trt.DataType.INT32
_INPUTS = ("X", "src", "idx")
_BUILD_FIELDS = ("aliased",)  # a plugin for a network; one in an engine also stores its kernel:
_ENGINE_FIELDS = ("aliased", "types", "arch", "cubin", "fingerprint")

# tensorrt-stubs omits two conversions the bindings make (str -> FallbackString, PluginFieldCollection ->
# PluginFieldCollection_) and mangles methods whose C++ parameter is named `in`: pyright ignores name this note.

_last_error = ""
Method = TypeVar("Method", bound=Callable[..., Any])


def last_error() -> str:
    """The plugin's last refusal since the last call, then forgotten. TensorRT's bindings print a Python plugin's
    exception and give TensorRT a null plugin or a failed call (pyPlugin.cpp): only here does the reason remain."""
    global _last_error
    error, _last_error = _last_error, ""
    return error


def _remembered(method: Method) -> Method:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _last_error
        try:
            return method(*args, **kwargs)
        except Exception as error:
            _last_error = str(error)
            raise

    return wrapper  # type: ignore[return-value]


def _field_collection(values: dict[str, np.ndarray]) -> trt.PluginFieldCollection:
    """int32 settings and bytes (as UNKNOWN, as ``tensorrt.plugin`` stores bytes). A PluginField points into its
    array without owning it: the caller keeps ``values`` alive as long as the collection."""
    kinds = {np.dtype(np.int32): trt.PluginFieldType.INT32, np.dtype(np.uint8): trt.PluginFieldType.UNKNOWN}
    fields = [trt.PluginField(name, data, kinds[data.dtype])  # pyright: ignore[reportArgumentType]  (stub: str)
              for name, data in values.items()]
    return trt.PluginFieldCollection(fields)


def _as_bytes(text: str | bytes) -> np.ndarray:
    return np.frombuffer(text.encode() if isinstance(text, str) else text, dtype=np.uint8)


Extents = list[tuple[int, ...]]  # per input, its dimensions


def _check_shapes(low: Extents, high: Extents, float_type: str) -> dict[str, tuple[int, int]]:
    """Refuse, in one line naming the inputs, what the kernel cannot take. Each extent lies in [low, high] (the
    profile at build time, one shape at run time). Returns the range of N, E and F where the inputs agree."""
    def agree(*axes: tuple[int, int]) -> tuple[int, int]:  # (input, axis) pairs that hold one size
        return max(low[i][a] for i, a in axes), min(high[i][a] for i, a in axes)

    sizes: dict[str, tuple[int, int]] = {}
    if [len(s) for s in low] != [2, 2, 1]:
        problem = "expected X [N, F], src [E, F], idx [E]"
    else:
        sizes = {"N": agree((0, 0)), "E": agree((1, 0), (2, 0)), "F": agree((0, 1), (1, 1))}
        problem = ("src must have a row per entry of idx, and X's F columns" if any(a > b for a, b in sizes.values())
                   else plan.size_problem(sizes["N"][1], sizes["E"][1], sizes["F"][1], float_type))
    if problem:
        got = [f"{name} {list(lo)}" + ("" if lo == hi else f"..{list(hi)}")
               for name, lo, hi in zip(_INPUTS, low, high, strict=True)]
        raise ValueError(f"{PLUGIN_NAME}: {problem}; got {', '.join(got)}")
    return sizes


def _ints(dims: trt.Dims) -> tuple[int, ...]:
    return tuple(dims[i] for i in range(len(dims)))


def _check_profile(inp: list[trt.DynamicPluginTensorDesc]) -> dict[str, tuple[int, int]]:
    """The build-time contract, over the profile's min and max of every input."""
    return _check_shapes([_ints(d.min) for d in inp], [_ints(d.max) for d in inp], _FLOAT_TYPES[inp[0].desc.type])


class ScatterAddPlugin(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuildV2, trt.IPluginV3OneRuntime):
    """See the module docstring. ``aliased=False`` gives the same results through a copy; ``code`` is the
    compiled kernel (from ``configure_plugin``, or from an engine's fields)."""

    def __init__(self, aliased: bool = True, code: sak.Code | None = None) -> None:
        # pybind11 bases need explicit __init__ calls (super() does not reach them all).
        trt.IPluginV3.__init__(self)
        trt.IPluginV3OneCore.__init__(self)
        trt.IPluginV3OneBuildV2.__init__(self)
        trt.IPluginV3OneRuntime.__init__(self)
        # These are C++-side properties: they must be set on every instance, clones included.
        self.plugin_name, self.plugin_version, self.plugin_namespace = PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_NAMESPACE
        self.num_outputs = 2
        self.aliased = aliased
        self.code = code
        self._types: tuple[str, str] | None = None  # (float, index), seen by get_output_data_types
        self._kernel: sak.ScatterAddKernel | None = None  # loaded in configure_plugin or create_plugin
        self._shapes: Extents | None = None  # the input shapes on_shape_change accepted
        self._fields: dict[str, np.ndarray] = {}  # what get_fields_to_serialize's collection points into

    # -- IPluginV3 ------------------------------------------------------------------------
    def get_capability_interface(self, type: trt.PluginCapabilityType) -> Any:
        return self

    def clone(self) -> ScatterAddPlugin:
        twin = ScatterAddPlugin(self.aliased, self.code)
        twin._types, twin._kernel, twin._shapes = self._types, self._kernel, self._shapes  # stays configured
        return twin

    # -- IPluginV3OneBuildV2 --------------------------------------------------------------
    def get_aliased_input(self, output_index: int) -> int:  # pyright: ignore[reportIncompatibleMethodOverride]
        # (tensorrt-stubs declares this as get_aliased_input(self: int); the binding passes the index.)
        return 0 if self.aliased and output_index == 0 else -1

    def get_output_data_types(self, input_types: list[trt.DataType]) -> list[trt.DataType]:
        if input_types[0] in _FLOAT_TYPES and input_types[2] in _INDEX_TYPES:
            self._types = _FLOAT_TYPES[input_types[0]], _INDEX_TYPES[input_types[2]]
        return [input_types[0], _COUNTS_TYPE]

    def get_output_shapes(
        self, inputs: list[trt.DimsExprs], shape_inputs: list[trt.DimsExprs], expr_builder: trt.IExprBuilder
    ) -> list[trt.DimsExprs]:
        counts = trt.DimsExprs([inputs[0][0], expr_builder.constant(1)])
        return [inputs[0], counts]

    def supports_format_combination(self, pos: int, in_out: list[trt.DynamicPluginTensorDesc],
                                    num_inputs: int) -> bool:
        # From the descriptors alone: in_out[0..pos] are valid, later ones not. src and output 0 take X's type.
        desc, x = in_out[pos].desc, in_out[0].desc.type
        types = (_FLOAT_TYPES, {x}, _INDEX_TYPES, {x}, {_COUNTS_TYPE})[pos]
        return desc.format == trt.TensorFormat.LINEAR and num_inputs == len(_INPUTS) and desc.type in types

    @_remembered
    def configure_plugin(  # pyright: ignore[reportIncompatibleMethodOverride]  (stub: `in`)
            self, inp: list[trt.DynamicPluginTensorDesc], out: list[trt.DynamicPluginTensorDesc]) -> None:
        _check_profile(inp)
        # Compiled for the GPU TensorRT builds on, once per process and type pair; loaded now in case TensorRT
        # times the plugin, and stored in the engine by get_fields_to_serialize.
        self.code, self._kernel = sak.build(_FLOAT_TYPES[inp[0].desc.type], _INDEX_TYPES[inp[2].desc.type])

    @_remembered
    def get_workspace_size(  # pyright: ignore[reportIncompatibleMethodOverride]  (stub: `in`)
            self, inp: list[trt.DynamicPluginTensorDesc], out: list[trt.DynamicPluginTensorDesc]) -> int:
        # The most the kernels use for any F, E and N of the profile (plan.py; at fp32 and F = 1 up to 8N bytes, the
        # scratch, even if the input turns out sorted). A refusal here would become 0 in the bindings:
        # configure_plugin makes the same check first and fails the build.
        sizes = _check_profile(inp)
        return plan.workspace_size(_FLOAT_TYPES[inp[0].desc.type], sizes["F"], sizes["E"], sizes["N"])

    # -- IPluginV3OneRuntime --------------------------------------------------------------
    def set_tactic(self, tactic: int) -> None:
        pass

    @_remembered
    def on_shape_change(  # pyright: ignore[reportIncompatibleMethodOverride]  (stub: `in`)
            self, inp: list[trt.PluginTensorDesc], out: list[trt.PluginTensorDesc]) -> None:
        self._shapes = None  # a refused shape leaves nothing that enqueue could launch
        shapes = [_ints(d.dims) for d in inp]
        _check_shapes(shapes, shapes, _FLOAT_TYPES[inp[0].type])
        if self._kernel is None or self.code is None:  # nothing is compiled or loaded here (graph capture)
            raise RuntimeError(f"{PLUGIN_NAME}: no kernel loaded (neither configure_plugin nor an engine's fields)")
        types = _FLOAT_TYPES[inp[0].type], _INDEX_TYPES[inp[2].type]
        built = self.code.float_type, self.code.index_type
        if types != built:  # the kernel's loads fit its own types' buffers only
            raise ValueError(f"{PLUGIN_NAME}: the kernel was built for {built[0]} and {built[1]}, the inputs are "
                             f"{types[0]} and {types[1]}")
        self._shapes = shapes

    @_remembered
    def enqueue(self, input_desc: list[trt.PluginTensorDesc], output_desc: list[trt.PluginTensorDesc],
                inputs: list[int], outputs: list[int], workspace: int, stream: int) -> None:
        shapes = [_ints(d.dims) for d in input_desc]
        if self._kernel is None or shapes != self._shapes:
            raise RuntimeError(f"{PLUGIN_NAME}: enqueue without shapes accepted by on_shape_change (got {shapes}, "
                               f"accepted {self._shapes})")
        (n_nodes, n_feat), _, (n_edges,) = shapes  # distinct buffers for the aliased pair: launch() copies X first
        self._kernel.launch(x=inputs[0], dst=outputs[0], src=inputs[1], idx=inputs[2], counts=outputs[1],
                            n_nodes=n_nodes, n_feat=n_feat, n_edges=n_edges, workspace=workspace, stream=stream)

    def attach_to_context(self, resource_context: trt.IPluginResourceContext) -> ScatterAddPlugin:
        return self.clone()  # one instance per execution context

    @_remembered
    def get_fields_to_serialize(  # pyright: ignore[reportIncompatibleMethodOverride]  (stub: collection)
            self) -> trt.PluginFieldCollection:
        if self.code is None and self._types is not None:  # serialized unconfigured: an engine needs the kernel
            self.code = sak.compile_kernel(sak.device_arch(sak.current_device()[1]), *self._types)
        self._fields = {"aliased": np.array([int(self.aliased)], dtype=np.int32)}
        if self.code is not None:
            c = self.code
            self._fields.update(types=_as_bytes(f"{c.float_type} {c.index_type}"), arch=_as_bytes(c.arch),
                                cubin=_as_bytes(c.cubin), fingerprint=_as_bytes(c.fingerprint))
        return _field_collection(self._fields)


class ScatterAddPluginCreator(trt.IPluginCreatorV3One):
    """Makes :class:`ScatterAddPlugin` from a field collection: ``aliased`` for a network (build phase), and
    also the kernel an engine stores (runtime phase, when an engine is deserialized)."""

    def __init__(self) -> None:
        trt.IPluginCreatorV3One.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_NAMESPACE
        self._declared = {"aliased": np.array([1], dtype=np.int32)}
        self.field_names = _field_collection(self._declared)  # pyright: ignore[reportAttributeAccessIssue]  (stub)

    @_remembered
    def create_plugin(self, name: str, field_collection: trt.PluginFieldCollection_,
                      phase: trt.TensorRTPhase) -> ScatterAddPlugin:
        names = [field.name for field in field_collection]
        wanted = _BUILD_FIELDS if phase == trt.TensorRTPhase.BUILD else _ENGINE_FIELDS
        if sorted(names) != sorted(wanted):
            why = "an engine of another plugin or version?" if names != ["aliased"] else "an engine without its kernel"
            raise ValueError(f"{PLUGIN_NAME} {PLUGIN_VERSION}: expected the fields {', '.join(wanted)}; got "
                             f"{', '.join(names) or 'none'} ({why})")
        values = {field.name: np.asarray(field.data) for field in field_collection}
        aliased = bool(int(values["aliased"].reshape(-1)[0]))
        if phase == trt.TensorRTPhase.BUILD:
            return ScatterAddPlugin(aliased)
        types = values["types"].tobytes().decode().split()
        if len(types) != 2 or types[0] not in plan.FLOATS or types[1] not in plan.INDICES:
            raise ValueError(f"{PLUGIN_NAME} {PLUGIN_VERSION}: the engine's kernel types {types} are not ours")
        stored = values["fingerprint"].tobytes().decode()
        if stored != sak.fingerprint(*types):  # an old cubin would misread today's arguments, silently
            raise ValueError(f"{PLUGIN_NAME}: the engine's kernel was built by another version of this code "
                             f"(fingerprint {stored}, this code's {sak.fingerprint(*types)}): rebuild the engine")
        code = sak.Code(types[0], types[1], values["arch"].tobytes().decode(), values["cubin"].tobytes(), stored)
        plugin = ScatterAddPlugin(aliased, code)
        plugin._kernel = sak.load(code)  # in TensorRT's context, before any enqueue or graph capture
        return plugin


def register() -> trt.IPluginCreatorV3One:
    """Register the creator once per process, or return the one this class (from any import of this module)
    registered; another under our identity is refused. ``get_creator`` would log an error where none is yet."""
    registry, wanted = trt.get_plugin_registry(), (PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_NAMESPACE)
    for existing in registry.all_creators:  # V2 and V3 creators alike expose these three names
        if tuple(getattr(existing, key, None) for key in ("name", "plugin_version", "plugin_namespace")) == wanted:
            kind, mine = type(existing), ("ScatterAddPluginCreator", __name__.rpartition(".")[2])
            if (kind.__qualname__, kind.__module__.rpartition(".")[2]) != mine:
                raise RuntimeError(f"{PLUGIN_NAMESPACE}::{PLUGIN_NAME} {PLUGIN_VERSION} is already registered by "
                                   f"another creator ({kind.__module__}.{kind.__qualname__})")
            return existing
    creator = ScatterAddPluginCreator()
    if not registry.register_creator(creator, PLUGIN_NAMESPACE):
        raise RuntimeError(f"TensorRT refused to register the {PLUGIN_NAME} creator")
    return creator
