# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""What ``aliased_io_plugin.py`` leaves out of its TensorRT calls: ``cli`` (the flags and the
messages; it imports no other module), ``model``, ``inputs``, ``machine``, ``outputs``, ``picture``.
None of them imports TensorRT but ``machine``, which only checks that it is there."""
