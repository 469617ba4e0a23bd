"""Reading qrels and runs of every kind into DuckDB, checked, with errors that name the place.

A source is a path (TREC text, CSV or TSV with a header, Parquet file, glob or folder; any text may be
gzip-compressed), a pandas DataFrame, a DuckDB relation or the name of a table or view. Whatever it
is, DuckDB reads it (never pandas or a Python loop over rows) into a relation with rankkit's columns:

- qrels: ``query_id VARCHAR, doc_id VARCHAR, relevance DOUBLE``
- run:   ``system VARCHAR, query_id VARCHAR, doc_id VARCHAR, rank BIGINT, score DOUBLE``

Columns with other names are found by their common names (``qid``, ``docno``, ``rel``, ``sim``,
``run_id`` ...) or mapped by the caller (``columns={"clicks": "relevance"}``, pandas' ``rename``
direction: your name to rankkit's). One pass over the rows checks them (NULL ids, scores that are
not finite numbers, duplicates) and keeps per-query counts for the checks that compare a run with its
qrels. Python reads a text file itself only on the error path, to say which line is wrong.
"""

from __future__ import annotations

import gzip
import itertools
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterator, Mapping

import sys

import duckdb

from rankkit._sql import connect
from rankkit.errors import InputError
from rankkit.names import ALIASES, OPTIONAL, QRELS_FIELDS, REQUIRED, RUN_FIELDS, RUN_SUFFIXES
from rankkit.progress import Progress

__all__ = ["read_qrels", "read_run", "default_connection", "load", "release", "forget", "Source", "ALIASES"]

_default: duckdb.DuckDBPyConnection | None = None
_counter = itertools.count(1)

NUMBER = {"qrels": "relevance", "run": "score"}
DUPLICATES = ("error", "first")
SPLIT_ROWS = 1_000_000  # above this, the duplicate search of a source held in memory sorts in parts
# Columns nobody means as data: TREC's unused field, pandas' saved index.
_IGNORABLE = re.compile(r"iter|iteration|q0|__index_level_\d+__", re.I)
_ID_TYPES = re.compile(r"VARCHAR|(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?)|UUID", re.I)
_NUMBER_TYPES = re.compile(r"VARCHAR|BOOLEAN|(U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?)|FLOAT|DOUBLE|REAL|DECIMAL.*", re.I)


@dataclass
class Source:
    """A checked qrels or run: the temp table or view holding it, and what the checks found."""

    table: str
    label: str
    kind: str
    raw: str = ""  # what it was read from (SQL), and the SELECT list giving rankkit's columns
    select: str = ""
    number_column: str | None = None  # the source's score or relevance column
    queries: str = ""  # temp table: per (system,) query counts, made by the checking pass
    systems: list = field(default_factory=list)
    fractional: tuple | None = None  # (query_id, doc_id, grade) of a fractional grade, qrels only
    top_grade: float | None = None
    keyed: str = ""  # parsed text: a view of the table with rankkit_key, the stored hash(query_id, doc_id)
    rows: int = 0  # the rows and (system,) queries the checking pass counted (the engine picks its ranking by them)
    lists: int = 0
    owned: list = field(default_factory=list)  # (what, name) made for this source, dropped by release()

    @property
    def engine(self) -> str:
        """What the macros read: the keyed view where there is one (rankkit.run_keys uses its key)."""
        return self.keyed or self.table


_sources: dict[str, Source] = {}


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
    with Progress(con, "reading qrels"):
        loaded = load(con, source, "qrels", columns=mapping, duplicates=duplicates, format=format,
                      integer_grades=integer_grades)
    return con.table(loaded.table)


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
    with Progress(con, "reading run"):
        loaded = load(con, source, "run", columns=columns, duplicates=duplicates, format=format, system=system,
                      split_by_tag=split_by_tag)
    return con.table(loaded.table)


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
    raw, label, text = _raw(con, source, kind, format, label)
    loaded = Source(table=_temp_name(kind), label=label, kind=kind)
    final = "view" if text is None or text[0] == "trec" else "table"
    loaded.owned = [(final, loaded.table), ("table", loaded.table + "_queries")]
    if text is None and raw.startswith("rankkit_"):
        loaded.owned.append(("frame" if is_frame(source) else "view", raw))
    try:
        if text is not None and text[0] == "trec":
            split = split_by_tag and system is None
            loaded.raw, tag = _load_trec(con, text[1], kind, keep_tag=split)
            loaded.owned.append(("table", loaded.raw))
            loaded.select = _trec_select(kind, system if system is not None else tag if split else run_name(text[1]),
                                         integer_grades)
            if kind == "run":
                loaded.keyed = loaded.table + "_keyed"
                loaded.owned.append(("view", loaded.keyed))
        else:
            names = _describe(con, raw, label)
            found = _match_columns(names, kind, columns or {}, label)
            loaded.raw, loaded.number_column = raw, found.get(NUMBER[kind])
            unnamed = run_name(text[1]) if text is not None and not _is_glob(str(text[1])) and not Path(text[1]).is_dir() else None
            loaded.select = _select(con, raw, names, found, kind, system, integer_grades, label, unnamed)
        _materialise(con, loaded, duplicates, text)
        _check(con, loaded, duplicates, text)
    except InputError as error:
        release(con, loaded)
        raise InputError(_nan_named(str(error), source, loaded.number_column)) from None
    except Exception:
        release(con, loaded)
        raise
    if duplicates != "keep":  # a source with duplicates kept is for counting, never for evaluating
        _sources[loaded.table] = loaded
    return loaded


