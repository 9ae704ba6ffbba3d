# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The scatter-add kernels of both plugin routes: the .cu sources, and the Python that plans (``plan.py``),
compiles, loads and launches them (``scatter_add.py``; the QDP route's PTX: ``scatter_add_aot.py``)."""
