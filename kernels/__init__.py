# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The interface between the plugin and its kernels: ``Kernel`` below is what a kernel provides,
``choose(name)`` imports one. The contract is the plugin's: X [N, F] and src [E, F] of one float
type, idx [E] of 0-based rows (others skipped), counts [N] int32 overwritten with the in-degree.
``launch`` adds into ``dst``, which holds X on entry: output 0, aliased to X, or, where TensorRT
gave output 0 a buffer of its own, that buffer after the plugin's enqueue copied X into it."""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Protocol, cast

FLOATS = ("fp32", "fp16", "bf16")
INDICES = ("int32", "int64")
# A kernel's name -> its module in this folder: to add yours, edit this dict. The plugin's `kernel`
# field holds the name in UTF-8 (the creator lists the field as UNKNOWN, bytes; CHAR is accepted
# too) and the engine stores it: every process that loads such an engine must have this entry.
KERNELS = {"fast": "scatter_add", "reference": "reference"}
DEFAULT = "fast"
Range = tuple[int, int]  # (lowest, highest): the profile's at build time, one shape's at run time


@dataclass(frozen=True)
class Code:
    """What an engine stores: the kernel ``kernel`` (its name in KERNELS, not its module's name: the
    creator looks the engine's kernel up there) compiled for ``arch`` (``"sm_XY"``). Its
    ``fingerprint`` must be the module's ``fingerprint(float_type=..., index_type=...)``, which the
    creator checks an engine against: configure_plugin refuses any other, whose engines would never
    load."""

    kernel: str
    float_type: str
    index_type: str
    arch: str
    cubin: bytes
    fingerprint: str


class Launcher(Protocol):
    """One launcher serves every clone of a plugin, across execution contexts and threads: it holds
    no mutable state."""

    def launch(self, *, dst: int, src: int, idx: int, counts: int, n_nodes: int, n_feat: int,
               n_edges: int, workspace: int, workspace_size: int, stream: int) -> None:
        """``dst[idx[e]] += src[e]`` and counts = the in-degree, on ``stream`` (pointers as ints).
        ``dst`` holds X on entry (the plugin made it so). Any of N, E and F may be 0 (a buffer of
        no bytes may come as 0, null): N = 0 has no row to add to or count, E = 0 zeroes the
        counts, F = 0 still counts. The ``workspace`` holds ``workspace_size`` bytes of any content
        (nothing clears it between calls), and is 0 where ``workspace_size`` is 0. It may be
        captured in a CUDA graph: no compile, load, allocation or sync. It refuses on the host,
        before it launches anything, a ``workspace_size`` smaller than it needs and a pointer less
        aligned than it needs (the fast kernel: dst, src and idx 16-byte aligned, as TensorRT's
        are, the workspace 32)."""
        ...


class Kernel(Protocol):
    """What your kernel must provide: a module of this folder, named in KERNELS, with these five
    functions, their arguments keyword-only and named as here. Types are FLOATS' and INDICES'
    names; ``arch`` is the GPU's ``"sm_XY"``. A rejection other than ``problem``'s raises an
    exception with a one-line message, which the plugin keeps for ``last_error()``. Your sources
    are your module's own: ``compile`` reads them and ``fingerprint`` covers them, under any names
    (neither this interface nor the plugin opens a ``.cu`` or expects one named after a module)."""

    def problem(self, *, float_type: str, index_type: str, nodes: Range, edges: Range,
                features: Range) -> str | None:
        """Why the kernel cannot take these inputs on any GPU, in one line, or None. It runs at
        build time before the GPU is asked anything, and on every shape change at run time: keep it
        cheap, and off the GPU. What one GPU cannot run is ``compile``'s to refuse."""
        ...

    def workspace_size(self, *, float_type: str, index_type: str, nodes: Range, edges: Range,
                       features: Range, arch: str) -> int:
        """The most workspace any shape in the ranges uses on that GPU, in bytes (TensorRT
        allocates it when it builds the engine, and the engine stores the size). The index type
        is there for a kernel that keeps a copy of idx, sorted say, in its workspace."""
        ...

    def compile(self, *, float_type: str, index_type: str, arch: str) -> Code:
        """The kernel for that GPU and type pair, at build time; the engine stores the Code. It
        raises a one-line error for a type pair that GPU cannot run. Each configure_plugin calls it,
        several times a build at TensorRT's will: cache it."""
        ...

    def fingerprint(self, *, float_type: str, index_type: str) -> str:
        """Changes whenever anything that decides the kernel's arguments or workspace does (its
        sources, options, sizes): the creator refuses an engine whose fingerprint is not the
        code's, so that a stored kernel never runs with a workspace it was not built for."""
        ...

    def load(self, code: Code) -> Launcher:
        """The stored kernel in the current CUDA context, without a compiler. Each configure_plugin
        calls it too: cache what it loads (cuda_calls.load does, once per context)."""
        ...


def choose(name: str) -> Kernel:
    """The kernel ``name`` (a key of KERNELS), imported now: a kernel never chosen needs no files
    here. An unknown name, or a missing file of this package, raises a one-line ValueError."""
    if name not in KERNELS:
        raise ValueError(f"no kernel named {name!r}: the kernels are {', '.join(KERNELS)}")
    for needed in (KERNELS[name], "cuda_calls"):  # the kernel, and the CUDA calls this package uses
        module = f"{__name__}.{needed}"
        if importlib.util.find_spec(module) is None:
            missing = module.replace(".", "/")
            raise ValueError(f"the kernel {name!r} is not here: {missing}.py is missing")
    return cast(Kernel, importlib.import_module(f"{__name__}.{KERNELS[name]}"))


def current_arch() -> str:
    """``sm_XY`` of the GPU of the current CUDA context (TensorRT's, while it builds)."""
    from .cuda_calls import current_device, device_arch

    return device_arch(current_device()[1])
