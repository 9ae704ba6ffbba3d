# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""aliased_io_gnn.png is reproduced byte for byte by our drawing code; other graphs draw too."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT

graph_picture = pytest.importorskip("gnn.graph_picture", reason="networkx/matplotlib (requirements/extras.txt) missing")


def test_default_picture_is_reproduced_exactly(tmp_path: Path) -> None:
    out = tmp_path / "gnn.png"
    graph_picture.main([str(out)])
    assert out.read_bytes() == (ROOT / "aliased_io_gnn.png").read_bytes()


def test_any_graph_draws(tmp_path: Path) -> None:
    from gnn.graph_inputs import Graph

    graph = Graph(features=np.arange(12.0).reshape(6, 2), edges=np.array([[0, 1], [1, 1], [5, 0], [5, 0]]))
    out = tmp_path / "six.png"
    graph_picture.draw_graph(graph, str(out))
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 400 and int.from_bytes(data[20:24], "big") == 400
