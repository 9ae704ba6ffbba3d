# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""``ScatterAddPlugin``: an in-place (aliased I/O) scatter-add TensorRT plugin, and its creator.

Inputs:  0 ``X [N, F]`` (fp32/fp16/bf16), 1 ``src [E, F]`` (same type), 2 ``idx [E]`` (int32/int64).
Outputs: 0 ``X`` updated in place: ``X[idx[e]] += src[e]``. Aliased to input 0 through
         ``get_aliased_input(0) == 0`` (needs ``PreviewFeature.ALIASED_PLUGIN_IO_10_03``).
         1 ``counts [N, 1]`` int32: the in-degree of each row.
Indices are 0-based rows of X. An index outside ``[0, N)`` is skipped: it adds nothing and is not counted
(ONNX ScatterElements would wrap a negative one instead). Aliasing precondition: bind the network output
fed by output 0 to X's own buffer only when nothing else in the network reads X, since X changes in place.

The kernel (``scatter_add.cu``) is compiled with NVRTC for the build GPU in ``configure_plugin`` and stored
in the engine as plugin fields: the cubin, and PTX that the driver compiles on a newer GPU. Deserializing
loads it with cuda-python's driver API alone (no NVRTC, no CUDA headers). ``enqueue`` only launches, on the
stream TensorRT passes: a copy of X where output 0 is not X's buffer (not aliased), a memset of the counts and
up to two kernels in the workspace that
``get_workspace_size`` asked for (no compile, load, allocation or sync: capturable in a CUDA graph). Every
shape relation and size limit the kernel relies on is refused before that, in one line naming the tensors:
at build time from the profile, and in ``on_shape_change`` from the actual shapes.

Register the creator with :func:`register` before building or deserializing an engine: a Python plugin's
code is not in the engine (only its fields are), so every process that loads one needs this package.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorrt as trt

from . import compiler, kernel, plan

# A namespace of our own: NVIDIA's aliased_io_plugin sample registers ScatterAddPlugin/"1" in "", with
# 1-based int64 indices. The version changes whenever the contract or the engine fields do.
PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_NAMESPACE = "ScatterAddPlugin", "2", "aliased_io_sample"

_FLOAT_TYPES = {trt.DataType.FLOAT: "fp32", trt.DataType.HALF: "fp16", trt.DataType.BF16: "bf16"}
_INDEX_TYPES = {trt.DataType.INT32: "int32", trt.DataType.INT64: "int64"}
_COUNTS_TYPE = trt.DataType.INT32
_INPUTS = ("X", "src", "idx")
# The kernel's sizes and the (input, axis) pairs that hold each: where two hold one size, they must agree.
_SIZES = {"N": ((0, 0),), "E": ((1, 0), (2, 0)), "F": ((0, 1), (1, 1))}
# The fields the creator takes: a plugin for a network is made from its setting; one in an engine also from
# the compiled kernel it stores (``types``: "fp16 int32"; ``arch``: "sm_90"; ``cubin``; ``ptx``).
_BUILD_FIELDS = ("aliased",)
_ENGINE_FIELDS = ("aliased", "types", "arch", "cubin", "ptx")

# tensorrt-stubs (pybind11-stubgen) omits two implicit conversions that the bindings perform and
# NVIDIA's samples rely on: str -> FallbackString (PluginField names) and PluginFieldCollection
# -> PluginFieldCollection_ (what plugin APIs are declared to take). It also mangles methods whose
# C++ parameter is named `in`. Each such line below carries a pyright ignore naming this note.


def _field_collection(values: dict[str, np.ndarray]) -> trt.PluginFieldCollection:
    """Fields as TensorRT stores them in the engine: int32 settings, and bytes as UNKNOWN (as
    ``tensorrt.plugin`` stores bytes). A PluginField points into its array's memory without owning
    it: the caller keeps ``values`` alive as long as the collection (plugin and creator hold theirs)."""
    kinds = {np.dtype(np.int32): trt.PluginFieldType.INT32, np.dtype(np.uint8): trt.PluginFieldType.UNKNOWN}
    fields = [trt.PluginField(name, data, kinds[data.dtype])  # pyright: ignore[reportArgumentType]  (stub: str)
              for name, data in values.items()]
    return trt.PluginFieldCollection(fields)


def _as_bytes(text: str | bytes) -> np.ndarray:
    return np.frombuffer(text.encode() if isinstance(text, str) else text, dtype=np.uint8)


Extents = list[tuple[int, ...]]  # per input, its dimensions


