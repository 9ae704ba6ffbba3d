#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Side-by-side scatter-add benchmark on one GPU, one process, the same tensors for every peer.

Ours: the sample's fast kernel through the launch path the plugin's enqueue uses (kernels/scatter_add.py),
which also produces the counts; ``ours.reference``: the plugin's reference kernel (kernels/reference.py, a
thread and an atomic per value), to show what the fast one buys; ``ours.aot``: the QDP route's single kernel
(kernels/scatter_add_aot.py), after zeroing the counts as the engine's Fill layer does. Peers (benchmark-only,
never imported by the sample):
  sum only        torch ``scatter_add_`` (expanded index), ``index_add_``,
                  ``torch_geometric.utils.scatter`` sum, ``cupyx.scatter_add`` (fp32);
  same outputs    torch ``scatter_add_`` + ``bincount`` (sum and in-degree, what ours returns),
                  ``torch_geometric.utils.scatter`` mean (sum and in-degree inside), and for
                  sorted input ``bincount`` + ``torch.segment_reduce`` + add, from the same COO input;
  given counts    sorted input only: ``torch.segment_reduce`` + add handed the segment lengths (CSR) computed
                  outside the timed region, and cuSPARSE's CSR SpMM (``torch.sparse.mm``, N x E ones) + add.
Ceilings: a device-to-device copy, measured in the same run (the "copy roofline" percentages), and, for
random order, the ``limit`` row: benchmarks/limit.cu, which reads idx and src once and adds src to dst with the
widest RED there is, and does nothing else (no counts): what random order can reach at best on this GPU.

Per case: median ms of CUDA-event timings after warm-up (dst reset outside the timed region),
effective GB/s with B = E*F*s + E*b_idx + 2*N*F*s (+ 4N for our counts), % of the copy roofline,
speed-up of ours over the best sum-only, same-output and given-counts peer and over the reference kernel,
relative L2 error vs float64, bitwise repeatability. For small cases (E <= 64K) every implementation is also captured
in a CUDA graph and replayed ("graph" column): that is GPU time without Python's launch cost.

    python3 benchmarks/bench_scatter_add.py            # headline cases
    python3 benchmarks/bench_scatter_add.py --full     # the whole matrix (long)
