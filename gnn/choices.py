# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The values the command line offers. Nothing is imported here, so that ``--help`` and flag
errors work before any package is installed; the modules that use these import them from here."""

PRECISION_NAMES = ("fp32", "fp16", "bf16")  # gnn/precisions.py's NAMES; tests/test_cli.py keeps them equal
BUILTIN_GRAPHS = ("karate", "les-miserables", "florentine")
NETWORKX_GRAPHS = ("les-miserables", "florentine")  # ship with networkx, an optional extra
DEGREE_MODELS = ("uniform", "powerlaw")
# kernels.KERNELS, the default first: tests/test_kernel_interface.py keeps them equal.
KERNEL_NAMES = ("fast", "reference")
DEFAULT_NODE_FEATURES = "[1.0,3.0,5.0,7.0]"
DEFAULT_EDGES = "[[0,1],[1,2],[2,3],[3,0],[0,2],[1,3]]"
