"""rankkit's exceptions: what went wrong, where, and what was expected."""

from __future__ import annotations

__all__ = ["RankkitError", "InputError", "MeasureError", "RankkitWarning"]


class RankkitError(ValueError):
    """Base of every error rankkit raises about its inputs or arguments."""


class InputError(RankkitError):
    """A qrels or run that cannot be read or is wrong: the message names the source and place."""


class MeasureError(RankkitError):
    """An unknown measure name or a bad measure parameter."""


class RankkitWarning(UserWarning):
    """Something trec_eval accepts but a user should know: queries without judgments, fractional grades ..."""
