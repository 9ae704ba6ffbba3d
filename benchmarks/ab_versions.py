#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""This kernel against an earlier one, in one process, on the same tensors, interleaved round by round, so that the
GPU's drift hits both alike (separate runs of bench_scatter_add.py differ by several percent on sorted input, and by
up to 40% on small graphs). The earlier version is a copy of its ``kernels/`` folder (before the files moved to
the top level, of its ``scatter_add_plugin/`` package), for example

    mkdir -p /tmp/earlier && git archive COMMIT kernels | tar -x -C /tmp/earlier
    python3 benchmarks/ab_versions.py /tmp/earlier/kernels

``--match`` picks cases by title; ``--shape dtype:index:E:N:F:order`` times cases of your own instead (a variant
of a block, say, on the rows it should win). Small graphs (E <= 64K) are timed as CUDA-graph replays, the rest
eagerly; the two versions take turns going first. Prints the median ms of each version and their ratio (earlier / this: above 1 means this kernel is
faster), and each version's relative L2 error against float64, after checking that their counts agree.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import statistics
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scatter_add import (SMALL_EDGES, Case, Tensors, case_tensors, cases, get_kernel,  # noqa: E402
                               graph_replay_ms, time_ms)
from kernels import plan  # noqa: E402


def import_copy(folder: str) -> ModuleType:
    """The package at ``folder`` under the name ``earlier_scatter_add_plugin`` (its imports are relative)."""
    init = Path(folder) / "__init__.py"
    spec = importlib.util.spec_from_file_location("earlier_scatter_add_plugin", init,
                                                  submodule_search_locations=[str(init.parent)])
    assert spec and spec.loader
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package
    spec.loader.exec_module(package)
    return package


def earlier_kernel(builder: Any, case: Case) -> Any:
    """The earlier version's fast kernel for this case: build() before kernels/ had its interface, else the
    interface's compile and load (kernels/__init__.py), by keyword (its names have not changed)."""
    if hasattr(builder, "build"):
        return builder.build(case.dtype, case.index)[1]
    package: Any = sys.modules["earlier_scatter_add_plugin"]
    fast = package.choose("fast")
    return fast.load(fast.compile(float_type=case.dtype, index_type=case.index, arch=package.current_arch()))


def launch_args(kernel: Any, t: Tensors, case: Case) -> dict[str, int]:
    """bench_scatter_add's launch arguments, without the workspace's size for a launch() that does not take it
    (before kernels/ had its interface), and with ``x`` (dst itself: in place) for one that still takes it (before
    the plugin's enqueue made dst hold X)."""
    args = t.launch_args(case)
    parameters = inspect.signature(kernel.launch).parameters
    if "workspace_size" not in parameters:
        del args["workspace_size"]
    if "x" in parameters:
        args["x"] = args["dst"]
    return args


def errors(kernels: dict[str, object], t: Tensors, case: Case) -> dict[str, float]:
    """Each version's relative L2 error against float64, from the same x, after checking that their counts agree.
    Random order sums in a varying order, so the two need not be equal; this version may not be more than three times
    as far off as the earlier one, unless it stays within the kernel's bound (two roundings of fp32 per sum of
    |terms|, as relative L2): a check that catches a wrong result, not noise, nor a more accurate one (a hub's sum
    added once, not an atomic a run)."""
    ref = t.x0.double().index_add_(0, t.idx.long(), t.src.double())
    terms = t.x0.double().abs().index_add_(0, t.idx.long(), t.src.double().abs())
    bound = float(2 * 2.0**-24 * terms.norm() / ref.norm())
    out, counts = {}, []
    for name, kernel in kernels.items():
        t.dst.copy_(t.x0)
        kernel.launch(**launch_args(kernel, t, case))  # type: ignore[attr-defined]
        torch.cuda.synchronize()
        out[name] = float((t.dst.double() - ref).norm() / ref.norm())
        counts.append(t.counts.clone())
    before, now = out.values()
    if not torch.equal(*counts) or now > max(3 * before + 1e-7, bound):  # (1e-7: both exact, or nearly)
        raise SystemExit(f"the two versions disagree on {case}: counts equal {torch.equal(*counts)}, relL2 {out}")
    return out


