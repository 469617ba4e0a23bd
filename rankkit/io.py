"""Reading qrels and runs into DuckDB, with errors that name the file, line and problem.

TREC text is parsed by DuckDB itself. The fast path reads the file with DuckDB's CSV reader and a
fixed schema; a file it cannot take (comment lines, mixed whitespace, extra columns, a bad value)
goes through a whitespace-splitting SQL path, and only when that finds a bad line does Python read
the file to say which line it is.
"""

from __future__ import annotations

import gzip
import itertools
import math
from pathlib import Path
from typing import Iterator

import duckdb
import pandas as pd

from rankkit._sql import connect
from rankkit.errors import InputError

__all__ = ["read_qrels", "read_run", "default_connection"]

_default: duckdb.DuckDBPyConnection | None = None
_counter = itertools.count(1)

QRELS_FIELDS = ("query_id", "iteration", "doc_id", "relevance")
RUN_FIELDS = ("query_id", "q0", "doc_id", "rank", "score", "system")


def default_connection() -> duckdb.DuckDBPyConnection:
    """The connection rankkit uses when the caller gives none (in memory, macros loaded)."""
    global _default
    if _default is None:
        _default = connect()
    return _default


def read_qrels(path: str | Path, *, con: duckdb.DuckDBPyConnection | None = None,
               integer_grades: bool = False) -> duckdb.DuckDBPyRelation:
    """Read TREC qrels text (``query_id iteration doc_id relevance``; plain or gzip).

    Returns a relation with ``query_id, doc_id, relevance``; ids are strings. Grades keep their
    real value unless ``integer_grades=True`` truncates them toward zero, as trec_eval does.
    """
    con = connect(con) if con is not None else default_connection()
    path = _existing(path)
    table = _load_trec(con, path, "qrels")
    grade = "trunc(relevance)" if integer_grades else "relevance"
    name = _temp_name("qrels")
    con.execute(f"CREATE TEMP TABLE {name} AS SELECT query_id, doc_id, {grade} AS relevance FROM {table}")
    con.execute(f"DROP TABLE {table}")
    _check_duplicates(con, name, ["query_id", "doc_id"], path, "qrels")
    return con.table(name)


def read_run(path: str | Path, *, con: duckdb.DuckDBPyConnection | None = None,
             system: str | None = None) -> duckdb.DuckDBPyRelation:
    """Read a TREC run (``query_id Q0 doc_id rank score tag``; plain or gzip).

    Returns a relation with ``system, query_id, doc_id, rank, score``: the tag becomes ``system``
    unless ``system`` names it. Extra columns after the tag are ignored, as trec_eval ignores them.
    """
    con = connect(con) if con is not None else default_connection()
    path = _existing(path)
    table = _load_trec(con, path, "run")
    name = _temp_name("run")
    # trec_eval splits on any whitespace: in a tab-separated line, junk after the tag follows a space.
    tag = r"regexp_extract(system, '^\s*(\S*)', 1)" if system is None else _quote(system)
    con.execute(
        f"CREATE TEMP TABLE {name} AS SELECT {tag} AS system, query_id, doc_id, rank, score FROM {table}"
    )
    con.execute(f"DROP TABLE {table}")
    _check_duplicates(con, name, ["system", "query_id", "doc_id"], path, "run")
    return con.table(name)


def _existing(path: str | Path) -> Path:
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if path.is_dir():
        raise InputError(f"{path}: is a folder, expected a TREC text file")
    if _is_empty(path):
        raise InputError(f"{path}: the file is empty, expected TREC lines")
    return path


def _is_empty(path: Path) -> bool:
    with _open_text(path) as lines:
        return all(not line.strip() or line.lstrip().startswith("#") for line in lines)


def _temp_name(kind: str) -> str:
    return f"rankkit_{kind}_{next(_counter)}"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _columns(kind: str) -> str:
    if kind == "qrels":
        return ("{'query_id': 'VARCHAR', 'iteration': 'VARCHAR', 'doc_id': 'VARCHAR', "
                "'relevance': 'DOUBLE'}")
    return ("{'query_id': 'VARCHAR', 'q0': 'VARCHAR', 'doc_id': 'VARCHAR', 'rank': 'VARCHAR', "
            "'score': 'DOUBLE', 'system': 'VARCHAR'}")


def _load_trec(con: duckdb.DuckDBPyConnection, path: Path, kind: str) -> str:
    """Load the file into a temp table with the TREC fields; returns the table's name."""
    name = _temp_name(f"{kind}_text")
    delim = "\\t" if "\t" in _first_line(path) else " "
    try:
        con.execute(
            f"CREATE TEMP TABLE {name} AS SELECT * FROM read_csv({_quote(str(path))}, delim = E'{delim}', "
            f"header = false, quote = '', escape = '', auto_detect = false, columns = {_columns(kind)})"
        )
    except duckdb.Error:
        _load_trec_lines(con, path, kind, name)
    _check_values(con, name, path, kind)
    return name


