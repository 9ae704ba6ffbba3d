# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""What the engine is fed and what its answer is judged against: no TensorRT, no GPU.

``make_run_inputs`` turns a graph into the engine's inputs, already rounded to the run's
precision (as float64), so that the engine and the float64 reference see the same values.
``validate`` compares an engine's outputs with that reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gnn import reference as ref
from gnn import precisions
from gnn.graph_inputs import Graph


@dataclass(frozen=True)
class RunInputs:
    """The engine's inputs, rounded to the run's precision, as float64 (idx as int32)."""

    x: np.ndarray  # [N, F] initial value of the aliased input
    src: np.ndarray  # [E, F] = features[edge sources], edges sorted by target
    idx: np.ndarray  # [E] int32 = edge targets, sorted
    weights: np.ndarray  # [C, F]
    features: np.ndarray  # [N, F]


@dataclass(frozen=True)
class RunResult:
    """One inference: the network's outputs and what happened to the caller's X buffer."""

    means: np.ndarray  # [N, F]
    probs: np.ndarray  # [C, N]
    x: np.ndarray  # [N, F] the caller's X buffer after the run, as float64
    x_out: np.ndarray  # [N, F] the engine's X_out (the same buffer as x when in place)
    inference_ms: float


def make_run_inputs(graph: Graph, num_classes: int, precision: str, seed: int,
                    x0: np.ndarray | None = None, weights: np.ndarray | None = None) -> RunInputs:
    """Round features, X and the class weights to ``precision``; random N(0, 1) weights by default.

    ``x0`` is X's value before the plugin adds into it (default zeros).
    """
    features = precisions.round_to(graph.features, precision)
    if weights is None:
        weights = np.random.default_rng(seed).standard_normal((num_classes, graph.num_features))
    x = np.zeros_like(features) if x0 is None else precisions.round_to(x0, precision)
    # Edges sorted by target, once, on the host: the kernel's fast, deterministic path for sorted
    # input (benchmarks/README.md). Any order gives the same sums; a static graph pays this once.
    edges = graph.edges[np.argsort(graph.edges[:, 1], kind="stable")]
    return RunInputs(
        x=x,
        src=np.ascontiguousarray(features[edges[:, 0]]),
        idx=np.ascontiguousarray(edges[:, 1], dtype=np.int32),
        weights=precisions.round_to(weights, precision),
        features=features,
    )


def fit_weights(graph: Graph, x0: np.ndarray, labels: np.ndarray, leaders: tuple[int, ...],
                num_classes: int) -> np.ndarray:
    """Class weights ``[C, F]`` fitted in float64 on the leaders' labels alone (least squares).

    The leaders' node means (the network's own aggregation, from ``x0``) should map to their
    one-hot class; NumPy's least squares gives the minimum-norm W that does, deterministically.
    Every other node's class is then a prediction.
    """
    means, _ = ref.gnn_reference(x0, graph.features, graph.edges, np.zeros((num_classes, graph.num_features)))
    targets = np.eye(num_classes)[labels[list(leaders)]]
    solution, *_ = np.linalg.lstsq(means[list(leaders)], targets, rcond=None)
    return np.ascontiguousarray(solution.T)


def validate(result: RunResult, inputs: RunInputs, graph: Graph, precision: str,
             tolerance: precisions.Tolerance | None = None, check_predictions: bool = False,
             in_place: bool = True) -> tuple[bool, list[str]]:
    """Compare X_out, the caller's X (X + the sums when ``in_place``, else unchanged), means and
    probabilities (and, if asked, the argmax class of every node) with the float64 reference,
    within ``tolerance`` (default: the precision's): (passed, lines to print)."""
    updated, counts = ref.scatter_add_reference(inputs.x, inputs.features[graph.edges[:, 0]], graph.edges[:, 1])
    means, probs = ref.classifier_reference(updated, counts, inputs.weights)
    tolerance = tolerance or precisions.TOLERANCES[precision]
    passed, lines = True, []
    caller_x = ("X (in place)", result.x, updated) if in_place else ("X (unchanged)", result.x, inputs.x)
    for name, actual, expected in (("X_out", result.x_out, updated), caller_x, ("means", result.means, means),
                                   ("probs", result.probs, probs)):
        check = ref.compare(actual, expected, tolerance)
        passed &= check.passed
        lines.append(f"  {name}: max abs error {check.max_abs_error:.3e} "
                     f"(tolerance atol={tolerance.atol:g} + rtol={tolerance.rtol:g}*|ref|) "
                     f"{'ok' if check.passed else f'MISMATCH at {check.worst_index}'}")
    if check_predictions:
        same = result.probs.argmax(axis=0) == probs.argmax(axis=0)
        passed &= bool(same.all())
        lines.append(f"  predictions: {int(same.sum())} of {same.size} nodes in the reference's class "
                     f"{'ok' if same.all() else 'MISMATCH'}")
    held_to = "" if tolerance.name == precision else f", held to the {tolerance.name} tolerance"
    lines.append(f"Validation against the NumPy float64 reference {'PASSED' if passed else 'FAILED'} "
                 f"({precision}{held_to})")
    return passed, lines
