"""The QDP route's kernel: PTX for TensorRT's ahead-of-time plugin, and the same launch outside it.

No ``tensorrt`` import: everything here is executed by the tests (PTX on CPU, launches on the
GPU). ``qdp/plugin.py`` hands what this module computes to ``tensorrt.plugin``.

What TensorRT does with an ``aot_impl`` (``tensorrt/plugin/_plugin_class.py``,
``_TemplateAOTPlugin.get_launch_params`` and ``get_kernel``, TensorRT 11.4 bindings wheel): it
stores ONE kernel, as a name and PTX, in the engine; it evaluates the grid, block and shared
memory as symbolic int32 expressions of the input shapes at run time; it passes the kernel's
arguments as the input tensors, then the extra int32 scalars, then the output tensors. There is
no workspace and no second launch, so the entry point, in ``qdp/scatter_add_aot.cu``, runs the
plugin's kernel core (``kernels/scatter_add.cu``, given to NVRTC as a header) with every run added
atomically, the runs that cross spans too, instead of meeting in a workspace.

The sizes come from ``kernels/plan.py``, whose span and grid rules are written for ints (tests,
:meth:`AotKernel.launch`) and for ``tensorrt.plugin`` expressions (``smaller``/``larger``: ``min``
and ``max``, or ``trtp.min`` and ``trtp.max``) alike. F must be a number at build time: it picks
the tile.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cuda.bindings.driver as driver

from kernels import launcher as sak
from kernels import plan

AOT_SOURCE = Path(__file__).with_name("scatter_add_aot.cu")
_P, _I = ctypes.c_void_p, ctypes.c_int
# TensorRT's order: inputs (x, src, idx, counts_in), the int32 scalars (scalars()), outputs (dst, counts).
_ARGS = (_P,) * 4 + (_I,) * 8 + (_P,) * 2


class PtxTooNew(sak.KernelError):
    """The NVRTC here writes PTX newer than the driver can load."""


def kernel_name(float_type: str, index_type: str) -> str:
    """The one extern "C" entry point in a variant's PTX."""
    return plan.kernel_name(float_type, index_type).replace("scatter_add_", "scatter_add_aot_", 1)


def virtual_arch(arch: str) -> str:
    """``sm_90`` -> ``compute_90``: PTX targets a virtual architecture, which the driver JIT-compiles."""
    if not arch.startswith("sm_"):
        raise ValueError(f"expected an architecture like sm_90, got {arch!r}")
    return "compute_" + arch.removeprefix("sm_")


def compile_options(arch: str, include_dir: str, float_type: str, index_type: str) -> list[str]:
    """The plugin kernel's options for the virtual architecture, plus the one entry to emit."""
    return [*sak.compile_options(virtual_arch(arch), include_dir),
            f"-DSCATTER_AOT_NAME={kernel_name(float_type, index_type)}",
            f"-DSCATTER_AOT_T={plan.FLOATS[float_type][2]}", f"-DSCATTER_AOT_I={plan.INDICES[index_type][2]}"]


@functools.lru_cache(maxsize=None)
def ptx(float_type: str, index_type: str, arch: str) -> bytes:
    """PTX holding only :func:`kernel_name`'s entry, for ``arch`` (e.g. ``"sm_90"``)."""
    include_dir = sak.find_cuda_include_dir()
    options = compile_options(arch, include_dir, float_type, index_type)
    core = {sak.KERNEL_SOURCE.name: sak.KERNEL_SOURCE.read_text()}
    return sak.nvrtc_compile(AOT_SOURCE.read_text(), virtual_arch(arch), options, ptx=True, headers=core,
                             name=AOT_SOURCE.name).rstrip(b"\0")


def scalars(n_edges: Any, n_nodes: Any, n_feat: int, float_type: str, smaller: Callable[[Any, Any], Any] = min,
            larger: Callable[[Any, Any], Any] = max) -> tuple[Any, ...]:
    """The extra int32 scalars in the entry's order: E, N, F, the tile (columns, rows, lanes, passes), the
    span length."""
    t = plan.tile(n_feat, plan.FLOATS[float_type][1])
    return (n_edges, n_nodes, n_feat, t.columns, t.rows, t.lanes, t.passes,
            plan.span_length(n_edges, t, smaller, larger))


def grid_blocks(n_edges: Any, span: Any, fit: int, smaller: Callable[[Any, Any], Any] = min,
                larger: Callable[[Any, Any], Any] = max) -> Any:
    """Blocks to launch: the plugin's main grid for these spans (at least one, even for E = 0)."""
    return plan.main_blocks(plan.spans(n_edges, span), fit, smaller, larger)


def check_driver_takes_ptx() -> None:
    """PTX from an NVRTC newer than the driver cannot be JIT-compiled by it (CUDA's minor-version
    compatibility covers cubins, not PTX): say so now rather than when the engine runs."""
    sak.check(driver.cuInit(0), "cuInit")
    driver_version = int(sak.check(driver.cuDriverGetVersion(), "cuDriverGetVersion"))
    major, minor = sak.nvrtc_version()
    if major * 1000 + minor * 10 > driver_version:
        have = f"{driver_version // 1000}.{driver_version % 1000 // 10}"
        raise PtxTooNew(f"NVRTC {major}.{minor} writes PTX that this driver (CUDA {have}) cannot load: "
                        f"install nvidia-cuda-nvrtc {have}.*, or a newer driver")


@dataclass(frozen=True)
class AotKernel:
    """One variant's PTX loaded into the current context, as TensorRT loads the engine's PTX."""

    function: Any
    float_type: str
    fit: int

    def launch(self, *, x: int, src: int, idx: int, counts_in: int, n_edges: int, n_nodes: int, n_feat: int,
               dst: int, counts: int, stream: int) -> None:
        """One launch with TensorRT's argument order and grid. ``dst`` must be ``x`` and
        ``counts`` must be ``counts_in``, zeroed (the aliasing the QDP declares)."""
        problem = plan.size_problem(n_nodes, n_edges, n_feat, self.float_type)
        if problem:
            raise ValueError(f"the --aot route: {problem}")
        values = scalars(n_edges, n_nodes, n_feat, self.float_type)
        blocks = grid_blocks(n_edges, values[-1], self.fit)
        params = sak.packed((x, src, idx, counts_in, *values, dst, counts), _ARGS)
        sak.check(driver.cuLaunchKernel(self.function, blocks, 1, 1, plan.BLOCK, 1, 1, 0, stream, params.address, 0),
                  "cuLaunchKernel")


def load(float_type: str, index_type: str) -> AotKernel:
    """The variant for the current GPU, from its PTX (the driver compiles it, as in TensorRT)."""
    check_driver_takes_ptx()
    context, device = sak.current_context()
    return _load(int(context), device, float_type, index_type)


@functools.lru_cache(maxsize=None)
def _load(context: int, device: int, float_type: str, index_type: str) -> AotKernel:
    code = ptx(float_type, index_type, sak.device_arch(device))
    module = sak.check(driver.cuModuleLoadData(code + b"\0"), "cuModuleLoadData")
    function = sak.check(driver.cuModuleGetFunction(module, kernel_name(float_type, index_type).encode()),
                         "cuModuleGetFunction")
    return AotKernel(function, float_type, sak.blocks_that_fit(device))
