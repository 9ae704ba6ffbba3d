# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""What ``aliased_io_plugin.py`` leaves out of its TensorRT calls, in modules that import one way:
``cli`` (the flags and the messages; it imports no other module), ``model`` (the NumPy model of
the network and its float64 reference), ``inputs`` (graphs, their files, the memory they need),
``machine`` (packages, driver, GPU, the kernel), ``outputs`` (the files a run writes) and
``picture``. None of them imports TensorRT but ``machine``, which only checks that it is there."""
