"""Text of an HTML page (the report) shown as the characters it holds. Jinja's autoescape already
keeps markup out (``<script>`` is shown, not run); this writes visibly what a browser would hide or
let change the text around it: control characters (a NUL, an ESC, a TAB or newline folded into a
space), bidirectional controls (U+202E would show ``ab\\u202edcba`` as ``abdcba`` reversed and
reverse the rest of a sentence), zero-width and other format characters, line separators and lone
surrogates (which no UTF-8 page can hold). Each is written as rankkit.safe.terminal writes it:
``\\t``, ``\\n``, ``\\x1b``, ``\\u202e``."""

from __future__ import annotations

import html
import unicodedata

from rankkit.safe.terminal import escape as _escape

__all__ = ["visible", "text"]

_HIDDEN = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def visible(value):
    """A string with its hidden characters escaped; anything else (numbers, Markup) as it is."""
    if not isinstance(value, str) or value.isprintable() or hasattr(value, "__html__"):
        return value
    return "".join(_escape(char) if unicodedata.category(char) in _HIDDEN else char for char in value)


def text(value) -> str:
    """Text for HTML written by hand (the explorer's widgets, not autoescaped as the report's Jinja
    templates are): escaped as markup, its hidden characters visible first."""
    return html.escape(visible(str(value)))
