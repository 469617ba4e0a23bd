"""Running rankkit's statements on a connection: an error raised in SQL becomes a RankkitError (or an
InputError) with the macros' message, as a Python caller writes arguments."""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator

from rankkit import _engine as duckdb

from rankkit.errors import InputError, RankkitError

if TYPE_CHECKING:  # pandas loads with the first frame: the command line's path never needs it
    import pandas as pd


def run_query(con: duckdb.DuckDBPyConnection, query: str, params: list, fetch: bool = True) -> pd.DataFrame | None:
    """Run a rankkit query; errors raised in SQL become RankkitError with their message."""
    with _errors():
        result = con.execute(query, params)
        return result.df() if fetch else None


def run_rows(con: duckdb.DuckDBPyConnection, query: str, params: list) -> list[dict]:
    """run_query's rows as dicts, without pandas."""
    with _errors():
        result = con.execute(query, params)
        names = [column[0] for column in result.description]
        return [dict(zip(names, row)) for row in result.fetchall()]


def run_numpy(con: duckdb.DuckDBPyConnection, query: str, params) -> dict:
    """run_query's columns as numpy arrays (no Python object per value)."""
    with _errors():
        return con.execute(query, params).fetchnumpy()


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    except duckdb.Error as error:
        message = sql_message(error)
        if "rankkit:" in str(error):
            raise RankkitError(message) from None
        raise InputError(message) from None


def sql_message(error: Exception) -> str:
    text = str(error)
    # to the end, newlines of an id or name included (else cut at one), short of a statement's LINE context
    found = re.search(r"rankkit: (.*?)(?:\n\nLINE \d+:|$)", text, re.DOTALL)
    if not found:
        return text.strip().splitlines()[0]
    # the macros' hints name arguments as SQL does (judges := [a, b]); a Python caller writes judges=[a, b]
    return re.sub(r"\b(\w+) := ", r"\1=", found.group(1).strip())
