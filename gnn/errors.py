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
    """Something this machine lacks, in one line; the subclass says what, and ``what_runs`` what does run
    here anyway, which the command line adds at the end of the line."""

    what_runs = ""


class MissingPackage(EnvironmentProblem):
    """A required package (or the CUDA headers NVRTC needs) is missing or too old."""

    # Most often TensorRT, whose libraries come only from NVIDIA's index; the tests need neither.
    what_runs = ("`bash run_tests.sh` needs neither TensorRT nor NVIDIA's index: it installs its test packages "
                 "from PyPI and runs the tests this machine can run")


class MissingExtra(MissingPackage):
    """An optional package of requirements/extras.txt (networkx, matplotlib) is needed for what a flag asked;
    leaving the flag out is the answer, so its line names nothing else to run."""

    what_runs = ""


class NoGpu(EnvironmentProblem):
    """No usable CUDA GPU: no driver, a driver too old, or no device."""

    what_runs = "Without a GPU, `bash run_tests.sh` runs the sample's tests that need none"


class OutputFailure(RuntimeError):
    """A file the run was asked to write (the picture, the engine) could not be written, its path
    having passed the checks before any work: a full disk, a device that takes nothing."""


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
