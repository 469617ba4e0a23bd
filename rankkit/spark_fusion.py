"""Fusion on Spark (``rankkit.fuse(..., engine="spark")``, ``rankkit fuse --engine spark``): the runs read by
Spark (rankkit.spark_read) and fused by one Spark SQL statement whose scores are sql/80_fusion.sql's own
definitions, ``rankkit.fusion_x`` (the normalisations) and ``rankkit.fused_score`` (the methods),
translated by rankkit.spark_sql. What is Spark's own is the plumbing around them, as
rankkit.spark_dialect's for the measures: each system's ranks (rankkit.ranked's tie rule), its scores'
statistics per query, the rows checked (a document twice, a row without a score: the statement fails
naming them, in rankkit.fusion_inputs' words) and each document's rows grouped.

Borda and Condorcet are refused by name: what they give the documents a system does not rank (Borda's
points, Condorcet's pairwise duels) is defined by table macros (rankkit.fusion_normalised's unranked
rows, rankkit.condorcet_scores), which the Spark dialect does not translate.
"""

from __future__ import annotations

from typing import Mapping

from rankkit.dialect import DUCKDB
from rankkit.errors import RankkitError
from rankkit.spark_sql import _string, to_spark

__all__ = ["refuse_untranslated", "read", "statement"]

# the methods and the normalisation defined by table macros (see above)
UNTRANSLATED = {"borda": "its points for the documents a system does not rank (rankkit.fusion_normalised's "
                         "unranked rows)",
                "condorcet": "its pairwise duels (rankkit.condorcet_scores)"}


def refuse_untranslated(method: str, norm: str) -> None:
    """Borda, Condorcet and the Borda norm, by name, saying why; ``method`` and ``norm`` as
    rankkit.fusion_method and rankkit.fusion_norm name them."""
    which = method if method in UNTRANSLATED else "borda" if norm == "borda" else None
    if which is not None:
        what = f"the {which} norm" if which != method else method
        raise RankkitError(f"Spark: {what} is fused on DuckDB only: {UNTRANSLATED[which]} is a table macro of "
                           "sql/80_fusion.sql, which the Spark dialect does not translate; fuse without --engine "
                           "spark (rrf, isr, combsum, combmnz, combmax, combmin, combmed, combanz, wsum and wmnz "
                           "run on Spark)")


def read(spark, runs, columns=None, split_by_tag: bool = False):
    """The runs (files, Spark DataFrames, a list or a {name: run} dict of them) read by Spark as
    rankkit.spark_read reads a run, as one frame whose ``system`` names each."""
    from rankkit.spark_read import read_runs

    return read_runs(spark, runs, columns, split_by_tag)


def statement(run: str, *, method: str, k: float, norm: str, weights: Mapping[str, float] | None,
              depth: int | None, system: str, label: str) -> str:
    """One Spark SQL statement fusing the rows of the table or view ``run`` (rankkit's columns system,
    query_id, doc_id, score): ``system, query_id, doc_id, score``, in no order (a sort is a Spark job of
    its own; the file written is sorted).
    ``method`` and ``norm`` as rankkit.fusion_method and rankkit.fusion_norm name them; ``system`` the
    fused run's name (rankkit.fusion_name's); ``label`` how messages name the runs."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise RankkitError(f"depth must be a positive integer, got {depth!r}")
    weight = ("CASE system " + " ".join(f"WHEN {_string(str(s))} THEN {to_spark(DUCKDB.literal(w, 'DOUBLE'))}"
                                         for s, w in weights.items()) + " ELSE 1.0E0 END") if weights else "1.0E0"
    x = to_spark(f"rankkit.fusion_x({DUCKDB.literal(norm, 'VARCHAR')}, score, rank, n, lo, hi, total, mean, "
                 "sd_pop, sd, NULL)")
    score = to_spark(f"rankkit.fused_score({DUCKDB.literal(method, 'VARCHAR')}, {DUCKDB.literal(float(k), 'DOUBLE')}, "
                     "weight, rank, x, NULL)")
    said = _string(f"rankkit: {label}: ")
    problems = (f"SELECT concat({said}, 'system ', system, ' lists document ', doc_id, ' twice for query ', query_id, "
                "'; a document is ranked once per query') AS problem FROM rankkit_rows GROUP BY system, query_id, doc_id "
                "HAVING count(*) > 1 UNION ALL "
                f"SELECT concat({said}, 'system ', system, ' has ', CAST(count(*) AS STRING), ' rows without a score') AS problem "
                "FROM rankkit_rows WHERE score IS NULL GROUP BY system")
    window = "PARTITION BY system, query_id"
    return (
        "WITH rankkit_rows AS (SELECT CAST(system AS STRING) AS system, CAST(query_id AS STRING) AS query_id, "
        f"CAST(doc_id AS STRING) AS doc_id, CAST(score AS DOUBLE) AS score FROM {run}), "
        f"rankkit_problem AS (SELECT min(problem) AS problem FROM ({problems})), "
        # rankkit.ranked's order: score descending, then doc_id descending (byte-wise in both engines)
        "rankkit_ranked AS (SELECT system, query_id, doc_id, score, "
        f"row_number() OVER ({window} ORDER BY score DESC NULLS LAST, doc_id DESC NULLS LAST) AS rank, {weight} AS weight "
        "FROM rankkit_rows, rankkit_problem "
        "WHERE CASE WHEN problem IS NULL THEN true ELSE raise_error(problem) END), "
        "rankkit_inputs AS (SELECT * FROM rankkit_ranked"
        f"{'' if depth is None else f' WHERE rank <= {int(depth)}'}), "
        "rankkit_stats AS (SELECT *, count(*) OVER w AS n, min(score) OVER w AS lo, max(score) OVER w AS hi, "
        "sum(score) OVER w AS total, avg(score) OVER w AS mean, stddev_pop(score) OVER w AS sd_pop, "
        f"stddev_samp(score) OVER w AS sd FROM rankkit_inputs WINDOW w AS ({window})), "
        f"rankkit_normalised AS (SELECT query_id, doc_id, rank, weight, {x} AS x FROM rankkit_stats) "
        f"SELECT {_string(system)} AS system, query_id, doc_id, {score} AS score FROM rankkit_normalised "
        "GROUP BY query_id, doc_id")
