"""The checking pass over a loaded source (NULL ids, numbers that are not finite, duplicates), with
errors that name the file and line, the file and row, or the row; and duplicates="first"."""

from __future__ import annotations

import re
from pathlib import Path

from rankkit import _engine as duckdb

from rankkit.errors import InputError
from rankkit.names import REQUIRED
from rankkit.io.catalog import Source, first_message, ident, path_literal, quote
from rankkit.io.columns import DECIMAL_COMMA, DECIMAL_COMMA_HINT, NUMBER, decimal_comma
from rankkit.io.files import compression_option, is_glob, line_of, records
from rankkit.io.trec_text import raise_bad_line
from rankkit.safe.terminal import CONTROL

SPLIT_ROWS = 1_000_000  # above this, the duplicate search of a source held in memory sorts in parts


def check_rows(con, loaded: Source, duplicates: str, text) -> None:
    """One pass: per-query counts (kept for the qrels-vs-run checks) and every problem at once."""
    kind, number = loaded.kind, NUMBER[loaded.kind]
    # a run whose system is one name (no system column, tags or files): grouped by query alone, a fifth
    # cheaper on a recommender's 10M rows (bench/README.md, recsys)
    one = kind == "run" and _one_system(loaded)
    group = "system, query_id" if kind == "run" and not one else "query_id"
    keys = f"any_value(system) AS system, {group}" if one else group
    extra = ("max(relevance) AS top, arg_min({'doc_id': doc_id, 'grade': relevance}, "
             "CASE WHEN relevance <> trunc(relevance) THEN 0 END) AS fractional"
             if kind == "qrels" else "count(*) FILTER (WHERE rank IS NULL) AS no_rank")
    loaded.queries = loaded.table + "_queries"
    # Counting distinct documents per query takes a hash table of every (query, document) pair; only
    # rankkit check, which reports duplicates, counts them. Otherwise the search below finds them.
    docs = "count(DISTINCT doc_id)" if duplicates == "keep" else "count(doc_id)"
    try:
        con.execute(
            f"CREATE TEMP TABLE {loaded.queries} AS SELECT {keys}, count(*) AS n, {docs} AS docs, "
            f"count(*) FILTER (WHERE doc_id IS NULL) AS null_docs, "
            f"count(*) FILTER (WHERE {number} IS NULL OR NOT isfinite({number})) AS bad_numbers, {extra} "
            f"FROM {loaded.table} GROUP BY {group}"
        )
    except duckdb.Error as error:
        raise InputError(read_error(error, loaded.label)) from None
    held = text is not None and text[0] in ("trec", "csv", "tsv")
    # The summary, what the run's systems or the qrels' grades are, and (where no split can be needed)
    # the duplicate search in one statement: as four, they were much of reading a run.
    search = duplicates == "error" and not _may_need_split(held, text)
    # ids are checked on the per-query counts' rows (one per query and system), not on every row
    names = (f"min(query_id) FILTER (WHERE regexp_matches(query_id, '{CONTROL_SQL}')), "
             + (f"min(system) FILTER (WHERE regexp_matches(system, '{CONTROL_SQL}') OR trim(system) = ''), "
                f"count(*) FILTER (WHERE system IS NULL), " if kind == "run" else "NULL, NULL, "))
    tail = ("list(DISTINCT system ORDER BY system NULLS FIRST)" if kind == "run" else
            "max(top), arg_min({'query_id': query_id, 'doc_id': fractional.doc_id, 'grade': fractional.grade}, "
            "CASE WHEN fractional.doc_id IS NOT NULL THEN query_id END)")
    repeats = f"(SELECT count(*) FROM ({_repeats(loaded, 1).format(part=0)}))" if search else "NULL"
    found = con.execute(
        f"SELECT count(*) FILTER (WHERE query_id IS NULL), sum(null_docs), sum(bad_numbers), sum(n), count(*), "
        f"{repeats}, {names}{tail} FROM {loaded.queries}"
    ).fetchall()[0]
    bad, named, described = found[:6], found[6:9], found[9:]
    loaded.rows, loaded.lists = int(bad[3] or 0), bad[4]
    if not bad[3]:  # an empty table, frame or file is an error, as an empty TREC file is
        raise InputError(f"{loaded.label}: no rows, expected {', '.join(REQUIRED[kind])} rows")
    if bad[0] or bad[1] or bad[2]:
        _raise_bad_row(con, loaded, text)
    _refuse_names(con, loaded, text, *named)
    if search:
        repeated = bool(bad[5])
    else:
        repeated = duplicates == "error" and _may_repeat(con, loaded, split=held and (bad[3] or 0) > SPLIT_ROWS)
    if repeated:
        _raise_duplicate(con, loaded, text)
    if kind == "run":
        loaded.systems = list(described[0])
    else:
        top, frac = described
        loaded.top_grade = top
        if frac and frac["doc_id"] is not None:
            loaded.fractional = (frac["query_id"], frac["doc_id"], frac["grade"])


