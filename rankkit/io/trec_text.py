"""TREC text into a temp table: DuckDB's CSV reader with a fixed schema on the fast path, the
whitespace-splitting SQL of rankkit.trec_lines on the tolerant one, and the line trec_eval would refuse."""

from __future__ import annotations

import math
import re
from pathlib import Path

from rankkit import _engine as duckdb

from rankkit.errors import InputError
from rankkit.names import QRELS_FIELDS, RUN_FIELDS
from rankkit.io.catalog import first_message, path_literal, quote, temp_name
from rankkit.io.columns import NUMBER, decimal_comma
from rankkit.io.files import (compression_option, contains_any, first_line, last_line, magic, max_line_bytes, no_lines,
                              records, text_problem)


def load_trec(con: duckdb.DuckDBPyConnection, path: Path, kind: str,
              keep_tag: bool = True) -> tuple[str, str | None]:
    """Load the file into a temp table of the TREC fields rankkit uses: the table's name, and the
    run's tag when every line has the same one (the table then has no tag column).

    Only those fields are kept (q0 and the iteration are read and dropped; the tag only when
    ``keep_tag`` and the lines differ in it): a kept field is memory for every row. The fast path
    reads the file with DuckDB's CSV reader and a fixed schema; a file it cannot take (comment
    lines, mixed whitespace, extra columns, a bad value) goes through a whitespace-splitting SQL path.
    """
    if (problem := no_lines(path)) is not None:
        fields = " ".join(QRELS_FIELDS if kind == "qrels" else RUN_FIELDS)
        raise InputError(f"{path}: {problem}, expected TREC {kind} lines ({fields})")
    name = temp_name(f"{kind}_text")
    first = first_line(path)
    tabs = "\t" in first
    # A tab in a space-separated file, a space in a tab-separated one, or a carriage return: splitting
    # on runs of whitespace (trec_eval's reading) would see other fields. Such a file takes the
    # tolerant path. Plain files are searched byte-wise; in gzip, each field is searched in SQL.
    compressed = bool(compression_option(path))
    if not compressed and contains_any(path, (b"\r", b" " if tabs else b"\t")):
        _load_trec_lines(con, path, kind, name, _kept_fields(kind, keep_tag))
        return name, None
    # Most runs have one tag: guess the first line's, and keep no tag column if every line has it.
    # A file of several systems mostly ends in another tag than it starts with; guessing there would
    # mark rows and parse the whole file a second time (a 200-system sweep: half of its reading).
    fields = first.split()
    tag = fields[5] if kind == "run" and keep_tag and len(fields) == len(RUN_FIELDS) else None
    if tag is not None and not compressed and last_line(path).split()[5:6] != [tag]:
        tag = None
    for guess in (tag, None) if tag is not None else (None,):
        found = _read_trec(con, path, kind, name, tabs, compressed, keep_tag and guess is None, guess)
        if found == "tolerant":
            _load_trec_lines(con, path, kind, name, _kept_fields(kind, keep_tag))
            return name, None
        if found == "read":
            return name, guess
    raise AssertionError("unreachable: a read without a guessed tag never sees another tag")



