"""rankkit's exceptions: what went wrong, where, and what was expected."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

from rankkit.safe.terminal import visible

__all__ = ["RankkitError", "InputError", "MeasureError", "RankkitWarning", "warn"]

_PACKAGE = str(Path(__file__).resolve().parent)


class RankkitError(ValueError):
    """Base of every error rankkit raises about its inputs or arguments. Its message quotes ids, file
    names and lines from the inputs: their control characters are written visibly (``\\n``,
    ``\\x1b``), so that a message stays one line and sends no sequence to the terminal."""

    def __init__(self, *args):
        super().__init__(*(visible(arg) if isinstance(arg, str) else arg for arg in args))


class InputError(RankkitError):
    """A qrels or run that cannot be read or is wrong: the message names the source and place."""


class MeasureError(RankkitError):
    """An unknown measure name or a bad measure parameter."""


class RankkitWarning(UserWarning):
    """Something trec_eval accepts but a user should know: queries without judgments, fractional grades ..."""


def warn(message: str, category: type[Warning] = None) -> None:
    """Warn at the caller's line: the first frame outside rankkit, however deep the call that warns."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(_PACKAGE):
        level, frame = level + 1, frame.f_back
    warnings.warn(visible(message), category or RankkitWarning, stacklevel=level + 1)  # + 1: this function
