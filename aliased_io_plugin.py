#!/usr/bin/env python3
"""An in-place TensorRT plugin (aliased I/O) at the heart of a one-layer graph neural network.

For a graph with N nodes, F features per node and E directed edges s -> t:

    X[t] += features[s] for every edge s -> t          ScatterAddPlugin, in place: output 0 IS input 0
    means  = X / max(counts, 1)                         Cast, ElementWise MAX and DIV
    probs  = softmax_over_classes(relu(W @ means^T))    MatMul, ReLU, SoftMax

The story, in the order :func:`run` tells it:

1. inputs: a graph, its features, X and the class weights (``gnn/model.py``);
2. the kernel, compiled with NVRTC (or read from its cache) before any TensorRT work;
3. the network: the plugin, then the classifier, built with the aliasing preview feature on
   (``gnn/trt_network.py``; the plugin is ``scatter_add_plugin.py``);
4. the run: X and the network output X_out bound to ONE buffer, so that the caller's X holds
   X + the sums afterwards (``gnn/engine_runner.py``);
5. validation against NumPy in float64, which sets the exit status.

Flags, environment checks, exit codes and printing are the plumbing in ``gnn/cli.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gnn import cli  # imports no NumPy: --help and flag errors work with nothing installed
from gnn.cli import Exit
from gnn.errors import TensorRTFailure

if TYPE_CHECKING:
    from gnn.model import RunInputs, RunResult
    from gnn.precisions import Tolerance
    from gnn.trt_network import Aggregation


def run(args: Any, aggregation: Aggregation | None = None, tolerances: Mapping[str, Tolerance] | None = None) -> int:
    """The sample, after argument parsing. Raises the errors :func:`cli.exit_status` reports."""
    # 1. Inputs, checked before anything large exists (NumPy first: without it, one line names
    #    everything missing).
    source, inputs, bounds = cli.prepare_inputs(args)

    # 2. Packages, GPU and kernel; TensorRT is imported last, so its absence costs nothing earlier.
    trt_module, gpu = cli.prepare_environment(args.precision, args.aot)
    cli.check_gpu_memory(inputs, args.precision)
    from gnn import trt_network  # imports tensorrt

    # 3. The network with the in-place plugin in front; built, or loaded from --engine.
    if aggregation is None:
        aggregation = trt_network.qdp_aggregation() if args.aot else trt_network.plugin_aggregation(not args.no_alias)
    spec = cli.engine_spec(args, trt_module, gpu, inputs, bounds, aggregation)
    exact = args.max_nodes is not None or args.max_edges is not None
    engine = trt_network.obtain_engine(args.engine, inputs, spec, exact, aggregation)

    # 4. The run, in place at the engine boundary.
    result, binding, timing = run_engine(engine, inputs, args.precision, args.iterations, args.cuda_graph, aggregation)
    cli.print_run(result, source, aggregation, binding, timing)

    # 5. The verdict.
    if not args.validate:
        return Exit.OK
    from gnn.model import validate
    from gnn.precisions import TOLERANCES

    tolerance = (tolerances or {}).get(args.precision, TOLERANCES[args.precision])
    passed, lines = validate(result, inputs, source.graph, args.precision, tolerance,
                             check_predictions=source.labels is not None, in_place=aggregation.out_of_place is None)
    print("\n".join(lines))
    return Exit.OK if passed else Exit.MISMATCH


def run_engine(engine: Any, inputs: RunInputs, precision: str, iterations: int, cuda_graph: bool,
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
        device_inputs = engine_runner.upload(inputs, precision, stream)
        runner = engine_runner.EngineRunner(engine, device_inputs, stream, aggregation.out_of_place)
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
    return cli.exit_status(lambda: run(args, aggregation, tolerances), args.verbose)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(cli.quiet_exit())
