# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""A child process that honours permission bits as any user's does, also where the tests run as
root (as in CI's containers), whose CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH would let it write a
read-only file. Pass :func:`honour_permission_bits` as ``preexec_fn``.

The capabilities are dropped from the child's bounding set, which its exec keeps (an exec as root
would give the effective and permitted sets back in full). The test process keeps its own.
"""

from __future__ import annotations

import ctypes
import os

PR_CAPBSET_DROP = 24  # <linux/prctl.h>
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2  # <linux/capability.h>


def honour_permission_bits() -> None:
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), f"prctl(PR_CAPBSET_DROP, {capability})")
