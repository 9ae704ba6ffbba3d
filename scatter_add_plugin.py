"""``ScatterAddPlugin``: an in-place (aliased I/O) scatter-add TensorRT plugin, and its creator.

Inputs:  0 ``X [N, F]`` (fp32/fp16/bf16), 1 ``src [E, F]`` (same type), 2 ``idx [E]``
         (int32/int64, 0-based destination rows).
Outputs: 0 ``X`` updated in place: ``X[idx[e]] += src[e]``. Aliased to input 0 through
         ``get_aliased_input(0) == 0`` (needs ``PreviewFeature.ALIASED_PLUGIN_IO_10_03``).
         1 ``counts [N, 1]`` int32: the in-degree of each row. int32 because an in-degree
         fits easily, it halves the bytes of int64, and int32 atomics are native everywhere.

The CUDA work lives in ``kernels/`` (no TensorRT import), compiled with NVRTC outside ``enqueue``;
``enqueue`` only launches on the stream TensorRT passes: a memset of the counts and up to two kernels,
using the workspace that ``get_workspace_size`` asked for (no allocation, no sync: capturable in a
CUDA graph). Every shape relation and size limit the kernel relies on is refused before that, in
one line naming the tensors: at build time from the profile, and in ``on_shape_change`` from the
actual shapes. A copy of the plugin is this file and ``kernels/``, with TensorRT, NumPy, cuda-python
(``cuda.bindings``, ``cuda.pathfinder``), NVRTC and the CUDA headers installed (requirements/base.txt).

Register the creator with :func:`register` before building or deserializing an engine:
Python plugins are not embedded in the engine, so every process that loads one needs it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorrt as trt

from kernels import launcher, plan

PLUGIN_NAME = "ScatterAddPlugin"
PLUGIN_VERSION = "1"
PLUGIN_NAMESPACE = ""

_FLOAT_TYPES = {trt.DataType.FLOAT: "fp32", trt.DataType.HALF: "fp16", trt.DataType.BF16: "bf16"}
_INDEX_TYPES = {trt.DataType.INT32: "int32", trt.DataType.INT64: "int64"}
_COUNTS_TYPE = trt.DataType.INT32
_NUM_INPUTS = 3
_INPUTS = ("X", "src", "idx")
# The kernel's sizes and the (input, axis) pairs that hold each: where two hold one size, they must agree.
_SIZES = {"N": ((0, 0),), "E": ((1, 0), (2, 0)), "F": ((0, 1), (1, 1))}


# tensorrt-stubs (pybind11-stubgen) omits two implicit conversions that the bindings perform and
# NVIDIA's samples rely on: str -> FallbackString (PluginField names) and PluginFieldCollection
# -> PluginFieldCollection_ (what plugin APIs are declared to take). It also mangles methods whose
# C++ parameter is named `in`. Each such line below carries a pyright ignore naming this note.


def _serialized_fields(flag: np.ndarray) -> trt.PluginFieldCollection:
    """The plugin's one setting, as TensorRT stores it in the engine.

    A PluginField points into ``flag``'s memory without owning it: the caller must keep the
    array alive as long as the collection (the plugin and creator hold theirs as attributes).
    """
    name = "aliased"
    field = trt.PluginField(name, flag, trt.PluginFieldType.INT32)  # pyright: ignore[reportArgumentType]  (stub: str)
    return trt.PluginFieldCollection([field])


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
    """See the module docstring. ``aliased=False`` gives the same results through a copy."""

    def __init__(self, aliased: bool = True) -> None:
        # pybind11 bases need explicit __init__ calls (super() does not reach them all).
        trt.IPluginV3.__init__(self)
        trt.IPluginV3OneCore.__init__(self)
        trt.IPluginV3OneBuildV2.__init__(self)
        trt.IPluginV3OneRuntime.__init__(self)
        # These are C++-side properties: they must be set on every instance, clones included.
        self.plugin_name = PLUGIN_NAME
        self.plugin_version = PLUGIN_VERSION
        self.plugin_namespace = PLUGIN_NAMESPACE
        self.num_outputs = 2
        self.aliased = aliased
        self._aliased_field = np.array([1 if aliased else 0], dtype=np.int32)
        self._kernel: launcher.ScatterAddKernel | None = None

    # -- IPluginV3 ------------------------------------------------------------------------
    def get_capability_interface(self, type: trt.PluginCapabilityType) -> Any:
        return self

    def clone(self) -> ScatterAddPlugin:
        twin = ScatterAddPlugin(self.aliased)
        twin._kernel = self._kernel  # stays configured, as TensorRT expects of a clone
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
        if desc.format != trt.TensorFormat.LINEAR or num_inputs != _NUM_INPUTS:
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
        self._kernel = None  # a refused shape leaves nothing that enqueue could launch
        shapes = [_ints(d.dims) for d in inp]
        _check_shapes(shapes, shapes, _FLOAT_TYPES[inp[0].type])  # before any kernel is loaded or launched
        # Compile/load here, never in enqueue; after the first call this is a cache lookup.
        self._kernel = launcher.get_kernel(_FLOAT_TYPES[inp[0].type], _INDEX_TYPES[inp[2].type])

    def enqueue(
        self,
        input_desc: list[trt.PluginTensorDesc],
        output_desc: list[trt.PluginTensorDesc],
        inputs: list[int],
        outputs: list[int],
        workspace: int,
        stream: int,
    ) -> None:
        if self._kernel is None:
            raise RuntimeError(f"{PLUGIN_NAME}: enqueue before on_shape_change; kernel not loaded")
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
        return _serialized_fields(self._aliased_field)


class ScatterAddPluginCreator(trt.IPluginCreatorV3One):
    """Builds :class:`ScatterAddPlugin` from a field collection, at build and at runtime phase."""

    def __init__(self) -> None:
        trt.IPluginCreatorV3One.__init__(self)
        self.name = PLUGIN_NAME
        self.plugin_version = PLUGIN_VERSION
        self.plugin_namespace = PLUGIN_NAMESPACE
        self._default_field = np.array([1], dtype=np.int32)
        fields = _serialized_fields(self._default_field)
        self.field_names = fields  # pyright: ignore[reportAttributeAccessIssue]  (stub: collection)

    def create_plugin(self, name: str, field_collection: trt.PluginFieldCollection_,
                      phase: trt.TensorRTPhase) -> ScatterAddPlugin:
        aliased = True
        for index in range(len(field_collection)):
            field = field_collection[index]
            if field.name != "aliased":
                raise ValueError(f"{PLUGIN_NAME}: unknown plugin field {field.name!r}")
            aliased = bool(int(np.asarray(field.data).reshape(-1)[0]))
        return ScatterAddPlugin(aliased)


_CREATOR: ScatterAddPluginCreator | None = None


def _registered(registry: trt.IPluginRegistry) -> trt.IPluginCreatorV3One | None:
    """Our creator if some module already registered it (looked up without logging an error)."""
    wanted = (PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_NAMESPACE)
    for creator in registry.all_creators:  # V2 and V3 creators alike expose these three names
        if tuple(getattr(creator, key, None) for key in ("name", "plugin_version", "plugin_namespace")) == wanted:
            return creator
    return None


def register() -> trt.IPluginCreatorV3One:
    """Register the creator once per process; later calls return the registered one.

    The lookup walks ``all_creators`` rather than calling ``get_creator``: the latter logs a
    TensorRT error ("Cannot find plugin") whenever the creator is not there yet.
    """
    global _CREATOR
    registry = trt.get_plugin_registry()
    existing = _registered(registry)
    if existing is not None:
        return existing
    _CREATOR = ScatterAddPluginCreator()
    if not registry.register_creator(_CREATOR, PLUGIN_NAMESPACE):
        raise RuntimeError(f"TensorRT refused to register the {PLUGIN_NAME} creator")
    return _CREATOR
