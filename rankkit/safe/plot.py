"""Text matplotlib draws as the characters it holds: system names, query ids, measure labels and
slice values come from files a stranger may have written, and rankkit.plot draws them in titles,
axis labels, legends and marks.

Three things go wrong with such text as it is. A control character (TAB, newline, NUL, ESC), or a
character the font has no glyph for (``中文系统`` in DejaVu Sans), stops Agg with "No glyphs have
been loaded" where rankkit measures a title, and otherwise draws an empty box and warns. Two ``$``
make matplotlib read the text between them as mathtext: ``$x$`` is drawn as an italic x, and
``$\\frac$`` stops the drawing with a parse error. And a newline or a bidirectional override
(U+202E) changes what the rest of the title says.

So :func:`text` writes each control, format, separator, private-use, unassigned or surrogate
character, and each character the font cannot draw, as a visible escape (``\\t``, ``\\n``,
``\\x1b``, ``\\u202e``, ``\\u4e2d``, ``\\U0001f600``: as :mod:`rankkit.safe.terminal` writes
them), and each ``$`` as ``\\$``, which matplotlib draws as a plain ``$``. A font that has the
glyphs (a CJK font first in ``font.sans-serif``) draws them as they are.
"""

from __future__ import annotations

import functools
import unicodedata

from rankkit.safe.terminal import escape as _escape

__all__ = ["text", "visible", "dollars"]

# control, format (bidirectional and zero-width ones among them), surrogate, private use, unassigned,
# and the line and paragraph separators: none draws as what it is
_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def text(value) -> str:
    """``value`` as matplotlib draws it, character for character: hidden and undrawable characters
    escaped visibly, ``$`` escaped against mathtext."""
    return dollars(visible(value))


def visible(value) -> str:
    """``value`` with every character the default font cannot show as itself written as an escape;
    ``$`` left as it is (rankkit.plot breaks long text into lines before escaping it: a line break
    between ``\\`` and ``$`` would undo the escape)."""
    value = str(value)
    if value.isascii() and value.isprintable():  # the everyday name: no character to look at
        return value
    font = _font_path()  # the glyphs asked of the font in use now (rcParams may change it)
    return "".join(_shown(char, font) for char in value)


def dollars(value: str) -> str:
    """``$`` as ``\\$``: matplotlib then reads no mathtext and draws each one as a ``$``."""
    return value.replace("$", "\\$")


@functools.lru_cache(maxsize=4096)
def _shown(char: str, font: str) -> str:
    if unicodedata.category(char) in _HIDDEN or not _has_glyph(char, font):
        return _escape(char)
    return char


def _has_glyph(char: str, font: str) -> bool:
    from matplotlib.font_manager import get_font

    return get_font(font).get_char_index(ord(char)) != 0


def _font_path() -> str:
    """The file of the font matplotlib draws text in by default (findfont caches its answer)."""
    from matplotlib.font_manager import FontProperties, findfont

    return findfont(FontProperties())
