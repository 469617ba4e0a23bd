"""Text for a terminal, and for trec_eval's text (a field per TAB, a line per result): every
character that could end a line, move the cursor or start an escape sequence written visibly."""

from __future__ import annotations

import re

__all__ = ["visible", "escape", "CONTROL"]

# C0 (TAB, newline and ESC among them), DEL and C1 (0x9b is a one-byte CSI): what the readers refuse
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# and what a terminal or an editor also takes for a line break or a change of direction (Trojan
# Source): escaped on output, not refused on input
_SHOWN = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def escape(char: str) -> str:
    """One character's visible escape: ``\\n``, ``\\t``, ``\\r``, ``\\xNN``, ``\\uNNNN`` or
    ``\\UNNNNNNNN``; the form every kind of output writes a hidden character in (safe.html,
    safe.plot, and safe.latex in typewriter type)."""
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _escape(match: re.Match) -> str:
    return escape(match.group(0))


def visible(text) -> str:
    """``text`` with each control character written as ``\\n``, ``\\t``, ``\\r``, ``\\xNN`` or
    ``\\uNNNN``; any other text as it is (a printable string costs one C call)."""
    text = str(text)
    if text.isprintable():  # no control, separator or format character: the everyday case
        return text
    return _SHOWN.sub(_escape, text)
