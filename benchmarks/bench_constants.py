#!/usr/bin/env python3
"""The launcher's compile-time constants, A/B in one process: the same kernel source compiled with
other values (-DSCATTER_*), launched exactly as the plugin's enqueue launches the default build, on
the same tensors, interleaved round by round. Only constants that keep the launcher's bounds true are
varied (fewer or equal spans: SPAN_EDGES up, TARGET_SPANS down; registers; vector widths).

    python3 benchmarks/bench_constants.py                       # every variant below
    python3 benchmarks/bench_constants.py --variant MIN_BLOCKS=3 --variant LOAD_BYTES=128
"""

from __future__ import annotations

import argparse
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import torch
import cuda.bindings.driver as driver

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernels import launcher as sak  # noqa: E402
from bench_scatter_add import Case, case_tensors, time_ms  # noqa: E402

VARIANTS = ("LOAD_BYTES=64", "LOAD_BYTES=192", "MIN_BLOCKS=3", "SPAN_EDGES=4096", "WIDE_BYTES=16")
M, K = 1 << 20, 1 << 10
CASES = [Case(d, "int32", 64 * M, 4 * M, 1, o) for d in ("fp32", "fp16") for o in ("sorted", "uniform")] + [
    Case(d, "int32", 4 * M, 256 * K, f, o) for d in ("fp32", "fp16") for f in (32, 64) for o in ("sorted", "uniform")] + [
    Case("bf16", "int32", 4 * M, 256 * K, 64, "sorted"), Case("fp16", "int32", 4 * M, 256 * K, 64, "half-to-one-sorted"),
    Case("fp16", "int32", 64 * K, 4 * K, 32, "sorted")]


def compile_variant(arch: str, change: str) -> bytes:
    """The cubin with one constant changed (in a worker process: NVRTC takes seconds per variant)."""
    name, value = change.split("=")
    options = [o for o in sak.compile_options(arch, sak.find_cuda_include_dir()) if not o.startswith(f"-DSCATTER_{name}=")]
    return sak.nvrtc_compile(sak.KERNEL_SOURCE.read_text(), arch, [*options, f"-DSCATTER_{name}={value}"], ptx=False)


def load(cubin: bytes, float_type: str) -> sak.ScatterAddKernel:
    _, device = sak.current_context()
    module = sak.check(driver.cuModuleLoadData(cubin), "cuModuleLoadData")
    return sak.kernel_from_module(module, float_type, "int32", device)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append", help="NAME=VALUE (repeatable); default: all of VARIANTS")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    variants = args.variant or list(VARIANTS)
    _, device = sak.current_context()
    arch = sak.device_arch(device)
    with ProcessPoolExecutor() as pool:
        cubins = dict(zip(variants, pool.map(compile_variant, [arch] * len(variants), variants)))
    print(f"GPU {torch.cuda.get_device_name()}; median ms of {args.rounds} rounds x {args.reps} reps, interleaved")
    for case in CASES:
        t = case_tensors(case)
        kernels = {"default": sak.get_kernel(case.dtype, "int32"), **{v: load(c, case.dtype) for v, c in cubins.items()}}
        ref = t.x0.double().index_add_(0, t.idx.long(), t.src.double())
        times: dict[str, list[float]] = {name: [] for name in kernels}
        for _ in range(args.rounds):  # interleaved, so that drift in the GPU's clocks hits every variant alike
            for name, kernel in kernels.items():
                times[name] += time_ms(lambda k=kernel: k.launch(**t.launch_args(case)), lambda: t.dst.copy_(t.x0), args.reps)
        print(f"{case.dtype} E={case.n_edges} N={case.n_nodes} F={case.n_feat} {case.order}")
        base = statistics.median(times["default"])
        for name, kernel in kernels.items():
            t.dst.copy_(t.x0)
            kernel.launch(**t.launch_args(case))
            err = float((t.dst.double() - ref).norm() / ref.norm())
            ms = statistics.median(times[name])
            print(f"  {name:<18} {ms:8.4f} ms  {base / ms:5.2f}x default  relL2 {err:8.1e}  blocks {kernel.max_blocks}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
