# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""``ScatterAddPlugin``, an in-place (aliased I/O) scatter-add TensorRT plugin. Inputs X [N, F]
(fp32/fp16/bf16), src [E, F] (same type), idx [E] (int32/int64, 0-based rows of X; others are
skipped). Output 0 is X, aliased to input 0 and updated in place: X[idx[e]] += src[e] (where
TensorRT gives output 0 a buffer of its own, enqueue copies X into it first). Output 1 is counts
[N, 1] int32, the in-degree. The ``kernel`` field chooses the kernel (kernels/)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import cuda.bindings.driver as driver
import numpy as np
import tensorrt as trt

import kernels

# tensorrt-stubs lacks two conversions the bindings make (str -> FallbackString, a field list ->
# PluginFieldCollection_) and names parameters as C++ does (`in`): hence pyright's settings here.
# pyright: reportIncompatibleMethodOverride=false

# A namespace of our own: NVIDIA's aliased_io_plugin sample registers ScatterAddPlugin/"1" in "",
# with 1-based int64 indices. The version changes whenever the contract or the engine fields do.
PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_NAMESPACE = "ScatterAddPlugin", "4", "aliased_io_sample"
IDENTITY = (PLUGIN_NAME, PLUGIN_VERSION, PLUGIN_NAMESPACE)

_FLOAT_TYPES = {trt.DataType.FLOAT: "fp32", trt.DataType.HALF: "fp16", trt.DataType.BF16: "bf16"}
_INDEX_TYPES = {trt.DataType.INT32: "int32", trt.DataType.INT64: "int64"}
_COUNTS_TYPE = trt.DataType.INT32
_INPUTS = ("X", "src", "idx")
_BUILD_FIELDS = ("aliased", "kernel")  # for a network (kernel may be left out: kernels.DEFAULT)
_ENGINE_FIELDS = (*_BUILD_FIELDS, "types", "arch", "cubin", "fingerprint", "workspace")

Extents = list[tuple[int, ...]]  # per input, its dimensions
Sizes = tuple[kernels.Range, kernels.Range, kernels.Range]  # the ranges of N, E and F
Types = tuple[str, str]  # (float, index)
Method = TypeVar("Method", bound=Callable[..., Any])
_last_error = ""


def last_error() -> str:
    """Why the plugin's last call refused, then forgotten (read once). One value for the process:
    each create_plugin, configure_plugin, get_workspace_size, on_shape_change, enqueue and
    get_fields_to_serialize, of any instance on any thread, sets it ("" where the call succeeds),
    so read it right after the failed call. The bindings print a Python plugin's exception and give
    TensorRT a null plugin or a failed call (pyPlugin.cpp): only here does the reason remain."""
    global _last_error
    error, _last_error = _last_error, ""
    return error


def _remembered(method: Method) -> Method:
    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        global _last_error
        try:
            result = method(*args, **kwargs)
        except Exception as error:
            _last_error = str(error)
            raise
        _last_error = ""  # an earlier refusal does not explain what follows this success
        return result

    return wrapper  # type: ignore[return-value]


def _field_collection(values: dict[str, np.ndarray]) -> trt.PluginFieldCollection:
    """Integers and bytes (UNKNOWN, as ``tensorrt.plugin`` stores bytes). A PluginField points
    into its array without owning it: the caller keeps ``values`` alive with the collection."""
    kinds = {"int32": trt.PluginFieldType.INT32, "int64": trt.PluginFieldType.INT64,
             "uint8": trt.PluginFieldType.UNKNOWN}
    fields = [trt.PluginField(name, data, kinds[data.dtype.name])  # pyright: ignore
              for name, data in values.items()]
    return trt.PluginFieldCollection(fields)


def _as_bytes(data: str | bytes) -> np.ndarray:
    return np.frombuffer(data.encode() if isinstance(data, str) else data, dtype=np.uint8)


def _text(data: np.ndarray) -> str:
    return data.tobytes().decode(errors="replace")  # bytes not ours are refused for what they say


def _ints(dims: trt.Dims) -> tuple[int, ...]:
    return tuple(dims[i] for i in range(len(dims)))  # (tensorrt-stubs: Dims is not iterable)


