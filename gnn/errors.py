# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
"""The failures the command line reports as one line, and how paths appear in those lines.

Each kind of failure is its own class, and ``gnn/cli.py`` alone maps the classes to exit codes:
the stages raise what went wrong without knowing how it is reported. Nothing is imported here,
so the command line can catch these before it knows whether NumPy is installed."""

from __future__ import annotations


class InputError(ValueError):
    """Bad user input; the message is one line meant for the user."""


class EnvironmentProblem(RuntimeError):
    """Something this machine lacks, in one line; the subclass says what."""


class MissingPackage(EnvironmentProblem):
    """A required package (or the CUDA headers NVRTC needs) is missing or too old."""


class NoGpu(EnvironmentProblem):
    """No usable CUDA GPU: no driver, a driver too old, or no device."""


class KernelFailure(RuntimeError):
    """The scatter-add kernel could not be compiled or loaded."""


class TensorRTFailure(RuntimeError):
    """TensorRT refused a stage: ``build``, ``deserialize`` or ``execute``."""

    def __init__(self, stage: str, detail: str) -> None:
        super().__init__(f"TensorRT failed to {stage} the engine: {detail}")
        self.stage = stage


def quote_path(path: str, limit: int = 120) -> str:
    """A path for a one-line message: quoted (a newline in it shows as \\n), long ones shortened."""
    return repr(path if len(path) <= limit else path[: limit // 2] + "..." + path[-limit // 3:])
