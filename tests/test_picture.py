# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The README's pictures are reproduced byte for byte by the CLI's --draw-graph, the way the
picture module's docstring says to redraw them; other graphs draw too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT

picture = pytest.importorskip("gnn.picture", reason="networkx/matplotlib (requirements/extras.txt) missing")


@pytest.mark.parametrize(("args", "drawn"), [([], "aliased_io_gnn.png"),
                                             (["--graph", "karate"], "docs/karate_club.png")])
def test_the_readme_pictures_are_reproduced_exactly(tmp_path: Path, args: list[str], drawn: str) -> None:
    out = tmp_path / "picture.png"
    command = f"python3 aliased_io_plugin.py {' '.join(args)} --draw-graph {drawn}".replace("  ", " ")
    assert command in (ROOT / "gnn" / "picture.py").read_text()  # how its docstring says to redraw it
    subprocess.run([sys.executable, str(ROOT / "aliased_io_plugin.py"), *args, "--draw-graph", str(out)],
                   capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.read_bytes() == (ROOT / drawn).read_bytes()


def test_any_graph_draws(tmp_path: Path) -> None:
    from gnn.model import Graph

    graph = Graph(features=np.arange(12.0).reshape(6, 2), edges=np.array([[0, 1], [1, 1], [5, 0], [5, 0]]))
    out = tmp_path / "six.png"
    picture.draw_graph(graph, str(out))
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 400 and int.from_bytes(data[20:24], "big") == 400