def release(con: duckdb.DuckDBPyConnection, source: Source) -> None:
    """Drop what was made to read ``source`` (temp tables, views, registered DataFrames)."""
    if not source.owned:
        return
    for what, name in source.owned:
        try:
            if what == "frame":
                con.unregister(name)
            else:
                con.execute(f"DROP {'VIEW' if what == 'view' else 'TABLE'} IF EXISTS {name}")
        except duckdb.Error:
            pass  # already gone, or the connection is closing
    _sources.pop(source.table, None)
    source.owned = []


def forget(con: duckdb.DuckDBPyConnection, relation: duckdb.DuckDBPyRelation) -> None:
    """Drop what read_qrels or read_run made for ``relation``: for a caller that read inputs only
    for its own use (a report), so that they do not stay in the connection."""
    source = _sources.get(relation.alias)
    if source is not None:
        release(con, source)


def _known(con, source, kind: str) -> Source | None:
    """A source rankkit read and checked already on this connection (a read_qrels/read_run result)."""
    if isinstance(source, duckdb.DuckDBPyRelation):
        # Only a plain scan of the table is that source: a union or filter keeps the left alias.
        name = source.alias if _plain_scan(source) else None
    else:
        name = source if isinstance(source, str) else None
    known = _sources.get(name) if name else None
    if known is None or known.kind != kind or not is_table(con, known.table):
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


# ---- where the rows come from -----------------------------------------------------------------

def _raw(con, source, kind: str, format: str | None, label: str | None):
    """A FROM-able SQL text for the source, a label for messages, and (format, path) for files."""
    if is_frame(source):
        if len(source) == 0:  # as an empty file is
            raise InputError(f"{label or f'the {kind} DataFrame'}: no rows, expected {', '.join(REQUIRED[kind])} rows")
        name = _temp_name(f"{kind}_frame")
        con.register(name, source)
        return name, label or f"the {kind} DataFrame", None
    if isinstance(source, duckdb.DuckDBPyRelation):
        name = _temp_name(f"{kind}_relation")
        try:
            source.create_view(name, replace=True)
        except duckdb.Error as error:
            raise InputError(f"the {kind} relation cannot be read ({_first_message(error)})") from None
        if not is_table(con, name):
            raise InputError(f"the {kind} relation belongs to another DuckDB connection (read_{kind}() without con= "
                             f"reads into rankkit's own); pass the same con= to read_{kind}() and to this call")
        return name, label or f"the {kind} relation", None
    if isinstance(source, str) and is_table(con, source):
        return _table_ident(source), label or f"table {source}", None
    if isinstance(source, (str, Path)):
        fmt, path = _file_format(con, source, format, kind)
        shown = label or str(source)
        if fmt == "parquet":
            return f"read_parquet({_quote(path)}, hive_partitioning = true)", shown, (fmt, path)
        if fmt in ("csv", "tsv"):
            return _csv_reader(Path(path) if not _is_glob(path) else path, fmt, shown), shown, (fmt, path)
        return "", shown, ("trec", Path(path))
    raise InputError(
        f"{kind}: expected a file path, a pandas DataFrame, a DuckDB relation or a table name, "
        f"got {type(source).__name__}"
    )


