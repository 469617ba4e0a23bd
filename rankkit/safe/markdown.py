"""Markdown text: a cell of a GitHub-flavoured table, a title or a note paragraph, shown as the
characters it holds. Every character Markdown (CommonMark and GFM) reads as markup is
backslash-escaped, so no HTML tag or entity, link, image, emphasis, code span, strikethrough, math
or ``|`` cell end comes through; control characters are written visibly (``\\n``) first, so no
newline ends a row or starts a block. A bare URL stays text, though GitHub's renderer may link it:
its shown text is then its target."""

from __future__ import annotations

import re

from rankkit.safe.terminal import visible

__all__ = ["text"]

# CommonMark escapes any ASCII punctuation with a backslash; these are the ones that start or end
# markup inline (HTML < >, entities &, links and images [ ], emphasis * _, code `, GFM's
# strikethrough ~ and table |, math $, the escape itself)
_INLINE = re.compile(r"([\\`*_\[\]<>|~&$])")
# what starts a block where a line starts: a quote, or a heading, list item, rule or setext
# underline (their marker then a space, the end or another marker: -1 and #1 are text)
_LINE_START = re.compile(r"^(\s*)(>|[#+=-](?=[\s#+=-]|$)|\d+[.)](?=\s|$))")


def text(value) -> str:
    """``value`` as Markdown text showing exactly its characters (control characters escaped)."""
    shown = _INLINE.sub(r"\\\1", visible(value))
    return _LINE_START.sub(lambda m: m.group(1) + _escape_block(m.group(2)), shown)


def _escape_block(start: str) -> str:
    # "1." and "1)" start an ordered list: escaping the delimiter leaves the digits as they are
    return start[:-1] + "\\" + start[-1] if start[0].isdigit() else "\\" + start