"""

from __future__ import annotations

import argparse
import functools
import itertools
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import kernels  # noqa: E402
from kernels import scatter_add_aot as aot  # noqa: E402

TORCH_DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
LIMIT_SOURCE = Path(__file__).with_name("limit.cu")
CUDA_TYPES = {"fp32": "float", "fp16": "__half", "bf16": "__nv_bfloat16", "int32": "int", "int64": "long long"}


@dataclass(frozen=True)
class Case:
    dtype: str
    index: str
    n_edges: int
    n_nodes: int
    n_feat: int
    order: str  # uniform | powerlaw | half-to-one | a skew of SKEWS, each optionally "-sorted"


def get_kernel(float_type: str, index_type: str, name: str = kernels.DEFAULT) -> kernels.Launcher:
    """The plugin's kernel ``name`` as configure_plugin makes it: compiled for this GPU, loaded into torch's
    context."""
    torch.cuda.synchronize()  # torch's primary context is current from here on
    kernel = kernels.choose(name)
    return kernel.load(kernel.compile(float_type=float_type, index_type=index_type, arch=kernels.current_arch()))


@functools.lru_cache(maxsize=None)
def limit_cubin(dtype: str, index: str, arch: str) -> bytes:
    from kernels import cuda_calls as cuda

    options = [f"-DLIMIT_T={CUDA_TYPES[dtype]}", f"-DLIMIT_I={CUDA_TYPES[index]}"]
    return cuda.nvrtc_compile(LIMIT_SOURCE, arch, options)


def limit_op(case: Case, dst: torch.Tensor, src: torch.Tensor, idx: torch.Tensor) -> Callable[[], None]:
    """The ``limit`` row: benchmarks/limit.cu on torch's current stream, a thread per 16 bytes of a row (a RED
    each) where rows are whole 16-byte pieces, else a thread per value."""
    from kernels import cuda_calls as cuda

    arch = kernels.current_arch()
    rows = case.n_feat * dst.element_size() % 16 == 0
    name = "limit_rows" if rows else "limit_values"
    (function,), _ = cuda.load(limit_cubin(case.dtype, case.index, arch), (name,), arch)
    threads = case.n_edges * (case.n_feat * dst.element_size() // 16 if rows else case.n_feat)
    values = (dst.data_ptr(), src.data_ptr(), idx.data_ptr(), case.n_edges, case.n_nodes, case.n_feat)
    args = cuda.packed(values, (cuda.P,) * 3 + (cuda.LL,) * 3)  # held with the op, as launch needs
    blocks = max(1, min((threads + 255) // 256, 1 << 20))

    def op() -> None:
        cuda.launch(function, blocks, 256, args, torch.cuda.current_stream().cuda_stream)

    return op


# The skews of --skews, in random order: "hub-P%": one row (N / 3) takes P% of the edges; "hubs-K":
# K rows (spread over N) share half of them; "zipf-S": row r (of a random permutation) is drawn
# with probability proportional to (r + 1)^-S; the rest uniform.
SKEWS = ("uniform", "hub-1%", "hub-10%", "hub-50%", "hub-90%", "hubs-2", "hubs-4", "hubs-8",
         "zipf-0.8", "zipf-1.1", "zipf-1.5", "powerlaw")


def zipf_rows(n: int, e: int, s: float, gen: torch.Generator) -> torch.Tensor:
    """e rows drawn from Zipf(s) over n ranks by the inverse of its CDF, ranks permuted."""
    weights = torch.arange(1, n + 1, device="cuda", dtype=torch.float64) ** -s
    cdf = weights.cumsum(0)
    u = torch.rand(e, generator=gen, device="cuda", dtype=torch.float64) * cdf[-1]
    rank = torch.searchsorted(cdf, u).clamp_max(n - 1)
    return torch.randperm(n, generator=gen, device="cuda")[rank]


def make_indices(case: Case, gen: torch.Generator) -> torch.Tensor:
    n, e = case.n_nodes, case.n_edges
    if case.order.startswith("powerlaw"):  # N * u^3, permuted: a few very hot rows
        raw = (n * torch.rand(e, generator=gen, device="cuda") ** 3).long().clamp_max(n - 1)
        idx = torch.randperm(n, generator=gen, device="cuda")[raw]
    elif case.order.startswith("zipf-"):
        idx = zipf_rows(n, e, float(case.order.split("-")[1]), gen)
    else:
        idx = torch.randint(0, n, (e,), generator=gen, device="cuda")
    if case.order.startswith("half-to-one"):
        idx[torch.rand(e, generator=gen, device="cuda") < 0.5] = n // 3
    if case.order.startswith("hub-"):
        share = float(case.order.split("-")[1].rstrip("%")) / 100
        idx[torch.rand(e, generator=gen, device="cuda") < share] = n // 3
    if case.order.startswith("hubs-"):
        k = int(case.order.split("-")[1])
        pick = torch.rand(e, generator=gen, device="cuda")
        hubs = torch.arange(k, device="cuda") * (n // k) + n // (2 * k)
        idx = torch.where(pick < 0.5, hubs[(pick * 2 * k).long().clamp_max(k - 1)], idx)
    if case.order.endswith("sorted"):
        idx = idx.sort().values
    return idx.to(torch.int32 if case.index == "int32" else torch.int64).contiguous()


SLOW_MS = 1000.0  # an op slower than this a call is timed once (the reference kernel on hot rows)


def time_ms(op: Callable[[], None], reset: Callable[[], None], reps: int,
            warm_ups: int = 3) -> list[float]:
    times: list[float] = []
    for i in range(reps + warm_ups):
        reset()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        op()
        end.record()
        end.synchronize()
        if i >= warm_ups:
            times.append(start.elapsed_time(end))
    return times


def run_once(op: Callable[[], None], reset: Callable[[], None], dst: torch.Tensor) -> torch.Tensor:
    """The result of one run from a fresh dst, in float64."""
    reset()
    op()
    torch.cuda.synchronize()
    return dst.double()


@dataclass(frozen=True)
class Tensors:
    """One case's tensors, seeded: x0 (dst's starting value), src, idx, dst, counts, the workspace."""

    x0: torch.Tensor
    src: torch.Tensor
    idx: torch.Tensor
    dst: torch.Tensor
    counts: torch.Tensor
    workspace: torch.Tensor

    def launch_args(self, case: Case) -> dict[str, int]:
        """The plugin's enqueue in place on dst, on torch's current stream (graph capture uses its own)."""
        return dict(dst=self.dst.data_ptr(), src=self.src.data_ptr(), idx=self.idx.data_ptr(),
                    counts=self.counts.data_ptr(), n_nodes=case.n_nodes, n_feat=case.n_feat, n_edges=case.n_edges,
                    workspace=self.workspace.data_ptr(), workspace_size=self.workspace.numel(),
                    stream=torch.cuda.current_stream().cuda_stream)


def case_tensors(case: Case) -> Tensors:
    gen = torch.Generator(device="cuda").manual_seed(0)
    dt = TORCH_DTYPES[case.dtype]
    x0 = torch.randn(case.n_nodes, case.n_feat, device="cuda", generator=gen).to(dt)
    src = torch.randn(case.n_edges, case.n_feat, device="cuda", generator=gen).to(dt)
    idx = make_indices(case, gen)
    return Tensors(x0, src, idx, torch.empty_like(x0), torch.empty(case.n_nodes, dtype=torch.int32, device="cuda"),
                   torch.empty(workspace_bytes(case), dtype=torch.uint8, device="cuda"))


def workspace_bytes(case: Case) -> int:
    """What the plugin asks TensorRT for when the profile holds just this case's E, F and N, on this GPU."""
    return kernels.choose("fast").workspace_size(
        float_type=case.dtype, index_type=case.index, nodes=(case.n_nodes, case.n_nodes),
        edges=(case.n_edges, case.n_edges), features=(case.n_feat, case.n_feat), arch=kernels.current_arch())


