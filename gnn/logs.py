# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""Where the run's log goes: Python logging on stderr, with Polygraphy's (and through it TensorRT's)
messages routed into it at the verbosity ``-v`` asks for. Only the standard library is imported at
module level, so that ``--help`` needs nothing installed."""

from __future__ import annotations

import logging
import sys


def configure(verbosity: int) -> None:
    """Python logging on stderr; Polygraphy (and through it TensorRT's logger) routed into it.

    At the default verbosity TensorRT and Polygraphy stay silent: a failure is reported as the
    driver's one line, which points at -v for their own messages.
    """
    level = logging.DEBUG  # -vv and beyond: every message, TensorRT VERBOSE among them
    if verbosity == 0:
        level = logging.WARNING
    elif verbosity == 1:
        level = logging.INFO
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    logging.captureWarnings(True)  # Python warnings (matplotlib's among them) through this log
    if verbosity == 0:  # e.g. "Matplotlib created a temporary cache directory": noise for this sample
        logging.getLogger("matplotlib").setLevel(logging.ERROR)
    try:
        from polygraphy.logger import G_LOGGER
    except ImportError:
        return
    if hasattr(G_LOGGER, "use_python_logging_system"):  # else Polygraphy prints to stdout
        G_LOGGER.use_python_logging_system = True
        logging.getLogger("Polygraphy").setLevel(1)
    G_LOGGER.module_severity = {0: G_LOGGER.CRITICAL + 1, 1: G_LOGGER.INFO}.get(verbosity, G_LOGGER.EXTRA_VERBOSE)