def _check_shapes(low: Extents, high: Extents, float_type: str) -> dict[str, tuple[int, int]]:
    """Refuse, in one line naming the inputs, what the kernel cannot take: the wrong ranks, a src that is not
    E x F, sizes past the kernel's 32-bit limits. Each extent lies in [low, high] (the profile at build time,
    one shape at run time). Returns the range of N, E and F where the inputs agree, which is all that can run."""
    sizes: dict[str, tuple[int, int]] = {}
    if [len(s) for s in low] != [2, 2, 1]:
        problem = "expected X [N, F], src [E, F], idx [E]"
    else:
        sizes = {name: (max(low[i][a] for i, a in axes), min(high[i][a] for i, a in axes))
                 for name, axes in _SIZES.items()}
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

    def __init__(self, aliased: bool = True, code: kernel.Code | None = None) -> None:
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
        self._kernel: kernel.ScatterAddKernel | None = None  # loaded in configure_plugin or create_plugin
        self._shapes_ok = False  # on_shape_change accepted the current shapes
        self._fields: dict[str, np.ndarray] = {}  # what get_fields_to_serialize's collection points into

    # -- IPluginV3 ------------------------------------------------------------------------
    def get_capability_interface(self, type: trt.PluginCapabilityType) -> Any:
        return self

    def clone(self) -> ScatterAddPlugin:
        twin = ScatterAddPlugin(self.aliased, self.code)
        twin._kernel, twin._shapes_ok = self._kernel, self._shapes_ok  # stays configured, as TensorRT expects
        return twin

    # -- IPluginV3OneBuildV2 --------------------------------------------------------------
    def get_aliased_input(self, output_index: int) -> int:  # pyright: ignore[reportIncompatibleMethodOverride]
        # (tensorrt-stubs declares this as get_aliased_input(self: int); the binding passes the index.)
        return 0 if self.aliased and output_index == 0 else -1

    def get_output_data_types(self, input_types: list[trt.DataType]) -> list[trt.DataType]:
        return [input_types[0], _COUNTS_TYPE]

    def get_output_shapes(
        self, inputs: list[trt.DimsExprs], shape_inputs: list[trt.DimsExprs], expr_builder: trt.IExprBuilder
    ) -> list[trt.DimsExprs]:
        counts = trt.DimsExprs([inputs[0][0], expr_builder.constant(1)])
        return [inputs[0], counts]

    def supports_format_combination(self, pos: int, in_out: list[trt.DynamicPluginTensorDesc],
                                    num_inputs: int) -> bool:
        # Decided from the descriptors alone; in_out[0..pos] are valid, later entries are not.
        desc = in_out[pos].desc
        if desc.format != trt.TensorFormat.LINEAR or num_inputs != len(_INPUTS):
            return False
        if pos == 0:
            return desc.type in _FLOAT_TYPES
        if pos in (1, 3):  # src and the aliased output match X
            return desc.type == in_out[0].desc.type
        if pos == 2:
            return desc.type in _INDEX_TYPES
        return pos == 4 and desc.type == _COUNTS_TYPE

    def configure_plugin(  # pyright: ignore[reportIncompatibleMethodOverride]  (stub: `in`)
            self, inp: list[trt.DynamicPluginTensorDesc], out: list[trt.DynamicPluginTensorDesc]) -> None:
        _check_profile(inp)
        # Compiled for the GPU of TensorRT's current context, once per process and type pair; loaded now in
        # case TensorRT times the plugin, and stored in the engine by get_fields_to_serialize.
        self.code, self._kernel = compiler.build(_FLOAT_TYPES[inp[0].desc.type], _INDEX_TYPES[inp[2].desc.type])

    def get_workspace_size(  # pyright: ignore[reportIncompatibleMethodOverride]  (stub: `in`)
            self, inp: list[trt.DynamicPluginTensorDesc], out: list[trt.DynamicPluginTensorDesc]) -> int:
        # What the kernels use for the worst F and E that can run in the profile (plan.py lays it out).
        sizes = _check_profile(inp)
        return plan.workspace_size(_FLOAT_TYPES[inp[0].desc.type], sizes["F"], sizes["E"])

    def get_valid_tactics(self) -> list[int]:
        return []

    # -- IPluginV3OneRuntime --------------------------------------------------------------
    def set_tactic(self, tactic: int) -> None:
        pass

    def on_shape_change(  # pyright: ignore[reportIncompatibleMethodOverride]  (stub: `in`)
            self, inp: list[trt.PluginTensorDesc], out: list[trt.PluginTensorDesc]) -> None:
        self._shapes_ok = False  # a refused shape leaves nothing that enqueue could launch
        shapes = [_ints(d.dims) for d in inp]
        _check_shapes(shapes, shapes, _FLOAT_TYPES[inp[0].type])
        if self._kernel is None or self.code is None:  # nothing is compiled or loaded here (graph capture)
            raise RuntimeError(f"{PLUGIN_NAME}: no kernel loaded (neither configure_plugin nor an engine's fields)")
        types = _FLOAT_TYPES[inp[0].type], _INDEX_TYPES[inp[2].type]
        built = self.code.float_type, self.code.index_type
        if types != built:  # the kernel's loads fit its own types' buffers only
            raise ValueError(f"{PLUGIN_NAME}: the kernel was built for {built[0]} and {built[1]}, the inputs are "
                             f"{types[0]} and {types[1]}")
        self._shapes_ok = True

    def enqueue(self, input_desc: list[trt.PluginTensorDesc], output_desc: list[trt.PluginTensorDesc],
                inputs: list[int], outputs: list[int], workspace: int, stream: int) -> None:
        if self._kernel is None or not self._shapes_ok:
            raise RuntimeError(f"{PLUGIN_NAME}: enqueue without shapes accepted by on_shape_change")
        n_nodes, n_feat = input_desc[0].dims[0], input_desc[0].dims[1]
        # If TensorRT ever passes distinct buffers for the aliased pair, launch() copies X into
        # output 0 first (on this stream), so the result is right either way.
        self._kernel.launch(
            x=inputs[0], dst=outputs[0], src=inputs[1], idx=inputs[2], counts=outputs[1],
            n_nodes=n_nodes, n_feat=n_feat, n_edges=input_desc[2].dims[0], workspace=workspace, stream=stream,
        )

    def attach_to_context(self, resource_context: trt.IPluginResourceContext) -> ScatterAddPlugin:
        return self.clone()  # one instance per execution context

    def get_fields_to_serialize(  # pyright: ignore[reportIncompatibleMethodOverride]  (stub: collection)
            self) -> trt.PluginFieldCollection:
        self._fields = {"aliased": np.array([int(self.aliased)], dtype=np.int32)}
        if self.code is not None:  # configured: the engine stores the kernel
            c = self.code
            self._fields.update(types=_as_bytes(f"{c.float_type} {c.index_type}"), arch=_as_bytes(c.arch),
                                cubin=_as_bytes(c.cubin), ptx=_as_bytes(c.ptx))
        return _field_collection(self._fields)


