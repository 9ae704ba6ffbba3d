#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""F = 1 scatter-add on one GPU, one process, the same tensors for everyone: proto.cu's variants ("new"),
v14 (the plugin's launch path, kernel.ScatterAddKernel.launch), and the
peers (torch index_add_, scatter_add_+bincount, segment_reduce+add given the lengths and with bincount inside
the timed region, PyG scatter mean). Every result of ours, v14 and index_add_ is checked against float64
(sums within tolerance, counts exactly equal, bitwise repeat run to run), with counts and workspace poisoned.

    python3 benchmarks/f1_prototype/bench_f1.py                 # everything
    python3 benchmarks/f1_prototype/bench_f1.py --only small    # cases whose title contains "small"
    python3 benchmarks/f1_prototype/bench_f1.py --check         # correctness suite only (odd sizes, out-of-range, int64, bf16)
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402
import cuda.bindings.driver as driver  # noqa: E402

from v14 import compiler, plan  # noqa: E402
from v14 import kernel as sak  # noqa: E402

DT = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
CT = {"fp32": "float", "fp16": "__half", "bf16": "__nv_bfloat16"}
IT = {"int32": "int", "int64": "long long"}
SUF = {"fp32": "f32", "fp16": "f16", "bf16": "bf16", "int32": "i32", "int64": "i64"}
BITS = {"fp32": torch.int32, "fp16": torch.int16, "bf16": torch.int16}

# (float, index, K, HINT); fp32 picks MODE 1 on the GPU where allowed (New.allowed) and idx is provably unsorted
VARIANTS = [("fp32", "int32", 8, 1), ("fp16", "int32", 8, 1), ("fp32", "int64", 8, 1), ("fp16", "int64", 8, 1),
            ("bf16", "int32", 8, 1)]
CTRL = 130  # proto.cu
_P, _LL, _I = sak._P, sak._LL, sak._I


def vname(v: tuple) -> str:
    f, i, k, h = v
    return f"f1_{SUF[f]}_{SUF[i]}_k{k}_h{h}"


def entry(v: tuple) -> str:
    f, i, k, h = v
    return f"F1({vname(v)},{CT[f]},{IT[i]},{k},{h})"


def launch(fn, grid: int, block: int, values: tuple, stream: int, types=sak.ARG_TYPES) -> None:
    args = sak.packed(tuple(values), types)
    sak.check(driver.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, stream, args.address, 0), "cuLaunchKernel")


class Proto:
    """proto.cu compiled with NVRTC (v14's compiler), loaded in torch's context."""

    def __init__(self, variants: list[tuple]) -> None:
        torch.cuda.synchronize()
        arch = sak.device_arch(sak.current_device()[1])
        ents = " ".join(entry(v) for v in variants)
        opts = compiler.compile_options(arch, compiler.find_cuda_include_dir()) + [
            f"-I{HERE / 'v14'}", "-DSCATTER_ENTRIES=", f"-DF1_ENTRIES={ents}"]
        t0 = time.time()
        cubin, _ = compiler.nvrtc_compile(HERE / "proto.cu", arch, opts)
        print(f"# NVRTC proto.cu ({len(variants)} variants): {time.time() - t0:.1f} s", flush=True)
        Path("/tmp/proto.cubin").write_bytes(cubin)
        self.module = sak.check(driver.cuModuleLoadData(cubin), "cuModuleLoadData")
        self.fit = sak.blocks_that_fit(sak.current_device()[1])

    def fn(self, name: str):
        return sak.check(driver.cuModuleGetFunction(self.module, name.encode()), name)


