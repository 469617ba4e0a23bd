"""One story everywhere (issue 20): a mistake in the inputs is told the same way by Python
(rankkit.evaluate) and by SQL (rankkit.evaluate the macro), as tests/test_consistency.py holds them
to the same numbers. Each mistake is made once and given to both."""

from __future__ import annotations

import re

import duckdb
import pytest

import rankkit
from rankkit import _sql

QRELS = {"query_id": "'q1', 'q1', 'q2'", "doc_id": "'a', 'b', 'c'", "relevance": "2, 0, 1"}
RUN = {"query_id": "'q1', 'q1', 'q2'", "doc_id": "'a', 'b', 'c'", "score": "0.5, 0.25, 1.0"}


def table(con, name: str, columns: dict[str, str], renamed: dict[str, str]) -> None:
    """A table of these columns (values listed per column), some under another name."""
    names = [renamed.get(c, c) for c in columns]
    values = zip(*(v.split(", ") for v in columns.values()))
    rows = ", ".join("(" + ", ".join(row) + ")" for row in values)
    con.execute(f"CREATE TABLE {name} AS SELECT * FROM (VALUES {rows}) t({', '.join(names)})")


def both(con, measures=("AP",)) -> tuple[str, str]:
    """The message of Python's evaluate and of the SQL macro, on the tables qrels and run."""
    with pytest.raises(rankkit.InputError) as python:
        rankkit.evaluate("qrels", "run", list(measures), con=con)
    with pytest.raises(duckdb.Error) as sql:
        con.execute(f"FROM rankkit.evaluate('qrels', 'run', {list(measures)})").fetchall()
    return str(python.value), str(sql.value)


def missing_column(message: str) -> str:
    """What a message says about a missing column: which, the names recognised, the table's columns."""
    found = re.search(r"missing column \w+ \(also recognised: [^)]*\); columns are [^;]*", message)
    assert found, message
    return found.group(0)


@pytest.mark.parametrize("kind, column, name", [
    ("run", "query_id", "topic_number"),
    ("run", "score", "retrieval_score"),
    ("run", "doc_id", "document_number"),
    ("qrels", "relevance", "relevance_level"),
    ("qrels", "query_id", "topic_number"),
])
def test_a_missing_column_is_told_alike(kind, column, name):
    con = _sql.connect()
    table(con, "qrels", QRELS, {column: name} if kind == "qrels" else {})
    table(con, "run", RUN, {column: name} if kind == "run" else {})
    python, sql = both(con)
    assert missing_column(python) == missing_column(sql)
    assert missing_column(sql).startswith(f"missing column {column} (also recognised: ")
    assert f"table {kind}" in python and f"{kind} table {kind}" in sql


@pytest.mark.parametrize("missing", ["qrels", "run"])
def test_a_missing_table_is_told_alike(missing):
    """Both name the table and say it is not there (DuckDB words SQL's: a macro cannot catch it)."""
    con = _sql.connect()
    if missing != "qrels":
        table(con, "qrels", QRELS, {})
    if missing != "run":
        table(con, "run", RUN, {})
    python, sql = both(con)
    assert python.startswith(f"{missing}: no such file, and no table or view of that name")
    assert f"Table with name {missing} does not exist" in sql


def test_one_measure_name_is_read_alike():
    con = _sql.connect()
    table(con, "qrels", QRELS, {})
    table(con, "run", RUN, {})
    python = rankkit.evaluate("qrels", "run", "nDCG@10", con=con)
    sql = con.execute("SELECT measure, value FROM rankkit.evaluate('qrels', 'run', 'nDCG@10')").fetchall()
    assert sql == [(r.measure, pytest.approx(r.value, abs=1e-12)) for r in python.itertuples()]


def two_names(message: str) -> str:
    """What a message says about a column found under two names."""
    found = re.search(r"columns [\w, ]+ could each be the \w+", message)
    assert found, message
    return found.group(0)


@pytest.mark.parametrize("kind, extra, column", [
    ("run", "query", "query_id"),     # the query's text beside its id under another name
    ("run", "runid", "system"),
    ("qrels", "label", "relevance"),
])
def test_a_column_under_two_names_is_told_alike(kind, extra, column):
    con = _sql.connect()
    other = {"query_id": "topic", "system": "tag", "relevance": "grade"}[column]
    base = {**(QRELS if kind == "qrels" else RUN)}
    if column == "system":
        base["system"] = "'bm25', 'bm25', 'bm25'"
    renamed = {column: other}
    with_extra = {**base, extra: "'x', 'y', 'z'" if column != "relevance" else "1, 1, 1"}
    table(con, "qrels", with_extra if kind == "qrels" else QRELS, renamed if kind == "qrels" else {})
    table(con, "run", with_extra if kind == "run" else RUN, renamed if kind == "run" else {})
    python, sql = both(con)
    assert two_names(python) == two_names(sql)
    assert two_names(sql).endswith(f"could each be the {column}")
