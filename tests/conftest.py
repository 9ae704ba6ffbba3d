"""Markers and skips: GPU tests need a usable CUDA device, TensorRT tests a real TensorRT."""

from __future__ import annotations

import functools
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the sample is a set of top-level modules, not a package
    sys.path.insert(0, str(ROOT))


@functools.lru_cache(maxsize=None)
def gpu_skip_reason() -> str | None:
    try:
        import cupy as cp

        if cp.cuda.runtime.getDeviceCount() < 1:
            return "no CUDA GPU"
    except ImportError:
        return "CuPy is not installed"
    except Exception as error:  # CUDARuntimeError without a driver or device
        return f"no usable CUDA GPU ({type(error).__name__})"
    return None


@functools.lru_cache(maxsize=None)
def trt_skip_reason() -> str | None:
    # Probed once, before any test can touch sys.modules, and only the real library counts:
    # a `tensorrt` without __version__ is a namespace package such as tensorrt-stubs.
    try:
        trt = importlib.import_module("tensorrt")
    except ImportError:
        return "TensorRT is not installed (pip install -r requirements.txt on a GPU machine)"
    if getattr(trt, "__version__", None) is None:
        return "only a `tensorrt` namespace package is importable (stubs), not TensorRT"
    return gpu_skip_reason()


def pytest_configure(config: pytest.Config) -> None:
    trt_skip_reason()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "trt" in item.keywords and trt_skip_reason():
            item.add_marker(pytest.mark.skip(reason=f"TensorRT test: {trt_skip_reason()}"))
        elif "gpu" in item.keywords and gpu_skip_reason():
            item.add_marker(pytest.mark.skip(reason=f"GPU test: {gpu_skip_reason()}"))
