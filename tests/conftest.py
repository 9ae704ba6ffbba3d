# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Markers and skips: GPU tests need a usable CUDA device, TensorRT tests a real TensorRT,
TensorRT-RTX tests the ``tensorrt-rtx-cu13`` package (plus, with ``gpu``, a GPU it will run on:
on an H100 or H200, through tests/rtx_harness/), and lean tests TensorRT 11.4's lean runtime
(``tensorrt-lean-cu13-bindings``). In CI (``CI`` set) the CPU tests of both runtimes that
requirements/dev.txt installs fail instead of skipping."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from skip_summary import pytest_terminal_summary  # noqa: F401 - the hook: skips grouped by marker

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the sample's modules and packages import from the root
    sys.path.insert(0, str(ROOT))

# Product modules that import `tensorrt` when they are imported: reloaded on TensorRT-RTX. The
# script imports it only inside the functions that call it, so it need not be.
TENSORRT_MODULES = ("scatter_add_plugin",)
# What a copy of the checkout leaves out: environments, caches, the TensorRT-RTX bundle (.rtx).
NOT_COPIED = (".venv", ".typings", ".git", "__pycache__", ".*cache", ".rtx", ".dev")


def copy_of_checkout(destination: Path, *also_left_out: str) -> Path:
    shutil.copytree(ROOT, destination, ignore=shutil.ignore_patterns(*NOT_COPIED, *also_left_out))
    return destination


def importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


@functools.lru_cache(maxsize=None)
def base_packages_missing() -> str | None:
    """The start of the line the CLI stops with when a package of requirements/base.txt is missing
    (exit 3, before the GPU and the kernel), or None, in the CLI's words (gnn/machine.py imports
    no package, so it loads everywhere)."""
    from gnn import machine

    missing = [name for module, name in machine.BASE_PACKAGES if not importable(module)]
    return machine.not_installed(missing) if missing else None


@functools.lru_cache(maxsize=None)
def extras_missing() -> str | None:
    """Why pictures cannot be drawn here (requirements/extras.txt), or None."""
    missing = [name for name in ("networkx", "matplotlib") if not importable(name)]
    return f"{' and '.join(missing)} (requirements/extras.txt) not installed" if missing else None


def environment_stop() -> tuple[int, str]:
    """Where the CLI stops on this machine once its inputs are fine: (exit code, what its one
    line says). The checks run in this order: base packages, GPU, TensorRT; the line names each
    that is missing, and the exit code is the first one's."""
    if base_packages_missing():
        return 3, str(base_packages_missing())
    if gpu_skip_reason():
        return 4, str(gpu_skip_reason())
    if real_tensorrt_version() is None:
        return 3, "TensorRT is not installed"
    return 0, ""


@functools.lru_cache(maxsize=None)
def nvidia_driver_missing() -> str | None:
    """Why the NVIDIA driver's library cannot be loaded here (a machine without a driver), or None."""
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError as error:
        return str(error)
    return None


@functools.lru_cache(maxsize=None)
def gpu_skip_reason() -> str | None:
    """Why no GPU test can run here, or None: the CLI's own GPU check (the driver, then the
    device), so that a skipped test names the cause the CLI names on the same machine."""
    if not importable("cupy"):
        return "CuPy is not installed"
    from gnn import machine
    from gnn.cli import NoGpu

    try:
        machine.check_driver()
        machine.check_gpu()
    except NoGpu as problem:
        return str(problem)
    return None


def replay_once(runner: Any, graph: Any) -> Any:
    """(means, probs) of one replay of ``graph``, a CUDA graph of the runner's run, from a fresh X."""
    runner.reset_x()
    graph.launch(runner.stream)
    return runner.read_outputs()


@functools.lru_cache(maxsize=None)
def real_tensorrt_version() -> str | None:
    # Probed once, before any test can touch sys.modules, and only the real library counts:
    # a `tensorrt` without __version__ is a namespace package such as tensorrt-stubs.
    try:
        trt = importlib.import_module("tensorrt")
    except ImportError:
        return None
    return getattr(trt, "__version__", None)


# What makes the `trt` tests run, in the words a skipped test prints: run_tests.sh makes a .venv that
# sees the TensorRT of the Python that runs it, or installs requirements.txt into .venv on request.
TRT_TEST_COMMANDS = ("where python3 has TensorRT (NVIDIA's container), run `bash run_tests.sh --fresh`; on a GPU "
                     "machine without it, `WITH_TENSORRT=1 bash run_tests.sh`")


@functools.lru_cache(maxsize=None)
def trt_skip_reason() -> str | None:
    if real_tensorrt_version() is None:
        return f"TensorRT is not installed for {sys.executable}: {TRT_TEST_COMMANDS}"
    return gpu_skip_reason()


@functools.lru_cache(maxsize=None)
def rtx_skip_reason() -> str | None:
    return None if importable("tensorrt_rtx") else "TensorRT-RTX is not installed (tensorrt-rtx-cu13, requirements/dev.txt)"


@functools.lru_cache(maxsize=None)
def lean_skip_reason() -> str | None:
    if importable("tensorrt_lean_bindings"):
        return None
    return "TensorRT 11.4's lean runtime is not installed (tensorrt-lean-cu13-bindings, requirements/dev.txt)"


def missing_runtime(item: pytest.Item) -> str | None:
    """Why a CPU test of a runtime requirements/dev.txt installs cannot run here, or None."""
    if "lean" in item.keywords and lean_skip_reason():
        return f"TensorRT 11.4 lean test: {lean_skip_reason()}"
    if "rtx" in item.keywords and "gpu" not in item.keywords and rtx_skip_reason():
        return f"TensorRT-RTX test: {rtx_skip_reason()}"
    return None