def bench_case(case: Case, reps: int, roofline_gbs: float) -> list[str]:
    t = case_tensors(case)
    x0, src, idx, dst, counts = t.x0, t.src, t.idx, t.dst, t.counts
    dt = TORCH_DTYPES[case.dtype]
    idx_long = idx.long()
    expanded = idx_long.unsqueeze(1).expand(-1, case.n_feat)
    kernel = get_kernel(case.dtype, case.index)
    launch_args = t.launch_args(case)

    def ours() -> None:  # exactly what the plugin's enqueue does
        kernel.launch(**launch_args)

    def ours_on_current_stream() -> None:  # for graph capture, which runs on its own stream
        kernel.launch(**{**launch_args, "stream": torch.cuda.current_stream().cuda_stream})

    reference = get_kernel(case.dtype, case.index, "reference")

    def ours_reference() -> None:  # the obvious kernel, as the plugin's kernel="reference" launches it
        reference.launch(**{**launch_args, "stream": torch.cuda.current_stream().cuda_stream})

    # The QDP route (--aot): the engine's Fill layer zeroes the counts, then the one AOT kernel.
    aot_kernel = aot.load(case.dtype, case.index)

    def ours_aot() -> None:
        current = torch.cuda.current_stream().cuda_stream
        counts.zero_()
        aot_kernel.launch(x=dst.data_ptr(), src=src.data_ptr(), idx=idx.data_ptr(), counts_in=counts.data_ptr(),
                          n_edges=case.n_edges, n_nodes=case.n_nodes, n_feat=case.n_feat, dst=dst.data_ptr(),
                          counts=counts.data_ptr(), stream=current)

    peers: dict[str, Callable[[], None]] = {
        "torch.scatter_add_": lambda: dst.scatter_add_(0, expanded, src),
        "torch.index_add_": lambda: dst.index_add_(0, idx, src),
        # bincount needs the largest index on the host (a sync): not capturable, eager only (WITH_BINCOUNT).
        "torch.sa_+bincount": lambda: (dst.scatter_add_(0, expanded, src),
                                       torch.bincount(idx_long, minlength=case.n_nodes)),
    }
    if case.order.endswith("sorted"):
        # Sorted input, from the same COO input as ours: the in-degree by bincount, then segment_reduce over it
        # and the sums added into dst (the in-degree is an output, as ours returns it).
        peers["segment_reduce(coo)"] = lambda: dst.add_(torch.segment_reduce(
            src, "sum", lengths=torch.bincount(idx_long, minlength=case.n_nodes), axis=0, unsafe=True))
        # The same, given the segment lengths (CSR, computed here, outside the timed region): it never reads idx.
        lengths = torch.bincount(idx_long, minlength=case.n_nodes)
        peers["segment_reduce(given)"] = lambda: dst.add_(
            torch.segment_reduce(src, "sum", lengths=lengths, axis=0, unsafe=True))
        # The given CSR as an N x E matrix of ones times src: cuSPARSE's SpMM (through torch).
        offsets = torch.cat([lengths.new_zeros(1), lengths.cumsum(0)])
        ones = torch.sparse_csr_tensor(offsets, torch.arange(case.n_edges, device="cuda"),
                                       torch.ones(case.n_edges, dtype=dt, device="cuda"), (case.n_nodes, case.n_edges))
        try:
            torch.sparse.mm(ones, src)
            peers["cusparse.spmm(given)"] = lambda: dst.add_(torch.sparse.mm(ones, src))
        except RuntimeError:  # a type cuSPARSE's SpMM does not take here: no row for it
            pass
    try:
        from torch_geometric.utils import scatter

        # PyG returns a new tensor (no in-place form): timed as users call it, not error-checked.
        peers["pyg.scatter(sum)"] = lambda: scatter(src, idx_long, 0, dim_size=case.n_nodes, reduce="sum")
        peers["pyg.scatter(mean)"] = lambda: scatter(src, idx_long, 0, dim_size=case.n_nodes, reduce="mean")
    except ImportError:
        pass
    if case.dtype == "fp32":
        import cupy as cp
        import cupyx

        cdst, csrc, cidx = cp.from_dlpack(dst), cp.from_dlpack(src), cp.from_dlpack(idx)

        def cupyx_scatter_add() -> None:  # on torch's current stream, so graph capture records it
            with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
                cupyx.scatter_add(cdst, cidx, csrc)

        peers["cupyx.scatter_add"] = cupyx_scatter_add

    def reset() -> None:
        dst.copy_(x0)

    s = x0.element_size()
    bytes_moved = case.n_edges * case.n_feat * s + case.n_edges * idx.element_size() + 2 * case.n_nodes * case.n_feat * s
    ref = x0.double().index_add_(0, idx.long(), src.double())
    hot = int(torch.bincount(idx.long(), minlength=case.n_nodes).argmax())

    rows = []
    results: dict[str, float] = {}
    replayed: dict[str, float] = {}
    small = case.n_edges <= SMALL_EDGES
    limit = [("limit", limit_op(case, dst, src, idx))] if not case.order.endswith("sorted") else []
    for name, op in [("ours", ours), ("ours.reference", ours_reference), ("ours.aot", ours_aot), *peers.items(),
                     *limit]:
        first = time_ms(op, reset, 1, warm_ups=0)[0]  # 16-bit atomics on a hot row take seconds
        if first > SLOW_MS:
            results[name] = first
            rows.append(f"  {name:<22} {first:9.4f} ms (one call: past {SLOW_MS:.0f} ms, not repeated)")
            continue
        ms = statistics.median(time_ms(op, reset, reps))
        results[name] = ms
        if small:
            graph_op = ours_on_current_stream if name == "ours" else op
            replayed[name] = graph_replay_ms(graph_op, reset, reps) if name not in WITH_BINCOUNT else float("nan")
        if not name.startswith("pyg."):
            out = run_once(op, reset, dst)
            repeatable = bool(torch.equal(out, run_once(op, reset, dst)))
            err = float((out - ref).norm() / ref.norm())
            hot_err = float((out[hot] - ref[hot]).norm() / ref[hot].norm().clamp_min(1e-30))
        else:
            repeatable, err, hot_err = False, float("nan"), float("nan")
        extra = 4 * case.n_nodes if name.startswith("ours") else 0  # the counts
        gbs = (bytes_moved + extra) / ms / 1e6
        graph = f" graph {replayed[name]:8.4f} ms" if small else ""
        rows.append(f"  {name:<22} {ms:9.4f} ms{graph} {gbs:8.1f} GB/s {100 * gbs / roofline_gbs:5.1f}% "
                    f"relL2 {err:9.2e} hot {hot_err:9.2e} {'bitwise' if repeatable else 'varies'}")
    once = float((ref.to(dt).double() - ref).norm() / ref.norm())  # each output rounded once from float64
    limit_line = f"; ours takes {results['ours'] / results['limit']:.2f}x the limit's time" if limit else ""
    rows.append("  -> " + "; ".join(ratio_lines(results, replayed)) +
                f"; the reference kernel takes {results['ours.reference'] / results['ours']:.2f}x ours' time" +
                limit_line +
                f"; host time of one launch (enqueue's Python path): {host_us(ours):.1f} us"
                f"; relL2 of the float64 result rounded once to {case.dtype}: {once:.2e}")
    torch.cuda.synchronize()
    return rows


