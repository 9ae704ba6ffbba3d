# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The NumPy side, tested on CPU: the precisions, the graph, the engine's inputs, and the float64
reference. The inputs are rounded to the run's precision (kept as float64) before either side sees
them, so that only the engine's arithmetic is compared."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
    # Extra bytes per element held while converting to the storage type: bf16 rounds through
    # float32 and uint64 copies (36 bytes measured, 2 of them the result). See inputs.host_bytes.
    conversion_bytes: int = 0


# One tolerance per precision, for X + the sums, the means and the probabilities alike (argument:
# docs/usage.md, "Tolerances"). The builder clears TF32, which would round MatMul's inputs to 10
# mantissa bits. TensorRT builds fp32 and fp16 from Turing (7.5), bf16 from Ampere (8.0).
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
    return PRECISIONS[name]  # every name comes from --precision's choices, which are NAMES


def unsupported_reason(name: str, compute_capability: tuple[int, int]) -> str | None:
    """Why TensorRT cannot build ``name`` on a GPU of this compute capability, or None."""
    needed = get(name).min_compute_capability
    if compute_capability >= needed:
        return None
    have = ".".join(map(str, compute_capability))
    return (f"TensorRT builds {name} only on compute capability {needed[0]}.{needed[1]}+, this "
            f"GPU is {have}")


def to_storage(values: np.ndarray, precision: str) -> np.ndarray:
    """Values as the engine and the kernel store them: float32, float16, or the raw uint16 bits of
    bfloat16 (rounded to nearest, ties to even)."""
    if precision != "bf16":
        return np.ascontiguousarray(values, dtype=get(precision).storage)
    as_f32 = np.ascontiguousarray(values, dtype=np.float32)
    bits = as_f32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return np.where(np.isnan(as_f32), 0x7FC0, rounded).astype(np.uint16)


def from_storage(stored: np.ndarray, precision: str) -> np.ndarray:
    """Inverse of :func:`to_storage`, exactly, as float64."""
    if precision != "bf16":
        return np.asarray(stored, dtype=np.float64)
    widened = np.asarray(stored, dtype=np.uint16).astype(np.uint32) << 16
    return widened.view(np.float32).astype(np.float64)


def round_to(values: np.ndarray, precision: str) -> np.ndarray:
    return from_storage(to_storage(values, precision), precision)


# -- the graph and the engine's inputs ------------------------------------------------------------


@dataclass(frozen=True)
class Graph:
    """Node ``features`` ``[N, F]`` float64 and ``edges`` ``[E, 2]`` int64 (source, target),
    0-based: an edge ``s -> t`` sends ``features[s]`` to node ``t``."""

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
    """Features, X (default zeros) and W (default N(0, 1)) rounded to ``precision``."""
    features = round_to(graph.features, precision)
    if weights is None:
        weights = np.random.default_rng(seed).standard_normal((num_classes, graph.num_features))
    x = np.zeros_like(features) if x0 is None else round_to(x0, precision)
    # Sorted by target for the kernel's fast, deterministic path (benchmarks/README.md); any order
    # gives the same sums.
    edges = graph.edges[np.argsort(graph.edges[:, 1], kind="stable")]
    return RunInputs(x=x, src=np.ascontiguousarray(features[edges[:, 0]]),
                     idx=np.ascontiguousarray(edges[:, 1], dtype=np.int32),
                     weights=round_to(weights, precision), features=features)


def fit_weights(graph: Graph, x0: np.ndarray, labels: np.ndarray, leaders: tuple[int, ...],
                num_classes: int) -> np.ndarray:
    """W ``[C, F]``, the least-squares (minimum-norm) map of each leader's mean to its class."""
    sums, counts = scatter_add_reference(x0, graph.features[graph.edges[:, 0]], graph.edges[:, 1])
    means = sums / np.maximum(counts, 1)[:, None]
    targets = np.eye(num_classes)[labels[list(leaders)]]
    solution, *_ = np.linalg.lstsq(means[list(leaders)], targets, rcond=None)
    return np.ascontiguousarray(solution.T)


