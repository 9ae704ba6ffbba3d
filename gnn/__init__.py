# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Everything around the plugin, one module per stage of the story in ``aliased_io_plugin.py``:
the flags (``options``), the inputs (``inputs``, with ``graph_sources``, ``graph_inputs``,
``model``), the machine (``environment``), the kernel (``kernel_prep``), the network and its engine
(``trt_network``, ``engine_spec``, with the profile's bounds in ``profile_bounds``), the run in place
(``engine_runner``), the NumPy reference and validation (``reference``, ``model``); and the command line
(``cli``, with its log set-up in ``logs``), which only that file imports.

Only ``trt_network`` imports TensorRT at module level; every other module runs without it."""
