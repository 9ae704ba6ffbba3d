# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The scatter-add as a quickly deployable plugin (QDP) with an ahead-of-time (AOT) kernel.

Importing this module registers ``aliased_io_sample::scatter_add`` with ``tensorrt.plugin``
(TensorRT >= 10.9). An engine built with it stores the kernel's PTX and runs without Python
(``trtexec --loadEngine``, C++), unlike the class-based plugin in ``scatter_add_plugin.py``.

Inputs:  0 ``x [N, F]`` (fp32/fp16/bf16), 1 ``src [E, F]`` (same type), 2 ``idx [E]``
         (int32/int64, 0-based destination rows), 3 ``counts [N]`` int32, ZEROS (the network
         makes them with a Fill layer: an AOT plugin has no way to clear a buffer itself).
Outputs: 0 ``x`` updated in place, aliased to input 0; 1 ``counts``, the in-degree, aliased to
         input 3. Needs ``PreviewFeature.ALIASED_PLUGIN_IO_10_03`` like the class-based plugin.

Everything TensorRT is given is computed in ``kernels/scatter_add_aot.py`` (no TensorRT import,
tested on CPU and GPU); this module only hands it over. The contract likewise: ``describe`` and
``aot_impl`` refuse, in one line naming the inputs, what their TensorDescs show the kernel cannot
take (``scatter_add_aot.refusal``: ranks, types, F, sizes that are numbers); the rows of src and
counts, symbolic at build time, go to the kernel as scalars, and it marks its outputs NaN and -1 on
a mismatch. pyright cannot check the ``trtp`` lines:
tensorrt-stubs has no ``tensorrt.plugin``, whose names are attached at import time
(``_export.public_api``). Each line follows the TensorRT 11.4 bindings wheel's
``tensorrt/plugin`` sources, cited below, and NVIDIA's ``quickly_deployable_plugins`` sample.
No ``from __future__ import annotations`` here: ``tensorrt.plugin`` inspects these annotations
as classes (``_validate._parse_register_inputs``, ``_validate_aot_impl``).
"""

from typing import List, Tuple, Union

import tensorrt as trt
import tensorrt.plugin as trtp  # pyright: ignore[reportMissingImports]  (see the module docstring)

from kernels import cuda_calls as cuda
from kernels import plan
from kernels import scatter_add as fast
from kernels import scatter_add_aot as aot

NAMESPACE, NAME = "aliased_io_sample", "scatter_add"
PLUGIN_ID = f"{NAMESPACE}::{NAME}"

# plan.py's names; a type not here is refused by name (scatter_add_aot.refusal).
_TYPES = {trt.float32: "fp32", trt.float16: "fp16", trt.bfloat16: "bf16", trt.int32: "int32",
          trt.int64: "int64"}


def _dims(desc: trtp.TensorDesc) -> aot.Dims:
    """Each dimension's number, None where it is symbolic or fake (ShapeExpr.is_fake,
    is_constant)."""
    return tuple(None if e.is_fake or not e.is_constant else e.constant_value()
                 for e in desc.shape_expr)


def _check(*inputs: trtp.TensorDesc) -> None:
    """Refuse what the inputs' TensorDescs show the kernel cannot take. TensorRT first calls
    describe with fake shapes (_plugin_class.get_output_data_types): then only ranks and types are
    known."""
    sized = not any(e.is_fake for desc in inputs for e in desc.shape_expr)
    types = [_TYPES.get(desc.dtype, str(desc.dtype)) for desc in inputs]
    problem = aot.refusal(types, [_dims(desc) for desc in inputs], sized)
    if problem:
        raise ValueError(f"{PLUGIN_ID}: {problem}")


# register: every argument annotated, TensorDescs first; the returned descs give the outputs, and
# an aliased() desc becomes get_aliased_input (_plugin_class.get_output_data_types).
@trtp.register(PLUGIN_ID)
def describe(x: trtp.TensorDesc, src: trtp.TensorDesc, idx: trtp.TensorDesc,
             counts: trtp.TensorDesc) -> Tuple[trtp.TensorDesc, trtp.TensorDesc]:
    _check(x, src, idx, counts)
    return x.aliased(), counts.aliased()


# The I/O types TensorRT may pick, as NVIDIA's AOT sample declares them: '|' ties positions
# together (x, src and output 0 share one float type), '*' leaves one free (idx).
@trtp.autotune(PLUGIN_ID)
def autotune(x: trtp.TensorDesc, src: trtp.TensorDesc, idx: trtp.TensorDesc,
             counts: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc, trtp.TensorDesc]
             ) -> List[trtp.AutoTuneCombination]:
    return [trtp.AutoTuneCombination(
        "FP32|FP16|BF16, FP32|FP16|BF16, INT32*INT64, INT32, FP32|FP16|BF16, INT32")]


# aot_impl: (inputs, outputs, tactic) -> (kernel name, PTX, launch parameters, extra int32
# scalars); TensorRT passes the kernel inputs, then the scalars, then outputs, and evaluates the
# symbolic grid at run time (_plugin_class._TemplateAOTPlugin.get_launch_params).
@trtp.aot_impl(PLUGIN_ID)
def aot_impl(x: trtp.TensorDesc, src: trtp.TensorDesc, idx: trtp.TensorDesc,
             counts: trtp.TensorDesc, outputs: Tuple[trtp.TensorDesc, trtp.TensorDesc], tactic: int
             ) -> Tuple[Union[str, bytes], Union[str, bytes], trtp.KernelLaunchParams,
                        trtp.SymIntExprs]:
    _check(x, src, idx, counts)  # the lines below rely on its types and on a fixed F
    float_type, index_type = _TYPES[x.dtype], _TYPES[idx.dtype]
    aot.check_driver_takes_ptx()
    _, device = cuda.current_device()  # the build GPU: its architecture and size
    f = x.shape_expr[1].constant_value()  # a number: _check refused a symbolic F
    n_edges = idx.shape_expr[0]
    # src's and counts' rows as the kernel gets them, for it to compare with E and N at run time.
    values = aot.scalars(n_edges, x.shape_expr[0], f, src.shape_expr[0], counts.shape_expr[0],
                         float_type, trtp.min, trtp.max)
    launch = trtp.KernelLaunchParams()
    fit = fast.blocks_that_fit(device)
    launch.grid_x = aot.grid_blocks(n_edges, values[-1], fit, trtp.min, trtp.max)
    launch.block_x = plan.BLOCK
    scalars = trtp.SymIntExprs.from_tuple([trtp.SymInt32(v) for v in values])
    code = aot.ptx(float_type, index_type, cuda.device_arch(device))
    return aot.KERNEL_NAME, code, launch, scalars


def add_layers(network: trt.INetworkDefinition, x: trt.ITensor, src: trt.ITensor,
               idx: trt.ITensor) -> Tuple[trt.ITensor, trt.ITensor]:
    """X + the sums [N, F] and the counts [N, 1] int32, as the class-based plugin's outputs. The
    AOT kernel cannot clear the counts (one launch, no workspace), so a Fill layer makes N int32
    zeros for the plugin's input 3, which its output 1 aliases. A 1-D LINSPACE fill may keep start
    and delta static; its shape input is N, sliced from shape(X) (IFillLayer, NvInfer.h)."""
    shape = network.add_shape(x).get_output(0)
    n = network.add_slice(shape, trt.Dims([0]), trt.Dims([1]), trt.Dims([1])).get_output(0)
    fill = network.add_fill(trt.Dims([0]), trt.FillOperation.LINSPACE, trt.int32)
    fill.set_input(0, n)
    fill.alpha = 0.0  # floats: the binding then sets the double values only
    fill.beta = 0.0
    plugin = add_to(network, x, src, idx, fill.get_output(0))
    column = network.add_shuffle(plugin.get_output(1))
    column.reshape_dims = trt.Dims([-1, 1])  # [N] -> [N, 1], like the class-based plugin's counts
    return plugin.get_output(0), column.get_output(0)


def add_to(network: trt.INetworkDefinition, x: trt.ITensor, src: trt.ITensor, idx: trt.ITensor,
           zero_counts: trt.ITensor) -> trt.ILayer:
    """The plugin layer, forced to its AOT implementation (STRICT_AOT: pyGraph.cpp
    add_plugin_func)."""
    layer = trtp.op.aliased_io_sample.scatter_add(x, src, idx, zero_counts)
    return network.add_plugin(layer, aot=True)