# -- the network's arithmetic at the run's precision ----------------------------------------------
# The model computes each layer in its type (the run's for X, the features, W and X + the sums;
# fp32 after the plugin), so that inputs.prepare can reject, before the build, an input where a
# value would overflow its type or stray from the float64 reference by more than MODEL_SHARE of the
# tolerance (docs/usage.md, "Tolerances", gives the argument).

FP32_MAX = float(np.finfo(np.float32).max)
# The share of each tolerance the model may use; the rest covers what it follows only roughly: one
# rounding the other way, the kernel's fp32 addition order, TensorRT's division, MatMul and SoftMax.
MODEL_SHARE = 0.8
# How the aggregation rounds: "run", the fast kernel (a row summed in fp32, CHUNK edges at a time,
# the chunks in order, then rounded to X's type and added to X); "edge", the reference kernel (each
# edge added to X in X's type, in any order); "piece", --aot's kernel (fp32 pieces added in X's
# type), modelled as "edge".
ROUNDINGS = ("run", "edge", "piece")
CHUNK = 256  # edges the fast kernel combines at once, in one round of a warp
# Past this in-degree, adding edge by edge in 16 bits is rejected without modelling: 2^16 additions
# that may each lose 2^-11 (fp16) or 2^-8 (bf16) exceed any tolerance, and the model would be slow.
EDGE_STEPS = 1 << 16


def modelled_network(inputs: RunInputs, precision: str, rounding: str = "run",
                     counts: np.ndarray | None = None) -> RunResult:
    """The strongly typed network in NumPy, each layer in its type, the edges in idx's order, as an
    in-place run's result widened to float64 (untimed); ``counts``: the in-degrees, if known."""
    if counts is None:
        counts = np.bincount(inputs.idx, minlength=inputs.x.shape[0])
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported by the caller
        if rounding == "run" or precision == "fp32":  # fp32 atomics add as an fp32 sum does
            sums = round_to(_fp32_sums(inputs.src, counts), precision)
            x_out = round_to(inputs.x + sums, precision)
        else:
            x_out = _added_in_turn(inputs.x, inputs.src, counts, precision)
        degree = np.maximum(counts, 1).astype(np.float32)  # int32 -> fp32, then MAX(., 1)
        means = x_out.astype(np.float32) / degree[:, None]  # DIV in fp32
        weights = inputs.weights.astype(np.float32)  # W in the run's type, cast to fp32
        relu = np.maximum(weights @ means.T, np.float32(0))  # MatMul in fp32 (TF32 off), ReLU
        shifted = np.exp(relu - relu.max(axis=0, keepdims=True))  # SoftMax in fp32
        probs = shifted / shifted.sum(axis=0, keepdims=True)
    return RunResult(means.astype(np.float64), probs.astype(np.float64), x_out, x_out, 0.0)


