"""Names in a connection's SQL: quoting, the temp names rankkit makes, whether a name is a table, and the
Source, what rankkit made in the connection for one checked input."""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from rankkit import _engine as duckdb

from rankkit.errors import InputError


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
    runs: dict = field(default_factory=dict)  # several runs (files, a table's systems): each system's, as warnings name it
    fractional: tuple | None = None  # (query_id, doc_id, grade) of a fractional grade, qrels only
    top_grade: float | None = None
    keyed: str = ""  # parsed text: a view of the table with rankkit_key, the stored hash(query_id, doc_id)
    rows: int = 0  # the rows and (system,) queries the checking pass counted (the engine picks its ranking by them)
    lists: int = 0
    system_column: bool = False  # a run whose systems are a column's values (a NULL there is refused)
    tags: bool = False  # a TREC run whose systems are its tags (split by tag)
    columns: dict = field(default_factory=dict)  # rankkit's column -> the source's (a table's or file's), for messages
    ignored: list = field(default_factory=list)  # the source's columns left alone (a timestamp), for rankkit check
    owned: list = field(default_factory=list)  # (what, name) made for this source, dropped by release()

    @property
    def engine(self) -> str:
        """What the macros read: the keyed view where there is one (rankkit.run_keys uses its key)."""
        return self.keyed or self.table


_counter = itertools.count(1)


def temp_name(kind: str) -> str:
    return f"rankkit_{kind}_{next(_counter)}"


def quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def path_literal(path) -> str:
    """A file's path as an SQL string for DuckDB's readers, which read ``*``, ``?`` and ``[`` as a glob:
    a path that names a file is escaped (``q[1].csv`` would read ``q1.csv``), a glob is left as it is."""
    text = os.fspath(path)
    if os.path.lexists(text):
        text = re.sub(r"([*?\[])", r"[\1]", text)
    return quote(text)


def ident(name: str) -> str:
    """A column name, quoted: any characters, dots included."""
    return '"' + name.replace('"', '""') + '"'


def table_ident(name: str) -> str:
    """A table or view name, possibly schema-qualified (``main.my_run``)."""
    return ".".join(ident(part) for part in name.split("."))


def first_message(error: Exception) -> str:
    return str(error).strip().splitlines()[0]


def is_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether ``name`` (a string, not a Path: a Path is a file) is a table or view of ``con``. A name
    that is also a file is refused rather than read one way silently: the caller says which."""
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][\w.]*", name):
        return False
    if not _binds(con, name):
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


def _binds(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether ``name`` reads as something in SELECT's FROM, as ``con.table(name)`` reads it: qualified
    by its dots (``main.my_run``) where that binds, else as one name (``run.csv``, which DuckDB's
    replacement scan may bind to the file). A bind, not a catalog query: a process's first one is
    slow, and con.table imports duckdb's relation layer."""
    for text in (table_ident(name), ident(name)) if "." in name else (ident(name),):
        try:
            con.execute(f"SELECT * FROM {text} LIMIT 0").fetchall()
            return True
        except duckdb.Error:
            pass
    return False


def _in_catalog(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether ``name`` (``table``, ``schema.table`` or ``database.schema.table``) is a table or view
    in ``con``'s catalog (temporary ones and registered DataFrames included)."""
    *qualifiers, table = name.lower().split(".")
    rows = con.execute(
        "SELECT lower(database_name), lower(schema_name) FROM duckdb_tables() WHERE lower(table_name) = ? "
        "UNION ALL SELECT lower(database_name), lower(schema_name) FROM duckdb_views() "
        "WHERE NOT internal AND lower(view_name) = ?", [table, table]).fetchall()
    return any(qualifiers in ([], [schema], [database], [database, schema]) for database, schema in rows)


def could_be_table(con: duckdb.DuckDBPyConnection, text: str) -> bool:
    """Whether a name that is no file could have meant a table: a bare name (``my_run``), or one
    qualified by a schema or database of ``con`` (``main.my_run``); ``bm25.run`` names a file."""
    if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*){0,2}", text):
        return False
    if "." not in text:
        return True
    first = text.split(".")[0].lower()
    return bool(con.execute("SELECT 1 FROM duckdb_schemas() WHERE lower(schema_name) = ? OR lower(database_name) = ? "
                            "LIMIT 1", [first, first]).fetchall())