def _one_system(loaded: Source) -> bool:
    """Whether every row of the run has the same system: a name (or NULL) its reader set, not a system
    column's values, a TREC run's tags or parsed files' names."""
    return not (loaded.system_column or loaded.tags or loaded.keyed)


# C0 (TAB, newline, ESC ...), DEL and C1: what no query id or system name may hold (RE2 reads the pattern as is)
CONTROL_SQL = CONTROL.pattern


def _refuse_names(con, loaded: Source, text, query_id, system, null_systems) -> None:
    """A query id or system name with a control character, an empty system name, or a NULL one in
    a system column: refused, naming the place. trec_eval's text has a TAB between fields and a
    line per value, and a terminal reads ESC as a command: no output could show such a name."""
    if query_id is not None:
        where = _place(con, loaded, text, "query_id", query_id)
        raise InputError(f"{where}: the query id '{query_id}' holds a control character "
                         f"({_controls(query_id)}); {_WHY}")
    if system is not None and system.strip() == "":
        where = _place(con, loaded, text, "system", system)
        raise InputError(f"{where}: the system name '{system}' is empty; {_NAME_IT}")
    if system is not None:
        where = _place(con, loaded, text, "system", system)
        raise InputError(f"{where}: the system name '{system}' holds a control character "
                         f"({_controls(system)}); {_WHY}")
    if null_systems and loaded.system_column:
        where = _place(con, loaded, text, "system", None)
        raise InputError(f"{where}: the system is missing (NULL or empty); {_NAME_IT}")


_WHY = "refused: trec_eval's text (a TAB between fields, a line per value) and a terminal cannot show it"
_NAME_IT = "every row of a system column names its system (or give NAME=PATH, system=\"name\")"


def _controls(text: str) -> str:
    return ", ".join(dict.fromkeys(CONTROL.findall(text)))  # escaped visibly by InputError


def _place(con, loaded: Source, text, column: str, value) -> str:
    """Where the first row of ``column`` = ``value`` (None: NULL) is: file and line, file and row,
    or the source (error path only). A system named by its file has no line: the file is named."""
    if text is None or (column == "system" and not loaded.system_column and not loaded.tags):
        return loaded.label
    if text[0] == "trec":
        field = 0 if column == "query_id" else 5
        for number, fields in records(text[1]):
            if len(fields) > field and fields[field] == value:
                return f"{loaded.label}:{number}"
        return loaded.label
    match = f"{column} IS NULL" if value is None else f"{column} = {quote(value)}"
    found = con.execute(f"SELECT rankkit_row FROM (SELECT row_number() OVER () AS rankkit_row, {loaded.select} "
                        f"FROM {loaded.raw}) WHERE {match} ORDER BY rankkit_row LIMIT 1").fetchall()
    if not found:
        return loaded.label
    if text[0] in ("csv", "tsv") and not is_glob(str(text[1])):
        return f"{loaded.label}:{line_of(Path(text[1]), found[0][0], header=True)}"
    return f"{loaded.label}: row {found[0][0]}"


