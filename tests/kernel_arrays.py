# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The scatter-add kernels on CuPy arrays, for the tests: what the plugin's enqueue does, through the interface of
kernels/__init__.py (the fast kernel unless named), with the checks a caller of raw pointers has to make itself.
Not part of the sample."""

from __future__ import annotations

from typing import Any

import numpy as np

import kernels
from gnn import model as precisions


def float_type_of(dtype: Any) -> str:
    """The float type whose buffers have this NumPy/CuPy dtype (uint16 means bf16 bits)."""
    for precision in precisions.PRECISIONS.values():
        if np.dtype(precision.storage) == np.dtype(dtype):
            return precision.name
    raise ValueError(f"unsupported feature dtype {dtype}; use float32, float16 or uint16 (bf16 bits)")


def get_kernel(float_type: str, index_type: str, name: str = kernels.DEFAULT) -> Any:
    """The type pair's kernel ``name``, compiled for CuPy's current device (once per process) and loaded into its
    context, as the plugin does in configure_plugin."""
    import cupy as cp

    cp.cuda.runtime.free(0)  # CuPy's context is current from here on
    kernel = kernels.choose(name)
    return kernel.load(kernel.compile(float_type=float_type, index_type=index_type, arch=kernels.current_arch()))


def workspace_bytes(float_type: str, n_edges: int, n_feat: int, n_nodes: int, name: str = kernels.DEFAULT,
                    index_type: str = "int32") -> int:
    """The workspace for exactly these sizes on this GPU, as the plugin asks TensorRT for it."""
    return kernels.choose(name).workspace_size(float_type=float_type, index_type=index_type, nodes=(n_nodes, n_nodes),
                                               edges=(n_edges, n_edges), features=(n_feat, n_feat),
                                               arch=kernels.current_arch())


def scatter_add(x: Any, src: Any, idx: Any, counts: Any, stream: Any = None, out: Any = None,
                workspace: Any = None, kernel: str = kernels.DEFAULT) -> Any:
    """The kernel on CuPy arrays: ``out = x`` (default: x itself, in place) plus the scatter-add. Where ``out`` is
    not ``x``, X is copied into it first on the stream, as the plugin's enqueue does.

    x, out [N, F] and src [E, F]: float32, float16, or uint16 holding bf16 bits; idx [E] int32 or
    int64, 0-based, out-of-range entries skipped; counts [N] or [N, 1] int32, overwritten with the
    in-degree. stream: a ``cupy.cuda.Stream`` (default CuPy's current one). workspace: a uint8
    array of at least ``workspace_bytes(type, E, F, N)`` bytes to reuse (default: one from CuPy's pool). kernel:
    its name in kernels.KERNELS.
    Returns the array that holds the result.
    """
    import cupy as cp

    out = x if out is None else out
    n_nodes, n_feat = _check_arrays(x, src, idx, counts, out)
    stream = cp.cuda.get_current_stream() if stream is None else stream
    float_type = float_type_of(x.dtype)
    index_type = "int32" if idx.dtype == np.int32 else "int64"
    n_edges = int(idx.shape[0])
    needed = workspace_bytes(float_type, n_edges, n_feat, n_nodes, kernel, index_type)
    with cp.cuda.Device(x.device.id), stream:
        if workspace is None:
            workspace = cp.empty(needed, dtype=np.uint8)
        elif workspace.nbytes < needed or workspace.data.ptr % 256:
            raise ValueError(f"workspace must hold {needed} bytes, 256-byte aligned")
        launcher = get_kernel(float_type, index_type, kernel)
        if out.data.ptr != x.data.ptr:
            out[...] = x  # on the stream, before the launch: launch() adds into a dst that holds X
        launcher.launch(dst=out.data.ptr, src=src.data.ptr, idx=idx.data.ptr, counts=counts.data.ptr, n_nodes=n_nodes,
                        n_feat=n_feat, n_edges=n_edges, workspace=workspace.data.ptr, workspace_size=workspace.nbytes,
                        stream=stream.ptr)
    return out


def _check_arrays(x: Any, src: Any, idx: Any, counts: Any, out: Any) -> tuple[int, int]:
    """Shapes, dtypes, contiguity and alignment that the kernel relies on."""
    if x.ndim != 2 or src.ndim != 2 or idx.ndim != 1:
        raise ValueError("expected x [N, F], src [E, F] and idx [E]")
    n_nodes, n_feat = x.shape
    if src.shape[1] != n_feat or src.shape[0] != idx.shape[0]:
        raise ValueError(f"src {src.shape} does not match x {x.shape} and idx {idx.shape}")
    if out.shape != x.shape or out.dtype != x.dtype or src.dtype != x.dtype:
        raise ValueError("x, src and out must share one dtype, and out must have x's shape")
    if idx.dtype not in (np.int32, np.int64) or counts.dtype != np.int32 or counts.size != n_nodes:
        raise ValueError("idx must be int32/int64 and counts int32 with N elements")
    for name, a in (("x", x), ("src", src), ("idx", idx), ("counts", counts), ("out", out)):
        if not a.flags.c_contiguous or a.data.ptr % 16:
            raise ValueError(f"{name} must be C-contiguous and 16-byte aligned")
    return int(n_nodes), int(n_feat)
