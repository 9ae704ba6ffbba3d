#!/usr/bin/env python3
"""Two enqueues of the plugin's kernels per sorted case (fp32 and fp16 F=64, fp32 F=1), for Nsight Compute:

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
from kernels import launcher as sak  # noqa: E402
from bench_scatter_add import Case, make_indices, TORCH_DTYPES  # noqa: E402

M, K = 1 << 20, 1 << 10
CASES = (Case("fp32", "int32", 4 * M, 256 * K, 64, "sorted"), Case("fp16", "int32", 4 * M, 256 * K, 64, "sorted"),
         Case("fp32", "int32", 64 * M, 4 * M, 1, "sorted"))


def launch_twice(case: Case) -> None:
    """The benchmark's tensors for ``case``, and two launches as the plugin's enqueue makes them."""
    gen = torch.Generator(device="cuda").manual_seed(0)
    dt = TORCH_DTYPES[case.dtype]
    x = torch.randn(case.n_nodes, case.n_feat, device="cuda", generator=gen).to(dt)
    src = torch.randn(case.n_edges, case.n_feat, device="cuda", generator=gen).to(dt)
    idx = make_indices(case, gen)
    counts = torch.empty(case.n_nodes, dtype=torch.int32, device="cuda")
    ws = torch.empty(sak.workspace_size(case.n_edges, case.n_feat), dtype=torch.uint8, device="cuda")
    kernel = sak.get_kernel(case.dtype, case.index)
    for _ in range(2):
        kernel.launch(x=x.data_ptr(), dst=x.data_ptr(), src=src.data_ptr(), idx=idx.data_ptr(), counts=counts.data_ptr(),
                      n_nodes=case.n_nodes, n_feat=case.n_feat, n_edges=case.n_edges, workspace=ws.data_ptr(),
                      stream=torch.cuda.current_stream().cuda_stream)
    torch.cuda.synchronize()
    print(case, flush=True)


if __name__ == "__main__":
    for c in CASES:
        launch_twice(c)
