# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""What ``aliased_io_plugin.py`` leaves out of its TensorRT story, in rooms it imports one way:
``cli`` (the flags and the messages, at the bottom: it imports no other room), ``model`` (the
NumPy model and reference), ``tables`` (the files of numbers), ``graphs`` (where graphs come from,
the memory they need), ``machine`` (packages, driver, GPU, the kernel), ``engine_file`` and
``picture``. None of them imports TensorRT."""
