# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The NumPy model: the three precisions, a graph, the engine's inputs made from it, and the float64
reference its answer is judged against. No TensorRT, no GPU: CI tests all of it on CPU.

The engine's inputs are rounded to the run's precision (kept as float64) before either side sees
them, so that the engine and the reference start from the same values and only the engine's
arithmetic is compared, not the rounding of its inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import DTypeLike

# -- the precisions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tolerance:
    """``|actual - expected| <= atol + rtol * |expected|``, elementwise; ``name``: whose it is."""

    rtol: float
    atol: float
    name: str = ""


@dataclass(frozen=True)
class Precision:
    name: str  # --precision value
    storage: str  # NumPy dtype of device buffers: bf16 has none, its raw bits travel as uint16
    itemsize: int
    trt_type: str  # member of trt.DataType, a string: nothing here needs tensorrt
    min_compute_capability: tuple[int, int]
    max_finite: float
    tolerance: Tolerance
    # Bytes per element that a conversion to the storage type holds at once beyond its result:
    # bf16's rounding works through float32 and uint64 copies (measured: 36 bytes, 2 of them the
    # result). gnn/graphs.py counts it for the largest array converted.
    conversion_bytes: int = 0


# Tolerances, stated once per precision, for the node means and the class probabilities alike.
# fp32: atomics only reorder fp32 additions, and MatMul runs in fp32 because the builder
# configuration clears TF32, which would round W and the means to 10 mantissa bits. fp16: ~3
# roundings at 2^-11 of a logit of magnitude ~10 move a probability by ~1e-3. bf16 has 8 mantissa
# bits (2^-9 per rounding). TensorRT builds fp32/fp16 from Turing (7.5, its oldest supported GPU)
# and bf16 from Ampere (8.0).
_ALL = (
    Precision("fp32", "float32", 4, "FLOAT", (7, 5), float(np.finfo(np.float32).max),
              Tolerance(1e-4, 1e-5, "fp32")),
    Precision("fp16", "float16", 2, "HALF", (7, 5), 65504.0, Tolerance(1e-2, 5e-3, "fp16")),
    Precision("bf16", "uint16", 2, "BF16", (8, 0), 3.3895313892515355e38,
              Tolerance(5e-2, 2e-2, "bf16"), conversion_bytes=34),
)
PRECISIONS: dict[str, Precision] = {p.name: p for p in _ALL}
NAMES = tuple(PRECISIONS)
TOLERANCES = {p.name: p.tolerance for p in _ALL}


def get(name: str) -> Precision:
    try:
        return PRECISIONS[name]
    except KeyError:
        raise ValueError(f"unknown precision {name!r}; expected one of "
                         f"{', '.join(NAMES)}") from None


def unsupported_reason(name: str, compute_capability: tuple[int, int]) -> str | None:
    """Why TensorRT cannot build ``name`` on a GPU of this compute capability, or None."""
    needed = get(name).min_compute_capability
    if compute_capability >= needed:
        return None
    have = ".".join(map(str, compute_capability))
    return (f"TensorRT builds {name} only on compute capability {needed[0]}.{needed[1]}+, this "
            f"GPU is {have}")


def of_storage_dtype(dtype: DTypeLike) -> Precision:
    """The precision whose device buffers have ``dtype`` (uint16 means bf16 bits)."""
    for precision in _ALL:
        if np.dtype(precision.storage) == np.dtype(dtype):
            return precision
    raise ValueError(f"unsupported feature dtype {dtype}; use float32, float16 or uint16 (bf16 "
                     f"bits)")


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """Round float values to bfloat16 (nearest, ties to even) and return the raw uint16 bits."""
    as_f32 = np.ascontiguousarray(values, dtype=np.float32)
    bits = as_f32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return np.where(np.isnan(as_f32), 0x7FC0, rounded).astype(np.uint16)


def bf16_to_float64(bits: np.ndarray) -> np.ndarray:
    """Widen raw bfloat16 bits (uint16) to float64 exactly."""
    widened = np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16
    return widened.view(np.float32).astype(np.float64)


def to_storage(values: np.ndarray, precision: str) -> np.ndarray:
    """Values as the engine and the kernel store them: float32, float16, or uint16 bf16 bits."""
    if get(precision).name == "bf16":
        return bf16_bits(values)
    return np.ascontiguousarray(values, dtype=get(precision).storage)


