#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The sample's CLI on TensorRT-RTX, with the STAND-IN aggregation in place of the plugin. For tests.

    python3 tests/rtx_cli.py [the CLI's arguments]         (e.g. --precision fp16 --validate)

TensorRT-RTX is not TensorRT, and this is not the sample: it cannot hold the plugin. What this
changes, and nothing else:
  * ``import tensorrt`` gives TensorRT-RTX, and Polygraphy is told to use it
    (``POLYGRAPHY_USE_TENSORRT_RTX=1``, read when Polygraphy is first imported);
  * the driver's TensorRT check returns it (that check is TensorRT's: version >= 10.3 and the
    aliasing preview feature; TensorRT-RTX numbers its releases 1.x);
  * the aggregation is ``stand_in_aggregation.py``'s (``STAND_IN=rejected``: one the builder refuses);
  * fp32 is held to the TF32 tolerance named there: TensorRT-RTX computes fp32 MatMul in TF32
    (``RTX_TOLERANCES=sample``: the sample's own tolerances, which fp32 then misses).
Everything else is the sample's own code: flags, inputs, the kernel's compile (it is not run),
the network's rest, the builder configuration, Polygraphy, build progress, engine files, the
execution context, CUDA graphs, validation, printing and exit codes. ``--aot`` (the QDP route) is
refused: it is a plugin too.

On a GeForce/RTX GPU, ``pip install tensorrt-rtx-cu13`` is all it needs. On an H100 or H200 (compute
capability 9.0, outside TensorRT-RTX's list) it runs under the harness in tests/rtx_harness/:
``bash tests/rtx_harness/with_rtx.sh python3 tests/rtx_cli.py --precision fp16 --validate``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("POLYGRAPHY_USE_TENSORRT_RTX", "1")  # before anything imports Polygraphy
TESTS = Path(__file__).resolve().parent
sys.path[:0] = [str(TESTS.parent), str(TESTS)]



def main(argv: list[str]) -> int:
    import aliased_io_plugin  # imports no TensorRT: that happens once the driver has checked
    from gnn import cli, machine

    try:
        import tensorrt_rtx
    except ImportError:
        print("rtx_cli.py: error: TensorRT-RTX is not installed: pip install tensorrt-rtx-cu13", file=sys.stderr)
        return cli.Exit.MISSING_PACKAGE
    if "--aot" in argv:
        print("rtx_cli.py: error: --aot: the QDP route is a plugin, which TensorRT-RTX cannot hold", file=sys.stderr)
        return cli.Exit.BAD_INPUT
    sys.modules["tensorrt"] = tensorrt_rtx

    import stand_in_aggregation

    machine.load_tensorrt = lambda aot=False: tensorrt_rtx
    make = stand_in_aggregation.rejected if os.environ.get("STAND_IN") == "rejected" else stand_in_aggregation.stand_in
    sample = os.environ.get("RTX_TOLERANCES") == "sample"
    tolerances = None if sample else stand_in_aggregation.RTX_TOLERANCES
    return aliased_io_plugin.main(argv, aggregation=make(), tolerances=tolerances)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
