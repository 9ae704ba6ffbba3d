# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""TEMPORARY: the driver's old module names, for the tests of the kernels and the plugin that still
import them (tests/test_kernel_*, test_plugin_*, test_aot_*, kernel_arrays.py), until those tests
import the new names. Nothing of the sample uses these names; conftest.py installs the finder.

    gnn.precisions, gnn.reference  -> gnn.model           gnn.graph_sources -> gnn.graphs
    gnn.choices                    -> gnn.cli             gnn.build_progress -> gnn.engine_file
    gnn.trt_network                -> aliased_io_plugin's BuildProgress (progress_monitor),
                                      refused and plugin_aggregation

Each old name is a module of its own holding the new module's names: a test that swaps
``gnn.trt_network`` out of sys.modules and imports it again (conftest.tensorrt_replaced_by) gets it
afresh, and the script's functions import TensorRT at call time, whatever runtime is in place.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

RENAMED = {"gnn.precisions": "gnn.model", "gnn.reference": "gnn.model", "gnn.graph_sources": "gnn.graphs",
           "gnn.choices": "gnn.cli", "gnn.build_progress": "gnn.engine_file"}
SCRIPT_NAMES = {"BuildProgress": "progress_monitor", "refused": "refused",
                "plugin_aggregation": "plugin_aggregation"}


class OldNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if name in RENAMED or name == "gnn.trt_network":
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        if module.__name__ in RENAMED:
            new = importlib.import_module(RENAMED[module.__name__])
            module.__dict__.update({k: v for k, v in vars(new).items() if not k.startswith("__")})
            return
        importlib.import_module("scatter_add_plugin")  # as the old module did, on whatever TensorRT
        script = importlib.import_module("aliased_io_plugin")
        module.__dict__.update({old: getattr(script, new) for old, new in SCRIPT_NAMES.items()})


def install() -> None:
    if not any(isinstance(finder, OldNames) for finder in sys.meta_path):
        sys.meta_path.append(OldNames())
