#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The plugin's kernel built for an older GPU and run on this one, beside the native build.

An A100 (sm_80) user gets the kernel compiled for sm_80, where bf16 additions are compare-and-swap
loops (native bf16x2 atomics start at sm_90; the kernel's loop backs off after a miss); rows that
many edges hit at once in unsorted input are where such loops can collapse
(kernel_performance_notes.md). No A100 here: the same source is compiled to compute_80
PTX, which this GPU's driver JIT-compiles (``__CUDA_ARCH__`` is 800 inside), and timed in one
process against the native cubin, on the hot-row cases of bench_scatter_add.py.

    python3 benchmarks/bench_arch_variant.py [--arch compute_80]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernels import cuda_calls as cuda  # noqa: E402
from kernels import scatter_add as sak  # noqa: E402
from bench_scatter_add import Case, case_tensors, get_kernel, time_ms  # noqa: E402


def ptx_kernel(float_type: str, index_type: str, arch: str) -> sak.ScatterAddKernel:
    """The plugin's kernels from PTX for the virtual architecture ``arch``, loaded as an engine's PTX is
    loaded on a GPU its cubin does not run on."""
    ptx = cuda.nvrtc_compile(sak.KERNEL_SOURCE, arch, sak.defines(float_type, index_type))
    functions, device = cuda.load(ptx + b"\0", sak.ENTRIES)
    virtual = int(arch.removeprefix("compute_"))  # the scratch only where the PTX's architecture has it
    return sak.ScatterAddKernel(functions, float_type, sak.blocks_that_fit(device), virtual, sak.overlap_allowed())


def run_case(case: Case, kernels: dict[str, sak.ScatterAddKernel], reps: int) -> list[str]:
    t = case_tensors(case)
    ref = t.x0.double().index_add_(0, t.idx.long(), t.src.double())
    rows = []
    for label, kernel in kernels.items():
        ms = statistics.median(time_ms(lambda: kernel.launch(**t.launch_args(case)), lambda: t.dst.copy_(t.x0), reps))
        err = float((t.dst.double() - ref).norm() / ref.norm())
        rows.append(f"  {label:<12} {ms:9.4f} ms  relL2 {err:9.2e}  blocks {kernel.fit}")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arch", default="compute_80")
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    print(f"GPU {torch.cuda.get_device_name()}; the kernel as native cubin and as {args.arch} PTX (JIT)")
    m, k = 1 << 20, 1 << 10
    for dtype in ("bf16", "fp16"):
        kernels = {"native": get_kernel(dtype, "int32"), args.arch: ptx_kernel(dtype, "int32", args.arch)}
        for order in ("uniform", "powerlaw", "half-to-one", "sorted", "half-to-one-sorted"):
            case = Case(dtype, "int32", 4 * m, 256 * k, 64, order)
            print(f"{dtype} int32 E={case.n_edges} N={case.n_nodes} F={case.n_feat} {order}")
            for row in run_case(case, kernels, args.reps):
                print(row)
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
