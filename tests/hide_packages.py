# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Run the real CLI as if some packages were not installed, on a machine where they are.

``hiding(tmp_path, "numpy", "tensorrt")`` returns the environment for a child Python whose
sitecustomize (on PYTHONPATH) puts a finder first on ``sys.meta_path`` that answers those names,
and their submodules, with the ModuleNotFoundError a missing package raises. Nothing stands in
for the hidden packages: their import simply fails, as it does where they are absent.
"""

from __future__ import annotations

import os
from pathlib import Path

HIDDEN = "HIDDEN_PACKAGES"

SITECUSTOMIZE = f'''
import os
import sys

_HIDDEN = tuple(name for name in os.environ.get("{HIDDEN}", "").split(",") if name)


class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if any(name == hidden or name.startswith(hidden + ".") for hidden in _HIDDEN):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
'''


def hiding(directory: Path, *modules: str) -> dict[str, str]:
    """Environment variables under which ``modules`` cannot be imported (``directory`` gets the
    sitecustomize)."""
    (directory / "sitecustomize.py").write_text(SITECUSTOMIZE)
    path = os.pathsep.join(filter(None, [str(directory), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": path, HIDDEN: ",".join(modules)}