def from_storage(stored: np.ndarray, precision: str) -> np.ndarray:
    """Inverse of :func:`to_storage`, exactly, as float64."""
    if get(precision).name == "bf16":
        return bf16_to_float64(stored)
    return np.asarray(stored, dtype=np.float64)


def round_to(values: np.ndarray, precision: str) -> np.ndarray:
    """Float64 copy of ``values`` after a round trip through ``precision``."""
    return from_storage(to_storage(values, precision), precision)


# -- the graph and the engine's inputs ------------------------------------------------------------


@dataclass(frozen=True)
class Graph:
    """A directed graph with node features: ``features`` ``[N, F]`` float64, ``edges`` ``[E, 2]``
    int64 of (source, target), 0-based; an edge ``s -> t`` sends ``features[s]`` to node ``t``."""

    features: np.ndarray
    edges: np.ndarray

    @property
    def num_nodes(self) -> int:
        return int(self.features.shape[0])

    @property
    def num_features(self) -> int:
        return int(self.features.shape[1])

    @property
    def num_edges(self) -> int:
        return int(self.edges.shape[0])


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
    """Features, X (``x0``, default zeros) and the class weights rounded to ``precision``; random
    N(0, 1) weights by default."""
    features = round_to(graph.features, precision)
    if weights is None:
        weights = np.random.default_rng(seed).standard_normal((num_classes, graph.num_features))
    x = np.zeros_like(features) if x0 is None else round_to(x0, precision)
    # Edges sorted by target, once, on the host: the kernel's fast, deterministic path for sorted
    # input (benchmarks/README.md). Any order gives the same sums; a static graph pays this once.
    edges = graph.edges[np.argsort(graph.edges[:, 1], kind="stable")]
    return RunInputs(x=x, src=np.ascontiguousarray(features[edges[:, 0]]),
                     idx=np.ascontiguousarray(edges[:, 1], dtype=np.int32),
                     weights=round_to(weights, precision), features=features)


def fit_weights(graph: Graph, x0: np.ndarray, labels: np.ndarray, leaders: tuple[int, ...],
                num_classes: int) -> np.ndarray:
    """Class weights ``[C, F]`` fitted in float64 on the leaders' labels alone (least squares):
    the leaders' node means (the network's own aggregation, from ``x0``) should map to their
    one-hot class; NumPy gives the minimum-norm W that does. Every other node is a prediction."""
    no_weights = np.zeros((num_classes, graph.num_features))
    means, _ = gnn_reference(x0, graph.features, graph.edges, no_weights)
    targets = np.eye(num_classes)[labels[list(leaders)]]
    solution, *_ = np.linalg.lstsq(means[list(leaders)], targets, rcond=None)
    return np.ascontiguousarray(solution.T)


# -- the reference and the verdict ----------------------------------------------------------------


