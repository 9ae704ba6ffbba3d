# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The door between the plugin and its kernels: ``Kernel`` below is what your kernel must provide,
``choose(name)`` imports one. The contract is the plugin's: X [N, F] and src [E, F] of one float
type, idx [E] of 0-based rows (others skipped), counts [N] int32 overwritten with the in-degree;
where TensorRT gives output 0 a buffer of its own (dst != x), X is copied into it first."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Protocol, cast

FLOATS = ("fp32", "fp16", "bf16")
INDICES = ("int32", "int64")
KERNELS = {"fast": "scatter_add", "reference": "reference"}  # name -> its module in this folder
DEFAULT = "fast"
Range = tuple[int, int]  # (lowest, highest): the profile's at build time, one shape's at run time


@dataclass(frozen=True)
class Code:
    """What an engine stores: the kernel ``kernel`` compiled for ``arch`` (``"sm_XY"``). Its
    ``fingerprint`` must be the module's ``fingerprint(float_type, index_type)``, which the creator
    checks an engine against: configure_plugin refuses any other, whose engines would never load."""

    kernel: str
    float_type: str
    index_type: str
    arch: str
    cubin: bytes
    fingerprint: str


class Launcher(Protocol):
    """One launcher serves every clone of a plugin, across execution contexts and threads: it holds
    no mutable state."""

    def launch(self, *, x: int, dst: int, src: int, idx: int, counts: int, n_nodes: int,
               n_feat: int, n_edges: int, workspace: int, workspace_size: int,
               stream: int) -> None:
        """The scatter-add on ``stream`` (pointers as ints). It may be captured in a CUDA graph: no
        compile, load, allocation or sync. Refuses a ``workspace_size`` smaller than it needs
        before it launches anything. TensorRT's buffers are 16-byte aligned at least (the fast
        kernel refuses less); ``workspace`` is 0 (null) where ``workspace_size`` is 0."""
        ...


class Kernel(Protocol):
    """What your kernel must provide: a module of this folder, named in KERNELS, with these five
    functions. Types are FLOATS' and INDICES' names; ``arch`` is the GPU's ``"sm_XY"``. A refusal
    other than ``problem``'s raises, in one line: the plugin keeps it for ``last_error()``."""

    def problem(self, float_type: str, index_type: str, nodes: Range, edges: Range,
                features: Range, arch: str) -> str | None:
        """Why the kernel cannot take these inputs on that GPU, in one line, or None. It runs at
        build time and on every shape change at run time (with the build's arch): keep it cheap,
        and off the GPU."""
        ...

    def workspace_size(self, float_type: str, nodes: Range, edges: Range, features: Range,
                       arch: str) -> int:
        """The most workspace any shape in the ranges uses on that GPU, in bytes (TensorRT
        allocates it when it builds the engine)."""
        ...

    def compile(self, arch: str, float_type: str, index_type: str) -> Code:
        """The kernel for that GPU and type pair, at build time; the engine stores the Code. Each
        configure_plugin calls it, several times a build at TensorRT's will: cache it."""
        ...

    def fingerprint(self, float_type: str, index_type: str) -> str:
        """Changes whenever anything that decides the kernel's arguments or workspace does (its
        sources, options, sizes): the creator refuses an engine whose fingerprint is not the
        code's, so that a stored kernel never runs with a workspace it was not built for."""
        ...

    def load(self, code: Code) -> Launcher:
        """The stored kernel in the current CUDA context, without a compiler. Each configure_plugin
        calls it too: cache what it loads (cuda_calls.load does, once per context)."""
        ...


def choose(name: str) -> Kernel:
    """The kernel ``name``, imported now: a kernel never chosen needs no files here."""
    if name not in KERNELS:
        raise ValueError(f"no kernel named {name!r}: the kernels are {', '.join(KERNELS)}")
    module = f"{__name__}.{KERNELS[name]}"
    try:
        return cast(Kernel, importlib.import_module(module))
    except ModuleNotFoundError as missing:
        if missing.name != module:  # a package the kernel needs: its own message names it
            raise
    raise ValueError(f"the kernel {name!r} is not here: {module.replace('.', '/')}.py is missing")


def current_arch() -> str:
    """``sm_XY`` of the GPU of the current CUDA context (TensorRT's, while it builds)."""
    from .cuda_calls import current_device, device_arch

    return device_arch(current_device()[1])
