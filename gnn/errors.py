"""The failures the command line reports as one line with an exit code, and how paths appear in
those lines. Nothing is imported here: ``gnn/cli.py`` catches these before it knows whether NumPy
is installed."""

from __future__ import annotations


class InputError(ValueError):
    """Bad user input; the message is one line meant for the user."""


class TensorRTFailure(RuntimeError):
    """TensorRT refused a stage: ``build``, ``deserialize`` or ``execute``."""

    def __init__(self, stage: str, detail: str) -> None:
        super().__init__(f"TensorRT failed to {stage} the engine: {detail}")
        self.stage = stage


def quote_path(path: str, limit: int = 120) -> str:
    """A path for a one-line message: quoted (a newline in it shows as \\n), long ones shortened."""
    return repr(path if len(path) <= limit else path[: limit // 2] + "..." + path[-limit // 3:])
