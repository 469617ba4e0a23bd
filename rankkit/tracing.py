"""trace(): how one query's score was made, rank by rank, computed by the SQL macro rankkit.trace."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping

import duckdb

from rankkit._sql import connect
from rankkit.errors import RankkitError
from rankkit.inputs import checked_sources
from rankkit.io import Source, default_connection
from rankkit.measures import default  # the defaults are the SQL prelude's, declared once there
from rankkit.running import run_query

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["trace", "trace_sources", "TRACE_QUERY"]

TRACE_QUERY = ("FROM rankkit.trace(?, ?, ?::VARCHAR[], k := ?, gain := ?, rel := ?, ideal := ?, max := ?, "
               "empty := ?, ties := ?, scores := ?, depth := ?, gains := ?, denom := ?)")
# the same over checked sources, in rankkit's own columns: no column matched or checked again (a
# quarter less planning, most of the explorer's query selection)
LOADED_TRACE_QUERY = TRACE_QUERY.replace("rankkit.trace(", "rankkit.trace_loaded(")


def trace(qrels, run, query_id: str | Iterable[str], k: int | None = default("k"), *, gain: str = default("gain"),
          rel: float = default("rel"), ideal: str = default("ideal"), max: float = default("max"),
          empty: str = default("empty"), gains: str | None = default("gains"), denom: str = default("denom"),
          ties: str = "trec", scores: str = "double", depth: int | None = None,
          con: duckdb.DuckDBPyConnection | None = None, columns: Mapping[str, str | None] | None = None,
          duplicates: str = "error") -> pd.DataFrame:
    """One query's ranked list with the arithmetic of its scores: the table of DESIGN's worked examples.

    Parameters
    ----------
    qrels, run:
        As for :func:`rankkit.evaluate`: paths, DataFrames, relations or table names; ``run`` may be
        a list or dict of runs, each a ``system``.
    query_id:
        A query id, or a list of them.
    k:
        The cutoff: rows up to rank k (default: the whole list).
    gain, rel, ideal, max, empty, gains, denom:
        As in measure names (``nDCG(gain=exp)@10``, ``P(rel=2)@5``, ``nDCG(ideal=run)``,
        ``ERR(max=3)``, ``nDCG(empty=skip)``, ``nDCG(gains=[1=3,2=9])``, ``AP(denom=min)@10``).
    ties, scores, depth, columns, duplicates:
        As for :func:`rankkit.evaluate`.

    Returns
    -------
    pandas.DataFrame
        Per system and query, one row per rank: ``system, query_id, rank, doc_id, score, grade``
        (NaN when unjudged), ``relevant, gain, discount`` (``log2(rank+1)``), ``discounted_gain,
        cg, dcg`` (at cutoff rank), ``ideal_grade, ideal_gain, idcg`` (the ideal ordering at that
        rank, IDCG at cutoff rank), ``ndcg, precision, recall, ap, rr, err`` (at cutoff rank) and
        ``ap_contribution, rr_contribution, err_contribution`` (what the rank adds). The values at
        rank k are :func:`rankkit.evaluate`'s CG@k, DCG@k, IDCG@k, nDCG@k, P@k, R@k, AP@k, RR@k and
        ERR@k bit for bit: they are computed from the same definitions, and so are the gains and the
        ideal rows (each measure's header, ``trace:``, names the columns it shows). Where the run retrieved
        fewer than k documents, rows with no document go on to k. Then the judged documents of positive grade the run did not retrieve, ``rank``
        and ``gain`` missing (their gains are the ideal rows'). ``system`` is None for a run without one. Read the SQL behind it with
        ``rankkit macros``: ``FROM rankkit.trace('qrels', 'run', 'q1', k := 10)``.

    Examples
    --------
    DESIGN's first worked example: grades ``[3, 2, 3, 0, 1, 2]`` retrieved, two more judged
    documents of grades 3 and 2.

    >>> import pandas as pd, rankkit
    >>> run = pd.DataFrame({"query_id": "q1", "doc_id": list("abcdef"), "score": [6.0, 5, 4, 3, 2, 1]})
    >>> qrels = pd.DataFrame({"query_id": "q1", "doc_id": list("abcdefgh"), "relevance": [3, 2, 3, 0, 1, 2, 3, 2]})
    >>> t = rankkit.trace(qrels, run, "q1", k=6)
    >>> print(t[["rank", "doc_id", "grade", "dcg", "ideal_grade", "idcg", "ndcg"]].round(5).to_string(index=False))
     rank doc_id  grade     dcg  ideal_grade    idcg    ndcg
        1      a    3.0 3.00000          3.0 3.00000 1.00000
        2      b    2.0 4.26186          3.0 4.89279 0.87105
        3      c    3.0 5.76186          3.0 6.39279 0.90131
        4      d    0.0 5.76186          2.0 7.25414 0.79429
        5      e    1.0 6.14871          2.0 8.02785 0.76592
        6      f    2.0 6.86113          2.0 8.74026 0.78500
     <NA>      g    3.0     NaN          NaN     NaN     NaN
     <NA>      h    2.0     NaN          NaN     NaN     NaN
    """
    con = connect(con) if con is not None else default_connection()
    with checked_sources(con, qrels, run, columns, duplicates, None) as (qrels_source, run_source):
        return trace_sources(con, qrels_source, run_source, query_id, k, gain=gain, rel=rel, ideal=ideal, max=max,
                             empty=empty, gains=gains, denom=denom, ties=ties, scores=scores, depth=depth)


def trace_sources(con: duckdb.DuckDBPyConnection, qrels: Source | str, run: Source | str,
                  query_id: str | Iterable[str], k: int | None = default("k"), *, gain: str = default("gain"),
                  rel: float = default("rel"), ideal: str = default("ideal"), max: float = default("max"),
                  empty: str = default("empty"), gains: str | None = default("gains"), denom: str = default("denom"),
                  ties: str = "trec", scores: str = "double", depth: int | None = None) -> pd.DataFrame:
    """trace() over checked sources (or table names) already in ``con``: the explorer's path, which
    reads its inputs once. A query no system retrieved is an error naming it."""
    ids = _ids(query_id)
    qrels_table = qrels.table if isinstance(qrels, Source) else qrels
    run_table = run.engine if isinstance(run, Source) else run
    loaded = isinstance(qrels, Source) and isinstance(run, Source)
    frame = run_query(con, LOADED_TRACE_QUERY if loaded else TRACE_QUERY,
                      [qrels_table, run_table, ids, k, gain, rel, ideal, max, empty, ties, scores, depth, gains, denom])
    missing = [q for q in ids if q not in set(frame["query_id"])]
    if missing:
        judged = con.execute(f"SELECT count(*) FROM rankkit.qrels_rows(?) WHERE query_id = ?",
                             [qrels_table, missing[0]]).fetchall()[0][0]
        documents = f"{judged} document{'s' if judged != 1 else ''}"
        where = f"judged ({documents}) but not" if judged else "neither judged nor"
        raise RankkitError(f"query {missing[0]!r} is {where} retrieved by the run: there is nothing to trace")
    return frame


def _ids(query_id) -> list[str]:
    ids = [query_id] if isinstance(query_id, (str, int)) else list(query_id)
    if not ids:
        raise RankkitError("query_id is empty: give a query id or a list of them")
    for value in ids:
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            raise RankkitError(f"a query id must be a string, got {value!r}")
    return [str(value) for value in ids]
