#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The kernel's targets (those set for v14), read from a log of bench_scatter_add.py and, for the "no slower than
before" target, a log of the previous kernel's bench_scatter_add.py made on the same GPU in the same session.

    python3 benchmarks/targets.py benchmarks/results/2026-11-25_h200_v14.log \
        benchmarks/results/2026-11-25_h200_v13_beside_v14.log

Prints a markdown table: each target, the measured ratios, met or not.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# Peers with ours's outputs. Logs before the "(coo)" row counted the two rows handed the counts among them, under
# the last two names; later logs name those "segment_reduce(given)" and "cusparse.spmm(given)", and leave them out.
SAME_OUTPUT = ("torch.sa_+bincount", "pyg.scatter(mean)", "segment_reduce(coo)", "torch.segment_reduce+add",
               "cusparse.spmm+add")
TORCH_SUM = ("torch.scatter_add_", "torch.index_add_")
ROW = re.compile(r"^  (\S+)\s+([\d.]+) ms(?: graph\s+([\d.naN]+) ms)?\s+[\d.]+ GB/s\s+([\d.]+)%")
Row = dict[str, tuple[float, float, float]]  # implementation -> (eager ms, graph ms or NaN, % of the copy roofline)
Cases = dict[str, Row]


def read(path: str) -> Cases:
    """{case title: {implementation: (eager ms, graph ms or NaN, % of roofline)}}."""
    cases: Cases = {}
    title = ""
    for line in Path(path).read_text().splitlines():
        if re.match(r"^(fp32|fp16|bf16) int", line):
            title = line.strip()
            cases[title] = {}
        elif title and (m := ROW.match(line)):
            cases[title][m.group(1)] = (float(m.group(2)), float(m.group(3) or "nan"), float(m.group(4)))
    return cases


def replayed(row: Row) -> bool:
    """A small case, which the benchmark also replays in a CUDA graph: it is judged on the replays (its eager times
    vary by up to 40% from run to run)."""
    return row["ours"][1] == row["ours"][1]  # not NaN


def ratio(row: Row, peers: tuple[str, ...], graph: bool = False) -> tuple[str, float]:
    """The best of ``peers`` present in the row, as (name, its time / ours); ("none", NaN) where none is."""
    k = 1 if graph else 0
    names = [n for n in row if n in peers and row[n][k] == row[n][k]]
    if not names:
        return "none", float("nan")
    best = min(names, key=lambda n: row[n][k])
    return best, row[best][k] / row["ours"][k]


def main(new_log: str, old_log: str | None) -> int:
    new = read(new_log)
    lines = ["| target | measured | met? |", "|---|---|---|"]

    def add(target: str, measured: list[float], text: str, floor: float) -> None:
        lines.append(f"| {target} | {text} | {'yes' if min(measured) >= floor else '**no**'} |")

    for e, n in ((1024, 256), (65536, 4096)):
        for order in ("sorted", "uniform"):
            row = new[f"fp16 int32 E={e} N={n} F=32 {order}"]
            best, value = ratio(row, TORCH_SUM, graph=True)
            add(f"E = {e} {order}, replayed, >= 1.1x the faster of `scatter_add_` / `index_add_`", [value],
                f"{row['ours'][1]:.4f} ms against {best} {row[best][1]:.4f}: {value:.2f}x", 1.1)
    for dtype in ("fp32", "fp16"):
        best, value = ratio(new[f"{dtype} int32 E=67108864 N=4194304 F=1 uniform"], SAME_OUTPUT)
        add(f"{dtype} F = 1 random >= 1.2x the best same-output peer", [value], f"{best} {value:.2f}x", 1.2)
    for dtype in ("fp32", "fp16"):
        pct = new[f"{dtype} int32 E=67108864 N=4194304 F=1 sorted"]["ours"][2]
        add(f"{dtype} F = 1 sorted >= 80% of the copy roofline", [pct / 80], f"{pct:.1f}%", 1.0)
    aot = [new[t] for t in ("fp16 int32 E=67108864 N=4194304 F=1 sorted", "fp16 int32 E=4194304 N=262144 F=32 sorted",
                            "fp16 int32 E=4194304 N=262144 F=64 sorted", "fp16 int32 E=4194304 N=262144 F=128 sorted",
                            "bf16 int32 E=4194304 N=262144 F=64 sorted", "fp16 int64 E=4194304 N=262144 F=64 sorted")]
    values = [r["ours.aot"][0] / r["ours"][0] for r in aot]
    add("sorted 16-bit (fp16 F = 1, 32, 64, 128; bf16 F = 64; fp16 int64 F = 64) >= 0.93x `ours.aot`", values,
        " / ".join(f"{v:.2f}x" for v in values), 0.93)
    anyone = {t: tuple(n for n in r if not n.startswith("ours")) for t, r in new.items()}
    peers = {t: ratio(r, anyone[t] if replayed(r) else SAME_OUTPUT, replayed(r)) for t, r in new.items()}
    below = sorted(peers, key=lambda t: peers[t][1])[:3]
    add("every case >= 1.0x its best peer (same-output; E <= 64K: any peer, replayed)",
        [v for _, v in peers.values()],
        "lowest: " + "; ".join(f"{t} {peers[t][0]} {peers[t][1]:.2f}x" for t in below), 1.0)
    if old_log:
        old = read(old_log)
        k = {t: 1 if replayed(r) else 0 for t, r in new.items()}
        slower = {t: old[t]["ours"][k[t]] / new[t]["ours"][k[t]] for t in new if t in old}
        worst = sorted(slower, key=slower.__getitem__)[:3]
        add("no case more than 3% slower than the previous kernel, same GPU session (replays for E <= 64K)",
            list(slower.values()), "slowest: " + "; ".join(f"{t} {slower[t]:.2f}x" for t in worst), 0.97)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
