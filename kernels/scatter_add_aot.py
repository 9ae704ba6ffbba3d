# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The QDP route's kernel: PTX for TensorRT's ahead-of-time plugin, and the same launch outside it.

No ``tensorrt`` import: everything here is executed by the tests (PTX on CPU, launches on the
GPU). ``scatter_add_qdp.py`` hands what this module computes to ``tensorrt.plugin``. It shares the
CUDA plumbing (``cuda_calls.py``) and the fast kernel's core, options and plan with the
class-based plugin's fast kernel.

What TensorRT does with an ``aot_impl`` (``tensorrt/plugin/_plugin_class.py``,
``_TemplateAOTPlugin.get_launch_params`` and ``get_kernel``, TensorRT 11.4 bindings wheel): it
stores ONE kernel, as a name and PTX, in the engine; it evaluates the grid, block and shared
memory as symbolic int32 expressions of the input shapes at run time; it passes the kernel's
arguments as the input tensors, then the extra int32 scalars, then the output tensors. There is
no workspace and no second launch, so the entry point, in ``scatter_add_aot.cu``, runs the
plugin's kernel core (``scatter_add.cu``, which it includes) with every run added
atomically, the runs that cross spans too, instead of meeting in a workspace.

The sizes come from ``plan.py``, whose span and grid rules are written for ints (tests,
:meth:`AotKernel.launch`) and for ``tensorrt.plugin`` expressions (``smaller``/``larger``: ``min``
and ``max``, or ``trtp.min`` and ``trtp.max``) alike. F must be a number at build time: it picks
the tile.

The contract is in two halves. :func:`refusal` is what ``scatter_add_qdp.py`` refuses at build
time from what TensorDescs show (ranks, types, the sizes that are numbers); src's rows and counts'
rows are usually symbolic there, so they travel as scalars and the kernel compares them with E and
N at run time, marking the outputs (NaN, -1) instead of reading past a buffer.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import cuda_calls as cuda
from . import plan
from . import scatter_add as fast
from .plan import Pick

AOT_SOURCE = Path(__file__).with_name("scatter_add_aot.cu")
# The entry's int32 scalars, in the order of scalars() and of scatter_add_aot.cu's parameters.
SCALAR_NAMES = ("n_edges", "n_nodes", "n_feat", "src_rows", "counts_rows", "columns", "lanes",
                "passes", "span")
# TensorRT's order: inputs (x, src, idx, counts_in), the int32 scalars, outputs (dst, counts).
_ARGS = (cuda.P,) * 4 + (cuda.I,) * len(SCALAR_NAMES) + (cuda.P,) * 2

INPUTS = ("X", "src", "idx", "counts")
_RANKS = (2, 2, 1, 1)
Dims = tuple[int | None, ...]  # an input's dimensions: None where symbolic at build time


class PtxTooNew(cuda.KernelError):
    """The NVRTC here writes PTX newer than the driver can load."""


KERNEL_NAME = "scatter_add_aot"  # the one extern "C" entry point in each variant's PTX


def virtual_arch(arch: str) -> str:
    """``sm_90`` -> ``compute_90``: PTX targets a virtual architecture, which the driver
    JIT-compiles."""
    if not arch.startswith("sm_"):
        raise ValueError(f"expected an architecture like sm_90, got {arch!r}")
    return "compute_" + arch.removeprefix("sm_")


@functools.lru_cache(maxsize=None)
def ptx(float_type: str, index_type: str, arch: str) -> bytes:
    """PTX holding only the ``scatter_add_aot`` entry for this type pair, for ``arch`` (e.g.
    ``"sm_90"``)."""
    options = [*fast.defines(float_type, index_type), f"-I{AOT_SOURCE.parent}", "-DSCATTER_AOT"]
    return cuda.nvrtc_compile(AOT_SOURCE, virtual_arch(arch), options)


def refusal(types: Sequence[str], dims: Sequence[Dims], sized: bool = True) -> str | None:
    """Why the kernel cannot take these inputs, in one line naming them, or None. Per input (X, src,
    idx, counts): ``types``, plan.py's names (any other string is refused); ``dims``, None where
    symbolic. ``sized``: False where only ranks and types are known (TensorRT's first call of
    ``describe`` gives fake shapes)."""
    problem = _problem(types, dims, sized)
    if problem is None:
        return None
    got = (f"{name} [{', '.join('?' if d is None else str(d) for d in shape)}] {kind}"
           for name, shape, kind in zip(INPUTS, dims, types, strict=True))
    return f"{problem}; got {', '.join(got)}"


