# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The optional packages (``requirements/extras.txt``) a run's flags ask for: networkx for the
built-in graphs that ship with it, networkx and matplotlib for ``--draw-graph``.

They are looked for, not imported, before any input is read, so that the one line naming what is
missing names them too, and one round of installing fixes the run. Only the standard library is
imported.
"""

from __future__ import annotations

import importlib.util

from gnn.choices import NETWORKX_GRAPHS
from gnn.environment import EXTRAS
from gnn.errors import MissingExtra
from gnn.options import InputOptions


def asked_for(options: InputOptions) -> dict[str, tuple[str, ...]]:
    """The extras each flag of the run needs, by the flag as typed."""
    asked = {}
    if options.graph.graph in NETWORKX_GRAPHS:
        asked[f"--graph {options.graph.graph}"] = ("networkx",)
    if options.draw_graph is not None:
        asked["--draw-graph"] = ("networkx", "matplotlib")
    return asked


def missing(options: InputOptions) -> list[MissingExtra]:
    """One problem naming the flags and the extras they need that are not installed, or none."""
    asked = asked_for(options)
    wanted = dict.fromkeys(module for modules in asked.values() for module in modules)
    absent = [module for module in wanted if not findable(module)]
    if not absent:
        return []
    flags = [flag for flag, modules in asked.items() if set(modules) & set(absent)]
    need = "needs" if len(flags) == 1 else "need"
    return [MissingExtra(f"{' and '.join(flags)} {need} {' and '.join(absent)}: "
                         f"python3 -m pip install -r {EXTRAS}")]


def findable(module: str) -> bool:
    """Whether Python finds the package, without importing it (matplotlib takes a second)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a stand-in that hides it raises; so does a broken one
        return False
