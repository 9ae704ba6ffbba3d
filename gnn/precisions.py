# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The sample's three precisions and everything that depends on them, in one place.

For each precision: the CLI name, how its values are stored in NumPy/CuPy buffers (bf16 has no
NumPy type: its raw bits travel as uint16), the TensorRT
``DataType`` member, the oldest GPU that TensorRT builds it for, its largest finite value and
the validation tolerance. Pure Python + NumPy; the TensorRT name is a string so that nothing
here needs ``tensorrt``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import DTypeLike


@dataclass(frozen=True)
class Tolerance:
    """``|actual - expected| <= atol + rtol * |expected|``, elementwise; ``name`` says whose it is."""

    rtol: float
    atol: float
    name: str = ""


@dataclass(frozen=True)
class Precision:
    name: str  # --precision value
    storage: str  # NumPy dtype of device buffers
    itemsize: int
    trt_type: str  # member of trt.DataType
    min_compute_capability: tuple[int, int]
    max_finite: float
    tolerance: Tolerance
    # Bytes per element that a conversion to the storage type holds at once beyond its result:
    # bf16's rounding works through float32 and uint64 copies (measured: 36 bytes, 2 of them the
    # result). gnn/memory_budget.py counts it for the largest array converted.
    conversion_bytes: int = 0


# Tolerances, stated once per precision, for the node means and the class probabilities alike.
# fp32: atomics only reorder fp32 additions, and MatMul runs in fp32 because the builder
# configuration clears TF32 (trt_network.builder_config): TF32 rounds W and the means to 10
# mantissa bits, which this tolerance does not allow. fp16: ~3 roundings at 2^-11 of a logit of
# magnitude ~10 move a probability by ~1e-3. bf16 has 8 mantissa bits (2^-9 per rounding).
# TensorRT builds fp32/fp16 from Turing (7.5, its oldest supported GPU) and bf16 from Ampere (8.0).
_ALL = (
    Precision("fp32", "float32", 4, "FLOAT", (7, 5), float(np.finfo(np.float32).max), Tolerance(1e-4, 1e-5, "fp32")),
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
        raise ValueError(f"unknown precision {name!r}; expected one of {', '.join(NAMES)}") from None


def unsupported_reason(name: str, compute_capability: tuple[int, int]) -> str | None:
    """Why TensorRT cannot build ``name`` on a GPU of this compute capability, or None."""
    needed = get(name).min_compute_capability
    if compute_capability >= needed:
        return None
    have = ".".join(map(str, compute_capability))
    return f"TensorRT builds {name} only on compute capability {needed[0]}.{needed[1]}+, this GPU is {have}"


def of_storage_dtype(dtype: DTypeLike) -> Precision:
    """The precision whose device buffers have ``dtype`` (uint16 means bf16 bits)."""
    for precision in _ALL:
        if np.dtype(precision.storage) == np.dtype(dtype):
            return precision
    raise ValueError(f"unsupported feature dtype {dtype}; use float32, float16 or uint16 (bf16 bits)")


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """Round float values to bfloat16 (nearest, ties to even) and return the raw uint16 bits."""
    as_f32 = np.ascontiguousarray(values, dtype=np.float32)
    bits = as_f32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return np.where(np.isnan(as_f32), 0x7FC0, rounded).astype(np.uint16)


def bf16_to_float64(bits: np.ndarray) -> np.ndarray:
    """Widen raw bfloat16 bits (uint16) to float64 exactly."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


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