def _may_need_split(held: bool, text) -> bool:
    """Whether the duplicate search may have to sort in parts (a source held in memory of more than
    SPLIT_ROWS rows), known before counting: a plain file of fewer bytes than SPLIT_ROWS lines of
    the shortest TREC or CSV row (``q 0 d 1 1 t`` and its newline: 12 bytes) has fewer rows."""
    if not held:
        return False
    path = Path(text[1]) if text[1] is not None else None
    if path is None or is_glob(str(path)) or not path.is_file():
        return True
    if compression_option(path) or path.suffix.lower() in (".gz", ".zst", ".bz2"):  # its bytes are not its rows
        return True
    return path.stat().st_size >= SPLIT_ROWS * 12


# DuckDB's types a CSV column of numbers is read as (a value that is not one is named as not a number)
NUMERIC_TYPES = {"DOUBLE", "FLOAT", "DECIMAL", "BIGINT", "INTEGER", "SMALLINT", "TINYINT", "HUGEINT", "UBIGINT",
                 "UINTEGER"}


def read_error(error: Exception, label: str) -> str:
    """DuckDB's CSV error, said in one line with the file and line."""
    text = str(error)
    line = re.search(r"CSV Error on Line: (\d+)", text)
    columns = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", text)
    if line and columns:
        return (f"{label}:{line.group(1)}: expected {columns.group(1)} fields as in the header, "
                f"found {columns.group(2)}")
    if line and "unicode" in text.lower():
        return f"{label}:{line.group(1)}: not UTF-8 text"
    converting = re.search(r"""Error when converting column "([^"]*)"\. Could not convert string "([^"]*)" to '(\w+)'""",
                           text)
    if line and converting:
        column, value, kind = converting.groups()
        expected = "a number" if kind in NUMERIC_TYPES else f"of type {kind}"
        return f"{label}:{line.group(1)}: column {column}: '{value}' is not {expected}{decimal_comma(value)}"
    if line:
        return f"{label}:{line.group(1)}: cannot be read ({first_message(error)})"
    return f"{label}: cannot be read ({first_message(error)})"


