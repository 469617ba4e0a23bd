"""Slices: a query table (query ids and attribute columns) read and checked, its id column found as
the readers find it."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from rankkit import _engine as duckdb

from rankkit.errors import InputError
from rankkit.io import is_frame, is_table, temp_name
from rankkit.io.catalog import ident, path_literal, quote
from rankkit.names import ALIASES


# result columns an attribute column (by=) must not shadow
RESERVED = ("measure", "system", "query_id", "value", "queries", "ci_low", "ci_high")


def slice_source(con: duckdb.DuckDBPyConnection, query_table, by: str | None,
                 columns: Mapping[str, str | None] | None = None) -> tuple[str, str]:
    """The table holding the query attributes and the attribute's column, checked; its query id
    column found as the readers find it (``qid``, ``topic`` ..., or mapped by ``columns``)."""
    if query_table is None or not isinstance(by, str):
        raise InputError("slices need both query_table (query_id plus attribute columns) and by (a column name)")
    if by in RESERVED:
        raise InputError(f"by: the attribute column cannot be called {by!r}; rename it in the query table")
    name = query_table_view(con, query_table, columns=columns, keep=by)
    present = _column_names(con, name)
    for needed in ("query_id", by):
        if needed not in present:
            also = f" (also recognised: {', '.join(ALIASES[needed][1:])})" if needed in ALIASES else ""
            raise InputError(f"query_table has no column {needed!r}{also}; its columns: {', '.join(present)}")
    return name, by


def query_table_view(con: duckdb.DuckDBPyConnection, query_table, id_column: str = "query_id",
                     columns: Mapping[str, str | None] | None = None, keep: str | None = None) -> str:
    """The name of a table or view in ``con`` holding a query table (a path to CSV/TSV/Parquet, a
    DataFrame, a relation or a table name), its id column named ``id_column``: found under the
    readers' names for it (rankkit.names.ALIASES) or the caller's ``columns`` mapping, never the
    column ``keep`` (the attribute sliced by); ids read from files stay strings."""
    if is_frame(query_table):
        name = temp_name("query_table")
        con.register(name, query_table)
    elif duckdb.is_relation(query_table):
        name = temp_name("query_table")
        query_table.create_view(name, replace=True)
    elif isinstance(query_table, str) and is_table(con, query_table):
        name = str(query_table)
    elif isinstance(query_table, (str, Path)) and Path(query_table).exists():
        name = temp_name("query_table")
        path = path_literal(query_table)
        if str(query_table).endswith(".parquet"):
            reader = f"read_parquet({path})"
        else:  # ids are strings: "007" stays "007"
            key = _id_column(_column_names(con, f"read_csv({path})"), id_column, columns, keep)
            reader = f"read_csv({path}" + (f", types = {{{quote(key)}: 'VARCHAR'}})" if key else ")")
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM {reader}")
    else:
        raise InputError(f"query_table: expected a file path, a DataFrame, a DuckDB relation or a table name, "
                         f"got {query_table!r}")
    key = _id_column(_column_names(con, name), id_column, columns, keep)
    if key is None or key == id_column:
        return name
    renamed = temp_name("query_table")
    con.execute(f"CREATE OR REPLACE TEMP VIEW {renamed} AS SELECT * RENAME ({ident(key)} AS {ident(id_column)}) "
                f"FROM {name}")
    return renamed


def _column_names(con: duckdb.DuckDBPyConnection, source: str) -> list[str]:
    return [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()]


def _id_column(present: list[str], id_column: str, columns: Mapping[str, str | None] | None,
               keep: str | None) -> str | None:
    """The column of ``present`` that is the ``id_column``: itself, the one ``columns`` maps to it, or
    the one of its common names; None if none is (the caller says what is missing)."""
    by_lower = {name.lower(): name for name in present if name != keep}
    if id_column in by_lower:
        return by_lower[id_column]
    mapped = [by_lower[theirs.lower()] for theirs, ours in (columns or {}).items()
              if ours == id_column and theirs.lower() in by_lower]
    found = mapped or [by_lower[name] for name in ALIASES.get(id_column, ()) if name in by_lower]
    if len(found) > 1:
        raise InputError(f"query_table: columns {', '.join(found)} could each be the {id_column}; say which with "
                         f"columns={{{found[0]!r}: {id_column!r}}}")
    return found[0] if found else None
