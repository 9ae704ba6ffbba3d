# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""How much memory a run will need, and how much this process may use: refuse before allocating.

The host estimate counts the arrays the sample holds at its peaks, for N nodes, E edges, F
features, C classes and s bytes per element of the run's precision:

    host = 8 * (7*N*F + 3*E*F + 6*E + 6*C*N + 2*C*F) + s * (4*N*F + E*F + 2*C*F) + 4 * (N*F + C*N)
           + t * max(N*F, E*F, C*F)

float64 working copies (features, rounded features, X, the reference's sums and means, the
caller's X and X_out read back after the run; the edges' source rows in the inputs, the
reference and the upload staging; edges, their sort order and indices; the reference's logits,
exponentials and probabilities and the comparison's working copies of them; the class weights W,
drawn and rounded), plus the arrays in the run's precision (uploaded, X and X_out as read back, W
rounded and uploaded) and the network's float32 means and probabilities as read back; t is what
a conversion to the precision holds beyond its result, for the largest array converted (34 bytes
for bf16, whose rounding works through wider copies; 0 for fp32 and fp16). W alone
(C x F, up to 65536 x 65536) can be 32 GiB of float64 for a graph of ten nodes.
The device estimate is the engine's buffers (X_out apart from X when the aggregation works out
of place, W), the plugin's workspace, and the same again for TensorRT's own activations:

    device = 2 * (s * (3*N*F + E*F + C*F) + 4*E + 4*N + 4*(N*F + C*N)) + workspace

What the process may use is the smaller of the kernel's MemAvailable and what RLIMIT_AS leaves.
Pure Python + NumPy sizes; nothing is allocated here.
"""

from __future__ import annotations

import os
import resource

from gnn.errors import InputError

GIB = 1 << 30


def host_bytes(num_nodes: int, num_edges: int, num_features: int, num_classes: int, itemsize: int,
               conversion: int = 0) -> int:
    """``conversion``: bytes per element a conversion to the run's precision holds beyond its
    result (bf16's; gnn/precisions.py), counted once, for the largest array converted."""
    n, e, f, c = num_nodes, num_edges, num_features, num_classes
    float64 = 7 * n * f + 3 * e * f + 6 * e + 6 * c * n + 2 * c * f
    in_precision = 4 * n * f + e * f + 2 * c * f
    converting = conversion * max(n * f, e * f, c * f)
    return 8 * float64 + itemsize * in_precision + 4 * (n * f + c * n) + converting


def device_bytes(num_nodes: int, num_edges: int, num_features: int, num_classes: int, itemsize: int,
                 workspace: int) -> int:
    n, e, f, c = num_nodes, num_edges, num_features, num_classes
    buffers = itemsize * (3 * n * f + e * f + c * f) + 4 * e + 4 * n + 4 * (n * f + c * n)
    return 2 * buffers + workspace


def available_bytes() -> int | None:
    """Bytes this process may still allocate, or None when the system does not say."""
    limits = []
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    limits.append(int(line.split()[1]) * 1024)
    except (OSError, ValueError):
        pass
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY:
        limits.append(max(0, soft - _address_space_in_use()))
    return min(limits) if limits else None


def _address_space_in_use() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def gib(size: int) -> str:
    return f"{size / GIB:.1f} GiB" if size >= GIB / 10 else f"{size / (1 << 20):.1f} MiB"


def ensure_fits(what: str, needed: int, available: int | None = None, kind: str = "memory") -> None:
    """Raise InputError naming ``what`` when ``needed`` bytes exceed what is available."""
    available = available_bytes() if available is None else available
    if available is not None and needed > available:
        raise InputError(f"{what}: needs about {gib(needed)} of {kind}, this process may use {gib(available)}")
