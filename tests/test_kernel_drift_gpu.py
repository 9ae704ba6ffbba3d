# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The fast kernel where kernels/plan.py and scatter_add.cu disagree: a tile or a fix-up width that
the .cu never compiled fails the launch (a trap) rather than add nothing. The fingerprint keeps an
engine from meeting it, and test_kernel_plan.py checks the .cu's lists against plan.py; this is the
kernel's own last line. Each launch runs in a process of its own, since a trap leaves the CUDA
context unusable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parent.parent

# One entry point of the fast kernel, launched with plan.py's scalars for E = 512, N = 64, F = 2
# fp32, one of them replaced (argv: entry, the scalar's name, its value or "plan"); prints the
# status of the sync and the sum of X.
LAUNCH = """
import sys
import cupy as cp
import numpy as np
import kernels
from kernels import cuda_calls as cuda, plan, scatter_add as sak

entry, field, value = sys.argv[1:]
cp.cuda.runtime.free(0)
fast = kernels.choose("fast")
code = fast.compile(arch=kernels.current_arch(), float_type="fp32", index_type="int32")
launcher = fast.load(code)
x = cp.zeros((64, 2), np.float32)
src = cp.ones((512, 2), np.float32)
idx = cp.arange(512, dtype=np.int32) % 64
counts = cp.zeros(64, np.int32)
work = plan.launch(64, 512, 2, "fp32", 1)
workspace = cp.zeros(max(work.workspace, 256), np.uint8)
names = ("columns", "lanes", "passes", "span", "fix_width", "scratch")
scalars = list(work.scalars())
if value != "plan":
    scalars[names.index(field)] = int(value)
pointers = (x.data.ptr, src.data.ptr, idx.data.ptr, counts.data.ptr, workspace.data.ptr,
            workspace.data.ptr + work.flag_bytes)
args = cuda.packed((*pointers, 512, 64, 2, *scalars), sak.ARG_TYPES)
threads = plan.FIX_BLOCK if entry == "scatter_add_fixup" else plan.BLOCK
cuda.launch(launcher.functions[sak.ENTRIES.index(entry)], 1, threads, args, 0)
status = int(cuda.driver.cuCtxSynchronize()[0])
print(status, float(x.sum()) if status == 0 else "-")
"""


def launch(entry: str, field: str, value: str) -> tuple[int, str]:
    command = [sys.executable, "-c", LAUNCH, entry, field, value]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    status, total = done.stdout.split()
    return int(status), total


@pytest.mark.parametrize("entry", ["scatter_add", "scatter_add_short_spans"])
def test_the_plans_own_scalars_add_every_edge(entry: str) -> None:
    """The control: either main kernel with plan.py's scalars adds 512 edges of 2 ones."""
    assert launch(entry, "columns", "plan") == (0, "1024.0")


@pytest.mark.parametrize(("entry", "field"),
                         [("scatter_add", "columns"), ("scatter_add_short_spans", "columns"),
                          ("scatter_add_fixup", "fix_width")])
def test_a_tile_or_width_never_compiled_fails_the_launch(entry: str, field: str) -> None:
    """Before the switches had a default, this launch succeeded and added nothing."""
    status, _ = launch(entry, field, "3")
    assert status != 0
