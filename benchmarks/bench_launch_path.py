#!/usr/bin/env python3
"""Host time of one enqueue: the launcher's hand-written path against cuda.core's ``launch``.

Issue 20 asks to use cuda.core (``Program``, ``launch``; cuda-python 13) where it does what
``kernels/launcher.py`` writes by hand, unless the enqueue path measures slower. Both paths below
launch the same cubin's same entry with the same workspace memset on the same stream; only the
Python that prepares and issues the kernel launch differs:

  ours              ``ScatterAddKernel.launch``: shape and grid from lru caches, kernel
                    parameters packed once per pointer set (``launcher.packed``), cuLaunchKernel;
  cuda.core         ``cuda.core.launch`` with a ``Stream.from_handle`` per call (TensorRT hands
                    enqueue a raw stream handle) and the arguments as NumPy scalars (pointers as uint64);
  cuda.core, kept   the same with the ``Stream`` object made once.

Median microseconds per call on an idle GPU (``host_us`` of bench_scatter_add.py, which syncs before
each call), and the result of each path checked against float64.

    python3 benchmarks/bench_launch_path.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import cupy as cp
import numpy as np
import cuda.bindings.driver as driver
from cuda.core import LaunchConfig, ObjectCode, Stream, launch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernels import launcher as sak  # noqa: E402
from bench_scatter_add import host_us  # noqa: E402

N_EDGES, N_NODES, N_FEAT, CALLS = 1024, 256, 32, 2000


def main() -> int:
    rng = np.random.default_rng(0)
    x0 = cp.asarray(rng.standard_normal((N_NODES, N_FEAT)).astype(np.float16))
    src = cp.asarray(rng.standard_normal((N_EDGES, N_FEAT)).astype(np.float16))
    idx = cp.asarray(np.sort(rng.integers(0, N_NODES, N_EDGES)).astype(np.int32))
    counts = cp.empty(N_NODES, dtype=cp.int32)
    x = x0.copy()
    ws = cp.empty(sak.workspace_size(N_EDGES, N_FEAT), dtype=cp.uint8)
    stream = cp.cuda.get_current_stream().ptr
    kernel = sak.get_kernel("fp16", "int32")
    cut = sak.shape("fp16", N_FEAT, N_EDGES)
    core_kernel = ObjectCode.from_cubin(sak.cubin_for(kernel.arch)[0]).get_kernel(
        sak.entry_name("fp16", "int32", cut.v, cut.epl))
    kept = Stream.from_handle(stream)
    p = (x.data.ptr, src.data.ptr, idx.data.ptr, counts.data.ptr, ws.data.ptr)

    def ours() -> None:
        kernel.launch(x=p[0], dst=p[0], src=p[1], idx=p[2], counts=p[3], n_nodes=N_NODES, n_feat=N_FEAT,
                      n_edges=N_EDGES, workspace=p[4], stream=stream)

    def core(on: Stream | None = None) -> None:
        tiles = sak.tiles(N_EDGES, "fp16", N_FEAT)
        sak.check(driver.cuMemsetD32Async(p[4], 0, sak.memset_bytes(tiles) // 4, stream), "cuMemsetD32Async")
        config = LaunchConfig(grid=sak.grid_size(N_EDGES, N_NODES, N_FEAT, "fp16", kernel.max_blocks), block=sak.BLOCK)
        launch(on or Stream.from_handle(stream), config, core_kernel, *(np.uint64(v) for v in p),
               np.int64(N_EDGES), np.int64(N_NODES), np.int32(N_FEAT))

    ref = x0.astype(cp.float64)
    cp.add.at(ref, idx, src.astype(cp.float64))
    print(f"fp16 E={N_EDGES} N={N_NODES} F={N_FEAT} sorted; {CALLS} calls each; median host us per enqueue")
    for name, op in (("ours", ours), ("cuda.core", core), ("cuda.core, kept", lambda: core(kept))):
        x[...] = x0
        op()
        err = float(cp.linalg.norm(x.astype(cp.float64) - ref) / cp.linalg.norm(ref))
        print(f"  {name:16} {host_us(op, CALLS):7.1f} us   (one run from x0: relL2 {err:.1e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
