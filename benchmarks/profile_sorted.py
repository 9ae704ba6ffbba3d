#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""One enqueue of the plugin's kernels and one launch of the QDP route's kernel per case, on the
benchmark's tensors, for Nsight Compute to set side by side (pieces for the fix-up against atomics only):

    ncu --clock-control none -k regex:scatter_add --section SpeedOfLight --section Occupancy \\
        --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \\
        python3 benchmarks/profile_sorted.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernels import scatter_add_aot as aot  # noqa: E402
from bench_scatter_add import Case, case_tensors, get_kernel  # noqa: E402

M, K = 1 << 20, 1 << 10
CASES = (Case("fp32", "int32", 64 * M, 4 * M, 1, "sorted"), Case("fp16", "int32", 64 * M, 4 * M, 1, "sorted"),
         Case("fp16", "int32", 4 * M, 256 * K, 64, "sorted"))


def launch(case: Case) -> None:
    """The benchmark's tensors for ``case``; the plugin's enqueue, then the QDP kernel (counts zeroed)."""
    t = case_tensors(case)
    get_kernel(case.dtype, case.index).launch(**t.launch_args(case))
    t.counts.zero_()
    aot.load(case.dtype, case.index).launch(
        x=t.dst.data_ptr(), src=t.src.data_ptr(), idx=t.idx.data_ptr(), counts_in=t.counts.data_ptr(), n_edges=case.n_edges,
        n_nodes=case.n_nodes, n_feat=case.n_feat, dst=t.dst.data_ptr(), counts=t.counts.data_ptr(),
        stream=torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    print(case, flush=True)


if __name__ == "__main__":
    for c in CASES:
        launch(c)