def _load_trec_lines(con: duckdb.DuckDBPyConnection, path: Path, kind: str, name: str) -> None:
    """The tolerant path: split every line on runs of whitespace, skip comments and blank lines."""
    want = len(QRELS_FIELDS) if kind == "qrels" else len(RUN_FIELDS)
    fields = QRELS_FIELDS if kind == "qrels" else RUN_FIELDS
    numeric = "relevance" if kind == "qrels" else "score"
    select = ", ".join(
        f"TRY_CAST(f[{i + 1}] AS DOUBLE) AS {f}" if f == numeric else f"f[{i + 1}] AS {f}"
        for i, f in enumerate(fields)
    )
    # A field count that trec_eval would reject, or a number it cannot read, is found by Python
    # below with its line number.
    bad_count = f"len(f) <> {want}" if kind == "qrels" else f"len(f) < {want}"
    lines = (
        f"SELECT regexp_split_to_array(trim(line, E' \\t\\r'), E'[ \\t]+') AS f "
        f"FROM read_csv({_quote(str(path))}, columns = {{'line': 'VARCHAR'}}, delim = E'\\x01', header = false, "
        f"quote = '', escape = '', auto_detect = false) "
        f"WHERE trim(line, E' \\t\\r') <> '' AND NOT starts_with(ltrim(line), '#')"
    )
    try:
        bad = con.execute(f"SELECT count(*) FROM ({lines}) WHERE {bad_count} OR TRY_CAST(f[{fields.index(numeric) + 1}] AS DOUBLE) IS NULL").fetchone()
    except duckdb.Error as error:
        raise InputError(f"{path}: cannot be read as TREC {kind} text ({_first_message(error)})") from None
    if bad and bad[0]:
        _raise_bad_line(path, kind)
    con.execute(f"CREATE TEMP TABLE {name} AS SELECT {select} FROM ({lines})")


def _check_values(con: duckdb.DuckDBPyConnection, name: str, path: Path, kind: str) -> None:
    numeric = "relevance" if kind == "qrels" else "score"
    bad = con.execute(f"SELECT count(*) FROM {name} WHERE NOT isfinite({numeric}) OR {numeric} IS NULL").fetchone()
    if bad and bad[0]:
        _raise_bad_line(path, kind)


def _check_duplicates(con: duckdb.DuckDBPyConnection, name: str, keys: list[str], path: Path, kind: str) -> None:
    cols = ", ".join(keys)
    found = con.execute(
        f"SELECT query_id, doc_id FROM {name} GROUP BY {cols} HAVING count(*) > 1 ORDER BY query_id, doc_id LIMIT 1"
    ).fetchone()
    if found:
        query_id, doc_id = found
        lines = [n for n, f in _records(path) if len(f) > 2 and f[0] == query_id and f[2] == doc_id]
        where = f"lines {lines[0]} and {lines[1]}" if len(lines) > 1 else "twice"
        raise InputError(
            f"{path}:{lines[-1] if lines else '?'}: duplicate document {doc_id} for query {query_id} "
            f"({where}); each document may appear once per query{' and system' if kind == 'run' else ''}"
        )


def _raise_bad_line(path: Path, kind: str) -> None:
    fields = QRELS_FIELDS if kind == "qrels" else RUN_FIELDS
    numeric = "relevance" if kind == "qrels" else "score"
    position = fields.index(numeric)
    layout = " ".join(fields)
    for number, parts in _records(path):
        if len(parts) < len(fields) or (kind == "qrels" and len(parts) > len(fields)):
            raise InputError(
                f"{path}:{number}: expected {len(fields)} fields ({layout}), found {len(parts)}"
            )
        value = parts[position]
        try:
            ok = math.isfinite(float(value))
        except ValueError:
            ok = False
        if not ok:
            raise InputError(f"{path}:{number}: the {numeric} '{value}' is not a finite number")
    raise InputError(f"{path}: cannot be read as TREC {kind} text")


def _records(path: Path) -> Iterator[tuple[int, list[str]]]:
    """Line number and fields of every line that is neither blank nor a comment (error path only)."""
    with _open_text(path) as lines:
        for number, line in enumerate(lines, start=1):
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                yield number, stripped.split()


def _open_text(path: Path):
    with open(path, "rb") as probe:
        magic = probe.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def _first_line(path: Path) -> str:
    with _open_text(path) as lines:
        return next(iter(lines), "")


def _first_message(error: Exception) -> str:
    return str(error).strip().splitlines()[0]


def frame_or_relation(value) -> bool:
    return isinstance(value, (pd.DataFrame, duckdb.DuckDBPyRelation))