@functools.lru_cache(maxsize=None)
def rtx_build_skip_reason() -> str | None:
    """Polygraphy serves one runtime per process: where TensorRT is installed, it is TensorRT's,
    and the `trt` tests build the real network with the plugin instead."""
    if real_tensorrt_version() is not None:
        return "TensorRT is installed: the `trt` tests build the real network here"
    return rtx_skip_reason()


# Builds a one-layer engine for the GPU at hand and deserializes it, as the CLI on TensorRT-RTX will.
_PROBE = """
import tensorrt_rtx as t
logger = t.Logger(t.Logger.ERROR)
builder = t.Builder(logger)
network = builder.create_network(0)
network.mark_output(network.add_identity(network.add_input("x", t.float32, (1,))).get_output(0))
blob = builder.build_serialized_network(network, builder.create_builder_config())
print("ok" if blob and t.Runtime(logger).deserialize_cuda_engine(blob) else "refused")
"""


HARNESS_COMMAND = 'bash tests/rtx_harness/with_rtx.sh python3 -m pytest -m "gpu and rtx"'


@functools.lru_cache(maxsize=None)
def rtx_gpu_skip_reason() -> str | None:
    """Why the CLI cannot run on TensorRT-RTX here, or None. TensorRT-RTX 1.7 runs engines on
    compute capability 7.5, 8.0, 8.6, 8.9 and 12.x; an H100's or H200's 9.0 needs the test
    harness in tests/rtx_harness/ (with_rtx.sh), whose environment this process inherits."""
    reason = gpu_skip_reason()
    if reason:
        return reason
    if rtx_skip_reason():
        return f"{rtx_skip_reason()}; without a package index, see tests/rtx_harness/README.md"
    probe = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=300)
    if probe.stdout.strip() == "ok":
        return None
    import cupy as cp

    props = cp.cuda.runtime.getDeviceProperties(0)
    return (f"TensorRT-RTX refuses to deserialize engines on this GPU (compute capability {props['major']}."
            f"{props['minor']}): run the tests through its harness, {HARNESS_COMMAND}")


@contextlib.contextmanager
def product_on_rtx(rtx: ModuleType) -> Iterator[None]:
    """Import the product's TensorRT modules with TensorRT-RTX under the name `tensorrt`, and
    Polygraphy on TensorRT-RTX; afterwards `tensorrt` and those modules are as they were."""
    import polygraphy.config

    if "polygraphy.backend.trt" in sys.modules and not polygraphy.config.USE_TENSORRT_RTX:
        pytest.skip("Polygraphy was already loaded for TensorRT in this process")
    polygraphy.config.USE_TENSORRT_RTX = True  # read by Polygraphy's importer, not by this test
    with tensorrt_replaced_by(rtx, TENSORRT_MODULES):
        yield


@contextlib.contextmanager
def tensorrt_replaced_by(runtime: ModuleType, modules: tuple[str, ...]) -> Iterator[None]:
    """`tensorrt` is ``runtime`` inside the block and ``modules`` are imported afresh on it;
    afterwards sys.modules, and the attributes packages hold for their submodules, are restored
    (``from gnn import x`` reads the attribute, not sys.modules). Submodules imported
    as ``tensorrt.*`` inside the block are dropped too: they belong to ``runtime``, and a later
    ``import tensorrt.plugin`` on another runtime would otherwise find them."""
    names = ("tensorrt", *modules, *(name for name in sys.modules if name.startswith("tensorrt.")))
    saved = {name: sys.modules.pop(name, None) for name in names}
    parents = {name: getattr(sys.modules.get(name.rpartition(".")[0]), name.rpartition(".")[2], None)
               for name in modules if "." in name}
    for name in parents:
        package = sys.modules.get(name.rpartition(".")[0])
        if package is not None and hasattr(package, name.rpartition(".")[2]):
            delattr(package, name.rpartition(".")[2])
    sys.modules["tensorrt"] = runtime
    try:
        yield
    finally:
        for name in [name for name in sys.modules if name.startswith("tensorrt.")]:
            del sys.modules[name]
        for name, module in saved.items():
            sys.modules.pop(name, None)
            if module is not None:
                sys.modules[name] = module
        for name, module in parents.items():
            package = sys.modules.get(name.rpartition(".")[0])
            if package is not None:
                if module is None:
                    package.__dict__.pop(name.rpartition(".")[2], None)
                else:
                    setattr(package, name.rpartition(".")[2], module)


def pytest_configure(config: pytest.Config) -> None:
    real_tensorrt_version()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if "trt" in item.keywords and trt_skip_reason():
            item.add_marker(pytest.mark.skip(reason=f"TensorRT test: {trt_skip_reason()}"))
        elif "rtx" in item.keywords and "gpu" in item.keywords and rtx_gpu_skip_reason():
            item.add_marker(pytest.mark.skip(reason=f"TensorRT-RTX GPU test: {rtx_gpu_skip_reason()}"))
        elif missing_runtime(item) and not os.environ.get("CI"):
            item.add_marker(pytest.mark.skip(reason=str(missing_runtime(item))))
        elif "gpu" in item.keywords and gpu_skip_reason():
            item.add_marker(pytest.mark.skip(reason=f"GPU test: {gpu_skip_reason()}"))


def pytest_runtest_setup(item: pytest.Item) -> None:
    # A skip marker would hide a broken install in CI, where these tests are what checks the
    # plugin against NVIDIA's real classes; so CI gets a failure with the same reason instead.
    if os.environ.get("CI") and missing_runtime(item):
        pytest.fail(f"CI must run this test: {missing_runtime(item)}", pytrace=False)
