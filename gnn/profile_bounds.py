# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The engine profile's bounds: the largest N and E an engine accepts, from the flags or the graph.

Below both the inputs (``gnn/inputs.py``, which chooses them) and the engine's description
(``gnn/engine_spec.py``, which stores and compares them), so that neither imports the other for them.
"""

from __future__ import annotations

from dataclasses import dataclass

from gnn.errors import InputError

MIN_DEFAULT_BOUND = 16
MAX_BOUND = (1 << 31) - 1  # int32 indices and counts


@dataclass(frozen=True)
class Bounds:
    """The optimization profile's maxima; the minimum is 1 and the optimum the graph at hand."""

    max_nodes: int
    max_edges: int

    def covers(self, num_nodes: int, num_edges: int) -> bool:
        return num_nodes <= self.max_nodes and num_edges <= self.max_edges


def default_bound(size: int) -> int:
    """The next power of two >= size (at least 16): room for similar graphs without rebuilding."""
    return max(MIN_DEFAULT_BOUND, 1 << max(size - 1, 0).bit_length())


def check_bound(flag: str, bound: int | None) -> None:
    """A bound the flags give, in range; checked with the flags, before the inputs are read."""
    if bound is not None and not 1 <= bound <= MAX_BOUND:
        raise InputError(f"{flag}: must be between 1 and 2^31 - 1, got {bound}")


def choose_bounds(num_nodes: int, num_edges: int, max_nodes: int | None, max_edges: int | None) -> Bounds:
    """Profile maxima from the flags (or defaults); the graph must fit them."""
    bounds = Bounds(default_bound(num_nodes) if max_nodes is None else max_nodes,
                    default_bound(num_edges) if max_edges is None else max_edges)
    for flag, bound, size, what in (("--max-nodes", bounds.max_nodes, num_nodes, "nodes"),
                                    ("--max-edges", bounds.max_edges, num_edges, "edges")):
        check_bound(flag, bound)
        if size > bound:
            raise InputError(f"{flag}: the graph has {size} {what}, more than the profile's maximum {bound}")
    return bounds