class ScatterAddPluginCreator(trt.IPluginCreatorV3One):
    """Makes :class:`ScatterAddPlugin` from a field collection: ``aliased`` for a network (build phase), and
    also the kernel an engine stores (runtime phase, when an engine is deserialized)."""

    def __init__(self) -> None:
        trt.IPluginCreatorV3One.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_NAMESPACE
        self._declared = {"aliased": np.array([1], dtype=np.int32)}
        self.field_names = _field_collection(self._declared)  # pyright: ignore[reportAttributeAccessIssue]  (stub)

    def create_plugin(self, name: str, field_collection: trt.PluginFieldCollection_,
                      phase: trt.TensorRTPhase) -> ScatterAddPlugin:
        names = [field.name for field in field_collection]
        wanted = _BUILD_FIELDS if phase == trt.TensorRTPhase.BUILD else _ENGINE_FIELDS
        if sorted(names) != sorted(wanted):
            why = ("an engine whose plugin was serialized before configure_plugin compiled its kernel?"
                   if names == ["aliased"] else "an engine of another plugin or version?")
            raise ValueError(f"{PLUGIN_NAME} {PLUGIN_VERSION}: expected the fields {', '.join(wanted)}; got "
                             f"{', '.join(names) or 'none'} ({why})")
        values = {field.name: np.asarray(field.data) for field in field_collection}
        aliased = bool(int(values["aliased"].reshape(-1)[0]))
        if phase == trt.TensorRTPhase.BUILD:
            return ScatterAddPlugin(aliased)
        types = values["types"].tobytes().decode().split()
        if len(types) != 2 or types[0] not in plan.FLOATS or types[1] not in plan.INDICES:
            raise ValueError(f"{PLUGIN_NAME} {PLUGIN_VERSION}: the engine's kernel types {types} are not ours")
        code = kernel.Code(types[0], types[1], values["arch"].tobytes().decode(), values["cubin"].tobytes(),
                           values["ptx"].tobytes())
        plugin = ScatterAddPlugin(aliased, code)
        plugin._kernel = kernel.load(code)  # in TensorRT's context, before any enqueue or graph capture
        return plugin


def _registered(registry: trt.IPluginRegistry) -> trt.IPluginCreatorV3One | None:
    """The creator registered under our identity, if any (looked up without logging an error)."""
    wanted = (PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_NAMESPACE)
    for creator in registry.all_creators:  # V2 and V3 creators alike expose these three names
        if tuple(getattr(creator, key, None) for key in ("name", "plugin_version", "plugin_namespace")) == wanted:
            return creator
    return None


def register() -> trt.IPluginCreatorV3One:
    """Register the creator once per process; later calls return the registered one.

    The lookup walks ``all_creators`` rather than calling ``get_creator``, which logs a TensorRT error
    ("Cannot find plugin") whenever the creator is not there yet. A creator of this class from another
    import of this module (the same class and module name) is ours; any other under our identity is refused.
    """
    registry = trt.get_plugin_registry()
    existing = _registered(registry)
    if existing is not None:
        kind = type(existing)  # ours: this class, from this module or a copy of it imported under another name
        if (kind.__qualname__, kind.__module__.rpartition(".")[2]) != ("ScatterAddPluginCreator", "plugin"):
            raise RuntimeError(f"{PLUGIN_NAMESPACE}::{PLUGIN_NAME} {PLUGIN_VERSION} is already registered by "
                               f"another creator ({type(existing).__module__}.{type(existing).__qualname__})")
        return existing
    creator = ScatterAddPluginCreator()
    if not registry.register_creator(creator, PLUGIN_NAMESPACE):
        raise RuntimeError(f"TensorRT refused to register the {PLUGIN_NAME} creator")
    return creator