SAME_OUTPUT = ("torch.sa_+bincount", "pyg.scatter(mean)", "segment_reduce(coo)")  # sum and in-degree, like ours
GIVEN_COUNTS = ("segment_reduce(given)", "cusparse.spmm(given)")  # sorted input: handed the in-degree
WITH_BINCOUNT = ("torch.sa_+bincount", "segment_reduce(coo)")  # bincount reads the largest index on the host: a sync
SMALL_EDGES = 64 << 10


def ratio_lines(results: dict[str, float], replayed: dict[str, float]) -> list[str]:
    """Best peer's time / ours, per peer family, eager and (small cases) replayed."""
    lines = []
    for label, times in (("eager", results), ("graph", replayed)):
        peers = [k for k in times if not k.startswith("ours") and k != "limit"]
        sum_only = [k for k in peers if k not in SAME_OUTPUT + GIVEN_COUNTS]
        for family, names in (("sum-only", sum_only), ("same-output", [k for k in SAME_OUTPUT if k in times]),
                              ("given-counts", [k for k in GIVEN_COUNTS if k in times])):
            finite = [k for k in names if times[k] == times[k]]  # NaN: not capturable
            if finite and "ours" in times:
                best = min(finite, key=times.__getitem__)
                lines.append(f"{label} vs best {family} ({best}) {times[best] / times['ours']:.2f}x")
    return lines