def workspace_of(earlier_plan: Any, dtype: str, sizes: tuple, nodes: tuple[int, int]) -> int:
    """A version's own layout, by keyword (its names have not changed): its workspace_size takes N since the F = 1
    scratch."""
    features, edges = sizes
    try:
        return earlier_plan.workspace_size(float_type=dtype, nodes=nodes, edges=edges, features=features)
    except TypeError:
        return earlier_plan.workspace_size(float_type=dtype, features=features, edges=edges)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("earlier", help="the earlier version's kernels/ (or scatter_add_plugin/) folder")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--match", action="append", default=[],
                        help="only cases whose title contains this text (repeat: any of them)")
    parser.add_argument("--shape", action="append", default=[], metavar="DTYPE:INDEX:E:N:F:ORDER",
                        help="a case of your own instead of the benchmark's, e.g. fp16:int32:16777216:1048576:2:sorted")
    args = parser.parse_args()
    import_copy(args.earlier)
    builder = "scatter_add" if (Path(args.earlier) / "scatter_add.py").exists() else "compiler"  # the old package's
    earlier: Any = importlib.import_module(f"earlier_scatter_add_plugin.{builder}")
    earlier_plan: Any = importlib.import_module("earlier_scatter_add_plugin.plan")

    print(f"GPU {torch.cuda.get_device_name()}; median of {args.rounds} rounds x {args.reps} reps, interleaved")
    chosen = [Case(d, i, int(e), int(n), int(f), o) for d, i, e, n, f, o in (s.split(":") for s in args.shape)]
    for case in chosen or cases(False):
        title = f"{case.dtype} {case.index} E={case.n_edges} N={case.n_nodes} F={case.n_feat} {case.order}"
        if args.match and not any(text in title for text in args.match):
            continue
        t = case_tensors(case)
        sizes = (case.n_feat, case.n_feat), (case.n_edges, case.n_edges)
        nodes = (case.n_nodes, case.n_nodes)  # asked for by versions with the F = 1 scratch
        need = max(workspace_of(plan, case.dtype, sizes, nodes), workspace_of(earlier_plan, case.dtype, sizes, nodes))
        t = Tensors(t.x0, t.src, t.idx, t.dst, t.counts, torch.empty(need, dtype=torch.uint8, device="cuda"))
        torch.cuda.synchronize()
        kernels = {"earlier": earlier_kernel(earlier, case), "this": get_kernel(case.dtype, case.index)}
        err = errors(kernels, t, case)
        given = {name: launch_args(kernel, t, case) for name, kernel in kernels.items()}  # outside the timed region
        times: dict[str, list[float]] = {name: [] for name in kernels}
        small = case.n_edges <= SMALL_EDGES
        for round_ in range(args.rounds):
            for name, kernel in sorted(kernels.items(), reverse=round_ % 2 == 1):
                def op(k=kernel, a=given[name]) -> None:
                    k.launch(**{**a, "stream": torch.cuda.current_stream().cuda_stream})
                reset = lambda: t.dst.copy_(t.x0)  # noqa: E731
                if small:
                    times[name].append(graph_replay_ms(op, reset, args.reps))
                else:
                    times[name] += time_ms(op, reset, args.reps)
        ms = {name: statistics.median(v) for name, v in times.items()}
        print(f"{title:<52} {'replay' if small else 'eager '} earlier {ms['earlier']:.4f} ms  this {ms['this']:.4f} ms"
              f"  {ms['earlier'] / ms['this']:.2f}x  relL2 {err['earlier']:.1e} / {err['this']:.1e}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
