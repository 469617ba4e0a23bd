"""evaluate(): measure names in, pandas frames out; every number is computed by the SQL macros."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Iterable

import duckdb
import numpy as np
import pandas as pd

from rankkit._sql import connect
from rankkit.errors import InputError, MeasureError, RankkitError
from rankkit.io import default_connection, read_qrels, read_run

__all__ = ["evaluate", "measure_specs", "resolve", "run_query", "slice_source", "macro_query"]

_views = itertools.count(1)


SPEC_TYPE = ("STRUCT(i INTEGER, measure VARCHAR, metric VARCHAR, k BIGINT, rel DOUBLE, gain VARCHAR, "
             "ideal VARCHAR, empty VARCHAR, max DOUBLE, agg VARCHAR)")
# result columns an attribute column (by=) must not shadow
RESERVED = ("measure", "system", "query_id", "value", "queries", "ci_low", "ci_high")


def evaluate(qrels, run, measures: str | Iterable[str], per_query: bool = False, *,
             con: duckdb.DuckDBPyConnection | None = None, rel: float = 1, ties: str = "trec",
             scores: str = "double", depth: int | None = None, queries: str = "both",
             by: str | None = None, query_table=None, ci: float | None = None, seed: int | None = 0,
             resamples: int = 10000) -> pd.DataFrame:
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
        rule (``trec``, ``rank``, or ``average``: the expected value over the orderings of tied
        scores, for CG, DCG, IDCG and nDCG), score precision (``double`` or ``float32``),
        documents kept per query (trec_eval ``-M``), and the query set (``both`` or ``qrels``,
        trec_eval ``-c``).
    by, query_table:
        Slices: ``query_table`` (a path to CSV/TSV/Parquet, a DataFrame, a relation or a table
        name) has a ``query_id`` column and attribute columns; the aggregate is computed (in SQL)
        per value of the attribute named ``by``, in a column of that name. Queries missing from
        the query table, or with no value, form the slice NaN.
    ci, seed, resamples:
        With ``ci=0.95``, add ``ci_low, ci_high`` to the aggregate: a percentile bootstrap
        interval over queries, ``resamples`` draws from ``numpy.random.default_rng(seed)``.

    Returns
    -------
    pandas.DataFrame
        Aggregate: ``measure, [system,] [by,] value, queries [, ci_low, ci_high]``; per query:
        ``measure, [system,] [by,] query_id, value``. ``system`` is there when the run holds
        more than one system.

    Examples
    --------
    >>> import pandas as pd, rankkit
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    >>> rankkit.evaluate(qrels, run, ["RR", "P@2"])[["measure", "value"]].to_dict("records")
    [{'measure': 'RR', 'value': 0.5}, {'measure': 'P@2', 'value': 0.5}]
    """
    if per_query and ci is not None:
        raise RankkitError("ci is an interval over queries: it applies to the aggregate, not to per_query")
    con = connect(con) if con is not None else default_connection()
    specs = measure_specs(con, measures, rel=rel)
    qrels_name, qrels_checked = resolve(con, qrels, "qrels")
    run_name, run_checked = resolve(con, run, "run")
    slices = slice_source(con, query_table, by) if by is not None or query_table is not None else None
    inputs = [qrels_name, run_name, specs, *(slices or ()), ties, scores, depth, queries,
              not (qrels_checked and run_checked)]
    frame = run_query(con, macro_query("per_query" if per_query else "aggregate", slices), inputs)
    if per_query:
        frame = frame.sort_values(["i", "system", "query_id"], kind="stable").drop(columns=["i", "agg"])
    elif ci is not None:
        values = run_query(con, macro_query("per_query", slices), inputs)
        frame = _with_ci(frame, values, ci, seed, resamples)
    if frame["system"].nunique(dropna=False) <= 1:
        frame = frame.drop(columns=["system"])
    if slices:
        frame = frame.rename(columns={"slice": by})
    return frame.reset_index(drop=True)


def macro_query(macro: str, slices: tuple[str, str] | None) -> str:
    """SQL calling rankkit.<macro> (or its _by form with slices); parameters as evaluate passes them."""
    by = ", ?, ?" if slices else ""
    return (f"SELECT * FROM rankkit.{macro}{'_by' if slices else ''}(?, ?, ?::{SPEC_TYPE}[]{by}, ties := ?, "
            f"scores := ?, depth := ?, queries := ?, validate := ?)")


def _with_ci(frame: pd.DataFrame, values: pd.DataFrame, level: float, seed: int | None,
             resamples: int) -> pd.DataFrame:
    """The aggregate with a bootstrap interval over its queries (the sum's for counts)."""
    from rankkit.stats import bootstrap_ci

    if not 0 < level < 1:
        raise RankkitError(f"ci must be a confidence level between 0 and 1, such as 0.95, got {level!r}")
    keys = ["measure", "system"] + (["slice"] if "slice" in values.columns else [])
    # queries in a fixed order: the same seed must draw the same queries whatever order SQL returned
    values = values.drop_duplicates(keys + ["query_id"]).sort_values(keys + ["query_id"], kind="stable")
    rows = []
    for key, group in values.groupby(keys, sort=False, dropna=False):
        statistic = np.sum if group["agg"].iloc[0] == "sum" else np.mean
        low, high = bootstrap_ci(group["value"].dropna(), statistic, level, seed, resamples)
        rows.append({**dict(zip(keys, key)), "ci_low": low, "ci_high": high})
    return frame.merge(pd.DataFrame(rows, columns=keys + ["ci_low", "ci_high"]), on=keys, how="left")


def slice_source(con: duckdb.DuckDBPyConnection, query_table, by: str | None) -> tuple[str, str]:
    """The table holding the query attributes and the attribute's column, checked."""
    if query_table is None or not isinstance(by, str):
        raise InputError("slices need both query_table (query_id plus attribute columns) and by (a column name)")
    if by in RESERVED:
        raise InputError(f"by: the attribute column cannot be called {by!r}; rename it in the query table")
    if isinstance(query_table, pd.DataFrame):
        name = f"rankkit_query_table_{next(_views)}"
        con.register(name, query_table)
    elif isinstance(query_table, duckdb.DuckDBPyRelation):
        name = f"rankkit_query_table_{next(_views)}"
        query_table.create_view(name, replace=True)
    elif isinstance(query_table, (str, Path)) and _is_table(con, str(query_table)):
        name = str(query_table)
    elif isinstance(query_table, (str, Path)) and Path(query_table).exists():
        name = f"rankkit_query_table_{next(_views)}"
        path = "'" + str(query_table).replace("'", "''") + "'"
        # ids are strings: "007" stays "007"
        reader = (f"read_parquet({path})" if str(query_table).endswith(".parquet")
                  else f"read_csv({path}, types = {{'query_id': 'VARCHAR'}})")
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM {reader}")
    else:
        raise InputError(f"query_table: expected a file path, a DataFrame, a DuckDB relation or a table name, "
                         f"got {query_table!r}")
    columns = [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {name}").fetchall()]
    for needed in ("query_id", by):
        if needed not in columns:
            raise InputError(f"query_table has no column {needed!r}; its columns: {', '.join(columns)}")
    return name, by


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


def run_query(con: duckdb.DuckDBPyConnection, query: str, params: list) -> pd.DataFrame:
    """Run a rankkit query; errors raised in SQL become RankkitError with their message."""
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