def graph_replay_ms(op: Callable[[], None], reset: Callable[[], None], reps: int) -> float:
    """Median ms of replaying op captured in a CUDA graph (no host launch cost inside)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        op()  # warm-up outside capture (lazy init, allocator)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(graph):
            op()
    except RuntimeError:
        return float("nan")
    return statistics.median(time_ms(graph.replay, reset, reps))


def host_us(op: Callable[[], None], calls: int = 50) -> float:
    """Median wall time of enqueueing op once on an idle GPU (a full launch queue would block)."""
    times = []
    for _ in range(calls):
        torch.cuda.synchronize()
        start = time.perf_counter()
        op()
        times.append(time.perf_counter() - start)
    torch.cuda.synchronize()
    return 1e6 * statistics.median(times)


def copy_roofline_gbs() -> float:
    a = torch.empty(512 * 2**20, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    ms = statistics.median(time_ms(lambda: b.copy_(a), lambda: None, 20))
    return 2 * a.numel() / ms / 1e6


def cases(full: bool) -> list[Case]:
    if full:
        grid = itertools.product(("fp32", "fp16", "bf16"), ("int32", "int64"), (1, 32, 64, 128), (1, 16, 256),
                                 ("uniform", "powerlaw", "sorted", "half-to-one"))
        return [Case(d, i, min(256 << 10, (64 << 20) // f) * deg, min(256 << 10, (64 << 20) // f), f, o)
                for d, i, f, deg, o in grid]
    m, k = 1 << 20, 1 << 10
    headline = [Case(d, "int32", 4 * m, 256 * k, 64, o) for d in ("fp32", "fp16", "bf16")
                for o in ("uniform", "sorted", "powerlaw", "powerlaw-sorted", "half-to-one", "half-to-one-sorted")]
    widths = [Case(d, "int32", 4 * m, 256 * k, f, o) for d in ("fp32", "fp16") for f in (32, 128)
              for o in ("uniform", "sorted")]
    narrow = [Case(d, "int32", 64 * m, 4 * m, 1, o) for d in ("fp32", "fp16") for o in ("uniform", "sorted")] + [
        Case("fp32", "int32", 64 * m, 4 * m, 1, "half-to-one")]  # F = 1's scratch with a row past 2^24: recounted
    int64 = [Case("fp16", "int64", 4 * m, 256 * k, 64, o) for o in ("uniform", "sorted")]
    # mean in-degree 256 / 1 with dst far below / far above the 50 MB L2 (fp16, F=64: 2 MB / 512 MB)
    degrees = [Case("fp16", "int32", 4 * m, 16 * k, 64, o) for o in ("uniform", "sorted")] + [
        Case("fp16", "int32", 4 * m, 4 * m, 64, o) for o in ("uniform", "sorted")]
    tiny = [Case("fp16", "int32", e, n, 32, o) for e, n in ((6, 4), (k, 256), (64 * k, 4 * k))
            for o in ("sorted", "uniform")]
    return headline + widths + narrow + int64 + degrees + tiny


CHUNK = 2048  # edges: the combining limit's stretch, the kernel's longest span


def combined_indices(idx: torch.Tensor, n_nodes: int) -> torch.Tensor:
    """idx with every repeat of a row inside one CHUNK of edges set to -1 (skipped): what the limit
    kernels add when each chunk's repeats are combined perfectly, one RED a row a chunk."""
    key = torch.arange(idx.numel(), device="cuda") // CHUNK * n_nodes + idx.long()
    order = torch.sort(key, stable=True).indices
    ordered = key[order]
    first = torch.ones_like(ordered, dtype=torch.bool)
    first[1:] = ordered[1:] != ordered[:-1]
    keep = torch.empty_like(first)
    keep[order] = first
    return torch.where(keep, idx, torch.full_like(idx, -1))


