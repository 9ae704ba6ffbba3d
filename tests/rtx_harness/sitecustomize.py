# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The TensorRT-RTX test harness's Python side (tests only; tests/rtx_harness/README.md says why).

with_rtx.sh puts this file's copy first on PYTHONPATH, so every Python process it starts runs it
at start-up. When shim.c is preloaded and ``RTX_HARNESS=1``, the first import of TensorRT-RTX's
bindings wraps the three calls that check the GPU against TensorRT-RTX's list (creating a
builder, building an engine, deserializing one) so that the shim shows compute capability 8.9
during them and the real GPU at every other moment. A process that never imports TensorRT-RTX
is not touched; without the shim or the variable, nothing is done at all.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

BINDINGS = "tensorrt_rtx_bindings"  # where TensorRT-RTX's classes live; `tensorrt_rtx` re-exports them
CHECKS_THE_GPU = (("Builder", "__init__"), ("Builder", "build_serialized_network"),
                  ("Builder", "build_serialized_network_to_stream"), ("Runtime", "deserialize_cuda_engine"))


def pretending(method: Callable[..., Any], pretend: Callable[[int], None]) -> Callable[..., Any]:
    """``method`` with the shim's pretence on for exactly the length of the call."""

    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        pretend(1)
        try:
            return method(*args, **kwargs)
        finally:
            pretend(0)

    return call


def wrap_gpu_checks(bindings: ModuleType, pretend: Callable[[int], None]) -> None:
    for class_name, method_name in CHECKS_THE_GPU:
        cls = getattr(bindings, class_name, None)
        if cls is not None and hasattr(cls, method_name):
            setattr(cls, method_name, pretending(getattr(cls, method_name), pretend))


class WrapOnImport(importlib.abc.MetaPathFinder):
    """Finds the bindings as Python would, and wraps their GPU checks once they have loaded."""

    def __init__(self, pretend: Callable[[int], None]) -> None:
        self.pretend = pretend

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> Any:
        if name != BINDINGS:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def load_and_wrap(module: ModuleType) -> None:
            load(module)
            wrap_gpu_checks(module, self.pretend)

        spec.loader.exec_module = load_and_wrap  # type: ignore[method-assign]
        return spec


def install() -> None:
    if os.environ.get("RTX_HARNESS") != "1":
        return
    try:
        pretend = ctypes.CDLL(None).rtx_harness_pretend  # defined only where shim.c is preloaded
    except AttributeError:
        return
    sys.meta_path.insert(0, WrapOnImport(pretend))


install()
