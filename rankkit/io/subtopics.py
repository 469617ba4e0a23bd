"""Subtopic judgments, the input of the diversity measures: TREC's ``query subtopic doc grade`` lines
(ndeval's qrels, the TREC Web track's diversity qrels), or a CSV/TSV with a header, a Parquet file, a
pandas DataFrame, a DuckDB relation or a table, whose columns are found by their common names (the
subtopic also as ``iteration``, where ir_measures keeps it). Read into a temp table of
``query_id, subtopic, doc_id, relevance``; a bad line, a missing value or a document judged twice for
one subtopic is an error naming the place."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from rankkit import _engine as duckdb

from rankkit.errors import InputError
from rankkit.io.catalog import first_message, ident, is_table, path_literal, quote, table_ident, temp_name
from rankkit.io.columns import describe, match_columns
from rankkit.io.files import as_given, csv_reader, forget_copy, plain_copy, records
from rankkit.io.sources import is_frame

__all__ = ["load_subtopics", "qrels_of_subtopics", "FIELDS"]

FIELDS = ("query_id", "subtopic", "doc_id", "relevance")


def load_subtopics(con: duckdb.DuckDBPyConnection, source, *, columns: Mapping[str, str | None] | None = None) -> str:
    """The name of a checked temp table holding ``source``'s subtopic judgments."""
    if isinstance(source, (str, Path)) and not (isinstance(source, str) and is_table(con, source)):
        # a FIFO read once, a gzip file decompressed under its bound (files.plain_copy); the table
        # made holds the rows, so the copy goes when it is made
        copy = plain_copy(Path(source))
        try:
            return _load_subtopics(con, copy or source, columns, str(source))
        except InputError as error:
            raise InputError(as_given(str(error))) from None
        finally:
            if copy is not None:
                forget_copy(copy)
    return _load_subtopics(con, source, columns, None)


def _load_subtopics(con, source, columns, label: str | None) -> str:
    table = temp_name("subtopics")
    fmt = None  # a file's format: a CSV/TSV row is numbered as its line
    if label is not None:
        path = Path(source)
        if not path.is_file():
            raise InputError(f"subtopics: {source}: no such file")
        suffix = "".join(Path(label).suffixes[-2:]).lower().removesuffix(".gz")
        if not suffix.endswith((".parquet", ".csv", ".tsv")):
            _load_text(con, path, table)
            _check(con, table, label)
            return table
        fmt = "parquet" if suffix.endswith(".parquet") else suffix[-3:]
        raw = f"read_parquet({path_literal(path)})" if fmt == "parquet" else csv_reader(path, fmt, label)
    else:
        raw, label = _raw(con, source)
    found = match_columns(describe(con, raw, label), "subtopics", columns or {}, label)
    select = ", ".join(f"CAST({ident(found[f])} AS VARCHAR) AS {f}" for f in FIELDS[:3])
    try:
        con.execute(f"CREATE TEMP TABLE {table} AS SELECT {select}, "
                    f"TRY_CAST({ident(found['relevance'])} AS DOUBLE) AS relevance, "
                    f"CAST({ident(found['relevance'])} AS VARCHAR) AS given FROM {raw}")
    except duckdb.Error as error:
        raise InputError(f"{label}: cannot be read ({first_message(error)})") from None
    _check(con, table, label, header=fmt in ("csv", "tsv"))
    return table


def _raw(con, source) -> tuple[str, str]:
    """A frame, relation or table as a name to read from, and its label."""
    if is_frame(source):
        name = temp_name("subtopics_frame")
        con.register(name, source)
        return name, "the subtopics DataFrame"
    if duckdb.is_relation(source):
        name = temp_name("subtopics_relation")
        source.create_view(name, replace=True)
        return name, "the subtopics relation"
    if isinstance(source, str):
        return table_ident(source), f"table {source}"
    raise InputError(f"subtopics: expected a file path, a pandas DataFrame, a DuckDB relation or a table name, "
                     f"got {type(source).__name__}")


