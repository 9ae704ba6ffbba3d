# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The TensorRT-RTX test harness (tests/rtx_harness/) on CPU: it can be checked here before it is
trusted on a GPU machine.

* shim.c, against a stand-in driver library: a caller inside a library whose path names
  TensorRT-RTX sees compute capability 8.9 while the pretence is on, by each of the three ways
  such a library reaches cuDeviceGetAttribute, and the real 9.0 when it is off; a caller anywhere
  else always sees 9.0.
* sitecustomize.py with TensorRT-RTX itself: its builder, build and deserialization are wrapped,
  the pretence is on during a real CPU build (seen from TensorRT-RTX's progress callbacks) and off
  afterwards; without ``RTX_HARNESS=1`` nothing is wrapped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

HARNESS = ROOT / "tests" / "rtx_harness"

# The driver calls TensorRT-RTX makes, answering as an H200 would: compute capability 9.0.
STAND_IN_DRIVER = r"""
#include <stdint.h>
#include <string.h>
int cuDeviceGetAttribute(int *value, int attribute, int device) {
    (void)device;
    *value = attribute == 75 ? 9 : attribute == 76 ? 0 : -1;
    return 0;
}
int cuGetProcAddress_v2(const char *name, void **fn, int version, uint64_t flags, void *status);
int cuGetProcAddress(const char *name, void **fn, int version, uint64_t flags) {
    return cuGetProcAddress_v2(name, fn, version, flags, 0);
}
int cuGetProcAddress_v2(const char *name, void **fn, int version, uint64_t flags, void *status) {
    (void)flags; (void)status;
    if (!strcmp(name, "cuDeviceGetAttribute")) *fn = (void *)cuDeviceGetAttribute;
    else if (!strcmp(name, "cuGetProcAddress")) *fn = version >= 12000 ? (void *)cuGetProcAddress_v2 : (void *)cuGetProcAddress;
    else return 500;  /* CUDA_ERROR_NOT_FOUND */
    return 0;
}
"""

# A caller, built twice: once where TensorRT-RTX's libraries live (the path names it), once elsewhere.
CALLER = r"""
#include <dlfcn.h>
#include <stdint.h>
typedef int (*Attribute)(int *, int, int);
typedef int (*Lookup)(const char *, void **, int, uint64_t);
typedef int (*LookupV2)(const char *, void **, int, uint64_t, void *);
static int ask(Attribute attribute) {
    int major = 0, minor = 0;
    attribute(&major, 75, 0);
    attribute(&minor, 76, 0);
    return 10 * major + minor;
}
int by_dlsym(const char *driver) {
    return ask((Attribute)dlsym(dlopen(driver, RTLD_NOW), "cuDeviceGetAttribute"));
}
int by_lookup(const char *driver) {
    void *attribute = 0;
    ((Lookup)dlsym(dlopen(driver, RTLD_NOW), "cuGetProcAddress"))("cuDeviceGetAttribute", &attribute, 11000, 0);
    return ask((Attribute)attribute);
}
int by_fetched_lookup(const char *driver) {
    void *lookup = 0, *attribute = 0;
    ((Lookup)dlsym(dlopen(driver, RTLD_NOW), "cuGetProcAddress"))("cuGetProcAddress", &lookup, 12000, 0);
    ((LookupV2)lookup)("cuDeviceGetAttribute", &attribute, 12000, 0, 0);
    return ask((Attribute)attribute);
}
"""

ASK = """
import ctypes, json, sys
pretend = ctypes.CDLL(None).rtx_harness_pretend
seen = {}
for caller in sys.argv[2:]:
    library = ctypes.CDLL(caller)
    for way in ("by_dlsym", "by_lookup", "by_fetched_lookup"):
        ask = getattr(library, way)
        ask.argtypes = [ctypes.c_char_p]
        for on in (0, 1):
            pretend(on)
            seen[f"{'rtx' if 'tensorrt_rtx' in caller else 'other'} {way} {on}"] = ask(sys.argv[1].encode())
pretend(0)
print(json.dumps(seen))
"""


def compile_library(source: str, path: Path) -> Path:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler for the harness's shim")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.with_suffix(".c").write_text(source)
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", str(path), str(path.with_suffix(".c")), "-ldl"],
                   check=True, timeout=120)
    return path


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return compile_library((HARNESS / "shim.c").read_text(), tmp_path_factory.mktemp("shim") / "rtx_harness_shim.so")