def _raise_bad_row(con, loaded: Source, text) -> None:
    """Find the first bad row, say where it is (line, row or file and row) and what is wrong."""
    if text is not None and text[0] == "trec":
        raise_bad_line(text[1], loaded.kind)
    number = NUMBER[loaded.kind]
    # a run by its rank alone (its score is minus the rank): what is wrong is its rank
    by_rank = loaded.kind == "run" and "score" not in loaded.columns and "rank" in loaded.columns
    said, given = ("rank", loaded.columns["rank"]) if by_rank else (number, loaded.number_column)
    original = f"CAST({ident(given)} AS VARCHAR)" if given else "NULL"
    missing = "is missing (NULL or empty)"
    problem = (f"CASE WHEN query_id IS NULL THEN 'the query id {missing}{_column(loaded, 'query_id')}' "
               f"WHEN doc_id IS NULL THEN 'the document id {missing}{_column(loaded, 'doc_id')}' "
               f"WHEN rankkit_original IS NOT NULL AND {number} IS NULL "
               f"THEN 'the {said} ''' || rankkit_original || ''' is not a number' || CASE WHEN regexp_full_match("
               f"trim(rankkit_original), '{DECIMAL_COMMA}') THEN {quote(DECIMAL_COMMA_HINT)} ELSE '' END "
               f"WHEN {number} IS NULL THEN 'the {said} is missing (NULL or empty)' "
               f"WHEN isnan({number}) THEN 'the {said} is NaN, not a finite number' "
               f"ELSE 'the {said} ' || {number} || ' is not a finite number' END")
    bad = f"query_id IS NULL OR doc_id IS NULL OR {number} IS NULL OR NOT isfinite({number})"
    if text is not None and text[0] == "parquet":
        source = (f"read_parquet({path_literal(text[1])}, hive_partitioning = true, filename = true, "
                  f"file_row_number = true)")
        found = con.execute(
            f"SELECT filename, file_row_number + 1, {problem} FROM (SELECT filename, file_row_number, "
            f"{original} AS rankkit_original, {loaded.select} FROM {source}) WHERE {bad} "
            f"ORDER BY filename, file_row_number LIMIT 1"
        ).fetchall()[0]
        raise InputError(f"{found[0]}: row {found[1]}: {found[2]}")
    if text is not None and text[0] in ("csv", "tsv") and is_glob(str(text[1])):
        # several files: count rows within each, and name the file
        source = loaded.raw[:-1] + ", filename = true)"
        found = con.execute(
            f"SELECT filename, file_row, {problem} FROM (SELECT *, row_number() OVER (PARTITION BY filename "
            f"ORDER BY rankkit_row) AS file_row FROM (SELECT row_number() OVER () AS rankkit_row, filename, "
            f"{original} AS rankkit_original, {loaded.select} FROM {source})) WHERE {bad} ORDER BY rankkit_row LIMIT 1"
        ).fetchall()[0]
        raise InputError(f"{found[0]}:{line_of(Path(found[0]), found[1], header=True)}: {found[2]}")
    found = con.execute(
        f"SELECT rankkit_row, {problem} FROM (SELECT row_number() OVER () AS rankkit_row, "
        f"{original} AS rankkit_original, {loaded.select} FROM {loaded.raw}) WHERE {bad} ORDER BY rankkit_row LIMIT 1"
    ).fetchall()[0]
    if text is not None and not is_glob(str(text[1])):
        where = f"{loaded.label}:{line_of(Path(text[1]), found[0], header=True)}"
    else:
        where = f"{loaded.label}: row {found[0]}"
    raise InputError(f"{where}: {found[1]}")


def _column(loaded: Source, ours: str) -> str:
    """`` in column user_id`` where the source calls rankkit's column otherwise (quoted for SQL), else ""."""
    theirs = loaded.columns.get(ours, ours)
    return "" if theirs == ours else f" in column {theirs}".replace("'", "''")


def _row_hash(loaded: Source) -> str:
    """The 64-bit hash of a row's (system,) query and document: equal rows have equal hashes."""
    if loaded.keyed:
        return "hash(system, rankkit_key)"
    return "hash(query_id, doc_id)" if loaded.kind == "qrels" else "hash(system, query_id, doc_id)"


def _may_repeat(con, loaded: Source, split: bool, into: str | None = None) -> bool:
    """Whether two rows share a hash of (system,) query and document: sorting 64-bit hashes is cheaper in
    time and memory than grouping the strings. Equal rows have equal hashes; equal
    hashes of different rows (a chance in a million for 10^7 rows, in 4,000 for 10^8) cost only the
    exact search.

    A large source held in memory (parsed text) has the sort's memory on top of its own: ``split``
    sorts part of the hashes at a time (equal rows fall in the same part), a lower peak for more
    scans. Parsed TREC text stores the hash of query and document, so a scan is cheap: a quarter at
    a time costs no more time than halves, and less memory.

    ``into`` names a temp table to create holding every repeated hash (all parts searched)."""
    parts = (4 if loaded.keyed else 2) if split else 1
    repeats = _repeats(loaded, parts)
    if into is not None:  # one part after another, as below: one sort's memory at a time
        con.execute(f"CREATE TEMP TABLE {into} (h UBIGINT)")
        for part in range(parts):
            con.execute(f"INSERT INTO {into} SELECT DISTINCT h FROM ({repeats.format(part=part)})")
        return con.execute(f"SELECT count(*) FROM {into}").fetchall()[0][0] > 0
    for part in range(parts):
        if con.execute(f"SELECT count(*) FROM ({repeats.format(part=part)})").fetchall()[0][0]:
            return True
    return False


