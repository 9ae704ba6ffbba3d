# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""What a run prints on stdout, in the order the story (``aliased_io_plugin.py``) prints it: the graph,
its picture, the runtime and GPU, then the run's results. Failures are ``gnn/cli.py``'s: one line on
stderr. NumPy is imported only where a run has it already."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gnn.environment import runtime_name
from gnn.errors import quote_path

if TYPE_CHECKING:
    import numpy as np

    from gnn.environment import Gpu
    from gnn.inputs import PreparedInputs
    from gnn.model import RunResult
    from gnn.trt_network import Aggregation


def print_inputs(prepared: PreparedInputs) -> None:
    from gnn.graph_inputs import describe_graph

    if prepared.seeded:  # a seed nothing used would suggest the output depends on it
        print(f"Setting seed to: {prepared.seed}")
    print("\n".join(describe_graph(prepared.source.graph)))
    if prepared.source.leaders and prepared.source.labels is not None:
        print(f"Class weights: fitted in float64 (least squares) on members "
              f"{' and '.join(map(str, prepared.source.leaders))} only; every other member is a prediction")


def print_drawn(path: str) -> None:
    print(f"Drew the input graph to {quote_path(path)}")


def print_runtime(trt_module: Any, gpu: Gpu, precision: str) -> None:
    print(f"{runtime_name(trt_module)} on {gpu.name}, precision {precision}")


def print_run(result: RunResult, prepared: PreparedInputs, aggregation: Aggregation, binding: str,
              timing: list[str]) -> None:
    from gnn import graph_sources

    source = prepared.source
    print(f"Inference time: {result.inference_ms:.3f} ms (first run, CUDA events; {aggregation.enqueue})")
    print_probs(result.probs)
    if source.labels is not None:
        print("Predicted faction (argmax over classes) and the faction each member really joined:")
        print("\n".join(graph_sources.predicted_vs_true(result.probs, source.labels, source.label_names)))
    print(f"In place: {binding}")
    if timing:
        print("\n".join(timing))


def print_probs(probs: np.ndarray) -> None:
    import numpy as np

    print(f"Class probabilities [classes x nodes] = {probs.shape[0]} x {probs.shape[1]}:")
    with np.printoptions(precision=4, suppress=True, linewidth=120):
        print(probs)
