"""What a qrels or run is read from (a path, DataFrame, relation or table), the checked Source made
of it, and the readers read_qrels and read_run."""

from __future__ import annotations

import math
import re
import sys
import weakref
from dataclasses import replace
from pathlib import Path
from typing import Mapping

from rankkit import _engine as duckdb

from rankkit._sql import connect
from rankkit.errors import InputError
from rankkit.names import REQUIRED
from rankkit.progress import Progress
from rankkit.io.catalog import Source, first_message, is_table, path_literal, quote, table_ident, temp_name
from rankkit.io.checks import check_rows, keep_first, read_error
from rankkit.io.columns import NUMBER, column_select, decimal_comma, describe, match_columns, trec_select, unread
from rankkit.io.lists import list_column, unnest_lists
from rankkit.io.files import (as_given, csv_reader, file_format, forget_copy, is_copy, is_glob, plain_copy, run_name,
                              text_problem)
from rankkit.io.trec_text import load_trec, load_trec_runs


_default: duckdb.DuckDBPyConnection | None = None


DUPLICATES = ("error", "first")


_sources: dict[str, Source] = {}
# the connection each of them was read on: asking that connection's catalog whether the table is
# still there was a cost of every evaluation of a read_qrels/read_run result (two probes)
_homes: dict[str, weakref.ref] = {}


def _keep(con: duckdb.DuckDBPyConnection, loaded: Source) -> None:
    _sources[loaded.table] = loaded
    _homes[loaded.table] = weakref.ref(con)


