"""evaluate(): measure names in, pandas frames out; every number is computed by the SQL macros."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Iterable

import duckdb
import pandas as pd

from rankkit._sql import connect
from rankkit.errors import InputError, MeasureError, RankkitError
from rankkit.io import default_connection, read_qrels, read_run

__all__ = ["evaluate", "measure_specs", "resolve"]

_views = itertools.count(1)


def evaluate(qrels, run, measures: str | Iterable[str], per_query: bool = False, *,
             con: duckdb.DuckDBPyConnection | None = None, rel: float = 1, ties: str = "trec",
             scores: str = "double", depth: int | None = None, queries: str = "both") -> pd.DataFrame:
    """Evaluate a run (or several systems in one run table) against qrels.

    Parameters
    ----------
    qrels, run:
        A TREC text file path (plain or gzip), a pandas DataFrame, a DuckDB relation, or the name
        of a table or view in ``con``. Qrels columns: ``query_id, doc_id, relevance``; run columns:
        ``query_id, doc_id, score`` and optionally ``system`` and ``rank``.
    measures:
        Names such as ``"nDCG@10"``, ``"AP"``, ``"P(rel=2)@5"`` or trec_eval's ``"ndcg_cut_10"``.
    per_query:
        One row per query instead of the aggregate.
    rel, ties, scores, depth, queries:
        The relevance level for measures that do not set their own (trec_eval ``-l``), the tie
        rule (``trec``, ``rank``, or ``average`` for the gain-based measures), score precision (``double`` or ``float32``), documents kept
        per query (trec_eval ``-M``), and the query set (``both`` or ``qrels``, trec_eval ``-c``).

    Returns
    -------
    pandas.DataFrame
        Aggregate: ``measure, [system,] value, queries``; per query: ``measure, [system,]
        query_id, value``. ``system`` is there when the run holds more than one system.

    Examples
    --------
    >>> import pandas as pd, rankkit
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    >>> rankkit.evaluate(qrels, run, ["RR", "P@2"])[["measure", "value"]].to_dict("records")
    [{'measure': 'RR', 'value': 0.5}, {'measure': 'P@2', 'value': 0.5}]
    """
    con = connect(con) if con is not None else default_connection()
    specs = measure_specs(con, measures, rel=rel)
    qrels_name, qrels_checked = resolve(con, qrels, "qrels")
    run_name, run_checked = resolve(con, run, "run")
    macro = "per_query" if per_query else "aggregate"
    query = (
        f"SELECT * FROM rankkit.{macro}(?, ?, ?::STRUCT(i INTEGER, measure VARCHAR, metric VARCHAR, k BIGINT, "
        f"rel DOUBLE, gain VARCHAR, ideal VARCHAR, empty VARCHAR, max DOUBLE, agg VARCHAR)[], ties := ?, "
        f"scores := ?, depth := ?, queries := ?, validate := ?)"
    )
    params = [qrels_name, run_name, specs, ties, scores, depth, queries, not (qrels_checked and run_checked)]
    frame = _run(con, query, params)
    if per_query:
        frame = frame.sort_values(["i", "system", "query_id"], kind="stable").drop(columns=["i", "agg"])
    if frame["system"].nunique(dropna=False) <= 1:
        frame = frame.drop(columns=["system"])
    return frame.reset_index(drop=True)


def measure_specs(con: duckdb.DuckDBPyConnection, measures: str | Iterable[str], rel: float = 1) -> list[dict]:
    """Parse measure names with the SQL parser; a bad name raises MeasureError."""
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        raise MeasureError("no measure given; name at least one, such as nDCG@10 or AP")
    for name in names:
        if not isinstance(name, str):
            raise MeasureError(f"a measure name must be a string, got {name!r}")
    try:
        rows = con.execute("SELECT spec FROM rankkit.measure_specs(?::VARCHAR[], rel := ?)", [names, rel]).fetchall()
    except duckdb.Error as error:
        raise MeasureError(_message(error)) from None
    return [row[0] for row in rows]


def resolve(con: duckdb.DuckDBPyConnection, source, kind: str) -> tuple[str, bool]:
    """The name of a table or view in ``con`` holding ``source``, and whether rankkit checked it."""
    if isinstance(source, pd.DataFrame):
        name = f"rankkit_{kind}_frame_{next(_views)}"
        con.register(name, source)
        return name, False
    if isinstance(source, duckdb.DuckDBPyRelation):
        name = f"rankkit_{kind}_relation_{next(_views)}"
        source.create_view(name, replace=True)
        return name, source.alias.startswith(f"rankkit_{kind}_")
    if isinstance(source, (str, Path)):
        text = str(source)
        if isinstance(source, str) and _is_table(con, text):
            return text, False
        reader = read_qrels if kind == "qrels" else read_run
        relation = reader(text, con=con)
        return relation.alias, True
    raise InputError(
        f"{kind}: expected a file path, a pandas DataFrame, a DuckDB relation or a table name, "
        f"got {type(source).__name__}"
    )


def _is_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    if Path(name).exists() or not re.fullmatch(r"[A-Za-z_][\w.]*", name):
        return False
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = ? UNION ALL "
        "SELECT count(*) FROM duckdb_views() WHERE view_name = ?", [name.split(".")[-1]] * 2
    ).fetchall()
    return sum(row[0] for row in found) > 0


def _run(con: duckdb.DuckDBPyConnection, query: str, params: list) -> pd.DataFrame:
    try:
        return con.execute(query, params).df()
    except duckdb.Error as error:
        message = _message(error)
        if "rankkit:" in str(error):
            raise RankkitError(message) from None
        raise InputError(message) from None


def _message(error: Exception) -> str:
    text = str(error)
    found = re.search(r"rankkit: (.*)", text)
    return found.group(1).strip() if found else text.strip().splitlines()[0]