def load_trec_runs(con: duckdb.DuckDBPyConnection, paths: list[Path], names: list[str]) -> str | None:
    """Several TREC run files, each one run named by ``names``, into one temp table by one read of
    DuckDB's CSV reader over the list (200 DL19-size files: one read instead of 200, each with its
    statements and checks). The table holds the fields a single file's does, the name as ``system``,
    and rankkit_key.

    None, having made nothing, when a file needs more than load_trec's fast path (gzip, comment
    lines, a tolerant reading, a line the reader refuses or a row it marks): the caller then reads
    each file alone, which says which file and line is wrong as it does for one file."""
    if any(magic(path, 2) == b"\x1f\x8b" or no_lines(path) is not None for path in paths):
        return None
    separators = {"\t" in first_line(path) for path in paths}
    tabs = separators == {True}
    # one separator for every file, and no other whitespace in any (see load_trec)
    if len(separators) > 1 or any(contains_any(path, (b"\r", b" " if tabs else b"\t")) for path in paths):
        return None
    delim = "\\t" if tabs else " "
    files = list(dict.fromkeys(str(path) for path in paths))  # a file listed twice is read once, named twice
    named = ", ".join(f"({quote(str(path))}, {quote(name)})" for path, name in zip(paths, names))
    # as _read_trec with no tag kept: an empty field, a rank DuckDB cannot read or a missing tag marks
    # the row; so do lines of another length, by failing the read
    marks = " AND ".join(f"rankkit_read.{f} IS NOT NULL" for f in ("q0", "rank", "system"))
    select = (f"rankkit_files.name AS system, CASE WHEN {marks} AND query_id IS NOT NULL THEN query_id "
              f"ELSE error('{_MARKED}') END AS query_id, doc_id, rankkit_read.rank, score")
    read = (f"read_csv([{', '.join(path_literal(f) for f in files)}], delim = E'{delim}', header = false, quote = '', "
            f"escape = '', auto_detect = false, columns = {_columns('run')}, strict_mode = true, filename = true, "
            f"max_line_size = {max_line_bytes()}) "
            f"AS rankkit_read JOIN (VALUES {named}) AS rankkit_files(filename, name) USING (filename)")
    name = temp_name("run_text")
    try:
        con.execute(f"CREATE TEMP TABLE {name} AS " + _keyed("run", select, read))
    except duckdb.Error:  # a line the reader refuses, or a marked row
        return None
    return name


def _read_trec(con, path: Path, kind: str, name: str, tabs: bool, compressed: bool, keep_tag: bool,
               tag: str | None) -> str:
    """One try of DuckDB's CSV reader: "read", "tolerant" (the file needs the tolerant path) or
    "other tag" (a row is marked, maybe by another tag than ``tag``: read again keeping the tags)."""
    fields = QRELS_FIELDS if kind == "qrels" else RUN_FIELDS
    kept = _kept_fields(kind, keep_tag)
    other = "' '" if tabs else "E'\\t'"
    # Two separators in a row read as an empty field (NULL) where trec_eval sees too few fields: the
    # line is an error. A NULL in a stored field is found by the checks that follow. A NULL elsewhere,
    # or in rank (the checks allow a NULL rank: the tolerant path reads a rank that is not an integer
    # so), marks the row through its query_id, as do another tag than the guessed one and, in gzip, a
    # tab or carriage return.
    unstored = [f for f in fields if f not in kept and f != "system"]  # q0, the qrels' iteration
    marks = [f"{f} IS NOT NULL" for f in unstored + (["rank"] if kind == "run" else [])]
    if kind == "run":
        marks.append(f"system = {quote(tag)}" if tag is not None else "system IS NOT NULL")
    if compressed:  # (in the text fields: the numbers, rank included, do not parse with either)
        marks += [f"NOT contains({f}, {other}) AND NOT contains({f}, E'\\r')" for f in fields
                  if f not in (NUMBER[kind], "rank")]
    # A marked row (or an empty query id) stops the read: counting them afterwards was a statement of
    # its own.
    marks.append("query_id IS NOT NULL")
    columns = {"query_id": f"CASE WHEN {' AND '.join(marks)} THEN query_id ELSE error('{_MARKED}') END AS query_id"}
    select = ", ".join(columns.get(f, f) for f in kept)
    delim = "\\t" if tabs else " "
    try:
        con.execute(
            f"CREATE TEMP TABLE {name} AS " + _keyed(kind, select, f"read_csv({path_literal(path)}, "
            f"delim = E'{delim}', header = false, quote = '', escape = '', auto_detect = false, "
            f"columns = {_columns(kind)}, strict_mode = true{compression_option(path)}, max_line_size = {max_line_bytes()})")
        )
    except duckdb.Error as error:  # a line of other length, a score or rank DuckDB cannot read as such, a mark
        return "other tag" if _MARKED in str(error) and tag is not None else "tolerant"
    return "read"