def _refuse(problem: str, low: Extents, high: Extents) -> NoReturn:
    got = [f"{name} {list(lo)}" + ("" if lo == hi else f"..{list(hi)}")
           for name, lo, hi in zip(_INPUTS, low, high, strict=True)]
    raise ValueError(f"{PLUGIN_NAME}: {problem}; got {', '.join(got)}")


def _chosen(kernel: str) -> kernels.Kernel:
    """The kernel ``kernel`` names; kernels.choose's one-line ValueError, prefixed by our name."""
    try:
        return kernels.choose(kernel)
    except ValueError as refused:
        raise ValueError(f"{PLUGIN_NAME}: {refused}") from None


def _sizes(low: Extents, high: Extents) -> Sizes:
    """The ranges of N, E and F where the inputs agree, each extent in [low, high] (the profile at
    build time, one shape at run time); else a ValueError whose one line names the inputs."""
    def agree(*axes: tuple[int, int]) -> kernels.Range:  # (input, axis) pairs of one size
        return max(low[i][a] for i, a in axes), min(high[i][a] for i, a in axes)

    if [len(s) for s in low] != [2, 2, 1]:
        _refuse("expected X [N, F], src [E, F], idx [E]", low, high)
    sizes = agree((0, 0)), agree((1, 0), (2, 0)), agree((0, 1), (1, 1))
    if any(a > b for a, b in sizes):
        _refuse("src must have a row per entry of idx, and X's F columns", low, high)
    return sizes