def counted_limit_op(case: Case, src: torch.Tensor, idx: torch.Tensor) -> Callable[[], None]:
    """F = 1: limit.cu's limit_counted, a RED of (value, 1.0) an edge into its own [N, 2] pairs."""
    from kernels import cuda_calls as cuda

    arch = kernels.current_arch()
    (function,), _ = cuda.load(limit_cubin(case.dtype, case.index, arch), ("limit_counted",), arch)
    pairs = torch.zeros(case.n_nodes, 2, dtype=src.dtype, device="cuda")
    values = (pairs.data_ptr(), src.data_ptr(), idx.data_ptr(), case.n_edges, case.n_nodes, 1)
    args = cuda.packed(values, (cuda.P,) * 3 + (cuda.LL,) * 3)
    blocks = max(1, min((case.n_edges + 255) // 256, 1 << 20))

    def op() -> None:
        _ = pairs  # held with the op
        cuda.launch(function, blocks, 256, args, torch.cuda.current_stream().cuda_stream)

    return op


def skew_cases() -> list[tuple[Case, ...]]:
    """Each shape of --skews with every skew of SKEWS, uniform first (the ratios' base)."""
    m, k = 1 << 20, 1 << 10
    shapes = [("fp32", 64 * m, 4 * m, 1)] + [(d, 4 * m, 256 * k, 64) for d in TORCH_DTYPES]
    return [tuple(Case(d, "int32", e, n, f, o) for o in SKEWS) for d, e, n, f in shapes]


def print_exact_count_limit(case: Case, src: torch.Tensor, idx: torch.Tensor, ours_ms: float,
                            reset: Callable[[], None], reps: int) -> None:
    """16-bit F = 1: the counting limit's 16-bit count is exact only to 2,048 (fp16) or 256 (bf16);
    with exact counts it is the fp32 limit's 8-byte (value, 1.0) RED on the same edges, src widened."""
    wide = src.float()
    limit = counted_limit_op(Case("fp32", case.index, case.n_edges, case.n_nodes, 1, case.order),
                             wide, idx)
    exact = statistics.median(time_ms(limit, reset, reps))  # ours' reset: dst's copy leaves L2 alike
    print(f"{case.dtype} E={case.n_edges} N={case.n_nodes} F=1 {case.order}, the limit with exact "
          f"counts (fp32 pairs) | {ours_ms:.4f} | | {exact:.4f} | | {ours_ms / exact:.2f}x |")


def bench_skews(reps: int, match: str) -> None:
    """The skew table: ours and the combining limit on each skew, each against uniform order; at
    F = 1 the limit counts (limit_counted), as ours does, and uniform F = 1 is also run in 16 bits.
    Checks ours' counts against bincount and prints its relative L2 error against float64."""
    m = 1 << 20
    extra = [(Case(d, "int32", 64 * m, 4 * m, 1, "uniform"),) for d in ("fp16", "bf16")]
    print("case | ours ms | / uniform | limit ms | / uniform | ours / limit | relL2")
    for shape in skew_cases() + extra:
        base: dict[str, float] = {}
        for case in shape:
            title = f"{case.dtype} E={case.n_edges} N={case.n_nodes} F={case.n_feat} {case.order}"
            if match not in title:
                continue
            t = case_tensors(case)
            kernel = get_kernel(case.dtype, case.index)
            args = t.launch_args(case)
            combined = combined_indices(t.idx, case.n_nodes).to(t.idx.dtype)
            if case.n_feat == 1:
                limit = counted_limit_op(case, t.src, combined)
            else:
                limit = limit_op(case, t.dst, t.src, combined)

            def reset() -> None:
                t.dst.copy_(t.x0)

            def ours() -> None:
                kernel.launch(**args)

            out = run_once(ours, reset, t.dst)
            counts = torch.bincount(t.idx.long(), minlength=case.n_nodes)
            if not torch.equal(t.counts.long(), counts):
                raise SystemExit(f"wrong counts on {title}")
            ref = t.x0.double().index_add_(0, t.idx.long(), t.src.double())
            err = float((out - ref).norm() / ref.norm())
            ms = {"ours": statistics.median(time_ms(ours, reset, reps)),
                  "limit": statistics.median(time_ms(limit, reset, reps))}
            base = base or ms
            print(f"{title} | {ms['ours']:.4f} | {ms['ours'] / base['ours']:.2f}x | "
                  f"{ms['limit']:.4f} | {ms['limit'] / base['limit']:.2f}x | "
                  f"{ms['ours'] / ms['limit']:.2f}x | {err:.1e}")
            if case.n_feat == 1 and case.dtype != "fp32":
                print_exact_count_limit(case, t.src, combined, ms["ours"], reset, reps)
            sys.stdout.flush()
            del t, out, ref, combined
            torch.cuda.empty_cache()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--match", default="", help="only cases whose title contains this text")
    parser.add_argument("--skews", action="store_true", help="the skew table (bench_skews) only")
    args = parser.parse_args()
    if args.skews:
        print(f"GPU {torch.cuda.get_device_name()}, torch {torch.__version__}")
        bench_skews(args.reps, args.match)
        return 0
    roofline = copy_roofline_gbs()
    print(f"GPU {torch.cuda.get_device_name()}, torch {torch.__version__}, copy roofline {roofline:.0f} GB/s")
    for case in cases(args.full):
        title = f"{case.dtype} {case.index} E={case.n_edges} N={case.n_nodes} F={case.n_feat} {case.order}"
        if args.match not in title:
            continue
        print(title)
        for row in bench_case(case, args.reps, roofline):
            print(row)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
