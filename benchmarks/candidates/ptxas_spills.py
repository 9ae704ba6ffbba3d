# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""ptxas's registers and spills of the main kernel, scatter_add, for each type pair, on CPU.

NVRTC compiles kernels/scatter_add.cu as the plugin does, with ``-Xptxas -v``, and the lines
about scatter_add are printed. From the repository's root (a candidate patch applied or not):

    python3 benchmarks/candidates/ptxas_spills.py fp32:int32 fp16:int64 [--arch sm_90]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path.cwd()))

from kernels import cuda_calls  # noqa: E402 (the checkout's kernels, not an installed copy)
from kernels import scatter_add as sak  # noqa: E402


def ptxas_log(float_type: str, index_type: str, arch: str) -> str:
    """NVRTC's log of one compile with ptxas's -v, which reports each entry's resources."""
    import cuda.bindings.nvrtc as nvrtc

    source = sak.KERNEL_SOURCE
    created = nvrtc.nvrtcCreateProgram(source.read_bytes(), source.name.encode(), 0, [], [])
    program = cuda_calls.check(created, "nvrtcCreateProgram")
    options = [f"--gpu-architecture={arch}", f"-I{cuda_calls.find_cuda_include_dir()}",
               "--std=c++17", "-Xptxas", "-v", *sak.defines(float_type, index_type)]
    try:
        nvrtc.nvrtcCompileProgram(program, len(options), [o.encode() for o in options])
        size = cuda_calls.check(nvrtc.nvrtcGetProgramLogSize(program), "nvrtc log size")
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(program, log)
    finally:
        nvrtc.nvrtcDestroyProgram(program)
    return log.decode(errors="replace")


def main_entry_lines(log: str) -> list[str]:
    """The spill and register lines that follow 'Compiling entry function scatter_add'."""
    lines = []
    entry = None
    for line in log.splitlines():
        found = re.search(r"Compiling entry function '(\w+)'", line)
        if found:
            entry = found.group(1)
        if entry == "scatter_add" and ("spill" in line or "registers" in line):
            lines.append(line.strip())
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="*", default=["fp32:int32", "fp16:int32"],
                        help="FLOAT:INDEX, e.g. bf16:int64")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    for pair in args.pairs:
        float_type, index_type = pair.split(":")
        for line in main_entry_lines(ptxas_log(float_type, index_type, args.arch)):
            print(float_type, index_type, "scatter_add", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