def _fp32_sums(src: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Each row's fp32 sum as the fast kernel makes it: CHUNK edges at once, those sums in order."""
    chunks = -(-counts // CHUNK)  # of each row
    first = np.cumsum(chunks) - chunks  # each row's first chunk
    row = np.repeat(np.arange(len(counts)), chunks)
    starts = np.cumsum(counts) - counts  # idx is sorted by row: a row's edges are consecutive
    offsets = (np.arange(len(row)) - first[row]) * CHUNK
    chunk_sums = np.zeros((0, src.shape[1]), dtype=np.float32)
    if len(row):  # a chunk's edges combined at once (NumPy's order), as a warp's scan does
        columns = np.ascontiguousarray(src.T, dtype=np.float32)
        chunk_sums = np.add.reduceat(columns, starts[row] + offsets, axis=1).T
    # An fp32 addition made in float64, then rounded to fp32, gives fp32's own bits: float64's 53
    # bits are at least 2 * 24 + 2, so rounding twice never differs from rounding once.
    return _added_in_turn(np.zeros((len(counts), src.shape[1])), chunk_sums, chunks, "fp32")


def _added_in_turn(total: np.ndarray, terms: np.ndarray, counts: np.ndarray,
                   precision: str) -> np.ndarray:
    """``total`` plus each row's ``counts`` terms (consecutive, rows in order), rounded to
    ``precision`` after every addition: step k adds each row's k-th term, rows sorted by falling
    count so that the rows still adding are a prefix."""
    starts = np.cumsum(counts) - counts
    order = np.argsort(-counts, kind="stable")
    falling = -counts[order]  # ascending, for searchsorted
    total = total[order]
    for step in range(int(counts.max(initial=0))):
        rows = int(np.searchsorted(falling, -step, side="left"))  # rows with more than `step` terms
        total[:rows] = round_to(total[:rows] + terms[starts[order[:rows]] + step], precision)
    result = np.empty_like(total)
    result[order] = total
    return result


def arithmetic_problem(inputs: RunInputs, precision: str, rounding: str = "run",
                       bound: str = "") -> str | None:
    """Why the network cannot compute these inputs at ``precision``, or None: a sum past its type
    (``bound``: its limit, in words), a logit past fp32, a result too far from float64."""
    limit = get(precision).max_finite
    bound = bound or f"largest finite value {limit:g}"
    # Each row's sums of its positive and its negative inputs: any partial sum lies between.
    ups, _ = scatter_add_reference(np.zeros_like(inputs.x), np.maximum(inputs.src, 0), inputs.idx)
    downs, _ = scatter_add_reference(np.zeros_like(inputs.x), np.minimum(inputs.src, 0), inputs.idx)
    overflow = _overflow(inputs, ups, downs, limit, rounding != "run")
    if overflow is not None:
        return f"{overflow} overflows {precision} ({bound})"
    counts = np.bincount(inputs.idx, minlength=inputs.x.shape[0])
    too_many = _too_many_edges(counts, precision, rounding)
    if too_many is not None:
        return too_many
    modelled = modelled_network(inputs, precision, rounding, counts)
    terms = np.abs(inputs.weights) @ np.abs(modelled.means).T  # no partial sum of a logit is more
    overflow = _first_above(terms.T, FP32_MAX)
    if overflow is not None:
        klass = int(np.argmax(terms[:, overflow[0]]))
        logit = float(inputs.weights[klass] @ modelled.means[overflow[0]])
        return (f"node {overflow[0]}, class {klass}: the logit W @ means ({logit:g}, of terms "
                f"reaching {overflow[1]:g}) overflows fp32, the type of the network's MatMul "
                f"(largest finite value {FP32_MAX:g})")
    lost = _lost(modelled, inputs.x + ups + downs, counts, inputs.weights, precision)
    if lost is not None and rounding != "run" and precision != "fp32":
        kernel = f"this kernel adds in {precision} an edge at a time"
        if rounding == "piece":
            kernel = f"--aot's kernel adds a row's pieces in {precision} (modelled an edge a time)"
        return f"{lost}; {kernel}, the fast kernel (the default) sums in fp32"
    return lost


def _too_many_edges(counts: np.ndarray, precision: str, rounding: str) -> str | None:
    """A row of more than EDGE_STEPS edges added one at a time in 16 bits, in a sentence."""
    if rounding == "run" or precision == "fp32" or counts.max(initial=0) <= EDGE_STEPS:
        return None
    node = int(np.argmax(counts))
    lost = {"fp16": "2^-11", "bf16": "2^-8"}[precision]  # the unit roundoff
    return (f"node {node}: its {counts[node]} incoming edges are more than this kernel can add "
            f"to X in {precision} one at a time within the tolerance (each addition may lose "
            f"{lost} of the partial sum); the fast kernel (the default) sums in fp32")


def _overflow(inputs: RunInputs, ups: np.ndarray, downs: np.ndarray, limit: float,
              in_x_type: bool) -> str | None:
    """The first of a row's sum, X + the sum and a partial sum (in X's type where ``in_x_type``)
    past its type, in words, or None."""
    checks = [("the sum of its incoming features", ups + downs, limit),
              ("X + the sum of its incoming features", inputs.x + ups + downs, limit),
              ("a partial sum of its incoming features", np.maximum(ups, -downs), FP32_MAX)]
    if in_x_type:
        partial = np.maximum(np.abs(inputs.x + ups), np.abs(inputs.x + downs))
        checks.append(("X plus a partial sum of its incoming features", partial, limit))
    for what, values, most in checks:
        overflow = _first_above(values, most)
        if overflow is not None:
            return f"node {overflow[0]}: {what} ({abs(overflow[1]):g})"
    return None


def _first_above(values: np.ndarray, limit: float) -> tuple[int, float] | None:
    """(row, signed value) of the largest magnitude in ``values`` if it exceeds ``limit``."""
    if values.size == 0:
        return None
    magnitude = np.abs(values).max(axis=1)
    row = int(np.argmax(magnitude))
    if magnitude[row] <= limit:
        return None
    column = int(np.argmax(np.abs(values[row])))
    return row, float(values[row, column])


def _lost(modelled: RunResult, exact: np.ndarray, counts: np.ndarray, weights: np.ndarray,
          precision: str) -> str | None:
    """The first of X_out, means and probs whose model misses the float64 reference (from
    ``exact``, X + the sums) by more than MODEL_SHARE of the tolerance, in a sentence."""
    means, probs = classifier_reference(exact, counts, weights)
    tolerance = TOLERANCES[precision]
    allowed = Tolerance(tolerance.rtol * MODEL_SHARE, tolerance.atol * MODEL_SHARE)
    for name, actual, expected in (("X + the sums", modelled.x_out, exact),
                                   ("mean", modelled.means, means),
                                   ("probability", modelled.probs, probs)):
        check = compare(actual, expected, allowed)
        if check.passed:
            continue
        where = f"node {check.worst_index[0]}"
        if name == "probability":
            where = f"node {check.worst_index[1]}, class {check.worst_index[0]}"
        got = float(actual[check.worst_index])
        wanted = float(expected[check.worst_index])
        return (f"{where}: its {name} cannot be held to the {precision} tolerance: the network's "
                f"{precision} arithmetic gives {got:.6g} where float64 gives {wanted:.6g}, "
                f"beyond {MODEL_SHARE:.0%} of the tolerance (docs/usage.md, Tolerances)")
    return None


# -- the reference and the verdict ----------------------------------------------------------------


def scatter_add_reference(x: np.ndarray, src: np.ndarray,
                          idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``x[idx[e]] += src[e]`` in float64, and the in-degrees; out-of-range indices skipped. It is
    also the kernel's contract (``kernels/scatter_add.cu``), so the GPU tests use it too."""
    x = np.array(x, dtype=np.float64, copy=True)
    idx = np.asarray(idx, dtype=np.int64)
    keep = (idx >= 0) & (idx < x.shape[0])
    rows = idx
    src = np.asarray(src, dtype=np.float64)
    if not keep.all():  # no copy of src when every index is in range, as the sample's are
        rows = idx[keep]
        src = src[keep]
    for column in range(x.shape[1]):  # bincount adds in edge order, as np.add.at, 10x faster
        x[:, column] += np.bincount(rows, weights=src[:, column], minlength=x.shape[0])
    counts = np.bincount(rows, minlength=x.shape[0]).astype(np.int64)
    return x, counts


def classifier_reference(sums: np.ndarray, counts: np.ndarray,
                         weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The network after the plugin: ``(means, probs)`` from X + the sums and the counts."""
    means = sums / np.maximum(counts, 1)[:, None]
    logits = np.maximum(np.asarray(weights, dtype=np.float64) @ means.T, 0.0)
    shifted = np.exp(logits - logits.max(axis=0, keepdims=True))
    return means, shifted / shifted.sum(axis=0, keepdims=True)


@dataclass(frozen=True)
class Comparison:
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
    """(passed, lines): X_out, X, means, probs and if asked each node's class, held to
    ``tolerance`` against the float64 reference."""
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
    with np.printoptions(precision=4, suppress=True, linewidth=120):
        matrix = str(probs)
    title = f"Class probabilities [classes x nodes] = {probs.shape[0]} x {probs.shape[1]}:"
    return [title, *matrix.splitlines()]


def predicted_vs_true(probs: np.ndarray, labels: np.ndarray, names: tuple[str, ...]) -> list[str]:
    """One line per node, its predicted faction beside the one it joined, then the accuracy."""
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
