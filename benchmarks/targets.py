#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The kernel's targets (set for v12, kept since), read from a log of bench_scatter_add.py and, for the "no
slower than before" target, a log of the previous kernel's bench_scatter_add.py made on the same machine in the
same device call.

    python3 benchmarks/targets.py results/2026-11-25_h100_v13.log results/2026-11-25_h100_v12_same_run.log

Prints a markdown table: each target, the measured ratios, met or not.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SAME_OUTPUT = ("torch.sa_+bincount", "pyg.scatter(mean)", "torch.segment_reduce+add", "cusparse.spmm+add")
ROW = re.compile(r"^  (\S+)\s+([\d.]+) ms(?: graph\s+([\d.naN]+) ms)?")
Cases = dict[str, dict[str, tuple[float, float]]]


def read(path: str) -> Cases:
    """{case title: {implementation: (eager ms, graph ms or NaN)}}."""
    cases: Cases = {}
    title = ""
    for line in Path(path).read_text().splitlines():
        if re.match(r"^(fp32|fp16|bf16) int", line):
            title = line.strip()
            cases[title] = {}
        elif title and (m := ROW.match(line)):
            cases[title][m.group(1)] = (float(m.group(2)), float(m.group(3) or "nan"))
    return cases


def case(cases: Cases, text: str) -> dict[str, tuple[float, float]]:
    (title,) = [t for t in cases if t.endswith(text) or t.replace("int32 ", "").startswith(text)]
    return cases[title]


def ratio(row: dict[str, tuple[float, float]], peers: tuple[str, ...] | None, graph: bool = False) -> tuple[str, float]:
    """The best of ``peers`` (None: the sum-only peers), as (name, its time / ours)."""
    k = 1 if graph else 0
    names = [n for n in row if not n.startswith("ours") and (n in peers if peers else n not in SAME_OUTPUT)]
    names = [n for n in names if row[n][k] == row[n][k]]
    best = min(names, key=lambda n: row[n][k])
    return best, row[best][k] / row["ours"][k]


def main(new_log: str, old_log: str | None) -> int:
    new = read(new_log)
    lines = ["| target | measured | met? |", "|---|---|---|"]

    def add(target: str, measured: list[float], text: str, floor: float) -> None:
        lines.append(f"| {target} | {text} | {'yes' if min(measured) >= floor else '**no**'} |")

    aot = {t: case(new, t) for t in ("fp16 int32 E=67108864 N=4194304 F=1 sorted", "fp16 int32 E=4194304 N=262144 F=32 sorted",
                                      "fp16 int32 E=4194304 N=262144 F=64 sorted", "fp16 int32 E=4194304 N=262144 F=128 sorted",
                                      "bf16 int32 E=4194304 N=262144 F=64 sorted", "fp16 int64 E=4194304 N=262144 F=64 sorted")}
    values = [r["ours.aot"][0] / r["ours"][0] for r in aot.values()]
    add("sorted 16-bit (fp16 F = 1, 32, 64, 128; bf16 F = 64; fp16 int64 F = 64) >= 0.97x `ours.aot`", values,
        " / ".join(f"{v:.2f}x" for v in values), 0.97)
    for e in (1024, 65536):
        row = case(new, f"fp16 int32 E={e} N={e // 4 if e == 1024 else 4096} F=32 sorted")
        best, value = ratio(row, ("torch.scatter_add_", "torch.index_add_"), graph=True)
        add(f"E = {e} sorted, CUDA-graph replay, >= 1.0x the best of scatter_add_ / index_add_", [value],
            f"{row['ours'][1]:.4f} ms against {best} {row[best][1]:.4f}: {value:.2f}x", 1.0)
    for dtype in ("fp32", "fp16"):
        best, value = ratio(case(new, f"{dtype} int32 E=67108864 N=4194304 F=1 uniform"), SAME_OUTPUT)
        add(f"{dtype} F = 1 uniform >= 1.0x the best same-output peer", [value], f"{best} {value:.2f}x", 1.0)
        best, value = ratio(case(new, f"{dtype} int32 E=67108864 N=4194304 F=1 sorted"), ("torch.scatter_add_",))
        add(f"{dtype} F = 1 sorted >= 1.0x `torch.scatter_add_`", [value], f"{value:.2f}x", 1.0)
        widths = [ratio(case(new, f"{dtype} int32 E=4194304 N=262144 F={f} sorted"), ("torch.segment_reduce+add",))[1]
                  for f in (32, 64, 128)]
        add(f"{dtype} sorted F = 32 / 64 / 128 >= 1.0x `segment_reduce`+add", widths,
            " / ".join(f"{v:.2f}x" for v in widths), 1.0)
    if old_log:
        old = read(old_log)
        slower = {t: old[t]["ours"][0] / new[t]["ours"][0] for t in new if t in old}
        worst = sorted(slower, key=slower.__getitem__)[:3]
        add("no case of the default benchmark more than 3% slower than the previous kernel, same run",
            list(slower.values()),
            "slowest: " + "; ".join(f"{t} {slower[t]:.2f}x" for t in worst), 0.97)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