_MARKED = "rankkit-fast-read-marked-row"  # said by error() in the fast read, caught here


def _keyed(kind: str, select: str, source: str) -> str:
    """The query storing a run's fields and its join key, a 64-bit hash of query and document (see
    rankkit.run_keys); qrels are small and need none."""
    query = f"SELECT {select} FROM {source}"
    return query if kind == "qrels" else f"SELECT *, hash(query_id, doc_id) AS rankkit_key FROM ({query})"


def _kept_fields(kind: str, keep_tag: bool) -> list[str]:
    if kind == "qrels":
        return ["query_id", "doc_id", "relevance"]
    return ["query_id", "doc_id", "rank", "score"] + (["system"] if keep_tag else [])


def _columns(kind: str) -> str:
    if kind == "qrels":
        return ("{'query_id': 'VARCHAR', 'iteration': 'VARCHAR', 'doc_id': 'VARCHAR', "
                "'relevance': 'DOUBLE'}")
    return ("{'query_id': 'VARCHAR', 'q0': 'VARCHAR', 'doc_id': 'VARCHAR', 'rank': 'INTEGER', "
            "'score': 'DOUBLE', 'system': 'VARCHAR'}")


def _load_trec_lines(con: duckdb.DuckDBPyConnection, path: Path, kind: str, name: str, kept: list[str]) -> None:
    """The tolerant path, in the SQL rankkit.read_trec_qrels/read_trec_run use: rankkit.trec_lines
    splits every line on runs of spaces and tabs (comments and blank lines are not content), and
    rankkit.trec_checked refuses the first line trec_eval would refuse, naming its file and line."""
    fields = QRELS_FIELDS if kind == "qrels" else RUN_FIELDS
    numeric = NUMBER[kind]
    position = {f: i + 1 for i, f in enumerate(fields)}
    select = ", ".join(
        f"TRY_CAST(fields[{position[f]}] AS DOUBLE) AS {f}" if f == numeric
        else f"TRY_CAST(fields[{position[f]}] AS INTEGER) AS {f}" if f == "rank" else f"fields[{position[f]}] AS {f}"
        for f in kept
    )
    compression = "gzip" if magic(path, 2) == b"\x1f\x8b" else "none"  # by its bytes, not its name
    lines = f"rankkit.trec_lines({path_literal(path)}, codec := '{compression}', max_line := {max_line_bytes()})"
    try:
        con.execute(f"WITH rankkit_trec_lines AS MATERIALIZED (FROM {lines}) "
                    f"FROM rankkit.trec_checked('rankkit_trec_lines', '{kind}')").fetchall()
    except duckdb.Error as error:
        if "rankkit: " not in str(error) and (problem := text_problem(path, str(path))) is not None:
            raise InputError(problem) from None  # in words, where DuckDB says "CSV Error on Line: N"
        said = re.search(r"rankkit: (.*)", str(error))
        raise InputError(said.group(1) if said else
                         f"{path}: cannot be read as TREC {kind} text ({first_message(error)})") from None
    con.execute(f"CREATE TEMP TABLE {name} AS " + _keyed(kind, select, f"(FROM {lines} WHERE content)"))


def raise_bad_line(path: Path, kind: str) -> None:
    fields = QRELS_FIELDS if kind == "qrels" else RUN_FIELDS
    numeric = NUMBER[kind]
    position = fields.index(numeric)
    layout = " ".join(fields)
    for number, parts in records(path):
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
            raise InputError(f"{path}:{number}: the {numeric} '{value}' is not a finite number{decimal_comma(value)}")
    raise InputError(f"{path}: cannot be read as TREC {kind} text")
