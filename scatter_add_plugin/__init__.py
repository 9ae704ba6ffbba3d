# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""An in-place (aliased I/O) scatter-add TensorRT plugin; copy this folder. ``plugin.py`` holds the plugin,
its creator and ``register()``; ``qdp.py`` the same operation as a quickly deployable plugin whose kernel
the engine runs without Python. Nothing is imported here, so the modules without TensorRT load without it."""