def _load_text(con, path: Path, table: str) -> None:
    """TREC text, read line by line (subtopic judgments are small: a few thousand lines a track), each
    line checked: four fields, the last a number."""
    rows = []
    for number, fields in records(path):
        if len(fields) != 4:
            raise InputError(f"{path}:{number}: expected 'query subtopic doc grade' (4 fields, as ndeval reads "
                             f"them), got {len(fields)} field{'s' * (len(fields) != 1)}: {' '.join(fields)!r}")
        try:
            grade = float(fields[3])
        except ValueError:
            raise InputError(f"{path}:{number}: column 4, the grade, is {fields[3]!r}; expected a number") from None
        if grade != grade or grade in (float("inf"), float("-inf")):
            raise InputError(f"{path}:{number}: column 4, the grade, is {fields[3]!r}; expected a finite number")
        rows.append((fields[0], fields[1], fields[2], grade, number))
    if not rows:
        raise InputError(f"{path}: no judgments; expected lines of 'query subtopic doc grade'")
    # one statement over the columns as lists: executemany inserts a row at a time, seconds for a file
    columns = [list(column) for column in zip(*rows)]
    con.execute(f"CREATE TEMP TABLE {table} AS SELECT unnest($1::VARCHAR[]) AS query_id, unnest($2::VARCHAR[]) AS subtopic, "
                "unnest($3::VARCHAR[]) AS doc_id, unnest($4::DOUBLE[]) AS relevance, NULL::VARCHAR AS given, "
                "unnest($5::BIGINT[]) AS line", columns)


def _check(con, table: str, label: str, header: bool | None = None) -> None:
    """No missing id or grade, no document judged twice for a subtopic: else an error naming the row
    (the line of a text file)."""
    columns = [row[0] for row in con.execute(f"DESCRIBE {table}").fetchall()]
    where = "'line ' || line" if "line" in columns else "'row ' || rankkit_row"
    numbered = f"SELECT *, row_number() OVER () AS rankkit_row FROM {table}"
    bad = con.execute(
        f"SELECT {where}, query_id, subtopic, doc_id, relevance, {'given' if 'given' in columns else 'NULL'} "
        f"FROM ({numbered}) WHERE query_id IS NULL OR subtopic IS NULL OR doc_id IS NULL OR relevance IS NULL "
        f"OR NOT isfinite(relevance) LIMIT 1").fetchall()
    if bad:
        place, query_id, subtopic, doc_id, grade, given = bad[0]
        place = _place(place, header)
        if grade is None or grade != grade:
            missing = [n for n, v in zip(FIELDS, (query_id, subtopic, doc_id)) if v is None]
            what = (f"the {missing[0]} is missing" if missing else
                    f"the relevance of document {doc_id} for query {query_id}, subtopic {subtopic}, is "
                    f"{given if given is not None else 'missing'}; expected a finite number")
        else:
            missing = [n for n, v in zip(FIELDS, (query_id, subtopic, doc_id)) if v is None]
            what = f"the {missing[0]} is missing" if missing else f"the relevance is {grade}; expected a finite number"
        raise InputError(f"{label}: {place}: {what}")
    twice = con.execute(
        f"SELECT query_id, subtopic, doc_id, count(*) FROM {table} GROUP BY ALL HAVING count(*) > 1 "
        f"ORDER BY query_id, subtopic, doc_id LIMIT 1").fetchall()
    if twice:
        query_id, subtopic, doc_id, n = twice[0]
        raise InputError(f"{label}: document {doc_id} is judged {n} times for query {query_id}, subtopic {subtopic}; "
                         f"expected once")
    if con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] == 0:
        raise InputError(f"{label}: no judgments; expected rows of {', '.join(FIELDS)}")


def _place(place: str, header: bool | None) -> str:
    """A row of a CSV/TSV file is a line after its header."""
    if header and place.startswith("row "):
        return f"line {int(place[4:]) + 1}"
    return place


def qrels_of_subtopics(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """A view of plain qrels made of subtopic judgments: per query and document, its best grade over the
    subtopics, so that a document is relevant to the query when it is relevant to any subtopic (ndeval's
    rule for its non-intent-aware measures), and the queries are those the judgments hold (ndeval's)."""
    name = temp_name("subtopic_qrels")
    con.execute(f"CREATE TEMP VIEW {name} AS SELECT query_id, doc_id, max(relevance) AS relevance FROM {table} "
                "GROUP BY query_id, doc_id")
    return name