class New:
    """The F = 1 path. small: one block, one launch. Else, where MODE 1 is allowed (fp32, N >= CTRL, E >= 2N and
    2^18): zero kernel, main, after (fix-up or unpack), and recount where E >= 2^24; otherwise memset(counts),
    main, and after (v14's fix-up) where 2+ spans. mode0=True forbids MODE 1 (comparison only)."""

    def __init__(self, proto: Proto, v: tuple, mode0: bool = False, balanced: bool = False) -> None:
        self.v, self.ft, self.k, self.mode0, self.balanced = v, v[0], v[2], mode0, balanced
        n = vname(v)
        self.main, self.after, self.small_fn = proto.fn(n), proto.fn(n + "_after"), proto.fn(n + "_small")
        self.zero, self.recount = proto.fn(n + "_zero"), proto.fn(n + "_recount")
        self.fit = proto.fit

    def layout(self, n_edges: int) -> tuple[int, int]:
        span = plan.span_length(n_edges, plan.Tile(1, self.k, 1, 1), plan.FLOATS[self.ft][1], 1)
        return span, plan.spans(n_edges, span)

    def allowed(self, n_edges: int, n_nodes: int) -> bool:
        return self.ft == "fp32" and not self.mode0 and n_nodes >= CTRL and n_edges >= max(2 * n_nodes, 1 << 18)

    def ws_bytes(self, n_edges: int, n_nodes: int = 0) -> int:
        pieces = plan.workspace_bytes(self.layout(n_edges)[1], 1)
        return max(pieces, 8 * n_nodes) if self.allowed(n_edges, n_nodes) else pieces

    def fits(self, n_edges: int, n_nodes: int) -> bool:
        """Within the workspace limit max(src_bytes / 8, X_bytes + counts_bytes, 64 KiB)."""
        s = plan.FLOATS[self.ft][1]
        return self.ws_bytes(n_edges, n_nodes) <= max(n_edges * s // 8, n_nodes * s + 4 * n_nodes, 64 << 10)

    def launch(self, t, stream: int, small: bool) -> None:
        n_edges, n_nodes = t.E, t.N
        span, count = self.layout(n_edges)
        ws, counts = t.ws.data_ptr(), t.counts.data_ptr()
        allowed = self.allowed(n_edges, n_nodes)
        how = int(allowed) | int(n_edges >= 1 << 24) << 1
        vals = (t.dst.data_ptr(), t.src.data_ptr(), t.idx.data_ptr(), counts, ws, ws + plan.flag_bytes(count),
                n_edges, n_nodes, 1, 1, self.k, 1, 1, span, 1, ws, how)
        types = sak.ARG_TYPES + (_P, _I)
        if small:
            assert count <= plan.FIX_BLOCK
            launch(self.small_fn, 1, plan.FIX_BLOCK, vals[:-1] + (0,), stream, types)
            return
        if allowed:
            launch(self.zero, min(plan.ceil_div(2 * n_nodes, 256), 8 * 132), 256, vals, stream, types)
        else:
            sak.check(driver.cuMemsetD32Async(counts, 0, n_nodes, stream), "memset")
        blocks = plan.main_blocks(count, self.fit)
        if self.balanced:  # as many spans for every warp: the same rounds, fewer blocks
            w = plan.BLOCK // 32
            blocks = plan.ceil_div(count, w * plan.ceil_div(count, w * blocks))
        launch(self.main, blocks, plan.BLOCK, vals, stream, types)
        if count > 1 or allowed:
            grid = plan.ceil_div(count, plan.FIX_BLOCK)
            if allowed:
                grid = max(grid, min(plan.ceil_div(n_nodes, plan.FIX_BLOCK), 2 * 132))
            launch(self.after, grid, plan.FIX_BLOCK, vals, stream, types)
        if allowed and n_edges >= 1 << 24:
            launch(self.recount, self.fit, 256, vals, stream, types)


class Tensors:
    def __init__(self, ft: str, it: str, E: int, N: int, order: str, oor: float = 0.0, seed: int = 0) -> None:
        gen = torch.Generator(device="cuda").manual_seed(seed)
        self.ft, self.it, self.E, self.N, self.order = ft, it, E, N, order
        self.x0 = torch.randn(N, 1, device="cuda", generator=gen).to(DT[ft])
        self.src = torch.randn(E, 1, device="cuda", generator=gen).to(DT[ft])
        idx = torch.randint(0, N, (E,), generator=gen, device="cuda")
        if order.startswith("hot2"):  # two rows of 45% each
            u = torch.rand(E, generator=gen, device="cuda")
            idx[u < 0.45] = 5
            idx[(u >= 0.45) & (u < 0.9)] = 77
        elif order.startswith("hot"):
            idx[torch.rand(E, generator=gen, device="cuda") < 0.5] = N // 3
        if oor:
            bad = [-1, N, N + 7, 2**31 - 1] + ([-(2**40), 2**40] if it == "int64" else [])
            mask = torch.rand(E, generator=gen, device="cuda") < oor
            choice = torch.randint(0, len(bad), (int(mask.sum()),), generator=gen, device="cuda")
            idx[mask] = torch.tensor(bad, device="cuda")[choice]
        if order.endswith("sorted"):
            idx = idx.sort().values
        self.idx = idx.to(torch.int32 if it == "int32" else torch.int64).contiguous()
        self.idx_long = idx
        self.dst = torch.empty_like(self.x0)
        self.counts = torch.empty(N, dtype=torch.int32, device="cuda")
        self.ws = torch.empty(1, dtype=torch.uint8, device="cuda")
        valid = (idx >= 0) & (idx < N)
        vi = idx[valid]
        self.ref = self.x0.double().index_add_(0, vi, self.src.double()[valid])
        self.ref_counts = torch.bincount(vi, minlength=N).to(torch.int32)
        self.max_degree = int(self.ref_counts.max()) if N else 0
        self.once = float((self.ref.to(DT[ft]).double() - self.ref).norm() / self.ref.norm())
        s, b = self.x0.element_size(), self.idx.element_size()
        self.bytes = E * s + E * b + 2 * N * s + 4 * N

    def workspace(self, nbytes: int) -> None:
        if self.ws.numel() < nbytes:
            self.ws = torch.empty(max(nbytes, 1), dtype=torch.uint8, device="cuda")

    def reset(self) -> None:
        self.dst.copy_(self.x0)


def time_ms(op, reset, reps: int) -> list[float]:
    times = []
    for i in range(max(reps, 1) + 3):
        reset()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        op()
        end.record()
        end.synchronize()
        if i >= 3:
            times.append(start.elapsed_time(end))
    return times


def graph_replay_ms(op, reset, reps: int, burst: int = 20):
    """(median ms of one replay between events, median ms per replay of bursts of `burst` replays, graph)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        op()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        op()
    torch.cuda.synchronize()
    one = statistics.median(time_ms(graph.replay, reset, reps))

    def many() -> None:
        for _ in range(burst):
            graph.replay()
    per = statistics.median(time_ms(many, reset, max(reps // 5, 20))) / burst
    return one, per, graph


def check(op, t: Tensors, tol: float, with_counts: bool = True) -> str:
    """Poisoned counts and workspace, fresh dst: sums vs float64, exact counts, bitwise repeat."""
    outs = []
    for _ in range(2):
        t.counts.fill_(0x7F7F7F7F)
        t.ws.random_(0, 256)
        t.reset()
        op()
        torch.cuda.synchronize()
        outs.append((t.dst.clone(), t.counts.clone()))
    out = outs[0][0].double()
    err = float((out - t.ref).norm() / t.ref.norm())
    counts_ok = not with_counts or (bool(torch.equal(outs[0][1], t.ref_counts)) and
                                    bool(torch.equal(outs[1][1], t.ref_counts)))
    bitwise = bool(torch.equal(outs[0][0].view(BITS[t.ft]), outs[1][0].view(BITS[t.ft])))
    ok = err <= tol and counts_ok and math.isfinite(err)
    cnt = ('exact' if counts_ok else 'WRONG') if with_counts else 'n/a  '
    return f"relL2 {err:9.2e} counts {cnt} {'bitwise' if bitwise else 'varies '}" \
           f" {'PASS' if ok else 'FAIL'}{'' if bitwise or not t.order.endswith('sorted') else ' NOT-REPEATABLE'}"


def tolerance(t: Tensors) -> float:
    """fp32 sums of many terms in any order drift by ~3e-11 a term in a row; 16-bit REDs round at every addition,
    so in unsorted order rows of many additions get a sanity bound only (v14 alike; its rows are checked too)."""
    if t.ft != "fp32" and not t.order.endswith("sorted"):
        return 0.5 if t.order.startswith("hot") else 0.05
    return 4 * t.once + 2e-6 + 3e-11 * t.max_degree


def copy_roofline_gbs() -> float:
    a = torch.empty(512 * 2**20, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    ms = statistics.median(time_ms(lambda: b.copy_(a), lambda: None, 20))
    return 2 * a.numel() / ms / 1e6


def peers(t: Tensors, graphable_only: bool = False) -> dict:
    dst, src, idx, il, N = t.dst, t.src, t.idx, t.idx_long, t.N
    expanded = il.unsqueeze(1)
    p = {"torch.index_add_": lambda: dst.index_add_(0, idx, src),
         "torch.scatter_add_": lambda: dst.scatter_add_(0, expanded, src)}
    if graphable_only:
        return p
    p["torch.sa_+bincount"] = lambda: (dst.scatter_add_(0, expanded, src), torch.bincount(il, minlength=N))
    if t.order.endswith("sorted"):
        lengths = torch.bincount(il, minlength=N)
        p["torch.segred+add(len given)"] = lambda: dst.add_(torch.segment_reduce(src, "sum", lengths=lengths, axis=0,
                                                                                  unsafe=True))
        p["torch.bincount+segred+add"] = lambda: dst.add_(torch.segment_reduce(
            src, "sum", lengths=torch.bincount(il, minlength=N), axis=0, unsafe=True))
    try:
        from torch_geometric.utils import scatter
        p["pyg.scatter(mean)"] = lambda: scatter(src, il, 0, dim_size=N, reduce="mean")
    except ImportError:
        print("# torch_geometric missing")
    return p


ROUNDS = 3  # bench_large: interleaved rounds
SAME_OUTPUT = ("torch.sa_+bincount", "pyg.scatter(mean)", "torch.segred+add(len given)", "torch.bincount+segred+add")


def bench_large(title: str, t: Tensors, v14k, news: dict, reps: int, roof: float) -> None:
    s_ = plan.FLOATS[t.ft][1]
    limit = max(t.E * s_ // 8, t.N * s_ + 4 * t.N, 64 << 10)
    wsb = {k: n.ws_bytes(t.E, t.N) for k, n in news.items()}
    print(f"== {title}  (roofline time {t.bytes / roof / 1e6:.4f} ms; workspace new {max(wsb.values())} B, "
          f"v14 {plan.workspace_size(t.ft, (1, 1), (t.E, t.E))} B, limit {limit} B)", flush=True)
    t.workspace(max([plan.workspace_size(t.ft, (1, 1), (t.E, t.E))] + [n.ws_bytes(t.E, t.N) for n in news.values()]))
    s = torch.cuda.current_stream().cuda_stream
    impls = {"v14": lambda: v14k.launch(x=t.dst.data_ptr(), dst=t.dst.data_ptr(), src=t.src.data_ptr(),
                                        idx=t.idx.data_ptr(), counts=t.counts.data_ptr(), n_nodes=t.N, n_feat=1,
                                        n_edges=t.E, workspace=t.ws.data_ptr(), stream=s)}
    for name, n in news.items():
        if n.fits(t.E, t.N):
            impls[name] = (lambda n=n: n.launch(t, s, False))
    checked = set(impls) | {"torch.index_add_"}
    impls.update(peers(t))
    res, samples, rounds, reps_of = {}, {k: [] for k in impls}, {k: [] for k in impls}, {}
    for name, op in impls.items():  # very slow peers get fewer reps
        reps_of[name] = reps if time_ms(op, t.reset, 0)[0] < 20 else 3
    for _ in range(ROUNDS):  # implementations take turns, so that a slow phase of the GPU hits them all
        for name, op in impls.items():
            if _ and reps_of[name] == 3:
                continue  # slow peers: one round
            try:
                ts = time_ms(op, t.reset, reps_of[name])
                samples[name] += ts
                rounds[name].append(statistics.median(ts))
            except Exception:
                print(f"  {name:<34} ERROR\n{traceback.format_exc()}", flush=True)
    for name, op in impls.items():
        if not samples[name]:
            continue
        ms = res[name] = statistics.median(samples[name])
        gbs = t.bytes / ms / 1e6
        chk = check(op, t, tolerance(t), not name.startswith("torch")) if name in checked else ""
        spread = f"[{min(rounds[name]):.4f}-{max(rounds[name]):.4f}]" if len(rounds[name]) > 1 else ""
        print(f"  {name:<30} {ms:8.4f} ms {spread:<17} {gbs:6.0f} GB/s {100 * gbs / roof:5.1f}%  {chk}", flush=True)
    ours = {k: v for k, v in res.items() if k.startswith("new")}
    if ours and "v14" in res:
        best = min(ours, key=ours.get)
        same = {k: res[k] for k in SAME_OUTPUT if k in res}
        line = f"  -> best new {best} {ours[best]:.4f} ms; v14/new {res['v14'] / ours[best]:.2f}x"
        if same:
            bp = min(same, key=same.get)
            line += f"; best same-output peer {bp} {same[bp]:.4f} ms, peer/new {same[bp] / ours[best]:.2f}x"
        if "pyg.scatter(mean)" in res:
            line += f"; pyg/new {res['pyg.scatter(mean)'] / ours[best]:.2f}x"
        print(line, flush=True)


def bench_small(title: str, t: Tensors, v14k, new: New, reps: int) -> None:
    print(f"== {title}", flush=True)
    t.workspace(max(plan.workspace_size(t.ft, (1, 1), (t.E, t.E)), new.ws_bytes(t.E, t.N)))
    cur = lambda: torch.cuda.current_stream().cuda_stream  # noqa: E731 (graph capture uses its own stream)
    impls = {"v14 (3 nodes)": lambda: v14k.launch(x=t.dst.data_ptr(), dst=t.dst.data_ptr(), src=t.src.data_ptr(),
                                                 idx=t.idx.data_ptr(), counts=t.counts.data_ptr(), n_nodes=t.N,
                                                 n_feat=1, n_edges=t.E, workspace=t.ws.data_ptr(), stream=cur()),
             f"new {vname(new.v)} 3 nodes": lambda: new.launch(t, cur(), False)}
    if new.layout(t.E)[1] <= plan.FIX_BLOCK:
        impls[f"new {vname(new.v)} one block"] = lambda: new.launch(t, cur(), True)
    checked = set(impls) | {"torch.index_add_"}
    impls.update(peers(t, graphable_only=True))
    one, per = {}, {}
    for name, op in impls.items():
        try:
            eager = statistics.median(time_ms(op, t.reset, reps))
            one[name], per[name], graph = graph_replay_ms(op, t.reset, reps)
            chk = check(graph.replay, t, tolerance(t), not name.startswith("torch")) if name in checked else ""
            print(f"  {name:<36} eager {eager:7.4f}  graph 1 replay {one[name]:7.4f}  in bursts {per[name]:7.4f} ms"
                  f"  {chk}", flush=True)
        except Exception:
            print(f"  {name:<36} ERROR\n{traceback.format_exc()}", flush=True)
    for label, res in (("1 replay", one), ("bursts", per)):
        tb = min(res.get("torch.index_add_", 1e9), res.get("torch.scatter_add_", 1e9))
        print(f"  -> {label}: " + "; ".join(f"{k.replace(' (3 nodes)', '').replace('new ' + vname(new.v) + ' ', 'new ')}"
                                           f" {tb / v:.2f}x" for k, v in res.items() if not k.startswith("torch"))
              + " (best torch / ours)", flush=True)


def calibrate(proto: Proto, reps: int) -> None:
    """Graph replays of 1-3 empty kernel nodes and of memset + kernel: the per-node cost, same timing as above."""
    print("== graph-node overhead calibration (empty kernels)", flush=True)
    empty = proto.fn("f1_empty")
    buf = torch.empty(4096, dtype=torch.int32, device="cuda")
    for nodes in ("k", "kk", "kkk", "mk", "mkk"):
        def op(nodes=nodes) -> None:
            st = torch.cuda.current_stream().cuda_stream
            for c in nodes:
                if c == "k":
                    sak.check(driver.cuLaunchKernel(empty, 1, 1, 1, 32, 1, 1, 0, st, 0, 0), "empty")
                else:
                    sak.check(driver.cuMemsetD32Async(buf.data_ptr(), 0, 256, st), "memset")
        one, per, _ = graph_replay_ms(op, lambda: None, reps)
        print(f"  {nodes:<4} (k: empty kernel, m: memset)  1 replay {one:7.4f} ms  in bursts {per:7.4f} ms", flush=True)


def check_suite(proto: Proto, variants: list[tuple], v14ks: dict, sanitize: bool) -> None:
    """Odd sizes, out-of-range indices, partial last spans, int64, bf16, the one-block path, MODE 1 (fp32, random
    order) and forced MODE 0, rows of 2^24+ edges (MODE 1 recounts them; rows below CTRL are stashed)."""
    print("== correctness suite (poisoned counts and workspace, ~1% out-of-range indices)", flush=True)
    for v in variants:
        sizes = [(1_000_003, 100_003), (300_001, 1_000), (70_001, 16_001), (1001, 257), (5, 3)]
        if sanitize:
            sizes = [sz for sz in sizes if sz[0] < 400_000]
        cases = [(E, N, o) for E, N in sizes for o in ("sorted", "uniform", "hot-sorted", "hot-uniform")]
        if v[0] == "fp32" and (not sanitize or v[1] == "int32"):  # 2^24+ edges a row: >= CTRL, < CTRL, two rows
            cases += [(34_000_000, 600, "hot-uniform"), (34_000_000, 200, "hot-uniform")]
            if not sanitize:
                cases += [(40_000_000, 300, "hot2-uniform"), (40_000_000, 600, "hot-sorted")]
        for E, N, order in cases:
            t = Tensors(v[0], v[1], E, N, order, oor=0.01, seed=E + N)
            s = torch.cuda.current_stream().cuda_stream
            for new, small in ((New(proto, v), False), (New(proto, v, mode0=True), False), (New(proto, v), True)):
                if (new.mode0 and not New(proto, v).allowed(E, N)) or (small and new.layout(E)[1] > plan.FIX_BLOCK):
                    continue
                if not new.fits(E, N):
                    print(f"  {vname(v):<20} E={E} N={N}: workspace {new.ws_bytes(E, N)} over the limit", flush=True)
                    continue
                t.workspace(new.ws_bytes(E, N))
                path = "one-block" if small else ("MODE0" if new.mode0 else ("auto" if new.allowed(E, N) else "stream"))
                r = check(lambda: new.launch(t, s, small), t, tolerance(t))
                print(f"  {vname(v):<20} {path:<9} E={E:<9} N={N:<8} {order:<12} {r}", flush=True)
            key = (v[0], v[1])
            if key in v14ks and E > 1000 and E < 10**7 and not sanitize:
                t.workspace(plan.workspace_size(v[0], (1, 1), (E, E)))
                r = check(lambda: v14ks[key].launch(x=t.dst.data_ptr(), dst=t.dst.data_ptr(),
                                                    src=t.src.data_ptr(), idx=t.idx.data_ptr(),
                                                    counts=t.counts.data_ptr(), n_nodes=N, n_feat=1, n_edges=E,
                                                    workspace=t.ws.data_ptr(), stream=s), t, tolerance(t))
                print(f"  {'v14':<20} {'stream':<9} E={E:<9} N={N:<8} {order:<12} {r}", flush=True)
            del t


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--check", action="store_true", help="correctness suite only")
    ap.add_argument("--sanitize", action="store_true", help="with --check: small sizes only (compute-sanitizer)")
    ap.add_argument("--no-check", action="store_true", help="skip the correctness suite")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds of the large cases")
    ap.add_argument("--small-reps", type=int, default=200)
    ap.add_argument("--variants", default="", help="comma list of variant names to compile (default all)")
    args = ap.parse_args()
    global ROUNDS
    ROUNDS = args.rounds
    alts = args.only.replace("_", " ").split("|")
    wanted = lambda title: any(a in title for a in alts)  # noqa: E731
    torch.cuda.init()
    print(f"GPU {torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    variants = [v for v in VARIANTS if not args.variants or vname(v) in args.variants.split(",")]
    proto = Proto(variants)
    t0 = time.time()
    v14ks = {}
    for pair in sorted({(v[0], v[1]) for v in variants if v[1] == "int32" and v[0] != "bf16"}):
        v14ks[pair] = compiler.build(*pair)[1]
    print(f"# NVRTC v14 ({len(v14ks)} pairs): {time.time() - t0:.1f} s", flush=True)
    if not args.no_check:
        check_suite(proto, variants, v14ks, args.sanitize)
    if args.check:
        return 0
    roof = copy_roofline_gbs()
    print(f"# copy roofline {roof:.0f} GB/s", flush=True)
    if wanted("calib"):
        calibrate(proto, args.small_reps)
    M, K = 1 << 20, 1 << 10
    for ft in ("fp32", "fp16"):
        news = {f"new {vname(v)}": New(proto, v) for v in variants if v[:2] == (ft, "int32")}
        if ft == "fp32":
            news.update({f"new {vname(v)} MODE0 only": New(proto, v, mode0=True) for v in variants
                         if v[:2] == (ft, "int32")})
        if not news:
            continue
        small = New(proto, next(v for v in variants if v[:2] == (ft, "int32")))
        for E, N in ((K, 256), (8 * K, 2 * K), (64 * K, 16 * K)):
            for order in ("sorted", "uniform"):
                title = f"small {ft} int32 E={E} N={N} F=1 {order} (CUDA graph replay)"
                if wanted(title):
                    bench_small(title, Tensors(ft, "int32", E, N, order), v14ks[(ft, "int32")], small, args.small_reps)
        orders = ("sorted", "uniform") + (("hot-sorted", "hot-uniform") if ft == "fp32" else ())
        for order in orders:
            title = f"large {ft} int32 E={64 * M} N={4 * M} F=1 {order}"
            if wanted(title):
                t = Tensors(ft, "int32", 64 * M, 4 * M, order)
                bench_large(title, t, v14ks[(ft, "int32")], news, args.reps, roof)
                del t
                torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
