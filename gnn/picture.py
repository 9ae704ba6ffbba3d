# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The ``--draw-graph`` picture: a graph drawn to a PNG with networkx and matplotlib (optional
extras, requirements/extras.txt). The same inputs and library versions give the same bytes: fixed
layout, size, DPI and fonts, the Agg backend, no version in the metadata. The README's pictures:

    python3 aliased_io_plugin.py --draw-graph aliased_io_gnn.png
    python3 aliased_io_plugin.py --graph karate --draw-graph docs/karate_club.png
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # headless and deterministic; must precede pyplot

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402

from gnn.model import Graph  # noqa: E402


SMALL = 12  # up to this many nodes: a circle with each node's features beside it
FONT = "DejaVu Sans"
PALETTE = ("#a6cee3", "#fdbf6f", "#b2df8a", "#fb9a99", "#cab2d6")


def draw_graph(graph: Graph, path: str, labels: np.ndarray | None = None,
               label_names: tuple[str, ...] = ()) -> None:
    """``graph`` as a PNG at ``path``: a small graph with its features, a larger one by shape."""
    if graph.num_nodes > SMALL:
        _draw_large(graph, path, labels, label_names)
        return
    _draw_small(graph, path)


def _draw_large(graph: Graph, path: str, labels: np.ndarray | None,
                label_names: tuple[str, ...]) -> None:
    """A seeded spring layout; ids in the nodes, coloured by label; symmetric edges as lines."""
    pairs = {(int(s), int(t)) for s, t in graph.edges}
    undirected = all((t, s) in pairs for s, t in pairs)
    drawn = nx.Graph() if undirected else nx.DiGraph()
    drawn.add_nodes_from(range(graph.num_nodes))
    drawn.add_edges_from(pairs)
    pos = nx.spring_layout(drawn, seed=3, k=3.2 / np.sqrt(graph.num_nodes), iterations=300)
    colors = [PALETTE[0]] * graph.num_nodes
    if labels is not None:
        colors = [PALETTE[int(labels[n]) % len(PALETTE)] for n in drawn.nodes]
    figure, axes = plt.subplots(figsize=(7, 7), dpi=100)
    arrows = {"arrows": True, "arrowsize": 8, "node_size": 360} if not undirected else {}
    nx.draw_networkx_edges(drawn, pos, ax=axes, edge_color="#999999", width=0.8, **arrows)
    nx.draw_networkx_nodes(drawn, pos, ax=axes, node_color=colors, edgecolors="#333333",
                           node_size=360)
    nx.draw_networkx_labels(drawn, pos, ax=axes, font_size=8, font_family=FONT)
    if labels is not None:
        for index, name in enumerate(label_names):
            axes.scatter([], [], color=PALETTE[index % len(PALETTE)], edgecolors="#333333",
                         label=name)
        axes.legend(loc="upper left", frameon=False, prop={"family": FONT, "size": 9})
    shown = "friendships (both directions are edges)" if undirected else "edges"
    axes.set_title(f"{graph.num_nodes} nodes, {len(pairs) // (2 if undirected else 1)} {shown}",
                   fontsize=10, family=FONT)
    axes.margins(0.04)
    axes.set_axis_off()
    figure.savefig(path, format="png", metadata={"Software": None})
    plt.close(figure)


def _draw_small(graph: Graph, path: str) -> None:
    """Nodes on a circle clockwise from the top-left, each with its features: the README's."""
    digraph = nx.MultiDiGraph()
    digraph.add_nodes_from(range(graph.num_nodes))
    digraph.add_edges_from((int(s), int(t)) for s, t in graph.edges)
    angles = 3 * np.pi / 4 - 2 * np.pi * np.arange(graph.num_nodes) / graph.num_nodes
    pos = {node: (float(np.cos(a)), float(np.sin(a))) for node, a in enumerate(angles)}
    figure, axes = plt.subplots(figsize=(4, 4), dpi=100)
    nx.draw_networkx_nodes(digraph, pos, ax=axes, node_color="#a6cee3", edgecolors="#1f4e79",
                           node_size=700)
    nx.draw_networkx_labels(digraph, pos, ax=axes, font_size=12, font_family=FONT)
    nx.draw_networkx_edges(digraph, pos, ax=axes, arrows=True, arrowstyle="-|>", arrowsize=18,
                           node_size=700, connectionstyle="arc3,rad=0.12", edge_color="#333333")
    for node, (x, y) in pos.items():
        values = graph.features[node]
        more = ", ..." if values.size > 3 else ""
        label = f"[{', '.join(f'{v:g}' for v in values[:3])}{more}]"
        axes.annotate(label, (x, y), xytext=(1.32 * x, 1.32 * y), ha="center", va="center",
                      fontsize=10, family=FONT, color="#7a1f1f")
    axes.set_title("x[t] += features[s] for each edge s \u2192 t", fontsize=10, family=FONT)
    axes.set_xlim(-1.7, 1.7)
    axes.set_ylim(-1.7, 1.7)
    axes.set_axis_off()
    figure.savefig(path, format="png", metadata={"Software": None})
    plt.close(figure)
