#!/usr/bin/env python3
"""Draw a sample graph (nodes, directed edges, features) to a PNG, reproducibly.

Needs the optional extras networkx and matplotlib (``requirements-extras.txt``). The same
inputs and library versions give the same bytes: fixed layout, size, DPI and fonts, the Agg
backend, and no version string in the PNG metadata.

    python3 graph_picture.py                 # redraws aliased_io_gnn.png from the default graph
    python3 graph_picture.py out.png         # same graph, another file
"""

from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")  # headless and deterministic; must precede pyplot

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402

from graph_inputs import DEFAULT_EDGES, DEFAULT_NODE_FEATURES, Graph, parse_graph  # noqa: E402

DEFAULT_PICTURE = "aliased_io_gnn.png"


def _positions(graph: Graph) -> dict[int, tuple[float, float]]:
    """Nodes on a circle, node 0 at the top-left, going clockwise (the default graph is a square)."""
    angles = 3 * np.pi / 4 - 2 * np.pi * np.arange(graph.num_nodes) / graph.num_nodes
    return {node: (float(np.cos(a)), float(np.sin(a))) for node, a in enumerate(angles)}


def _feature_label(values: np.ndarray) -> str:
    shown = ", ".join(f"{v:g}" for v in values[:3])
    return f"[{shown}{', ...' if values.size > 3 else ''}]"


def draw_graph(graph: Graph, path: str) -> None:
    """Write ``graph`` to ``path`` as a PNG: node ids in circles, features beside them."""
    digraph = nx.MultiDiGraph()
    digraph.add_nodes_from(range(graph.num_nodes))
    digraph.add_edges_from((int(s), int(t)) for s, t in graph.edges)
    pos = _positions(graph)
    figure, axes = plt.subplots(figsize=(4, 4), dpi=100)
    nx.draw_networkx_nodes(digraph, pos, ax=axes, node_color="#a6cee3", edgecolors="#1f4e79", node_size=700)
    nx.draw_networkx_labels(digraph, pos, ax=axes, font_size=12, font_family="DejaVu Sans")
    nx.draw_networkx_edges(digraph, pos, ax=axes, arrows=True, arrowstyle="-|>", arrowsize=18,
                           node_size=700, connectionstyle="arc3,rad=0.12", edge_color="#333333")
    for node, (x, y) in pos.items():
        label = _feature_label(graph.features[node])
        axes.annotate(label, (x, y), xytext=(1.32 * x, 1.32 * y), ha="center", va="center", fontsize=10,
                      family="DejaVu Sans", color="#7a1f1f")
    axes.set_title("x[t] += features[s] for each edge s \u2192 t", fontsize=10, family="DejaVu Sans")
    axes.set_xlim(-1.7, 1.7)
    axes.set_ylim(-1.7, 1.7)
    axes.set_axis_off()
    figure.savefig(path, format="png", metadata={"Software": None})
    plt.close(figure)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = args[0] if args else DEFAULT_PICTURE
    draw_graph(parse_graph(DEFAULT_NODE_FEATURES, DEFAULT_EDGES), path)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