def _file_format(con, source, format: str | None, kind: str) -> tuple[str, str]:
    text = str(source)
    if format is not None and format not in ("trec", "csv", "tsv", "parquet"):
        raise InputError(f"{text}: format must be trec, csv, tsv or parquet, got {format!r}")
    path = Path(text)
    if _is_glob(text):
        suffix = _suffix(text)
        fmt = format or ("parquet" if suffix in (".parquet", ".pq") else suffix.lstrip(".") if suffix in (".csv", ".tsv") else None)
        if fmt is None or fmt == "trec":
            raise InputError(f"{text}: a glob must end in .parquet, .csv or .tsv (TREC text is read one file at a time)")
        return fmt, text
    if path.is_dir():
        if not any(path.rglob("*.parquet")):
            raise InputError(f"{text}: is a folder without .parquet files; give a file, a glob or a Parquet folder")
        return "parquet", str(path / "**" / "*.parquet")
    if not path.exists():
        hint = ", and no table or view of that name" if isinstance(source, str) and _could_be_table(con, text) else ""
        raise InputError(f"{text}: no such file{hint}")
    if format:
        return format, text
    suffix = _suffix(text)
    if suffix in (".parquet", ".pq") or _magic(path, 4) == b"PAR1":
        return "parquet", text
    if suffix in (".csv", ".tsv"):
        return suffix.lstrip("."), text
    header = _first_line(path)
    if _looks_like_header(header, kind):
        return ("tsv" if "\t" in header else "csv"), text
    return "trec", text


def _looks_like_header(line: str, kind: str) -> bool:
    """A first line naming columns rather than holding TREC fields."""
    tokens = [t.strip().strip('"').lower() for t in re.split(r"[,\t]| +", line.strip()) if t.strip()]
    known = {alias for aliases in ALIASES.values() for alias in aliases}
    return "," in line or sum(t in known for t in tokens) >= 2


def _suffix(text: str) -> str:
    name = text[:-3] if text.lower().endswith(".gz") else text
    return Path(name).suffix.lower()


def _is_glob(text: str) -> bool:
    return any(c in text for c in "*?[")


def _csv_reader(path, fmt: str, label: str) -> str:
    delim = "\\t" if fmt == "tsv" else ","
    first = path if isinstance(path, Path) else _first_glob_match(path, label)
    header = _first_line(first).rstrip("\r\n")
    names = [n.strip().strip('"') for n in header.split("\t" if fmt == "tsv" else ",")]
    if not any(names):
        raise InputError(f"{label}:1: expected a header line naming the columns, found an empty line")
    seen = set()
    for name in names:
        if not name:
            raise InputError(f"{label}:1: the header has an empty column name")
        if name.lower() in seen:
            raise InputError(f"{label}:1: the header names column '{name}' twice")
        seen.add(name.lower())
    types = "{" + ", ".join(f"{_quote(n)}: 'VARCHAR'" for n in names) + "}"
    compression = _compression(first)
    return (f"read_csv({_quote(str(path))}, header = true, auto_detect = false, delim = E'{delim}', quote = '\"', "
            f"escape = '\"', columns = {types}, strict_mode = true{compression})")


def _first_glob_match(pattern: str, label: str) -> Path:
    import glob

    matches = sorted(glob.glob(pattern, recursive=True))
    if not matches:
        raise InputError(f"{label}: no file matches")
    return Path(matches[0])


