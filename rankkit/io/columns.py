"""Which of a source's columns are rankkit's (the caller's mapping, then the common names in
rankkit.names), and the SELECT list that gives rankkit's columns with their types checked."""

from __future__ import annotations

import re
from typing import Mapping

from rankkit import _engine as duckdb

from rankkit.errors import InputError
from rankkit.names import ALIASES, OPTIONAL, REQUIRED
from rankkit.io.catalog import first_message, ident, quote
from rankkit.io.lists import list_column


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

    A column rankkit does not read is left alone (a recommender's timestamp; :func:`unread` names
    them for ``rankkit check``), unless it is one letter from a name of a column it did not find (a
    misspelt ``sytem`` would otherwise merge every system into one). A run without a score but with a
    rank is read by its rank (:func:`column_select`), one with lists of items by their positions
    (:mod:`rankkit.io.lists`).
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
        # rankkit's own name too: a table with user_id and query_id has two query ids, not one and a spare
        candidates = [by_lower[a] for a in ALIASES[ours] if a in by_lower and a not in taken]
        if len(candidates) > 1:
            raise InputError(
                f"{label}: columns {', '.join(candidates)} could each be the {ours}; say which with "
                f"columns={{{candidates[0]!r}: {ours!r}}}"
            )
        if candidates:
            found[ours] = candidates[0]
            taken.add(candidates[0].lower())
    for ours in REQUIRED[kind]:
        if ours not in found and not (ours == "score" and ("rank" in found or list_column(names, found))):
            mapped = [t for t, o in columns.items() if o == ours]
            said = f"; no column {', '.join(repr(t) for t in mapped)} as mapped" if mapped else ""
            raise InputError(
                f"{label}: missing column {ours} (also recognised: {', '.join(ALIASES[ours][1:])}){said}; "
                f"columns are {_listing(names)}; map one with columns={{'yours': {ours!r}}}"
            )
    _refuse_near_misses(unread(names, found, columns), [f for f in fields if f not in found], fields, label)
    return found


def unread(names: list[tuple[str, str]], found: Mapping[str, str], columns: Mapping[str, str | None]) -> list[str]:
    """The source's columns rankkit leaves alone: neither read nor nobody's data (TREC's unused field,
    pandas' saved index), in the source's order."""
    taken = {v.lower() for v in found.values()} | {t.lower() for t, o in columns.items() if o is None}
    return [name for name, _ in names if name.lower() not in taken and not _IGNORABLE.fullmatch(name)]


def _refuse_near_misses(extra: list[str], missing: list[str], fields, label: str) -> None:
    """An unread column one letter (or two swapped) from a name of a column not found is refused: it
    was more likely meant than spare. Names shorter than four letters are too close to everything."""
    for name in extra:
        meant = [ours for ours in missing if any(len(a) >= 4 and one_edit(name.lower(), a) for a in ALIASES[ours])]
        if meant:
            raise InputError(
                f"{label}: extra column {name}, one letter from the {meant[0]}: rankkit reads {', '.join(fields)}; "
                f"drop it, or map it (columns={{{name!r}: None}} ignores it, columns={{{name!r}: {meant[0]!r}}} "
                f"reads it as the {meant[0]})"
            )


def one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by at most one letter inserted, deleted or changed, or two
    neighbours swapped (DuckDB's damerau_levenshtein(a, b) <= 1, which the SQL macros use)."""
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) <= 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = sorted((a, b), key=len)
    return len(long) - len(short) == 1 and any(long[:i] + long[i + 1:] == short for i in range(len(long)))


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
    score = f"TRY_CAST({ident(found['score'])} AS DOUBLE)" if "score" in found else RANK_SCORE.format(rank=rank)
    return (f"{tag} AS system, CAST({q} AS VARCHAR) AS query_id, CAST({d} AS VARCHAR) AS doc_id, "
            f"{rank} AS rank, {score} AS score")


# A run ranked by its rank alone scores each document minus its rank: rank 1 scores highest, equal ranks
# tie (broken by doc_id as trec_eval breaks equal scores). The SQL macros' rankkit.run_rows read it alike.
RANK_SCORE = "-CAST({rank} AS DOUBLE)"


def trec_select(kind: str, system: str | None, integer_grades: bool) -> str:
    if kind == "qrels":
        grade = "trunc(relevance)" if integer_grades else "relevance"
        return f"query_id, doc_id, {grade} AS relevance"
    tag = "system" if system is None else quote(system)
    return f"{tag} AS system, query_id, doc_id, CAST(rank AS BIGINT) AS rank, score"
