"""CSV and TSV cells a spreadsheet opens as text: OWASP's advice against formula injection. A text
cell that starts with ``=``, ``+``, ``-``, ``@``, TAB, CR, LF or NUL (after any spaces: some
spreadsheets skip them) gets a leading single quote, which spreadsheets read as "text" and do not
show. Numbers stay numbers: a float or int is never touched, and neither is text that is a plain
number (``-1``, ``+2.5e3``), which no spreadsheet runs as a formula."""

from __future__ import annotations

import re

__all__ = ["cell", "row", "frame", "sql_cell", "TRIGGERS"]

# the characters that make a cell a formula; the full-width forms too, which some spreadsheets fold
TRIGGERS = "=+-@\t\r\n\x00\uff1d\uff0b\uff0d\uff20"
_DANGEROUS = re.compile(f"^ *[{re.escape(TRIGGERS)}]")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def cell(value):
    """A value as a CSV cell: text quoted against formulas, anything else as it is. A carriage
    return within text is written ``\\r``: Python's csv writers (and pandas') quote a field holding
    a newline, not one holding a lone CR, which a spreadsheet reads as the end of the row."""
    if not isinstance(value, str):
        return value
    if "\r" in value:  # (no reader lets one into an id: this is for frames handed to a writer)
        value = value.replace("\r", "\\r")
    if _DANGEROUS.match(value) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def row(values) -> list:
    return [cell(value) for value in values]


def frame(table):
    """A pandas DataFrame with every text cell made a safe CSV cell (a copy; numbers untouched)."""
    text = [name for name, kind in table.dtypes.items() if getattr(kind, "kind", "") in ("O", "S", "U")
            or str(kind) in ("str", "string")]
    if not text:
        return table
    return table.assign(**{name: table[name].map(cell) for name in text})


# the same rule in DuckDB's SQL, for the files COPY writes (rankkit eval -o x.csv)
_SQL_DANGEROUS = "^ *[=+\\-@\\t\\r\\n\\x00\uff1d\uff0b\uff0d\uff20]"
_SQL_NUMBER = "[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?"


def sql_cell(expression: str) -> str:
    """A SQL expression of VARCHAR ``expression`` as a CSV cell (see :func:`cell`)."""
    return (f"CASE WHEN regexp_matches({expression}, '{_SQL_DANGEROUS}') AND NOT "
            f"regexp_full_match({expression}, '{_SQL_NUMBER}') THEN '''' || {expression} ELSE {expression} END")
