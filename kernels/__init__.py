# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The scatter-add kernels of both plugin routes: the .cu files, and the Python that plans, compiles, launches them."""