def scatter_add_reference(x: np.ndarray, src: np.ndarray,
                          idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``x[idx[e]] += src[e]`` in float64, and in-degree counts; out-of-range indices skipped.
    This is also the kernel's contract (``kernels/scatter_add.cu``), so GPU tests use it too."""
    x = np.array(x, dtype=np.float64, copy=True)
    idx = np.asarray(idx, dtype=np.int64)
    keep = (idx >= 0) & (idx < x.shape[0])
    np.add.at(x, idx[keep], np.asarray(src, dtype=np.float64)[keep])
    counts = np.bincount(idx[keep], minlength=x.shape[0]).astype(np.int64)
    return x, counts


def gnn_reference(x: np.ndarray, features: np.ndarray, edges: np.ndarray,
                  weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The whole network in float64, from X ``[N, F]``, the features ``[N, F]``, the edges
    ``[E, 2]`` (source, target) and W ``[C, F]``: ``means [N, F] = (X + sum of incoming features)
    / max(in-degree, 1)`` and ``probs [C, N] = softmax_over_classes(relu(W @ means.T))``."""
    src = np.asarray(features, dtype=np.float64)[edges[:, 0]]
    sums, counts = scatter_add_reference(x, src, edges[:, 1])
    return classifier_reference(sums, counts, weights)


def classifier_reference(sums: np.ndarray, counts: np.ndarray,
                         weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The network after the plugin: ``(means, probs)`` from X + the sums and the counts."""
    means = sums / np.maximum(counts, 1)[:, None]
    logits = np.maximum(np.asarray(weights, dtype=np.float64) @ means.T, 0.0)
    shifted = np.exp(logits - logits.max(axis=0, keepdims=True))
    return means, shifted / shifted.sum(axis=0, keepdims=True)


@dataclass(frozen=True)
class Comparison:
    """How far ``actual`` is from ``expected``, and whether it is within tolerance."""

    max_abs_error: float
    worst_index: tuple[int, ...]
    passed: bool


def compare(actual: np.ndarray, expected: np.ndarray, tolerance: Tolerance) -> Comparison:
    """Elementwise check in float64; NaN or a shape mismatch never passes."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if actual.shape != expected.shape:
        return Comparison(float("inf"), (), False)
    error = np.abs(actual - expected)
    error = np.where(np.isnan(error), np.inf, error)
    allowed = tolerance.atol + tolerance.rtol * np.abs(expected)
    worst = np.unravel_index(int(np.argmax(error - allowed)), error.shape) if error.size else ()
    max_abs = float(error.max()) if error.size else 0.0
    return Comparison(max_abs, tuple(int(i) for i in worst), bool(np.all(error <= allowed)))


def validate(result: RunResult, inputs: RunInputs, graph: Graph, precision: str,
             tolerance: Tolerance | None = None, check_predictions: bool = False,
             in_place: bool = True) -> tuple[bool, list[str]]:
    """Compare X_out, the caller's X (X + the sums when ``in_place``, else unchanged), means and
    probabilities (and, if asked, the argmax class of every node) with the float64 reference,
    within ``tolerance`` (default: the precision's): (passed, lines to print)."""
    updated, counts = scatter_add_reference(inputs.x, inputs.features[graph.edges[:, 0]],
                                            graph.edges[:, 1])
    means, probs = classifier_reference(updated, counts, inputs.weights)
    tolerance = tolerance or TOLERANCES[precision]
    passed, lines = True, []
    caller_x = ("X (in place)", result.x, updated)
    if not in_place:
        caller_x = ("X (unchanged)", result.x, inputs.x)
    for name, actual, expected in (("X_out", result.x_out, updated), caller_x,
                                   ("means", result.means, means), ("probs", result.probs, probs)):
        check = compare(actual, expected, tolerance)
        passed &= check.passed
        verdict = "ok" if check.passed else f"MISMATCH at {check.worst_index}"
        lines.append(f"  {name}: max abs error {check.max_abs_error:.3e} (tolerance "
                     f"atol={tolerance.atol:g} + rtol={tolerance.rtol:g}*|ref|) {verdict}")
    if check_predictions:
        same = result.probs.argmax(axis=0) == probs.argmax(axis=0)
        passed &= bool(same.all())
        lines.append(f"  predictions: {int(same.sum())} of {same.size} nodes in the reference's "
                     f"class {'ok' if same.all() else 'MISMATCH'}")
    held_to = "" if tolerance.name == precision else f", held to the {tolerance.name} tolerance"
    verdict = "PASSED" if passed else "FAILED"
    lines.append(f"Validation against the NumPy float64 reference {verdict} ({precision}{held_to})")
    return passed, lines


def probability_lines(probs: np.ndarray) -> list[str]:
    """The class probabilities as the run prints them."""
    with np.printoptions(precision=4, suppress=True, linewidth=120):
        matrix = str(probs)
    title = f"Class probabilities [classes x nodes] = {probs.shape[0]} x {probs.shape[1]}:"
    return [title, *matrix.splitlines()]


def predicted_vs_true(probs: np.ndarray, labels: np.ndarray, names: tuple[str, ...]) -> list[str]:
    """One line per node, its predicted faction next to the one it joined, then the accuracy."""
    predicted = probs.argmax(axis=0)
    lines = []
    for node in range(probs.shape[1]):
        wrong = "" if predicted[node] == labels[node] else "  <- wrong"
        lines.append(f"  member {node:2d}: predicted {names[int(predicted[node])]:<8} joined "
                     f"{names[int(labels[node])]:<8}{wrong}".rstrip())
    wrong = [str(node) for node in np.nonzero(predicted != labels)[0]]
    listed = f" (wrong: member {', '.join(wrong)})" if wrong else ""
    lines.append(f"Accuracy: {len(labels) - len(wrong)} of {len(labels)} members predicted in the "
                 f"faction they joined{listed}")
    return lines