class ScatterAddPlugin(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuildV2,
                       trt.IPluginV3OneRuntime):
    """``aliased=False``: the same results through a copy. ``code``: the kernel compiled.
    ``workspace``: the bytes TensorRT gives enqueue (configure_plugin's, or the engine's)."""

    def __init__(self, aliased: bool = True, kernel: str = kernels.DEFAULT,
                 code: kernels.Code | None = None, workspace: int = 0) -> None:
        # pybind11 bases need explicit __init__ calls (super() does not reach them all).
        trt.IPluginV3.__init__(self)
        trt.IPluginV3OneCore.__init__(self)
        trt.IPluginV3OneBuildV2.__init__(self)
        trt.IPluginV3OneRuntime.__init__(self)
        # These are C++-side properties: they must be set on every instance, clones included.
        self.plugin_name, self.plugin_version, self.plugin_namespace = IDENTITY
        self.num_outputs = 2
        self.aliased = aliased
        self.kernel = kernel
        self.code = code
        self.workspace = workspace
        self._module = _chosen(kernel)  # imported now: a kernel never named is never needed
        self._types: Types | None = None  # seen by get_output_data_types
        self._launcher: kernels.Launcher | None = None  # loaded by configure_plugin or the creator
        self._shapes: Extents | None = None  # the input shapes on_shape_change accepted
        self._fields: dict[str, np.ndarray] = {}  # what get_fields_to_serialize's collection uses

    def _check(self, low: Extents, high: Extents, types: Types) -> Sizes:
        """The sizes; one ValueError naming the problem where the inputs disagree or the kernel
        cannot take them on any GPU (problem() takes no arch: no GPU is asked here)."""
        sizes = _sizes(low, high)
        nodes, edges, features = sizes
        problem = self._module.problem(float_type=types[0], index_type=types[1], nodes=nodes,
                                       edges=edges, features=features)
        if problem:
            _refuse(problem, low, high)
        return sizes

    def _workspace(self, sizes: Sizes, types: Types, arch: str) -> int:
        nodes, edges, features = sizes
        return self._module.workspace_size(float_type=types[0], index_type=types[1], nodes=nodes,
                                           edges=edges, features=features, arch=arch)

    def _profile(self, inp: list[trt.DynamicPluginTensorDesc]) -> tuple[Sizes, Types, str]:
        """The build's contract over the profile (every input's min and max), checked before the
        GPU is asked anything; the type pair; the GPU's arch: the one an earlier configure_plugin
        compiled for, or TensorRT's current one."""
        low, high = [_ints(d.min) for d in inp], [_ints(d.max) for d in inp]
        types = _FLOAT_TYPES[inp[0].desc.type], _INDEX_TYPES[inp[2].desc.type]
        sizes = self._check(low, high, types)
        arch = self.code.arch if self.code is not None else kernels.current_arch()
        return sizes, types, arch

    def get_capability_interface(self, type: trt.PluginCapabilityType) -> Any:
        return self

    def clone(self) -> ScatterAddPlugin:
        twin = ScatterAddPlugin(self.aliased, self.kernel, self.code)  # its C++-side properties set
        twin.__dict__.update(self.__dict__)  # and configured as this one is (types, kernel, shapes)
        return twin

    def get_aliased_input(self, output_index: int) -> int:
        return 0 if self.aliased and output_index == 0 else -1

    def get_output_data_types(self, input_types: list[trt.DataType]) -> list[trt.DataType]:
        if input_types[0] in _FLOAT_TYPES and input_types[2] in _INDEX_TYPES:
            self._types = _FLOAT_TYPES[input_types[0]], _INDEX_TYPES[input_types[2]]
        return [input_types[0], _COUNTS_TYPE]

    def get_output_shapes(self, inputs: list[trt.DimsExprs], shape_inputs: list[trt.DimsExprs],
                          expr_builder: trt.IExprBuilder) -> list[trt.DimsExprs]:
        return [inputs[0], trt.DimsExprs([inputs[0][0], expr_builder.constant(1)])]

    def supports_format_combination(self, pos: int, in_out: list[trt.DynamicPluginTensorDesc],
                                    num_inputs: int) -> bool:
        # From in_out[0..pos] alone (later ones are not set yet): src and output 0 take X's type.
        desc, x = in_out[pos].desc, in_out[0].desc.type
        types = (_FLOAT_TYPES, {x}, _INDEX_TYPES, {x}, {_COUNTS_TYPE})[pos]
        linear = desc.format == trt.TensorFormat.LINEAR
        return linear and num_inputs == len(_INPUTS) and desc.type in types

    @_remembered
    def configure_plugin(self, inp: list[trt.DynamicPluginTensorDesc],
                         out: list[trt.DynamicPluginTensorDesc]) -> None:
        # The kernel, compiled for the build GPU once per process and type pair (compile refuses
        # a type pair that GPU cannot run), is loaded now in case TensorRT times the plugin. The
        # engine stores the workspace TensorRT allocates (get_workspace_size's), so that
        # on_shape_change refuses a shape that needs more, whatever code runs the engine.
        sizes, (float_type, index_type), arch = self._profile(inp)
        code = self._module.compile(float_type=float_type, index_type=index_type, arch=arch)
        stamp = self._module.fingerprint(float_type=float_type, index_type=index_type)
        if code.fingerprint != stamp:  # the creator checks engines by it
            raise ValueError(f"{PLUGIN_NAME}: the {self.kernel} kernel's Code.fingerprint is not "
                             f"its fingerprint(): no engine of it could load")
        self.workspace = self._workspace(sizes, (float_type, index_type), arch)
        self.code = code
        self._launcher = self._module.load(code)

    @_remembered
    def get_workspace_size(self, inp: list[trt.DynamicPluginTensorDesc],
                           out: list[trt.DynamicPluginTensorDesc]) -> int:
        # The most the kernel uses for any shape of the profile on this GPU. A refusal here would
        # become 0 in the bindings: configure_plugin checks the same first, and fails the build.
        sizes, types, arch = self._profile(inp)
        return self._workspace(sizes, types, arch)

    def set_tactic(self, tactic: int) -> None:
        pass

    @_remembered
    def on_shape_change(self, inp: list[trt.PluginTensorDesc],
                        out: list[trt.PluginTensorDesc]) -> None:
        self._shapes = None  # a refused shape leaves nothing that enqueue could launch
        shapes = [_ints(d.dims) for d in inp]
        if self._launcher is None or self.code is None:  # nothing is compiled or loaded here
            raise RuntimeError(f"{PLUGIN_NAME}: no kernel loaded (neither configure_plugin nor an "
                               f"engine's fields)")
        types = _FLOAT_TYPES[inp[0].type], _INDEX_TYPES[inp[2].type]
        built = self.code.float_type, self.code.index_type
        if types != built:  # the kernel's loads fit its own types' buffers only
            raise ValueError(f"{PLUGIN_NAME}: the kernel was built for {built[0]} and {built[1]}, "
                             f"the inputs are {types[0]} and {types[1]}")
        sizes = self._check(shapes, shapes, types)
        need = self._workspace(sizes, types, self.code.arch)
        # An engine built by other code, or never configured: refused here, before any enqueue.
        if need > self.workspace:
            raise ValueError(f"{PLUGIN_NAME}: the engine's workspace holds {self.workspace} bytes, "
                             f"these shapes need {need}: rebuild the engine")
        self._shapes = shapes

    @_remembered
    def enqueue(self, input_desc: list[trt.PluginTensorDesc],
                output_desc: list[trt.PluginTensorDesc], inputs: list[int], outputs: list[int],
                workspace: int, stream: int) -> None:
        shapes = [_ints(d.dims) for d in input_desc]
        if self._launcher is None or shapes != self._shapes:
            raise RuntimeError(f"{PLUGIN_NAME}: enqueue without shapes accepted by on_shape_change "
                               f"(got {shapes}, accepted {self._shapes})")
        (n_nodes, n_feat), _, (n_edges,) = shapes
        x, dst = inputs[0], outputs[0]
        size = n_nodes * n_feat * input_desc[0].type.itemsize
        # TensorRT "may insert copies" (get_aliased_input's documentation): where output 0 got a
        # buffer of its own, it must hold X before the kernel adds into it. The copy is ordered
        # before the launch on TensorRT's stream, and allocates and waits for nothing.
        if x != dst and size:
            (copied,) = driver.cuMemcpyAsync(dst, x, size, stream)
            if copied != driver.CUresult.CUDA_SUCCESS:
                raise RuntimeError(f"{PLUGIN_NAME}: copying X into output 0 failed: {copied.name}")
        self._launcher.launch(dst=dst, src=inputs[1], idx=inputs[2], counts=outputs[1],
                              n_nodes=n_nodes, n_feat=n_feat, n_edges=n_edges,
                              workspace=workspace, workspace_size=self.workspace, stream=stream)

    def attach_to_context(self, resource_context: trt.IPluginResourceContext) -> ScatterAddPlugin:
        return self.clone()  # one instance per execution context

    @_remembered
    def get_fields_to_serialize(self) -> trt.PluginFieldCollection:
        # An engine needs the kernel. Never configured, the plugin knows no profile: its workspace
        # stays 0, and launch() refuses every shape that needs one.
        if self.code is None and self._types is not None:
            float_type, index_type = self._types
            self.code = self._module.compile(float_type=float_type, index_type=index_type,
                                             arch=kernels.current_arch())
        self._fields = {"aliased": np.array([int(self.aliased)], dtype=np.int32),
                        "kernel": _as_bytes(self.kernel)}
        if self.code is not None:
            c = self.code
            self._fields.update(types=_as_bytes(f"{c.float_type} {c.index_type}"),
                                arch=_as_bytes(c.arch), cubin=_as_bytes(c.cubin),
                                fingerprint=_as_bytes(c.fingerprint),
                                workspace=np.array([self.workspace], dtype=np.int64))
        return _field_collection(self._fields)


