"""LaTeX text that compiles for any name, and shows it: system names, query ids, titles and paths
come from files a stranger may have written, and go into a table pasted into a paper or a whole
report document.

- TeX's special characters (``\\ & % $ # _ { } ~ ^``, and ``< > |``, which the default OT1 font
  encoding draws as other glyphs) are escaped.
- A control, format (bidirectional, zero-width), separator, private-use, unassigned or surrogate
  character is written visibly in typewriter type: ``\\t``, ``\\n``, ``\\x1b``, ``\\u202e``, as
  :mod:`rankkit.safe.terminal` writes them. A NUL, a newline or an ESC no longer stops pdflatex,
  ends a table row or a ``%`` comment line.
- Any other non-ASCII character goes through ``\\rankkitchar``, which decides when the document
  is compiled: under XeLaTeX or LuaLaTeX (a Unicode engine) the character itself where the current
  font has its glyph; under pdfLaTeX the character where LaTeX's UTF-8 input knows it (é, ß, ł,
  €), and otherwise its code point in typewriter type (``中文系统`` as ``\\u4e2d\\u6587\\u7cfb\\u7edf``).
  Nothing is dropped: no engine prints an empty box or nothing for a character it cannot draw.
- A word longer than :data:`LONG_WORD` characters (a 300-character name) may break after any
  character, so that it breaks across lines rather than run into the margin; :func:`cell` sets a
  long name in a table cell as a paragraph of :data:`CELL_WIDTH`.

The macros are defined by :data:`DEFINITIONS`, which the report's preamble holds and a table
snippet (``rankkit.table.latex``) carries when its text uses them: a paper's preamble needs nothing
more than before (booktabs).
"""

from __future__ import annotations

import re
import unicodedata

from rankkit.safe.terminal import escape as visible_char

__all__ = ["escape", "breakable", "cell", "comment", "with_definitions", "DEFINITIONS", "SPECIAL", "LONG_WORD", "CELL_WIDTH"]

SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
           "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"$<$",
           ">": r"$>$", "|": r"$|$", "–": "--"}
# in \texttt, cmtt (pdfLaTeX's OT1) keeps its straight quote at position 13, a Unicode font at 39;
# both have < and > of their own
_TYPEWRITER = {"'": r"{\ifdefined\Umathcode\char39 \else\char13 \fi}", "<": "<", ">": ">"}
# control, format, surrogate, private use, unassigned, line and paragraph separators: never written raw
_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
LONG_WORD = 24  # characters without a space: beyond, the word may break after any character
LONG_CELL = 30  # characters of a name a table cell sets as a paragraph ...
CELL_WIDTH = "12em"  # ... this wide
_WORDS = re.compile(r"(\s+)")

# \rankkitcode{u4e2d}: a visible escape, \u4e2d in typewriter type (\char92 is the backslash in
# every text encoding of \ttfamily: OT1, T1 and Unicode). \rankkitchar{20013}{u4e2d}{中}: the
# character where the engine and font can set it, its escape otherwise (see the module's text).
# Robust: they stay as they are in a \caption or \title written to the .aux file. The code point is
# decimal: a hexadecimal one needs ", which babel's German makes active.
DEFINITIONS = (r"\DeclareRobustCommand\rankkitcode[1]{{\ttfamily\char92 #1}}"
               r"\DeclareRobustCommand\rankkitchar[3]{\ifdefined\Umathcode\iffontchar\font#1 #3"
               r"\else\rankkitcode{#2}\fi\else\ifcsname u8:\detokenize{#3}\endcsname#3\else\rankkitcode{#2}\fi\fi}")


def escape(text) -> str:
    """``text`` as LaTeX text showing its characters (see the module's text)."""
    text = str(text)
    if text.isascii() and text.isprintable() and not any(char in SPECIAL for char in text) \
            and max(map(len, text.split()), default=0) <= LONG_WORD:
        return text  # the everyday name: nothing to change
    return "".join(_word(word) for word in _WORDS.split(text))


def breakable(text, typewriter: bool = True) -> str:
    """Escaped, with a break allowed after every character: paths, hashes, calls and long names
    (``typewriter``: for \\texttt, whose font has its own quote, < and >)."""
    return "".join(_char(char, typewriter) + r"\allowbreak{}" for char in str(text))


def cell(text) -> str:
    """A name in a table column: escaped, and a long one set as a ragged paragraph of CELL_WIDTH,
    broken where it must, so that the table stays within the page (an ``l`` column never breaks)."""
    text = str(text)
    if len(text) <= LONG_CELL:
        return escape(text)
    return rf"\parbox[t]{{{CELL_WIDTH}}}{{\raggedright{{}}{breakable(text, typewriter=False)}}}"


def comment(text) -> str:
    """Text for a ``%`` comment line: each hidden character written as its escape's text (a newline
    would end the comment and make the rest of the line TeX)."""
    return "".join("\\" + _code(char) if unicodedata.category(char) in _HIDDEN else char for char in str(text))


def with_definitions(body: str) -> str:
    """A snippet of LaTeX with the macros it uses defined first (a comment line kept first)."""
    if r"\rankkit" not in body:
        return body
    lines = body.split("\n")
    at = 1 if lines and lines[0].startswith("%") else 0
    return "\n".join(lines[:at] + [DEFINITIONS] + lines[at:])


def _word(word: str) -> str:
    if len(word) > LONG_WORD and not word.isspace():
        return breakable(word, typewriter=False)
    return "".join(_char(char) for char in word)


def _char(char: str, typewriter: bool = False) -> str:
    if typewriter and char in _TYPEWRITER:
        return _TYPEWRITER[char]
    if char in SPECIAL:
        return SPECIAL[char]
    if " " <= char <= "~":
        return char
    if unicodedata.category(char) in _HIDDEN:
        return rf"\rankkitcode{{{_code(char)}}}"
    return rf"\rankkitchar{{{ord(char)}}}{{{_code(char)}}}{{{char}}}"


def _code(char: str) -> str:
    """The escape's text after its backslash: t, n, x1b, u4e2d, U0001f600."""
    return visible_char(char)[1:]
