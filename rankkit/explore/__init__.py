"""rankkit.explore: the notebook explorer (ipywidgets and matplotlib), also served by ``rankkit explore``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import duckdb

from rankkit.explore.data import ExplorerData

if TYPE_CHECKING:
    from rankkit.explore.widget import Explorer

__all__ = ["explore", "Explorer", "ExplorerModel"]


def __getattr__(name: str):
    # the widget imports ipywidgets, the model does not: importing rankkit.explore.model (headless,
    # in a test or a script) must not pull in the views
    if name == "Explorer":
        from rankkit.explore.widget import Explorer
        return Explorer
    if name == "ExplorerModel":
        from rankkit.explore.model import ExplorerModel
        return ExplorerModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def explore(qrels, runs, measures: str | Iterable[str] | None = None, *, queries=None, docs=None,
            con: duckdb.DuckDBPyConnection | None = None, ties: str = "trec", scores: str = "double",
            depth: int | None = None, split_by_tag: bool = False, second_qrels=None) -> Explorer:
    """An ipywidgets explorer of per-query values, system against system, and one query's trace.

    Parameters
    ----------
    qrels, runs:
        As for :func:`rankkit.evaluate`: paths, DataFrames, relations or table names; ``runs`` a
        list or dict of runs, or one run (a table whose ``system`` column holds several systems,
        or a single run, named by its file stem).
    measures:
        The measures offered, the first shown (default: every registered measure with numeric values, nDCG@10 shown).
        A name means what evaluate reads in it: choosing ``AP`` shows AP over the whole list, ``AP@10``
        sets the cutoff to 10 (and ``nDCG(gain=exp)`` the gain), whatever the controls held before.
    queries:
        Optional table (DataFrame, relation, CSV/TSV/Parquet path or table name) with ``query_id``
        and ``text`` and/or attribute columns; attributes become the "split by" control.
    docs:
        Optional table with ``doc_id`` and ``text`` (or ``title``), shown in the drill-down.
    con:
        A DuckDB connection to work in (default: a new one, kept by the explorer).
    ties, scores, depth, split_by_tag:
        As for :func:`rankkit.evaluate` (``split_by_tag=True``: each tag of a TREC run file is a system).
    second_qrels:
        A second judgment table (B), read as ``qrels`` is (A): the summary and the query table give
        each system's values under both, the distribution puts them side by side, and a query's
        drill-down shows each system's ranks with both labels, both gains and the measure under
        each, the documents the two tables label differently tinted and marked ``≠`` (see
        :func:`rankkit.agreement` for how far the labels agree overall).

    Returns
    -------
    Explorer
        A widget: display it as a cell's value. Its traits (``measure``, ``k``, ``gain``, ``rel``,
        ``systems``, ``baseline``, ``query``, ``by``; read-only ``per_query`` and ``trace``) are
        the API: ``ex.query = "q7"`` opens the drill-down and ``ex.trace`` holds its table (with
        ``second_qrels``, ``second_per_query``, ``second_trace`` and ``labels`` too).
    """
    names = [measures] if isinstance(measures, str) else list(measures) if measures is not None else None
    data = ExplorerData(qrels, runs, queries=queries, docs=docs, con=con, ties=ties, scores=scores, depth=depth,
                        split_by_tag=split_by_tag, second_qrels=second_qrels)
    from rankkit.explore.widget import Explorer

    return Explorer(data, names)