class ScatterAddPluginCreator(trt.IPluginCreatorV3One):
    """Makes the plugin from a network's fields (``aliased``, ``kernel``) or an engine's."""

    def __init__(self) -> None:
        trt.IPluginCreatorV3One.__init__(self)
        self.name, self.plugin_version, self.plugin_namespace = IDENTITY
        self._declared = {"aliased": np.array([1], dtype=np.int32),
                          "kernel": _as_bytes(kernels.DEFAULT)}
        self.field_names = _field_collection(self._declared)  # pyright: ignore

    @_remembered
    def create_plugin(self, name: str, field_collection: trt.PluginFieldCollection_,
                      phase: trt.TensorRTPhase) -> ScatterAddPlugin:
        given = [field.name for field in field_collection]
        values = {field.name: np.asarray(field.data) for field in field_collection}
        building = phase == trt.TensorRTPhase.BUILD
        if building:
            values.setdefault("kernel", _as_bytes(kernels.DEFAULT))
        wanted = _BUILD_FIELDS if building else _ENGINE_FIELDS
        if len(set(given)) != len(given) or sorted(values) != sorted(wanted):
            why = "an engine of another plugin or version?"
            if given and set(given) <= set(_BUILD_FIELDS):
                why = "an engine without its kernel"
            raise ValueError(f"{PLUGIN_NAME} {PLUGIN_VERSION}: expected the fields "
                             f"{', '.join(wanted)}; got {', '.join(given) or 'none'} ({why})")
        aliased = values["aliased"].reshape(-1)
        if aliased.dtype != np.int32 or aliased.tolist() not in ([0], [1]):
            raise ValueError(f"{PLUGIN_NAME} {PLUGIN_VERSION}: the field aliased "
                             f"{aliased.tolist()} is not one INT32, 0 or 1")
        kernel = _text(values["kernel"])
        if building:
            return ScatterAddPlugin(bool(aliased[0]), kernel)
        types = _text(values["types"]).split()
        if len(types) != 2 or types[0] not in kernels.FLOATS or types[1] not in kernels.INDICES:
            raise ValueError(f"{PLUGIN_NAME} {PLUGIN_VERSION}: the engine's kernel types {types} "
                             f"are not ours")
        workspace = values["workspace"].reshape(-1)
        if workspace.dtype != np.int64 or workspace.size != 1 or workspace[0] < 0:
            raise ValueError(f"{PLUGIN_NAME} {PLUGIN_VERSION}: the engine's workspace "
                             f"{workspace.tolist()} is not a number of bytes")
        arch = _text(values["arch"])
        if not arch.startswith("sm_") or not arch[3:].isdecimal():  # else int() would meet it
            raise ValueError(f"{PLUGIN_NAME} {PLUGIN_VERSION}: the engine's arch {arch!r} is not "
                             f"sm_XY")
        module = _chosen(kernel)
        stored = _text(values["fingerprint"])
        ours = module.fingerprint(float_type=types[0], index_type=types[1])
        if stored != ours:  # an old cubin would misread today's arguments or workspace, silently
            raise ValueError(f"{PLUGIN_NAME}: the engine's {kernel} kernel was built by another "
                             f"version of this code (fingerprint {stored}, this code's {ours}): "
                             f"rebuild the engine")
        code = kernels.Code(kernel, types[0], types[1], arch, values["cubin"].tobytes(), stored)
        plugin = ScatterAddPlugin(bool(aliased[0]), kernel, code, int(workspace[0]))
        plugin._launcher = module.load(code)  # in TensorRT's context, before any enqueue
        return plugin


def register() -> trt.IPluginCreatorV3One:
    """Register the creator once per process, or return the one this class (from any import of
    this module) registered; another under our identity is refused. ``get_creator`` would log an
    error where none is yet."""
    registry = trt.get_plugin_registry()
    names = ("name", "plugin_version", "plugin_namespace")  # V2 and V3 creators alike have them
    for existing in registry.all_creators:
        if tuple(getattr(existing, key, None) for key in names) != IDENTITY:
            continue
        kind, mine = type(existing), ("ScatterAddPluginCreator", __name__.rpartition(".")[2])
        if (kind.__qualname__, kind.__module__.rpartition(".")[2]) != mine:
            raise RuntimeError(f"{PLUGIN_NAMESPACE}::{PLUGIN_NAME} {PLUGIN_VERSION} is already "
                               f"registered by another creator ({kind.__module__}."
                               f"{kind.__qualname__})")
        return existing
    creator = ScatterAddPluginCreator()
    if not registry.register_creator(creator, PLUGIN_NAMESPACE):
        raise RuntimeError(f"TensorRT refused to register the {PLUGIN_NAME} creator")
    return creator