def _repeats(loaded: Source, parts: int) -> str:
    """The repeated hashes of one part of ``parts`` ({part}: which)."""
    return (f"SELECT h FROM (SELECT h, lag(h) OVER (ORDER BY h) AS before FROM (SELECT {_row_hash(loaded)} AS h "
            f"FROM {loaded.engine}) WHERE h % {parts} = {{part}}) WHERE h = before")


def _raise_duplicate(con, loaded: Source, text) -> None:
    """Raise for the first duplicate row, if there is one (the hash search may find none)."""
    keys = "query_id, doc_id" if loaded.kind == "qrels" else "system, query_id, doc_id"
    rows = con.execute(
        f"SELECT {keys}, list(row ORDER BY row)[:2] FROM (SELECT row_number() OVER () AS row, * FROM {loaded.table}) "
        f"GROUP BY {keys} HAVING count(*) > 1 ORDER BY min(row) LIMIT 1"
    ).fetchall()
    if not rows:
        return
    found = rows[0]
    query_id, doc_id, rows = found[-3], found[-2], found[-1]
    system = f" in system {found[0]}" if loaded.kind == "run" and found[0] is not None else ""
    if text is not None and text[0] in ("trec", "csv", "tsv") and not is_glob(str(text[1])):
        lines = [line_of(Path(text[1]), r, header=text[0] != "trec") for r in rows]
        place = f"{loaded.label}:{lines[1]}"
        seen = f"lines {lines[0]} and {lines[1]}"
    else:
        place, seen = loaded.label, f"rows {rows[0]} and {rows[1]}"
    per = " and system" if loaded.kind == "run" else ""
    raise InputError(
        f"{place}: duplicate document {doc_id} for query {query_id}{system} ({seen}); each document may appear "
        f"once per query{per} (duplicates='first' keeps the first)"
    )


def keep_first(con, loaded: Source, what: str, split: bool) -> None:
    """duplicates="first": the first row of each (system,) query and document. The hash search finds
    the repeated hashes; a source without any costs what duplicates="error" costs. Otherwise the rows
    go into a table that replaces the source under its name: those whose hash never repeats as they
    are, the few others through a window keeping each key's first row. Parsed text is dropped once
    copied, so the peak holds two copies of the run for a moment, never more."""
    repeated = f"{loaded.engine}_repeated"
    try:
        if not _may_repeat(con, loaded, split, into=repeated):
            return
        keys = "query_id, doc_id" if loaded.kind == "qrels" else "system, query_id, doc_id"
        row, first = _row_hash(loaded), f"{loaded.engine}_first"
        con.execute(
            f"CREATE TEMP TABLE {first} AS SELECT * FROM {loaded.engine} WHERE {row} NOT IN (SELECT h FROM {repeated}) "
            f"UNION ALL (SELECT * EXCLUDE (rankkit_row) FROM (SELECT *, row_number() OVER () AS rankkit_row "
            f"FROM {loaded.engine} WHERE {row} IN (SELECT h FROM {repeated})) "
            f"QUALIFY row_number() OVER (PARTITION BY {keys} ORDER BY rankkit_row) = 1)")
    finally:
        con.execute(f"DROP TABLE IF EXISTS {repeated}")
    if what == "TABLE":
        con.execute(f"DROP TABLE {loaded.engine}")
        loaded.owned = [("view", name) if name == loaded.engine else (kind, name) for kind, name in loaded.owned]
    con.execute(f"CREATE OR REPLACE TEMP VIEW {loaded.engine} AS SELECT * FROM {first}")
    if loaded.keyed:  # parsed TREC text: its table is copied, and only the copy is read from now on
        con.execute(f"DROP TABLE {loaded.raw}")
    loaded.owned.append(("table", first))
