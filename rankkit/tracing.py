"""trace(): how one query's score was made, rank by rank, computed by the SQL macro rankkit.trace."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Iterable, Mapping

import duckdb

from rankkit._sql import connect
from rankkit.errors import RankkitError
from rankkit.inputs import checked_sources
from rankkit.io import Source, default_connection
from rankkit.measures import default, params  # each parameter is declared once, in the SQL
from rankkit.running import run_query
from rankkit.trace_fields import trace_params

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["trace", "trace_sources", "trace_query"]

# A parameter's declared SQL type as the Python signature writes it
PYTHON_TYPES = {"BIGINT": "int", "INTEGER": "int", "DOUBLE": "float", "VARCHAR": "str"}


def trace_query(loaded: bool = False) -> str:
    """The call of the trace macro, each option a placeholder: the traced measures' parameters (the
    cutoff first), then ties, scores and depth. ``loaded``: over checked sources in rankkit's own
    columns (rankkit.trace_loaded: no column matched or checked again)."""
    macro = "rankkit.trace_loaded" if loaded else "rankkit.trace"
    options = "".join(f", {name} := ?" for name in trace_params())
    return f"FROM {macro}(?, ?, ?::VARCHAR[]{options}, ties := ?, scores := ?, depth := ?)"


def checked_options(given: Mapping, function: str) -> dict:
    """The trace's options but the cutoff, in trace_params' order: each as ``given``, else its declared
    default. A keyword that is no traced measure's parameter is refused as Python refuses one."""
    taken = [name for name in trace_params() if name != "k"]
    unknown = [name for name in given if name not in taken]
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}; the traced measures' "
                        f"parameters are {', '.join(taken)}")
    return {name: given.get(name, default(name)) for name in taken}


def with_options(function):
    """``function`` (ending in ``**options``) with the signature and docstring it takes: each traced
    measure's parameter but the cutoff, keyword-only, with its declared default and type, before the
    function's own keyword-only parameters; its docstring's ``{options}`` line lists them with their
    declared words. help(), inspect and the docs read them from the declarations, as the call does."""
    signature = inspect.signature(function)
    own = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    at = next((n for n, p in enumerate(own) if p.kind is p.KEYWORD_ONLY), len(own))
    declared = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default(name),
                                  annotation=_annotation(name)) for name in trace_params() if name != "k"]
    function.__signature__ = signature.replace(parameters=own[:at] + declared + own[at:])
    if function.__doc__:
        listed = "\n".join(f"    {name}: {_annotation(name)}, default {default(name)!r}\n        {params()[name].description}"
                           for name in trace_params() if name != "k")
        function.__doc__ = function.__doc__.replace("    {options}", listed)
    return function


def _annotation(name: str) -> str:
    python = PYTHON_TYPES.get(params()[name].type, "object")
    return python if default(name) is not None else f"{python} | None"


def trace(qrels, run, query_id: str | Iterable[str], k: int | None = default("k"), *, ties: str = "trec",
          scores: str = "double", depth: int | None = None, con: duckdb.DuckDBPyConnection | None = None,
          columns: Mapping[str, str | None] | None = None, duplicates: str = "error", **options) -> pd.DataFrame:
    """One query's ranked list with the arithmetic of its scores: the table of DESIGN's worked examples.

    Parameters
    ----------
    qrels, run:
        As for :func:`rankkit.evaluate`: paths, DataFrames, relations or table names; ``run`` may be
        a list or dict of runs, each a ``system``.
    query_id:
        A query id, or a list of them.
    k:
        The cutoff: rows up to rank k (default: the whole list). The options after it, up to ``ties``,
        are the parameters of the measures the trace shows, as in their names (``nDCG(gain=exp)@10``,
        ``P(rel=2)@5``), listed here from their declarations.
    {options}
    ties, scores, depth, columns, duplicates:
        As for :func:`rankkit.evaluate`.

    Returns
    -------
    pandas.DataFrame
        Per system and query, one row per rank: ``system, query_id, rank, doc_id, score, grade``
        (NaN when unjudged), ``relevant, gain, discount`` (``log2(rank+1)``; ``discount="original"``:
        ``log2(max(rank, 2))``), ``discounted_gain, cg, dcg`` (at cutoff rank), ``ideal_grade,
        ideal_gain, idcg`` (the ideal ordering at that rank, IDCG at cutoff rank), ``ndcg, precision,
        recall, ap, rr, err`` (at cutoff rank) and
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
    values = checked_options(options, "trace")
    con = connect(con) if con is not None else default_connection()
    with checked_sources(con, qrels, run, columns, duplicates, None) as (qrels_source, run_source):
        return trace_sources(con, qrels_source, run_source, query_id, k, ties=ties, scores=scores, depth=depth,
                             **values)


def trace_sources(con: duckdb.DuckDBPyConnection, qrels: Source | str, run: Source | str,
                  query_id: str | Iterable[str], k: int | None = default("k"), *, ties: str = "trec",
                  scores: str = "double", depth: int | None = None, **options) -> pd.DataFrame:
    """trace() over checked sources (or table names) already in ``con``: the explorer's path, which
    reads its inputs once. A query no system retrieved is an error naming it."""
    values = checked_options(options, "trace_sources")
    ids = _ids(query_id)
    qrels_table = qrels.table if isinstance(qrels, Source) else qrels
    run_table = run.engine if isinstance(run, Source) else run
    loaded = isinstance(qrels, Source) and isinstance(run, Source)
    frame = run_query(con, trace_query(loaded), [qrels_table, run_table, ids, k, *values.values(), ties, scores, depth])
    missing = [q for q in ids if q not in set(frame["query_id"])]
    if missing:
        judged = con.execute("SELECT count(*) FROM rankkit.qrels_rows(?) WHERE query_id = ?",
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


trace = with_options(trace)
trace_sources = with_options(trace_sources)