def _describe(con, raw: str, label: str) -> list[tuple[str, str]]:
    try:
        return [(r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM {raw}").fetchall()]
    except duckdb.Error as error:
        raise InputError(f"{label}: cannot be read ({_first_message(error)})") from None


def _match_columns(names: list[tuple[str, str]], kind: str, columns: Mapping[str, str | None],
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


def _select(con, raw, names, found, kind, system, integer_grades, label, unnamed: str | None = None) -> str:
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
    q, d = _ident(found["query_id"]), _ident(found["doc_id"])
    if kind == "qrels":
        grade = f"TRY_CAST({_ident(found['relevance'])} AS DOUBLE)"
        grade = f"trunc({grade})" if integer_grades else grade
        return f"CAST({q} AS VARCHAR) AS query_id, CAST({d} AS VARCHAR) AS doc_id, {grade} AS relevance"
    if system is not None:
        tag = _quote(system)
    elif "system" in found:
        tag = f"CAST({_ident(found['system'])} AS VARCHAR)"
    else:
        tag = _quote(unnamed) if unnamed is not None else "CAST(NULL AS VARCHAR)"
    rank = f"TRY_CAST(TRY_CAST({_ident(found['rank'])} AS DOUBLE) AS BIGINT)" if "rank" in found else "CAST(NULL AS BIGINT)"
    return (f"{tag} AS system, CAST({q} AS VARCHAR) AS query_id, CAST({d} AS VARCHAR) AS doc_id, "
            f"{rank} AS rank, TRY_CAST({_ident(found['score'])} AS DOUBLE) AS score")


def _trec_select(kind: str, system: str | None, integer_grades: bool) -> str:
    if kind == "qrels":
        grade = "trunc(relevance)" if integer_grades else "relevance"
        return f"query_id, doc_id, {grade} AS relevance"
    tag = "system" if system is None else _quote(system)
    return f"{tag} AS system, query_id, doc_id, CAST(rank AS BIGINT) AS rank, score"


def _materialise(con, loaded: Source, duplicates: str, text) -> None:
    """Text is parsed once into a temp table; Parquet, frames and tables stay where they are (a view)."""
    table, select = loaded.raw, loaded.select + (", rankkit_key" if loaded.keyed else "")
    body = f"SELECT {select} FROM {table}"
    # TREC text is in a temp table already; CSV is parsed once here.
    what = "TABLE" if text is not None and text[0] in ("csv", "tsv") else "VIEW"
    try:
        con.execute(f"CREATE TEMP {what} {loaded.engine} AS {body}")
    except duckdb.Error as error:
        raise InputError(_read_error(error, loaded.label)) from None
    if loaded.keyed:  # the key is the engine's: users see rankkit's columns
        con.execute(f"CREATE TEMP VIEW {loaded.table} AS SELECT * EXCLUDE (rankkit_key) FROM {loaded.keyed}")
    if duplicates == "first":
        _keep_first(con, loaded, what, split=text is not None and text[0] in ("trec", "csv", "tsv"))


def _keep_first(con, loaded: Source, what: str, split: bool) -> None:
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


def _read_error(error: Exception, label: str) -> str:
    """DuckDB's CSV error, said in one line with the file and line."""
    text = str(error)
    line = re.search(r"CSV Error on Line: (\d+)", text)
    columns = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", text)
    if line and columns:
        return (f"{label}:{line.group(1)}: expected {columns.group(1)} fields as in the header, "
                f"found {columns.group(2)}")
    if line and "unicode" in text.lower():
        return f"{label}:{line.group(1)}: not UTF-8 text"
    if line:
        return f"{label}:{line.group(1)}: cannot be read ({_first_message(error)})"
    return f"{label}: cannot be read ({_first_message(error)})"


# ---- the checking pass ------------------------------------------------------------------------

def _check(con, loaded: Source, duplicates: str, text) -> None:
    """One pass: per-query counts (kept for the qrels-vs-run checks) and every problem at once."""
    kind, number = loaded.kind, NUMBER[loaded.kind]
    group = "query_id" if kind == "qrels" else "system, query_id"
    extra = ("max(relevance) AS top, arg_min({'doc_id': doc_id, 'grade': relevance}, "
             "CASE WHEN relevance <> trunc(relevance) THEN 0 END) AS fractional"
             if kind == "qrels" else "count(*) FILTER (WHERE rank IS NULL) AS no_rank")
    loaded.queries = loaded.table + "_queries"
    # Counting distinct documents per query takes a hash table of every (query, document) pair; only
    # rankkit check, which reports duplicates, counts them. Otherwise the search below finds them.
    docs = "count(DISTINCT doc_id)" if duplicates == "keep" else "count(doc_id)"
    try:
        con.execute(
            f"CREATE TEMP TABLE {loaded.queries} AS SELECT {group}, count(*) AS n, {docs} AS docs, "
            f"count(*) FILTER (WHERE doc_id IS NULL) AS null_docs, "
            f"count(*) FILTER (WHERE {number} IS NULL OR NOT isfinite({number})) AS bad_numbers, {extra} "
            f"FROM {loaded.table} GROUP BY {group}"
        )
    except duckdb.Error as error:
        raise InputError(_read_error(error, loaded.label)) from None
    bad = con.execute(
        f"SELECT count(*) FILTER (WHERE query_id IS NULL), sum(null_docs), sum(bad_numbers), sum(n), count(*) "
        f"FROM {loaded.queries}"
    ).fetchall()[0]
    loaded.rows, loaded.lists = int(bad[3] or 0), bad[4]
    if not bad[3]:  # an empty table, frame or file is an error, as an empty TREC file is
        raise InputError(f"{loaded.label}: no rows, expected {', '.join(REQUIRED[kind])} rows")
    if bad[0] or bad[1] or bad[2]:
        _raise_bad_row(con, loaded, text)
    held = text is not None and text[0] in ("trec", "csv", "tsv")
    if duplicates == "error" and _may_repeat(con, loaded, split=held and (bad[3] or 0) > SPLIT_ROWS):
        _raise_duplicate(con, loaded, text)
    if kind == "run":
        loaded.systems = [r[0] for r in con.execute(
            f"SELECT DISTINCT system FROM {loaded.queries} ORDER BY system NULLS FIRST").fetchall()]
    else:
        top, frac = con.execute(
            f"SELECT max(top), arg_min({{'query_id': query_id, 'doc_id': fractional.doc_id, 'grade': fractional.grade}}, "
            f"CASE WHEN fractional.doc_id IS NOT NULL THEN query_id END) FROM {loaded.queries}"
        ).fetchall()[0]
        loaded.top_grade = top
        if frac and frac["doc_id"] is not None:
            loaded.fractional = (frac["query_id"], frac["doc_id"], frac["grade"])


def _nan_named(message: str, source, column: str | None) -> str:
    """DuckDB reads a DataFrame's NaN as NULL: say NaN where the frame holds one."""
    found = re.search(r"row (\d+): the (score|relevance) is missing \(NULL or empty\)", message)
    if not found or column is None or not is_frame(source) or column not in source.columns:
        return message
    value = source[column].iloc[int(found.group(1)) - 1]
    if isinstance(value, float) and math.isnan(value):
        return message.replace(found.group(0), f"row {found.group(1)}: the {found.group(2)} is NaN, not a finite number")
    return message


def _raise_bad_row(con, loaded: Source, text) -> None:
    """Find the first bad row, say where it is (line, row or file and row) and what is wrong."""
    if text is not None and text[0] == "trec":
        _raise_bad_line(text[1], loaded.kind)
    number = NUMBER[loaded.kind]
    original = f"CAST({_ident(loaded.number_column)} AS VARCHAR)" if loaded.number_column else "NULL"
    problem = (f"CASE WHEN query_id IS NULL THEN 'the query id is missing (NULL or empty)' "
               f"WHEN doc_id IS NULL THEN 'the document id is missing (NULL or empty)' "
               f"WHEN rankkit_original IS NOT NULL AND {number} IS NULL "
               f"THEN 'the {number} ''' || rankkit_original || ''' is not a number' "
               f"WHEN {number} IS NULL THEN 'the {number} is missing (NULL or empty)' "
               f"WHEN isnan({number}) THEN 'the {number} is NaN, not a finite number' "
               f"ELSE 'the {number} ' || {number} || ' is not a finite number' END")
    bad = f"query_id IS NULL OR doc_id IS NULL OR {number} IS NULL OR NOT isfinite({number})"
    if text is not None and text[0] == "parquet":
        source = (f"read_parquet({_quote(text[1])}, hive_partitioning = true, filename = true, "
                  f"file_row_number = true)")
        found = con.execute(
            f"SELECT filename, file_row_number + 1, {problem} FROM (SELECT filename, file_row_number, "
            f"{original} AS rankkit_original, {loaded.select} FROM {source}) WHERE {bad} "
            f"ORDER BY filename, file_row_number LIMIT 1"
        ).fetchall()[0]
        raise InputError(f"{found[0]}: row {found[1]}: {found[2]}")
    if text is not None and text[0] in ("csv", "tsv") and _is_glob(str(text[1])):
        # several files: count rows within each, and name the file
        source = loaded.raw[:-1] + ", filename = true)"
        found = con.execute(
            f"SELECT filename, file_row, {problem} FROM (SELECT *, row_number() OVER (PARTITION BY filename "
            f"ORDER BY rankkit_row) AS file_row FROM (SELECT row_number() OVER () AS rankkit_row, filename, "
            f"{original} AS rankkit_original, {loaded.select} FROM {source})) WHERE {bad} ORDER BY rankkit_row LIMIT 1"
        ).fetchall()[0]
        raise InputError(f"{found[0]}:{_line_of(Path(found[0]), found[1], header=True)}: {found[2]}")
    found = con.execute(
        f"SELECT rankkit_row, {problem} FROM (SELECT row_number() OVER () AS rankkit_row, "
        f"{original} AS rankkit_original, {loaded.select} FROM {loaded.raw}) WHERE {bad} ORDER BY rankkit_row LIMIT 1"
    ).fetchall()[0]
    if text is not None and not _is_glob(str(text[1])):
        where = f"{loaded.label}:{_line_of(Path(text[1]), found[0], header=True)}"
    else:
        where = f"{loaded.label}: row {found[0]}"
    raise InputError(f"{where}: {found[1]}")


def _row_hash(loaded: Source) -> str:
    """The 64-bit hash of a row's (system,) query and document: equal rows have equal hashes."""
    if loaded.keyed:
        return "hash(system, rankkit_key)"
    return "hash(query_id, doc_id)" if loaded.kind == "qrels" else "hash(system, query_id, doc_id)"


def _may_repeat(con, loaded: Source, split: bool, into: str | None = None) -> bool:
    """Whether two rows share a hash of (system,) query and document: sorting 64-bit hashes is several
    times cheaper in time and memory than grouping the strings. Equal rows have equal hashes; equal
    hashes of different rows (a chance in a million for 10^7 rows, in 4,000 for 10^8) cost only the
    exact search.

    A large source held in memory (parsed text) has the sort's memory on top of its own: ``split``
    sorts part of the hashes at a time (equal rows fall in the same part), a lower peak for more
    scans. Parsed TREC text stores the hash of query and document, so a scan is cheap: a quarter at
    a time costs no more time than halves, and a third of their memory.

    ``into`` names a temp table to create holding every repeated hash (all parts searched)."""
    parts = (4 if loaded.keyed else 2) if split else 1
    repeats = (f"SELECT h FROM (SELECT h, lag(h) OVER (ORDER BY h) AS before FROM (SELECT {_row_hash(loaded)} AS h "
               f"FROM {loaded.engine}) WHERE h % {parts} = {{part}}) WHERE h = before")
    if into is not None:  # one part after another, as below: one sort's memory at a time
        con.execute(f"CREATE TEMP TABLE {into} (h UBIGINT)")
        for part in range(parts):
            con.execute(f"INSERT INTO {into} SELECT DISTINCT h FROM ({repeats.format(part=part)})")
        return con.execute(f"SELECT count(*) FROM {into}").fetchall()[0][0] > 0
    for part in range(parts):
        if con.execute(f"SELECT count(*) FROM ({repeats.format(part=part)})").fetchall()[0][0]:
            return True
    return False


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
    if text is not None and text[0] in ("trec", "csv", "tsv") and not _is_glob(str(text[1])):
        lines = [_line_of(Path(text[1]), r, header=text[0] != "trec") for r in rows]
        place = f"{loaded.label}:{lines[1]}"
        seen = f"lines {lines[0]} and {lines[1]}"
    else:
        place, seen = loaded.label, f"rows {rows[0]} and {rows[1]}"
    per = " and system" if loaded.kind == "run" else ""
    raise InputError(
        f"{place}: duplicate document {doc_id} for query {query_id}{system} ({seen}); each document may appear "
        f"once per query{per} (duplicates='first' keeps the first)"
    )


# ---- TREC text --------------------------------------------------------------------------------

def _load_trec(con: duckdb.DuckDBPyConnection, path: Path, kind: str,
               keep_tag: bool = True) -> tuple[str, str | None]:
    """Load the file into a temp table of the TREC fields rankkit uses: the table's name, and the
    run's tag when every line has the same one (the table then has no tag column).

    Only those fields are kept (q0 and the iteration are read and dropped; the tag only when
    ``keep_tag`` and the lines differ in it): a kept field is memory for every row. The fast path
    reads the file with DuckDB's CSV reader and a fixed schema; a file it cannot take (comment
    lines, mixed whitespace, extra columns, a bad value) goes through a whitespace-splitting SQL path.
    """
    if (problem := _no_lines(path)) is not None:
        fields = " ".join(QRELS_FIELDS if kind == "qrels" else RUN_FIELDS)
        raise InputError(f"{path}: {problem}, expected TREC {kind} lines ({fields})")
    name = _temp_name(f"{kind}_text")
    first = _first_line(path)
    tabs = "\t" in first
    # A tab in a space-separated file, a space in a tab-separated one, or a carriage return: splitting
    # on runs of whitespace (trec_eval's reading) would see other fields. Such a file takes the
    # tolerant path. Plain files are searched byte-wise; in gzip, each field is searched in SQL.
    compressed = bool(_compression(path))
    if not compressed and _contains_any(path, (b"\r", b" " if tabs else b"\t")):
        _load_trec_lines(con, path, kind, name, _kept_fields(kind, keep_tag))
        return name, None
    # Most runs have one tag: guess the first line's, and keep no tag column if every line has it.
    # A file of several systems mostly ends in another tag than it starts with; guessing there would
    # mark rows and parse the whole file a second time (a 200-system sweep: half of its reading).
    fields = first.split()
    tag = fields[5] if kind == "run" and keep_tag and len(fields) == len(RUN_FIELDS) else None
    if tag is not None and not compressed and _last_line(path).split()[5:6] != [tag]:
        tag = None
    for guess in (tag, None) if tag is not None else (None,):
        found = _read_trec(con, path, kind, name, tabs, compressed, keep_tag and guess is None, guess)
        if found == "tolerant":
            _load_trec_lines(con, path, kind, name, _kept_fields(kind, keep_tag))
            return name, None
        if found == "read":
            return name, guess
    raise AssertionError("unreachable: a read without a guessed tag never sees another tag")


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
        marks.append(f"system = {_quote(tag)}" if tag is not None else "system IS NOT NULL")
    if compressed:
        marks += [f"NOT contains({f}, {other}) AND NOT contains({f}, E'\\r')" for f in fields if f != NUMBER[kind]]
    columns = {"query_id": f"CASE WHEN {' AND '.join(marks)} THEN query_id END AS query_id"}
    select = ", ".join(columns.get(f, f) for f in kept)
    delim = "\\t" if tabs else " "
    try:
        con.execute(
            f"CREATE TEMP TABLE {name} AS " + _keyed(kind, select, f"read_csv({_quote(str(path))}, "
            f"delim = E'{delim}', header = false, quote = '', escape = '', auto_detect = false, "
            f"columns = {_columns(kind)}, strict_mode = true{_compression(path)})")
        )
    except duckdb.Error:  # a line of other length, or a score or rank DuckDB cannot read as such
        return "tolerant"
    marked = con.execute(f"SELECT count(*) FROM {name} WHERE query_id IS NULL").fetchall()[0][0]
    if marked:
        con.execute(f"DROP TABLE {name}")
    return "read" if not marked else "other tag" if tag is not None else "tolerant"


def _keyed(kind: str, select: str, source: str) -> str:
    """The query storing a run's fields and its join key, a 64-bit hash of query and document (see
    rankkit.run_keys); qrels are small and need none."""
    query = f"SELECT {select} FROM {source}"
    return query if kind == "qrels" else f"SELECT *, hash(query_id, doc_id) AS rankkit_key FROM ({query})"


def _kept_fields(kind: str, keep_tag: bool) -> list[str]:
    if kind == "qrels":
        return ["query_id", "doc_id", "relevance"]
    return ["query_id", "doc_id", "rank", "score"] + (["system"] if keep_tag else [])


def _contains_any(path: Path, needles: tuple[bytes, ...]) -> bool:
    """Whether the file holds any of these bytes (a memory map: the OS pages it, Python never copies it)."""
    import mmap

    try:
        with open(path, "rb") as file:
            if file.seek(0, 2) == 0:
                return False
            with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return any(data.find(needle) >= 0 for needle in needles)
    except (OSError, ValueError):  # not a regular file: the tolerant path reads anything
        return True


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
    compression = "gzip" if _magic(path, 2) == b"\x1f\x8b" else "none"  # by its bytes, not its name
    lines = f"rankkit.trec_lines({_quote(str(path))}, codec := '{compression}')"
    try:
        con.execute(f"WITH rankkit_trec_lines AS MATERIALIZED (FROM {lines}) "
                    f"FROM rankkit.trec_checked('rankkit_trec_lines', '{kind}')").fetchall()
    except duckdb.Error as error:
        said = re.search(r"rankkit: (.*)", str(error))
        raise InputError(said.group(1) if said else
                         f"{path}: cannot be read as TREC {kind} text ({_first_message(error)})") from None
    con.execute(f"CREATE TEMP TABLE {name} AS " + _keyed(kind, select, f"(FROM {lines} WHERE content)"))


def _raise_bad_line(path: Path, kind: str) -> None:
    fields = QRELS_FIELDS if kind == "qrels" else RUN_FIELDS
    numeric = NUMBER[kind]
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


def _line_of(path: Path, row: int, header: bool) -> int:
    """The line number of the row-th record (error path only: Python reads the file)."""
    for seen, (number, _) in enumerate(_records(path, header=header), start=1):
        if seen == row:
            return number
    return row


def _records(path: Path, header: bool = False) -> Iterator[tuple[int, list[str]]]:
    """Line number and fields of every line that is neither blank nor a comment (error path only)."""
    with _open_text(path) as lines:
        for number, line in enumerate(lines, start=1):
            stripped = line.strip()
            if header and stripped:
                header = False
                continue
            if stripped and not stripped.startswith("#"):
                yield number, stripped.split()


def _no_lines(path: Path) -> str | None:
    """Why a TREC file holds no line to read (empty, or only comments), None when it holds one."""
    comments = 0
    with _open_text(path) as lines:
        for line in lines:
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                return None
            comments += bool(stripped)
    if comments:  # not "empty": the user sees lines in it, and may not know # starts a comment
        return f"the file holds only comment lines ({comments} line{'s' * (comments > 1)} starting with #)"
    return "the file is empty"


def _could_be_table(con: duckdb.DuckDBPyConnection, text: str) -> bool:
    """Whether a name that is no file could have meant a table: a bare name (``my_run``), or one
    qualified by a schema or database of ``con`` (``main.my_run``); ``bm25.run`` names a file."""
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*){0,2}", text):
        return False
    if "." not in text:
        return True
    first = text.split(".")[0].lower()
    return bool(con.execute("SELECT 1 FROM duckdb_schemas() WHERE lower(schema_name) = ? OR lower(database_name) = ? "
                            "LIMIT 1", [first, first]).fetchall())


def _open_text(path: Path):
    if _magic(path, 2) == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def _compression(path: Path) -> str:
    """gzip is told to DuckDB from the file's first bytes: its own guess goes by the name."""
    return ", compression = 'gzip'" if _magic(path, 2) == b"\x1f\x8b" else ""


def _magic(path: Path, size: int) -> bytes:
    try:
        with open(path, "rb") as probe:
            return probe.read(size)
    except OSError:
        return b""


def last_tag(path) -> str | None:
    """The tag (sixth field) of a TREC run file's last content line: trec_eval's runid. None when the
    file is not TREC text with a tag. A plain file is read from its end; a gzip file is streamed."""
    path = Path(path)
    if not path.is_file():
        return None
    if _magic(path, 2) == b"\x1f\x8b":
        last = None
        with _open_text(path) as lines:
            for line in lines:
                if line.strip() and not line.lstrip().startswith("#"):
                    last = line
    else:
        last = _last_line(path)
    fields = last.split() if last else []
    return fields[5] if len(fields) >= 6 else None


def _last_line(path: Path, tail: int = 4096) -> str:
    """The last line that is neither blank nor a comment, from the file's last bytes (a plain file; ""
    if none there)."""
    with open(path, "rb") as file:
        size = file.seek(0, 2)
        file.seek(max(0, size - tail))
        lines = [line for line in file.read().decode("utf-8", errors="replace").splitlines()
                 if line.strip() and not line.lstrip().startswith("#")]
    return lines[-1] if lines else ""


def _first_line(path: Path) -> str:
    """The first line that is neither blank nor a comment."""
    try:
        with _open_text(path) as lines:
            return next((line for line in lines if line.strip() and not line.lstrip().startswith("#")), "")
    except (OSError, EOFError, gzip.BadGzipFile) as error:
        raise InputError(f"{path}: cannot be read ({error})") from None


# ---- names ------------------------------------------------------------------------------------

def is_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether ``name`` (a string, not a Path: a Path is a file) is a table or view of ``con``. A name
    that is also a file is refused rather than read one way silently: the caller says which."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][\w.]*", name):
        return False
    try:  # binding the name: a catalog query would cost 8 ms the first time
        con.table(name)
    except duckdb.Error:
        return False
    if Path(name).exists():
        # DuckDB's replacement scan binds any data file by its name (run.csv, big.parquet): only the
        # catalog tells a real table or view from the file itself
        if not _in_catalog(con, name):
            return False
        raise InputError(
            f"'{name}' is both a table in the connection and a file in {Path.cwd()}: pass con.table('{name}') "
            f"for the table, or pathlib.Path('{name}') (or './{name}') for the file")
    return True


def _in_catalog(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether ``name`` (``table``, ``schema.table`` or ``database.schema.table``) is a table or view
    in ``con``'s catalog (temporary ones and registered DataFrames included)."""
    *qualifiers, table = name.lower().split(".")
    rows = con.execute(
        "SELECT lower(database_name), lower(schema_name) FROM duckdb_tables() WHERE lower(table_name) = ? "
        "UNION ALL SELECT lower(database_name), lower(schema_name) FROM duckdb_views() "
        "WHERE NOT internal AND lower(view_name) = ?", [table, table]).fetchall()
    return any(qualifiers in ([], [schema], [database], [database, schema]) for database, schema in rows)


def run_name(path) -> str:
    """A run file's name for its system: the file name without its run and compression suffixes
    (``bm25`` for ``bm25.run.gz``; ``dl19.BM25.trec_results`` for ``dl19.BM25.trec_results.txt``)."""
    name = Path(str(path)).name
    for suffix in RUN_SUFFIXES:
        name = name[: -len(suffix)] if name.lower().endswith(suffix) and len(name) > len(suffix) else name
    return name


def _temp_name(kind: str) -> str:
    return f"rankkit_{kind}_{next(_counter)}"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    """A column name, quoted: any characters, dots included."""
    return '"' + name.replace('"', '""') + '"'


def _table_ident(name: str) -> str:
    """A table or view name, possibly schema-qualified (``main.my_run``)."""
    return ".".join(_ident(part) for part in name.split("."))


def _first_message(error: Exception) -> str:
    return str(error).strip().splitlines()[0]
