# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""What an engine was built for, and whether a saved engine still fits.

A serialized engine is only valid for the TensorRT version and GPU that built it, and the sample's
engine also fixes the precision, F, C, the plugin's aliasing, the profile's maximum N and E, and the
kernel interface its cubin expects (the plugin code's fingerprint).
``--engine PATH`` stores these next to the engine (``PATH.json``) and compares them before
reuse, so a stale engine is rebuilt with a one-line reason instead of failing inside TensorRT.
No TensorRT import: the comparison is plain data and is tested on CPU.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from gnn.profile_bounds import Bounds

if TYPE_CHECKING:
    from gnn.environment import Gpu
    from gnn.inputs import PreparedInputs
    from gnn.options import Options

@dataclass(frozen=True)
class EngineSpec:
    """Everything a built engine depends on (besides the network code itself)."""

    tensorrt: str
    gpu: str
    compute_capability: str
    precision: str
    num_features: int
    num_classes: int
    max_nodes: int
    max_edges: int
    aliased: bool
    plugin: str
    route: str  # "class" (the Python plugin) or "aot" (the QDP, whose engine runs without Python)
    kernel: str  # the class route's kernel fingerprint: the interface the engine's cubin expects ("" for aot)

    @property
    def bounds(self) -> Bounds:
        return Bounds(self.max_nodes, self.max_edges)

    @classmethod
    def for_run(cls, runtime: str, gpu: Gpu, prepared: PreparedInputs, plugin: str, options: Options) -> EngineSpec:
        """What this run's engine is built for: a saved engine is reused only when all of it matches."""
        import kernels  # an AOT engine holds its kernel whole: no later code launches it

        x, weights, bounds = prepared.inputs.x, prepared.inputs.weights, prepared.bounds
        return cls(tensorrt=runtime, gpu=gpu.name, compute_capability="".join(map(str, gpu.compute_capability)),
                   precision=options.precision, num_features=x.shape[1], num_classes=weights.shape[0],
                   max_nodes=bounds.max_nodes, max_edges=bounds.max_edges, aliased=options.aliased, plugin=plugin,
                   route="aot" if options.aot else "class",
                   kernel="" if options.aot else kernels.choose(options.kernel).fingerprint(
                       float_type=options.precision, index_type="int32"))


# How each field is named in a rebuild message.
_FIELD_WORDS = {
    "tensorrt": "TensorRT", "gpu": "GPU", "compute_capability": "compute capability", "precision": "precision",
    "num_features": "features per node", "num_classes": "classes", "aliased": "plugin aliasing",
    "plugin": "plugin version", "route": "plugin route",
}


def stale_reason(saved: EngineSpec | None, wanted: EngineSpec, num_nodes: int, num_edges: int,
                 exact_bounds: bool) -> str | None:
    """Why a saved engine cannot serve this run, or None if it can.

    The saved profile may be larger than ``wanted`` asks, unless the user set the bounds
    (``exact_bounds``): then they must match, so that the flags always describe the engine.
    """
    if saved is None:
        return "no readable description of the engine next to it"
    for name, word in _FIELD_WORDS.items():
        old, new = getattr(saved, name), getattr(wanted, name)
        if old != new:
            return f"it was built for {word} {old}, this run needs {new}"
    if saved.kernel != wanted.kernel:  # after the precision, which changes the fingerprint too
        return (f"its kernel was compiled by another version of this code (fingerprint {saved.kernel}, "
                f"this code's {wanted.kernel})")
    if exact_bounds and saved.bounds != wanted.bounds:
        return (f"its profile allows up to {saved.max_nodes} nodes and {saved.max_edges} edges, "
                f"--max-nodes/--max-edges ask for {wanted.max_nodes} and {wanted.max_edges}")
    if not saved.bounds.covers(num_nodes, num_edges):
        return (f"its profile allows up to {saved.max_nodes} nodes and {saved.max_edges} edges, "
                f"the graph has {num_nodes} and {num_edges}")
    return None


def sidecar_path(engine_path: str | Path) -> Path:
    return Path(f"{engine_path}.json")


def write_sidecar(engine_path: str | Path, spec: EngineSpec) -> None:
    sidecar_path(engine_path).write_text(json.dumps(asdict(spec), indent=2) + "\n")


def read_sidecar(engine_path: str | Path) -> EngineSpec | None:
    """The saved description, or None if it is missing, unreadable or from another layout."""
    try:
        data = json.loads(sidecar_path(engine_path).read_text())
        expected = {field.name for field in fields(EngineSpec)}
        if not isinstance(data, dict) or set(data) != expected:
            return None
        return EngineSpec(**data)
    except (OSError, ValueError, TypeError):
        return None
