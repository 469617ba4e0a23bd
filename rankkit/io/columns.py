"""Which of a source's columns are rankkit's (the caller's mapping, then the common names in
rankkit.names), and the SELECT list that gives rankkit's columns with their types checked."""

from __future__ import annotations

import re
from typing import Mapping

from rankkit import _engine as duckdb

from rankkit.errors import InputError
from rankkit.names import ALIASES, OPTIONAL, REQUIRED
from rankkit.io.catalog import first_message, ident, quote


NUMBER = {"qrels": "relevance", "run": "score"}


# A number written with a decimal comma (a spreadsheet's export in many locales) is said to be one.
DECIMAL_COMMA = r"[+-]?[0-9]*,[0-9]+"
DECIMAL_COMMA_HINT = " (a decimal comma? numbers are written with a point, 1.5)"


def decimal_comma(value: str) -> str:
    """The hint for a value that is a number written with a decimal comma, else ""."""
    return DECIMAL_COMMA_HINT if re.fullmatch(DECIMAL_COMMA, str(value).strip()) else ""


# Columns nobody means as data: TREC's unused field, pandas' saved index.
_IGNORABLE = re.compile(r"iter|iteration|q0|__index_level_\d+__", re.I)


_ID_TYPES = re.compile(r"VARCHAR|(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?)|UUID", re.I)


# (ENUM: a pandas categorical of strings, read value by value as VARCHAR is, a bad one named with its row)
_NUMBER_TYPES = re.compile(r"VARCHAR|BOOLEAN|(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?)|FLOAT|DOUBLE|REAL|DECIMAL.*|ENUM\(.*\)",
                           re.I | re.S)


def describe(con, raw: str, label: str) -> list[tuple[str, str]]:
    try:
        return [(r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM {raw}").fetchall()]
    except duckdb.Error as error:
        raise InputError(f"{label}: cannot be read ({first_message(error)})") from None


def match_columns(names: list[tuple[str, str]], kind: str, columns: Mapping[str, str | None],
                  label: str) -> dict[str, str]:
    """rankkit's column -> the source's column, from the caller's mapping or the common names.

    Every column must be used, or ignored on purpose (``columns={"title": None}``): a column rankkit
    does not know may be one the caller meant it to read (a misspelt ``sytem`` would otherwise
    merge every system into one).
    """
    by_lower = {name.lower(): name for name, _ in names}
    fields = REQUIRED[kind] + OPTIONAL[kind]
    found: dict[str, str] = {}
    ignored = {theirs.lower() for theirs, ours in columns.items() if ours is None}
    for theirs, ours in columns.items():
        if ours is not None and ours not in ALIASES:
            raise InputError(f"columns: {theirs!r} maps to {ours!r}, expected one of {', '.join(ALIASES)} or None")
        if ours in fields and theirs.lower() in by_lower:
            found[ours] = by_lower[theirs.lower()]
    taken = {v.lower() for v in found.values()} | ignored
    for ours in fields:
        if ours in found:
            continue
        if ours in by_lower and ours not in taken:
            found[ours] = by_lower[ours]
            taken.add(ours)
            continue
        candidates = [by_lower[a] for a in ALIASES[ours] if a in by_lower and a not in taken]
        if len(candidates) > 1:
            raise InputError(
                f"{label}: columns {', '.join(candidates)} could each be the {ours}; say which with "
                f"columns={{{candidates[0]!r}: {ours!r}}}"
            )
        if candidates:
            found[ours] = candidates[0]
            taken.add(candidates[0].lower())
        elif ours in REQUIRED[kind]:
            mapped = [t for t, o in columns.items() if o == ours]
            said = f"; no column {', '.join(repr(t) for t in mapped)} as mapped" if mapped else ""
            raise InputError(
                f"{label}: missing column {ours} (also recognised: {', '.join(ALIASES[ours][1:])}){said}; "
                f"columns are {_listing(names)}; map one with columns={{'yours': {ours!r}}}"
            )
    extra = [name for name, _ in names if name.lower() not in taken and not _IGNORABLE.fullmatch(name)]
    if extra:
        raise InputError(
            f"{label}: extra column{'s' if len(extra) > 1 else ''} {', '.join(extra)}: rankkit reads "
            f"{', '.join(fields)}; drop {'them' if len(extra) > 1 else 'it'}, or map it (columns={{{extra[0]!r}: None}} "
            f"ignores it, columns={{{extra[0]!r}: {fields[-1]!r}}} reads it as the {fields[-1]})"
        )
    return found


def _listing(names: list[tuple[str, str]]) -> str:
    return ", ".join(f"{n} ({t})" for n, t in names) or "none"


def column_select(con, raw, names, found, kind, system, integer_grades, label, unnamed: str | None = None) -> str:
    """The SELECT list giving rankkit's columns; a column of the wrong type is refused here. A run
    without a system column is the system ``unnamed`` (a file's stem), or NULL."""
    types = dict(names)
    for ours in ("query_id", "doc_id", "system"):
        if ours in found and not _ID_TYPES.fullmatch(types[found[ours]]):
            raise InputError(
                f"{label}: column {found[ours]} ({ours}) is {types[found[ours]]}; expected strings or integers "
                f"(ids are compared as strings, so '7' and '7.0' would differ)"
            )
    for ours in (NUMBER[kind], "rank"):
        if ours in found and not _NUMBER_TYPES.fullmatch(types[found[ours]]):
            raise InputError(f"{label}: column {found[ours]} ({ours}) is {types[found[ours]]}; expected numbers")
    q, d = ident(found["query_id"]), ident(found["doc_id"])
    if kind == "qrels":
        grade = f"TRY_CAST({ident(found['relevance'])} AS DOUBLE)"
        grade = f"trunc({grade})" if integer_grades else grade
        return f"CAST({q} AS VARCHAR) AS query_id, CAST({d} AS VARCHAR) AS doc_id, {grade} AS relevance"
    if system is not None:
        tag = quote(system)
    elif "system" in found:
        tag = f"CAST({ident(found['system'])} AS VARCHAR)"
    else:
        tag = quote(unnamed) if unnamed is not None else "CAST(NULL AS VARCHAR)"
    rank = f"TRY_CAST(TRY_CAST({ident(found['rank'])} AS DOUBLE) AS BIGINT)" if "rank" in found else "CAST(NULL AS BIGINT)"
    return (f"{tag} AS system, CAST({q} AS VARCHAR) AS query_id, CAST({d} AS VARCHAR) AS doc_id, "
            f"{rank} AS rank, TRY_CAST({ident(found['score'])} AS DOUBLE) AS score")


def trec_select(kind: str, system: str | None, integer_grades: bool) -> str:
    if kind == "qrels":
        grade = "trunc(relevance)" if integer_grades else "relevance"
        return f"query_id, doc_id, {grade} AS relevance"
    tag = "system" if system is None else quote(system)
    return f"{tag} AS system, query_id, doc_id, CAST(rank AS BIGINT) AS rank, score"