def _problem(types: Sequence[str], dims: Sequence[Dims], sized: bool) -> str | None:
    if tuple(len(d) for d in dims) != _RANKS:
        return "expected X [N, F], src [E, F], idx [E], counts [N]"
    x, src, idx, counts = types
    if x not in plan.FLOATS or src != x or idx not in plan.INDICES or counts != "int32":
        return ("expected X and src of one type (fp32, fp16 or bf16), idx int32 or int64, counts "
                "int32")
    if not sized:
        return None
    (n, f), (src_rows, src_feat), (e,), (counts_rows,) = dims
    # The kernel reads src with X's F and never sees src's: compare them here.
    if f is None or src_feat is None:
        return "F must be a number at build time, in X and in src: it picks the tile"
    if src_feat != f:
        return "src must have X's F columns"
    # Symbolic rows cannot be compared here: the kernel compares src's and counts' rows at run time.
    if src_rows is not None and e is not None and src_rows != e:
        return "src must have a row per entry of idx"
    if counts_rows is not None and n is not None and counts_rows != n:
        return "counts must have a row per row of X"
    return plan.size_problem(n or 0, e or 0, f, x)


def scalars(n_edges: Any, n_nodes: Any, n_feat: int, src_rows: Any, counts_rows: Any,
            float_type: str, smaller: Pick = min, larger: Pick = max) -> tuple[Any, ...]:
    """The extra int32 scalars in the entry's order (SCALAR_NAMES): E (idx's entries), N and F
    (X's), the rows src and counts really have (for the kernel to compare with E and N), the tile
    (columns, lanes, passes), the span length."""
    elem = plan.FLOATS[float_type][1]
    t = plan.tile(n_feat, elem)
    span = plan.span_length(n_edges, t, elem, n_feat, smaller, larger)
    return (n_edges, n_nodes, n_feat, src_rows, counts_rows, t.columns, t.lanes, t.passes, span)


def grid_blocks(n_edges: Any, span: Any, fit: int, smaller: Pick = min, larger: Pick = max) -> Any:
    """Blocks to launch: the plugin's main grid for these spans (at least one, even for E = 0)."""
    return plan.main_blocks(plan.ceil_div(n_edges, span), fit, smaller, larger)


def nvrtc_version() -> tuple[int, int]:
    import cuda.bindings.nvrtc as nvrtc

    major, minor = cuda.check(nvrtc.nvrtcVersion(), "nvrtcVersion")
    return int(major), int(minor)


def check_driver_takes_ptx() -> None:
    """PTX from an NVRTC newer than the driver cannot be JIT-compiled by it (CUDA's minor-version
    compatibility covers cubins, not PTX): say so now rather than when the engine runs."""
    cuda.check(cuda.driver.cuInit(0), "cuInit")
    driver_version = int(cuda.check(cuda.driver.cuDriverGetVersion(), "cuDriverGetVersion"))
    major, minor = nvrtc_version()
    if major * 1000 + minor * 10 > driver_version:
        have = f"{driver_version // 1000}.{driver_version % 1000 // 10}"
        raise PtxTooNew(f"NVRTC {major}.{minor} writes PTX that this driver (CUDA {have}) cannot "
                        f"load: install nvidia-cuda-nvrtc {have}.*, or a newer driver")


@dataclass(frozen=True)
class AotKernel:
    """One variant's PTX loaded into the current context, as TensorRT loads the engine's PTX."""

    function: Any
    float_type: str
    fit: int

    def launch(self, *, x: int, src: int, idx: int, counts_in: int, n_edges: int, n_nodes: int,
               n_feat: int, dst: int, counts: int, stream: int, src_rows: int | None = None,
               counts_rows: int | None = None) -> None:
        """One launch with TensorRT's argument order and grid. ``dst`` must be ``x`` and
        ``counts`` must be ``counts_in``, zeroed (the aliasing the QDP declares). ``src_rows`` and
        ``counts_rows``: the rows those buffers have, E and N unless given; they are not checked
        here, as TensorRT does not check them: the kernel refuses a mismatch (NaN in dst, -1 in
        counts)."""
        problem = plan.size_problem(n_nodes, n_edges, n_feat, self.float_type)
        if problem:
            raise ValueError(f"the --aot route: {problem}")
        src_rows = n_edges if src_rows is None else src_rows
        counts_rows = n_nodes if counts_rows is None else counts_rows
        values = scalars(n_edges, n_nodes, n_feat, src_rows, counts_rows, self.float_type)
        blocks = grid_blocks(n_edges, values[-1], self.fit)
        params = cuda.packed((x, src, idx, counts_in, *values, dst, counts), _ARGS)
        cuda.launch(self.function, blocks, plan.BLOCK, params, stream)


def load(float_type: str, index_type: str) -> AotKernel:
    """The variant for the current GPU, from its PTX (the driver compiles it, as in TensorRT)."""
    check_driver_takes_ptx()
    _, device = cuda.current_device()
    code = ptx(float_type, index_type, cuda.device_arch(device))
    (function,), _ = cuda.load(code + b"\0", (KERNEL_NAME,))
    return AotKernel(function, float_type, fast.blocks_that_fit(device, function))