def is_frame(value) -> bool:
    """A pandas DataFrame? Without importing pandas: if nobody imported it, nothing can be a frame."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)


def default_connection() -> duckdb.DuckDBPyConnection:
    """The connection rankkit uses when the caller gives none (in memory, macros loaded)."""
    global _default
    if _default is None:
        _default = connect()
    return _default


def read_qrels(source, *, con: duckdb.DuckDBPyConnection | None = None, columns: Mapping[str, str] | None = None,
               relevance: str | None = None, integer_grades: bool = False, duplicates: str = "error",
               format: str | None = None) -> duckdb.DuckDBPyRelation:
    """Read and check qrels: a path, DataFrame, relation or table name (see the module docstring).

    Returns a relation with ``query_id, doc_id, relevance``; ids are strings. ``relevance`` names the
    column that holds the grade (a click or purchase count works as well as a judgment);
    ``columns`` maps other names (``{"topic": "query_id"}``). Grades keep their real value unless
    ``integer_grades=True`` truncates them toward zero, as trec_eval does. A document listed twice for
    one query is an error unless ``duplicates="first"`` keeps the first.
    """
    con = connect(con) if con is not None else default_connection()
    mapping = dict(columns or {})
    if relevance is not None:
        mapping[relevance] = "relevance"
    return duckdb.table(con, read_table(con, source, "qrels", columns=mapping, duplicates=duplicates, format=format,
                                        integer_grades=integer_grades))


def read_run(source, *, con: duckdb.DuckDBPyConnection | None = None, columns: Mapping[str, str] | None = None,
             system: str | None = None, duplicates: str = "error", format: str | None = None,
             split_by_tag: bool = False) -> duckdb.DuckDBPyRelation:
    """Read and check a run: a path, DataFrame, relation or table name (see the module docstring).

    Returns a relation with ``system, query_id, doc_id, rank, score``. What a system is (the same
    rule in ``evaluate``, ``compare``, ``rankkit eval`` and ``rankkit check``):

    - A TREC run file is one run, as in trec_eval, which ignores the tag column (it may change from
      line to line): its ``system`` is the file's stem (``bm25`` for ``bm25.run.gz``).
      ``split_by_tag=True`` makes each tag a system instead.
    - A table, CSV or Parquet with a ``system`` column (or ``run_id``, ``tag`` ...), or a folder
      partitioned by ``system=``, holds one system per value. A CSV or Parquet file without one is
      one run named by its stem; a frame, relation or table without one has ``system`` NULL.
    - ``system="name"`` names the whole source as one run, whatever its columns say.

    Extra fields after a TREC run's tag are ignored, as trec_eval ignores them.
    """
    con = connect(con) if con is not None else default_connection()
    return duckdb.table(con, read_table(con, source, "run", columns=columns, duplicates=duplicates, format=format,
                                        system=system, split_by_tag=split_by_tag))


def read_table(con: duckdb.DuckDBPyConnection, source, kind: str, **options) -> str:
    """What read_qrels and read_run return a relation over: the name of the checked table, which
    rankkit's functions given ``con`` take as that source (the command line's, without a relation)."""
    with Progress(con, f"reading {kind}"):
        return load(con, source, kind, **options).table


def load(con: duckdb.DuckDBPyConnection, source, kind: str, *, columns: Mapping[str, str] | None = None,
         duplicates: str = "error", format: str | None = None, system: str | None = None,
         integer_grades: bool = False, label: str | None = None, split_by_tag: bool = False) -> Source:
    """Read ``source`` into a checked temp table or view with rankkit's columns.

    TREC text has fixed columns: ``columns`` applies to headed and typed sources only. Which
    systems a run holds follows the rule in :func:`read_run`.

    ``duplicates="keep"`` (for ``rankkit check``) counts duplicates without raising.
    """
    if duplicates not in DUPLICATES + ("keep",):
        raise InputError(f"duplicates must be error or first, got {duplicates!r}")
    known = _known(con, source, kind)
    if known is not None and not columns and system is None and not split_by_tag and duplicates != "keep":
        return replace(known, owned=[])  # the caller's to keep: releasing this copy drops nothing
    # read again (a mapping, a system name ...): still named as its first reading named it, never by its temp table
    raw, label, text = _raw(con, source, kind, format, label or (known.label if known is not None else None))
    loaded = Source(table=temp_name(kind), label=label, kind=kind)
    final = "view" if text is None or text[0] == "trec" else "table"
    loaded.owned = [(final, loaded.table), ("table", loaded.table + "_queries")]
    if text is not None and str(text[1]) != str(source) and is_copy(text[1]):
        loaded.owned.append(("file", text[1]))  # a FIFO's or gzip file's plain copy: removed with the source
    if text is None and raw.startswith("rankkit_"):
        loaded.owned.append(("frame" if is_frame(source) else "view", raw))
    try:
        if text is not None and text[0] == "trec":
            split = split_by_tag and system is None
            loaded.raw, tag = load_trec(con, text[1], kind, keep_tag=split)
            loaded.owned.append(("table", loaded.raw))
            loaded.select = trec_select(kind, system if system is not None else tag if split else run_name(text[1]),
                                         integer_grades)
            loaded.tags = split and system is None
            if kind == "run":
                loaded.keyed = loaded.table + "_keyed"
                loaded.owned.append(("view", loaded.keyed))
        else:
            names = describe(con, raw, label)
            found = match_columns(names, kind, columns or {}, label)
            if kind == "run" and list_column(names, found) is not None:
                raw = unnest_lists(con, raw, names, found, label)
                loaded.owned.append(("view", raw))
                names = describe(con, raw, label)
                found = match_columns(names, kind, columns or {}, label)
            loaded.columns, loaded.ignored = found, unread(names, found, columns or {})
            loaded.raw, loaded.number_column = raw, found.get(NUMBER[kind])
            loaded.system_column = kind == "run" and system is None and "system" in found
            unnamed = run_name(text[1]) if text is not None and not is_glob(str(text[1])) and not Path(text[1]).is_dir() else None
            loaded.select = column_select(con, raw, names, found, kind, system, integer_grades, label, unnamed)
        _materialise(con, loaded, duplicates, text)
        check_rows(con, loaded, duplicates, text)
        if len(loaded.systems) > 1:  # a table of several systems: each is a run of its own to the warnings
            loaded.runs = {system: f"{label} (system {system})" for system in loaded.systems}
        if text is not None and text[0] != "parquet" and ("file", text[1]) in loaded.owned:
            forget_copy(text[1])  # text is parsed into a table by now: its copy is disk held for nothing
            loaded.owned.remove(("file", text[1]))
    except InputError as error:
        message = as_given(_cast_named(_nan_named(str(error), source, loaded.number_column), source, loaded))
        release(con, loaded)
        raise InputError(message) from None
    except Exception:
        release(con, loaded)
        raise
    if duplicates != "keep":  # a source with duplicates kept is for counting, never for evaluating
        _keep(con, loaded)
    return loaded


def load_run_files(con: duckdb.DuckDBPyConnection, runs: list[tuple[str, object]]) -> Source | None:
    """Runs given as TREC run files, each one system named as given (``[(name, path), ...]``), read
    and checked together: one read of every file (trec_text.load_trec_runs) and one checking pass,
    where :func:`load` of each file makes each of them. None, having made nothing, when a run is not
    a TREC text file or a file needs reading alone, and when the checks find a problem: the caller
    then loads each run, which names the file and line as it does for one."""
    paths = []
    for _, run in runs:
        try:
            if not isinstance(run, (str, Path)) or (isinstance(run, str) and is_table(con, run)):
                return None
            if not is_glob(str(run)) and not Path(run).is_file():  # a FIFO is read once, by load's copy
                return None
            fmt, path = file_format(con, run, None, "run")
        except InputError:
            return None
        if fmt != "trec":
            return None
        paths.append(Path(path))
    table = load_trec_runs(con, paths, [name for name, _ in runs])
    if table is None:
        return None
    loaded = Source(table=temp_name("run"), label=", ".join(str(run) for _, run in runs), kind="run", raw=table,
                    select=trec_select("run", None, False))
    loaded.keyed = loaded.table + "_keyed"
    loaded.owned = [("view", loaded.table), ("table", loaded.table + "_queries"), ("table", table),
                    ("view", loaded.keyed)]
    try:
        _materialise(con, loaded, "error", ("trec", None))
        check_rows(con, loaded, "error", None)
    except InputError:  # said by the file's own reading, with its line
        release(con, loaded)
        return None
    loaded.systems = list(dict.fromkeys(name for name, _ in runs))  # in the order given, as load_runs lists them
    loaded.runs = {name: str(run) for name, run in runs}
    _keep(con, loaded)
    return loaded


def release(con: duckdb.DuckDBPyConnection, source: Source) -> None:
    """Drop what was made to read ``source`` (temp tables, views, registered DataFrames)."""
    if not source.owned:
        return
    for what, name in source.owned:
        try:
            if what == "frame":
                con.unregister(name)
            elif what == "file":
                forget_copy(name)
            else:
                con.execute(f"DROP {'VIEW' if what == 'view' else 'TABLE'} IF EXISTS {name}")
        except duckdb.Error:
            pass  # already gone, or the connection is closing
    _sources.pop(source.table, None)
    _homes.pop(source.table, None)
    source.owned = []


def as_checked(con: duckdb.DuckDBPyConnection, table: str, of: str) -> Source | None:
    """``table``, rows of the checked source named ``of`` in its columns (each query's first ranks), taken
    as that source is: the same queries, systems and names, not checked again; release() forgets it
    (and drops the table). None where ``of`` is no source load() keeps (a list of runs' view)."""
    known = _known(con, of, "run")
    if known is None:
        return None
    part = replace(known, table=table, keyed="", owned=[("table", table)],
                   rows=con.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    _keep(con, part)
    return part


def holder(source: Source) -> Source | None:
    """The source read_qrels or read_run made, where ``source`` is load()'s copy of it for one call: what
    outlives the call (what it owns is dropped with it by forget). None for a source read by the call."""
    found = _sources.get(source.table)
    return found if found is not None and found is not source else None


def forget(con: duckdb.DuckDBPyConnection, relation: duckdb.DuckDBPyRelation) -> None:
    """Drop what read_qrels or read_run made for ``relation``: for a caller that read inputs only
    for its own use (a report), so that they do not stay in the connection."""
    source = _sources.get(relation.alias)
    if source is not None:
        release(con, source)


def _known(con, source, kind: str) -> Source | None:
    """A source rankkit read and checked already on this connection (a read_qrels/read_run result)."""
    if duckdb.is_relation(source):
        # Only a plain scan of the table is that source: a union or filter keeps the left alias.
        name = source.alias if _plain_scan(source) else None
    else:
        name = source if isinstance(source, str) else None
    known = _sources.get(name) if name else None
    if known is None or known.kind != kind:
        return None
    home = _homes.get(known.table)
    if (home is None or home() is not con) and not is_table(con, known.table):
        return None
    return known


def _plain_scan(relation: duckdb.DuckDBPyRelation) -> bool:
    if str(getattr(relation, "type", "")) in ("TABLE_RELATION", "VIEW_RELATION"):
        return True
    try:
        text = " ".join(relation.sql_query().split()).lower()
    except (duckdb.Error, AttributeError):
        return False
    return text in (f'select * from "{relation.alias}"'.lower(), f"select * from {relation.alias}".lower())


def _raw(con, source, kind: str, format: str | None, label: str | None):
    """A FROM-able SQL text for the source, a label for messages, and (format, path) for files."""
    if is_frame(source):
        if len(source) == 0:  # as an empty file is
            raise InputError(f"{label or f'the {kind} DataFrame'}: no rows, expected {', '.join(REQUIRED[kind])} rows")
        name = temp_name(f"{kind}_frame")
        con.register(name, source)
        return name, label or f"the {kind} DataFrame", None
    if duckdb.is_relation(source):
        name = temp_name(f"{kind}_relation")
        try:
            source.create_view(name, replace=True)
        except duckdb.Error as error:
            raise InputError(f"the {kind} relation cannot be read ({first_message(error)})") from None
        if not is_table(con, name):
            raise InputError(f"the {kind} relation belongs to another DuckDB connection (read_{kind}() without con= "
                             f"reads into rankkit's own); pass the same con= to read_{kind}() and to this call")
        return name, label or f"the {kind} relation", None
    if isinstance(source, str) and is_table(con, source):
        return table_ident(source), label or f"table {source}", None
    if isinstance(source, (str, Path)):
        shown = label or str(source)
        # a FIFO or gzip file is read once, into a plain copy (files.plain_copy) that every read then opens
        copy = None if is_glob(str(source)) else plain_copy(Path(source))
        try:
            fmt, path = file_format(con, copy or source, format, kind)
        except InputError as error:
            message = as_given(str(error))
            if copy is not None:
                forget_copy(copy)
            raise InputError(message) from None
        if fmt == "parquet":
            return f"read_parquet({path_literal(path)}, hive_partitioning = true)", shown, (fmt, path)
        if fmt in ("csv", "tsv"):
            return csv_reader(Path(path) if not is_glob(path) else path, fmt, shown), shown, (fmt, path)
        return "", shown, ("trec", Path(path))
    raise InputError(
        f"{kind}: expected a file path, a pandas DataFrame, a DuckDB relation or a table name, "
        f"got {type(source).__name__}"
    )


def _materialise(con, loaded: Source, duplicates: str, text) -> None:
    """Text is parsed once into a temp table; Parquet, frames and tables stay where they are (a view)."""
    table, select = loaded.raw, loaded.select + (", rankkit_key" if loaded.keyed else "")
    body = f"SELECT {select} FROM {table}"
    # TREC text is in a temp table already; CSV is parsed once here.
    what = "TABLE" if text is not None and text[0] in ("csv", "tsv") else "VIEW"
    try:
        con.execute(f"CREATE TEMP {what} {loaded.engine} AS {body}")
    except duckdb.Error as error:
        if what == "TABLE" and not is_glob(str(text[1])) and (problem := text_problem(Path(text[1]), loaded.label)):
            raise InputError(problem) from None  # binary, a line over the limit, not UTF-8: in words
        raise InputError(read_error(error, loaded.label)) from None
    if loaded.keyed:  # the key is the engine's: users see rankkit's columns
        con.execute(f"CREATE TEMP VIEW {loaded.table} AS SELECT * EXCLUDE (rankkit_key) FROM {loaded.keyed}")
    if duplicates == "first":
        keep_first(con, loaded, what, split=text is not None and text[0] in ("trec", "csv", "tsv"))


def _nan_named(message: str, source, column: str | None) -> str:
    """DuckDB reads a DataFrame's NaN as NULL: say NaN where the frame holds one."""
    found = re.search(r"row (\d+): the (score|relevance) is missing \(NULL or empty\)", message)
    if not found or column is None or not is_frame(source) or column not in source.columns:
        return message
    value = source[column].iloc[int(found.group(1)) - 1]
    if isinstance(value, float) and math.isnan(value):
        return message.replace(found.group(0), f"row {found.group(1)}: the {found.group(2)} is NaN, not a finite number")
    return message


def _cast_named(message: str, source, loaded: Source) -> str:
    """DuckDB types a DataFrame's column of Python objects by a sample of its rows: a value of another
    kind past the sample (a grade 'x' among a thousand integers) fails the whole read, with no row.
    Said as the checks say a bad value, with its row and column, found in the frame."""
    found = re.search(r"cannot be read \(.*Could not convert string '(.*)' to (\w+)\)", message)
    if not found or not is_frame(source):
        return message
    value, typed = found.groups()
    for column in source.columns:
        rows = (source[column].map(str) == value).to_numpy().nonzero()[0] if source[column].dtype == object else []
        if len(rows) and column == loaded.number_column:
            return (f"{loaded.label}: row {rows[0] + 1}: the {NUMBER[loaded.kind]} '{value}' is not a number"
                    f"{decimal_comma(value)}")
        if len(rows):
            return (f"{loaded.label}: row {rows[0] + 1}: column {column}: '{value}' does not fit {typed}, the type "
                    f"DuckDB gave the column from a sample of its rows; give its values one type (ids as strings)")
    return message
