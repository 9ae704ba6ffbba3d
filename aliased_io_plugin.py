#!/usr/bin/env python3
# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""An in-place TensorRT plugin (aliased I/O) at the heart of a one-layer graph neural network.

For a graph with N nodes, F features per node and E directed edges s -> t:

    X[t] += features[s] for every edge s -> t          ScatterAddPlugin, in place: output 0 IS input 0
    means  = X / max(counts, 1)                         Cast, ElementWise MAX and DIV
    probs  = softmax_over_classes(relu(W @ means^T))    MatMul, ReLU, SoftMax

The story, in the order :func:`run` tells it:

1. inputs: a graph, its features, X and the class weights (``gnn/inputs.py``, ``gnn/model.py``);
2. the kernel, compiled with NVRTC before any TensorRT work (the engine will store it);
3. the network: the plugin, then the classifier, built with the aliasing preview feature on
   (``gnn/trt_network.py``; the plugin is ``scatter_add_plugin.py``, its kernel in ``kernels/``);
4. the run: X and the network output X_out bound to ONE buffer, so that the caller's X holds
   X + the sums afterwards (``gnn/engine_runner.py``);
5. validation against NumPy in float64, which sets the exit status.

Each stage owns its checks: the flags (``gnn/options.py``), the inputs and the memory they need
(``gnn/inputs.py``), the machine (``gnn/environment.py``), the kernel (``gnn/kernel_prep.py``).
``gnn/cli.py`` holds the flags, the exit codes and what is printed.
"""

from __future__ import annotations

import sys

# The Python floor is checked before any other import: the modules below are written for Python 3.11, and on an
# older Python they would fail later with a misleading line about missing packages. The exit status is that of
# a missing package (gnn.cli.Exit.MISSING_PACKAGE), as run_tests.sh uses for the same refusal.
MIN_PYTHON = (3, 11)
if sys.version_info < MIN_PYTHON:
    print(f"aliased_io_plugin.py: error: Python {sys.version_info[0]}.{sys.version_info[1]} is too old: the sample "
          f"needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or later", file=sys.stderr)
    sys.exit(3)

from collections.abc import Mapping  # noqa: E402 (after the Python check)
from typing import TYPE_CHECKING, Any  # noqa: E402

from gnn import cli  # noqa: E402 (imports no NumPy: --help and flag errors work with nothing installed)
from gnn import environment, extras, inputs, kernel_prep, report  # noqa: E402
from gnn.cli import Exit  # noqa: E402
from gnn.engine_spec import EngineSpec  # noqa: E402
from gnn.errors import TensorRTFailure  # noqa: E402

if TYPE_CHECKING:
    from gnn.model import RunInputs, RunResult
    from gnn.options import Options
    from gnn.precisions import Tolerance
    from gnn.trt_network import Aggregation


def run(options: Options, aggregation: Aggregation | None = None,
        tolerances: Mapping[str, Tolerance] | None = None) -> int:
    """The sample, once the flags are checked. Raises the errors :func:`cli.exit_status` reports."""
    precision = options.precision
    # 1. Inputs, checked before anything large exists (NumPy and the extras the flags ask for first:
    #    without them, one line names everything missing).
    environment.check_numpy_first(options.aot, extras.missing(options.inputs))
    prepared = inputs.prepare(options.inputs)
    report.print_inputs(prepared)
    if options.inputs.draw_graph:
        inputs.draw_picture(prepared.source, options.inputs.draw_graph)
        report.print_drawn(options.inputs.draw_graph)

    # 2. Packages, GPU and kernel; TensorRT is imported last, so its absence costs nothing earlier.
    gpu = environment.usable_gpu(precision, options.aot)
    print(kernel_prep.prepare_kernel(precision, options.aot, options.kernel))
    trt_module = environment.load_tensorrt(options.aot)
    report.print_runtime(trt_module, gpu, precision)
    inputs.check_gpu_memory(prepared, precision, options.aot)
    from gnn import trt_network  # imports tensorrt

    # 3. The network with the in-place plugin in front; built, or loaded from --engine.
    if aggregation is None:
        aggregation = (trt_network.qdp_aggregation() if options.aot
                       else trt_network.plugin_aggregation(options.aliased, options.kernel))
    spec = EngineSpec.for_run(environment.runtime_name(trt_module), gpu, prepared, aggregation.name, options)
    engine = trt_network.obtain_engine(options.engine, prepared.inputs, spec, options.exact_bounds, aggregation)

    # 4. The run, in place at the engine boundary.
    result, binding, timing = run_engine(engine, prepared.inputs, precision, options.iterations, options.cuda_graph,
                                         aggregation)
    report.print_run(result, prepared, aggregation, binding, timing)

    # 5. The verdict.
    if not options.validate:
        return Exit.OK
    from gnn.model import validate
    from gnn.precisions import TOLERANCES

    tolerance = (tolerances or {}).get(precision, TOLERANCES[precision])
    passed, lines = validate(result, prepared.inputs, prepared.source.graph, precision, tolerance,
                             check_predictions=prepared.source.labels is not None,
                             in_place=aggregation.out_of_place is None)
    print("\n".join(lines))
    return Exit.OK if passed else Exit.MISMATCH


def run_engine(engine: Any, run_inputs: RunInputs, precision: str, iterations: int, cuda_graph: bool,
               aggregation: Aggregation) -> tuple[RunResult, str, list[str]]:
    """The validated first run, then the optional timing: one execution context, one stream.

    ``EngineRunner`` binds X_out to X's own device buffer (unless the aggregation works out of
    place), so the plugin's in-place write lands in the caller's X. Returns the result, how
    X_out was bound, and the timing lines.
    """
    import cupy as cp

    from gnn import engine_runner

    try:
        stream = cp.cuda.Stream(non_blocking=True)
        device_inputs = engine_runner.upload(run_inputs, precision, stream)
        runner = engine_runner.EngineRunner(engine, device_inputs, stream, aggregation.out_of_place,
                                            aggregation.refusal)
        result = runner.run_once(precision)
        timing = engine_runner.time_engine(runner, iterations, cuda_graph).lines() if iterations else []
    except cp.cuda.runtime.CUDARuntimeError as error:  # a fault inside the engine surfaces at the next sync
        raise TensorRTFailure("execute", f"CUDA error {error}") from None
    return result, runner.binding, timing


def main(argv: list[str] | None = None, *, aggregation: Aggregation | None = None,
         tolerances: Mapping[str, Tolerance] | None = None) -> int:
    """The CLI. The keyword arguments are a seam for tests on a runtime that cannot hold a plugin
    (tests/rtx_cli.py: TensorRT-RTX): an aggregation of TensorRT layers in front of the network's
    unchanged rest, and the tolerances that runtime is held to. The sample never passes them."""
    args = cli.parse_args(argv)
    return cli.exit_status(lambda: run(cli.options_from(args), aggregation, tolerances), args.verbose)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(cli.quiet_exit())