def harness_env(shim: Path, switched_on: bool = True) -> dict[str, str]:
    """The environment with_rtx.sh makes, for this shim; where TensorRT-RTX came from PYTHONPATH
    (with_rtx.sh's own site), it still does."""
    env = {key: value for key, value in os.environ.items() if key != "RTX_HARNESS"}
    path = os.pathsep.join(filter(None, [str(HARNESS), env.get("PYTHONPATH")]))
    return {**env, "LD_PRELOAD": str(shim), "PYTHONPATH": path, **({"RTX_HARNESS": "1"} if switched_on else {})}


def test_the_shim_shows_8_9_to_tensorrt_rtx_only_while_pretending(shim: Path, tmp_path: Path) -> None:
    driver = compile_library(STAND_IN_DRIVER, tmp_path / "driver" / "libcuda.so.1")
    callers = [compile_library(CALLER, tmp_path / where / "libcaller.so") for where in ("tensorrt_rtx_libs", "other")]
    result = subprocess.run([sys.executable, "-c", ASK, str(driver), *map(str, callers)], capture_output=True,
                            text=True, timeout=120, env=harness_env(shim))
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    for way in ("by_dlsym", "by_lookup", "by_fetched_lookup"):
        assert [seen[f"rtx {way} 0"], seen[f"rtx {way} 1"]] == [90, 89], way
        assert [seen[f"other {way} 0"], seen[f"other {way} 1"]] == [90, 90], way


# A real TensorRT-RTX build on CPU through the wrapped calls, watching the shim's switch.
BUILD = """
import ctypes, json
import tensorrt_rtx as t
pretending = ctypes.CDLL(None).rtx_harness_pretending
seen = set()

class Watch(t.IProgressMonitor):
    def __init__(self):
        t.IProgressMonitor.__init__(self)
    def phase_start(self, name, parent, steps):
        seen.add(pretending())
    def step_complete(self, name, step):
        return True
    def phase_finish(self, name):
        pass

logger = t.Logger(t.Logger.ERROR)
builder = t.Builder(logger)
network = builder.create_network(0)
network.mark_output(network.add_identity(network.add_input("x", t.float32, (1,))).get_output(0))
config = builder.create_builder_config()
config.num_compute_capabilities = 1
config.set_compute_capability(t.ComputeCapability.SM89, 0)
config.progress_monitor = Watch()
blob = builder.build_serialized_network(network, config)
wrapped = [hasattr(getattr(getattr(t, cls), method), "__wrapped__")
           for cls, method in (("Builder", "__init__"), ("Builder", "build_serialized_network"),
                               ("Runtime", "deserialize_cuda_engine"))]
print(json.dumps({"built": blob is not None and blob.nbytes > 0, "during": sorted(seen), "after": pretending(),
                  "wrapped": wrapped}))
"""


@pytest.mark.rtx
@pytest.mark.parametrize("switched_on", [True, False])
def test_sitecustomize_pretends_during_tensorrt_rtxs_gpu_checks_only(shim: Path, switched_on: bool) -> None:
    result = subprocess.run([sys.executable, "-c", BUILD], capture_output=True, text=True, timeout=300,
                            env=harness_env(shim, switched_on))
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["built"] and seen["after"] == 0
    assert seen["wrapped"] == [switched_on] * 3
    assert seen["during"] == ([1] if switched_on else [0])
