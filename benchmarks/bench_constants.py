#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""kernels/plan.py's constants, A/B in one process, on the same tensors, interleaved round by round. A
constant the .cu file receives as -D (LOAD_BYTES, MIN_BLOCKS, ...) is a build of the same source with
another value; one that only plan.py reads (SPAN_EDGES, TARGET_SPANS, WIDE_BYTES) is the default build
launched with plan.py's value changed, with a workspace sized under that value.

    python3 benchmarks/bench_constants.py                       # every variant below
    python3 benchmarks/bench_constants.py --variant MIN_BLOCKS=3 --variant LOAD_BYTES=128
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import statistics
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernels import cuda_calls as cuda  # noqa: E402
from kernels import plan  # noqa: E402
from kernels import scatter_add as sak  # noqa: E402
from bench_scatter_add import Case, case_tensors, get_kernel, time_ms, workspace_bytes  # noqa: E402

VARIANTS = ("LOAD_BYTES=64", "LOAD_BYTES=256", "MIN_BLOCKS=3", "SPAN_EDGES=4096", "TARGET_SPANS=8192")
PLAN_ONLY = ("SPAN_EDGES", "TARGET_SPANS", "WIDE_BYTES")
M, K = 1 << 20, 1 << 10
CASES = [Case(d, "int32", 64 * M, 4 * M, 1, o) for d in ("fp32", "fp16") for o in ("sorted", "uniform")] + [
    Case(d, "int32", 4 * M, 256 * K, f, o) for d in ("fp32", "fp16") for f in (32, 64) for o in ("sorted", "uniform")] + [
    Case(d, "int32", 4 * M, 256 * K, 128, o) for d in ("fp32", "fp16") for o in ("sorted", "uniform")] + [
    Case("bf16", "int32", 4 * M, 256 * K, 64, o) for o in ("sorted", "uniform")] + [
    Case("fp16", "int32", 4 * M, 256 * K, 64, o) for o in ("powerlaw", "half-to-one-sorted")] + [
    Case("fp16", "int32", 64 * K, 4 * K, 32, o) for o in ("sorted", "uniform")]


def compile_variant(arch: str, change: str, pair: tuple[str, str]) -> bytes | None:
    """The type pair's cubin with one -D constant changed (in a worker process: NVRTC takes seconds a variant)."""
    name, value = change.split("=")
    if name in PLAN_ONLY:
        return None
    options = [o for o in sak.defines(*pair) if not o.startswith(f"-DSCATTER_{name}=")]
    return cuda.nvrtc_compile(sak.KERNEL_SOURCE, arch, [*options, f"-DSCATTER_{name}={value}"])


class Variant:
    """A kernel build, launched with plan.py's ``changes`` in force (and a workspace sized under them). Its launch
    plans are cached per variant, so that no timed launch pays for recomputing one (plan.launch's own cache is
    shared by every variant)."""

    def __init__(self, kernel: sak.ScatterAddKernel, case: Case, changes: dict[str, int]) -> None:
        self.kernel, self.changes = kernel, changes
        self.plans = functools.lru_cache(maxsize=64)(plan.launch.__wrapped__)
        with self.patched():
            self.workspace = torch.empty(workspace_bytes(case), dtype=torch.uint8, device="cuda")

    @contextlib.contextmanager
    def patched(self) -> Iterator[None]:
        saved = {name: getattr(plan, name) for name in (*self.changes, "launch")}
        for name, value in {**self.changes, "launch": self.plans}.items():
            setattr(plan, name, value)
        try:
            yield
        finally:
            for name, value in saved.items():
                setattr(plan, name, value)

    def launch(self, **args: int) -> None:
        if not self.changes:
            return self.kernel.launch(**args)
        with self.patched():
            self.kernel.launch(**{**args, "workspace": self.workspace.data_ptr(),
                                  "workspace_size": self.workspace.numel()})


def load(cubin: bytes | None, case: Case, change: str) -> Variant:
    """A plan-only change: the default build under the changed plan. A -D change: its build, whose grid is sized
    for the blocks that fit under that build's MIN_BLOCKS (more would queue a partial second wave)."""
    name, value = change.split("=")
    if cubin is None:
        return Variant(get_kernel(case.dtype, case.index), case, {name: int(value)})
    functions, device = cuda.load(cubin, sak.ENTRIES)
    arch = cuda.arch_number(cuda.device_arch(device))
    kernel = sak.ScatterAddKernel(functions, case.dtype, sak.blocks_that_fit(device), arch, sak.overlap_allowed())
    if name == "MIN_BLOCKS":
        kernel = dataclasses.replace(kernel, fit=cuda.device_attribute(device, "MULTIPROCESSOR_COUNT") * int(value))
    return Variant(kernel, case, {})


def case_title(case: Case) -> str:
    return f"{case.dtype} E={case.n_edges} N={case.n_nodes} F={case.n_feat} {case.order}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append", help="NAME=VALUE (repeatable); default: all of VARIANTS")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--match", default="", help="only cases whose title contains this text")
    args = parser.parse_args()
    variants = args.variant or list(VARIANTS)
    torch.cuda.synchronize()  # torch's context is current from here on
    arch = cuda.device_arch(cuda.current_device()[1])
    pairs = sorted({(case.dtype, case.index) for case in CASES if args.match in case_title(case)})
    jobs = [(variant, pair) for variant in variants for pair in pairs]
    with ProcessPoolExecutor() as pool:
        cubins = dict(zip(jobs, pool.map(compile_variant, [arch] * len(jobs), *zip(*jobs))))
    print(f"GPU {torch.cuda.get_device_name()}; median ms of {args.rounds} rounds x {args.reps} reps, interleaved")
    for case in CASES:
        title = case_title(case)
        if args.match not in title:
            continue
        t = case_tensors(case)
        kernels = {"default": Variant(get_kernel(case.dtype, case.index), case, {}),
                   **{v: load(cubins[v, (case.dtype, case.index)], case, v) for v in variants}}
        ref = t.x0.double().index_add_(0, t.idx.long(), t.src.double())
        times: dict[str, list[float]] = {name: [] for name in kernels}
        for _ in range(args.rounds):  # interleaved, so that drift in the GPU's clocks hits every variant alike
            for name, kernel in kernels.items():
                times[name] += time_ms(lambda k=kernel: k.launch(**t.launch_args(case)), lambda: t.dst.copy_(t.x0), args.reps)
        print(title)
        base = statistics.median(times["default"])
        for name, kernel in kernels.items():
            t.dst.copy_(t.x0)
            kernel.launch(**t.launch_args(case))
            err = float((t.dst.double() - ref).norm() / ref.norm())
            ms = statistics.median(times[name])
            print(f"  {name:<18} {ms:8.4f} ms  {base / ms:5.2f}x default  relL2 {err:8.1e}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
