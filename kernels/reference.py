# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The reference kernel, ``reference.cu``, behind the interface of kernels/__init__.py: a thread and
an atomic per value. Read it first; put your own kernel beside it."""

from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import Code, Range
from . import cuda_calls as cuda

SOURCE = Path(__file__).with_name("reference.cu")
ARG_TYPES = (cuda.P,) * 4 + (cuda.LL,) * 3  # dst, src, idx, counts; n_nodes, n_edges, n_feat
TYPES = {"fp32": "float", "fp16": "__half", "bf16": "__nv_bfloat16", "int32": "int",
         "int64": "long long"}


def problem(*, float_type: str, index_type: str, nodes: Range, edges: Range,
            features: Range) -> str | None:
    # N and F of any size (64-bit); E within int32, the counts' type, as a row may get every edge.
    if edges[1] > 2**31 - 1:
        return f"E = {edges[1]} is past the reference kernel's limit of {2**31 - 1} (int32 counts)"
    return None


def workspace_size(*, float_type: str, index_type: str, nodes: Range, edges: Range,
                   features: Range, arch: str) -> int:
    return 0


def fingerprint(*, float_type: str, index_type: str) -> str:
    # This file too: it decides the arguments (a copy of it, edited as a template, must not match).
    # The arguments by size, not by ctypes' class names, which differ between platforms.
    sources = [SOURCE, Path(__file__)]
    layout = [ctypes.sizeof(t) for t in ARG_TYPES]
    return cuda.fingerprint(sources, TYPES[float_type], TYPES[index_type], layout)


# Each configure_plugin calls it (several times a build, at TensorRT's will): NVRTC runs once.
@functools.lru_cache(maxsize=None)
def compile(*, float_type: str, index_type: str, arch: str) -> Code:
    # bf16 from sm_80, as TensorRT's (before it, its atomics are untested loops).
    if float_type == "bf16" and cuda.arch_number(arch) < 80:
        raise cuda.KernelError(f"the reference kernel takes bf16 from sm_80 on, not on {arch}")
    options = [f"-DSCATTER_T={TYPES[float_type]}", f"-DSCATTER_I={TYPES[index_type]}"]
    cubin = cuda.nvrtc_compile(SOURCE, arch, options)
    stamp = fingerprint(float_type=float_type, index_type=index_type)
    return Code("reference", float_type, index_type, arch, cubin, stamp)


def load(code: Code) -> ReferenceKernel:
    (function,), _ = cuda.load(code.cubin, ("scatter_add_reference",), code.arch)
    return ReferenceKernel(function)


@dataclass(frozen=True)
class ReferenceKernel:
    function: Any

    def launch(self, *, dst: int, src: int, idx: int, counts: int, n_nodes: int, n_feat: int,
               n_edges: int, workspace: int, workspace_size: int, stream: int) -> None:
        if n_nodes == 0:
            return  # no row to add to or count
        cuda.check(cuda.driver.cuMemsetD32Async(counts, 0, n_nodes, stream), "cuMemsetD32Async")
        threads = n_edges * max(n_feat, 1)  # at F = 0, a thread per edge still counts it
        if threads:
            args = cuda.packed((dst, src, idx, counts, n_nodes, n_edges, n_feat), ARG_TYPES)
            blocks = min((threads + 255) // 256, 1 << 16)  # of 256 threads, which stride past them
            cuda.launch(self.function, blocks, 256, args, stream)
