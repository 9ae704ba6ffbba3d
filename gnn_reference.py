"""NumPy float64 reference for the sample's network, and the tolerances it is judged by.

Pure NumPy: no GPU, no TensorRT. The reference takes the same inputs the engine gets, already
rounded to the run's precision (:func:`round_to`), so that only the engine's arithmetic is
compared, not the rounding of its inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PRECISIONS = ("fp32", "fp16", "bf16")
# Largest finite value of each precision: inputs or sums past it would turn into inf.
MAX_FINITE = {"fp32": float(np.finfo(np.float32).max), "fp16": 65504.0, "bf16": 3.3895313892515355e38}


@dataclass(frozen=True)
class Tolerance:
    """``|actual - expected| <= atol + rtol * |expected|``, elementwise."""

    rtol: float
    atol: float


# Stated once per precision; used for the node means and the class probabilities alike.
# fp32: atomics only reorder fp32 additions. fp16: ~3 roundings at 2^-11 of a logit of
# magnitude ~10 move a probability by ~1e-3. bf16 has 8 mantissa bits (2^-9 per rounding).
TOLERANCES = {
    "fp32": Tolerance(rtol=1e-4, atol=1e-5),
    "fp16": Tolerance(rtol=1e-2, atol=5e-3),
    "bf16": Tolerance(rtol=5e-2, atol=2e-2),
}


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """Round float values to bfloat16 (nearest, ties to even) and return the raw uint16 bits."""
    as_f32 = np.ascontiguousarray(values, dtype=np.float32)
    bits = as_f32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(as_f32)
    return np.where(nan, 0x7FC0, rounded).astype(np.uint16)


def bf16_to_float64(bits: np.ndarray) -> np.ndarray:
    """Widen raw bfloat16 bits (uint16) to float64 exactly."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def to_storage(values: np.ndarray, precision: str) -> np.ndarray:
    """Values as the engine stores them: float32, float16, or uint16 bfloat16 bits."""
    if precision == "fp32":
        return np.ascontiguousarray(values, dtype=np.float32)
    if precision == "fp16":
        return np.ascontiguousarray(values, dtype=np.float16)
    if precision == "bf16":
        return bf16_bits(values)
    raise ValueError(f"unknown precision {precision!r}")


def from_storage(stored: np.ndarray, precision: str) -> np.ndarray:
    """Inverse of :func:`to_storage`, exactly, as float64."""
    if precision == "bf16":
        return bf16_to_float64(stored)
    return np.asarray(stored, dtype=np.float64)


def round_to(values: np.ndarray, precision: str) -> np.ndarray:
    """Float64 copy of ``values`` after a round trip through ``precision``."""
    return from_storage(to_storage(values, precision), precision)


def scatter_add_reference(
    x: np.ndarray, src: np.ndarray, idx: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``x[idx[e]] += src[e]`` in float64, and in-degree counts; out-of-range indices skipped.

    This is also the kernel's contract (``kernels/scatter_add.cu``), so GPU tests use it too.
    """
    x = np.array(x, dtype=np.float64, copy=True)
    idx = np.asarray(idx, dtype=np.int64)
    keep = (idx >= 0) & (idx < x.shape[0])
    np.add.at(x, idx[keep], np.asarray(src, dtype=np.float64)[keep])
    counts = np.bincount(idx[keep], minlength=x.shape[0]).astype(np.int64)
    return x, counts


def gnn_reference(
    x: np.ndarray, features: np.ndarray, edges: np.ndarray, weights: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The whole network in float64.

    Args:
        x: ``[N, F]`` initial per-node values (the aliased plugin input).
        features: ``[N, F]`` node features; edge ``s -> t`` contributes ``features[s]`` to ``t``.
        edges: ``[E, 2]`` int (source, target), 0-based.
        weights: ``[C, F]`` class weights.

    Returns:
        ``means [N, F] = (x + sum of incoming features) / max(in-degree, 1)`` and
        ``probs [C, N] = softmax_over_classes(relu(weights @ means.T))``.
    """
    src = np.asarray(features, dtype=np.float64)[edges[:, 0]]
    sums, counts = scatter_add_reference(x, src, edges[:, 1])
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
