"""One lean statement for the measures asked: the composer's entry. :mod:`rankkit.plan` plans the
columns the specs need and writes the statement; this module keeps the texts written, since a loop,
a sweep or the explorer asks for the same measures again and again."""

from __future__ import annotations

from typing import Iterable, Mapping

from rankkit.dialect import DUCKDB, DuckDB
from rankkit.plan import plan

__all__ = ["compose", "query_side"]


def compose(specs: Iterable[Mapping], *, qrels: str, ranks: str, ties: str = "trec", queries: str = "both",
            dialect: DuckDB = DUCKDB, kept: str | None = None, subtopics: str | None = None,
            subtopic_ranks: str | None = None) -> str:
    """One statement computing ``specs``' per-query values: i, measure, agg, system, query_id, value.

    ``qrels`` is the SQL naming the qrels table for rankkit.qrels_rows (``'my_qrels'`` or ``$qrels``),
    ``ranks`` a table or CTE in the columns of rankkit.ranks (made with the same ties, depth and
    judged_only); ``ties`` and ``queries`` are rankkit.per_query's conventions. ``kept``: a table or
    CTE holding query_side's rows for the same specs and qrels, read instead of computing them. The
    diversity measures read ``subtopics`` (SQL naming the subtopic judgments for rankkit.subtopic_rows)
    and ``subtopic_ranks`` (a table or CTE in rankkit.subtopic_ranks' columns); without them they are
    refused."""
    return _kept_text("statement", specs, (qrels, ranks, kept, subtopics, subtopic_ranks), ties, queries, dialect,
                      lambda planned: planned.statement(qrels, ranks, kept=kept, subtopics=subtopics,
                                                        subtopic_ranks=subtopic_ranks))


def query_side(specs: Iterable[Mapping], *, qrels: str, ties: str = "trec", queries: str = "both",
               dialect: DuckDB = DUCKDB) -> str:
    """The statement of what compose's statement computes once per query of the qrels (Plan.query_side)."""
    return _kept_text("query side", specs, (qrels,), ties, queries, dialect,
                      lambda planned: planned.query_side(qrels))


def _kept_text(what: str, specs: Iterable[Mapping], tables: tuple, ties: str, queries: str, dialect: DuckDB,
               write) -> str:
    # a loop, a sweep or the explorer asks for the same measures again and again: planning them again
    # was a cost of each small evaluation. The key is all the text is made from (the specs' repr: a spec
    # holds numbers, words, None and lists of them).
    specs = list(specs)
    key = (what, repr(specs), tables, ties, queries, dialect)
    found = _composed.get(key)
    if found is None:
        if len(_composed) >= COMPOSED:
            _composed.clear()
        found = _composed[key] = write(plan(specs, ties=ties, queries=queries, dialect=dialect))
    return found


_composed: dict[tuple, str] = {}
COMPOSED = 256  # texts kept
