"""The statement of an evaluation: the run ranked (counting or by one window), then the per-query values
rankkit.compose writes for the specs, then their aggregate (per slice), or the command line's long table."""

from __future__ import annotations

import re
import weakref
from typing import Iterable, Mapping

from rankkit import _engine as duckdb

from rankkit._paths import sql_dir
from rankkit.compose import compose, query_side
from rankkit.dialect import DUCKDB, LOADED
from rankkit.conventions import Conventions
from rankkit.input_checks import refuse_without_subtopics
from rankkit.io import Source, holder, temp_name
from rankkit.measures import needs_subtopics
from rankkit.running import run_query


# The largest run ranked by rankkit.window_ranks, and rankkit.ranks' most judged documents a query
# still counted (rankkit.judged_counted in sql/20_engine.sql, read from there): see ranks_by_window.
WINDOW_ROWS = 1_000_000


JUDGED_COUNTED = int(re.search(r"MACRO rankkit\.judged_counted\(\) AS (\d+);",
                               (sql_dir() / "20_engine.sql").read_text(encoding="utf-8")).group(1))


def evaluation_query(qrels_source: Source, run_source: Source, specs, per_query: bool, slices,
                     conventions: Conventions, subtopics: str | None = None, kept: str | None = None) -> tuple[str, dict]:
    """The SQL evaluating the sources (see engine_query), and its parameters; ``subtopics``: the table of
    subtopic judgments, read only where a diversity measure is asked; ``kept``: the table
    kept_query_side made for these qrels and specs."""
    inputs = {"qrels": qrels_source.table, "run": run_source.engine}
    if subtopics is None:
        refuse_without_subtopics(specs)  # compare, report: they take no subtopic judgments (yet)
    elif any(needs_subtopics(spec["metric"]) for spec in specs):
        inputs["subtopics"] = subtopics
    if slices:
        inputs.update(slices=slices[0], attribute=slices[1])
    window = ranks_by_window(qrels_source, run_source, conventions.ties)
    return engine_query(per_query, bool(slices), specs, conventions, window=window,
                        keyed=bool(run_source.keyed) and not window, kept=kept), inputs


# kept_query_side's tables per connection, by the SQL that made them (it names the qrels table)
_kept: "weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, dict[str, str]]" = weakref.WeakKeyDictionary()


def kept_query_side(con: duckdb.DuckDBPyConnection, qrels_source: Source, specs, conventions: Conventions) -> str | None:
    """A temp table of what the statement computes once per query of the qrels (rankkit.compose.query_side),
    for qrels read once and evaluated again and again (a read_qrels result in a notebook loop, a sweep):
    made by their first evaluation with these measures, dropped with them (rankkit.forget), not made
    again by each later call. None for qrels read for this call alone (kept, they would cost more)."""
    held = holder(qrels_source)
    # (their subtopics are not kept; queries='run' adds the run's queries the qrels lack)
    if held is None or conventions.queries == "run" or any(needs_subtopics(spec["metric"]) for spec in specs):
        return None
    sql = query_side(specs, qrels=DUCKDB.literal(held.table, "VARCHAR"), ties=conventions.ties,
                     queries=conventions.queries, dialect=LOADED)
    tables = _kept.setdefault(con, {})
    if sql not in tables:
        table = temp_name("qrels_features")
        run_query(con, f"CREATE TEMP TABLE {table} AS {sql}", [], fetch=False)
        held.owned.append(("table", table))
        tables[sql] = table
    return tables[sql]


def ranks_by_window(qrels: Source, run: Source, ties: str) -> bool:
    """Whether the run is ranked by rankkit.window_ranks (sorting every row) rather than rankkit.ranks
    (counting): for a run of at most WINDOW_ROWS rows against qrels judging more than JUDGED_COUNTED
    documents a query on average. rankkit.ranks counts the ranks of a query only where it retrieved
    at most that many judged documents and sorts the others; where most queries are sorted anyway,
    its counting joins and their planning cost more than one window. Sparse
    judgments (MS MARCO's one a query) are counted, cheaper at every size. 0 rows: not counted."""
    return (ties != "average" and 0 < run.rows <= WINDOW_ROWS
            and qrels.rows > JUDGED_COUNTED * max(qrels.lists, 1))


def engine_query(per_query: bool, sliced: bool, specs: Iterable[Mapping], conventions: Conventions = Conventions(), *,
                 window: bool = False, keyed: bool = False, kept: str | None = None) -> str:
    """What rankkit.per_query and rankkit.aggregate (or their _by forms) compute, for inputs that
    load() checked: rankkit.ranks (rankkit.window_ranks_loaded with ``window``, for a small run), then the
    statement rankkit.compose writes for ``specs`` (only their features, each once as a column,
    parameters as literals), then rankkit.over_values (or slice_values, over_slices). Binding
    rankkit.input_checks, and rankkit.per_query_ranked with a CASE over every measure, was most of
    the time of a small evaluation and bought nothing here. The values are
    MATERIALIZED: the aggregate reads them once.
    Parameters by name: qrels, run, and slices, attribute when ``sliced``."""
    query = _stages(specs, conventions, window=window, keyed=keyed, kept=kept)
    if sliced:
        query += ", rankkit_sliced AS (FROM rankkit.slice_values('rankkit_values', $slices, $attribute))"
        return query + (" FROM rankkit_sliced" if per_query else " FROM rankkit.over_slices('rankkit_sliced')")
    return query + (" FROM rankkit_values" if per_query else " FROM rankkit.over_values('rankkit_values')")


def _stages(specs: Iterable[Mapping], conventions: Conventions, *, window: bool, keyed: bool,
            kept: str | None = None) -> str:
    """engine_query's common part: the ranks (by rankkit.window_ranks_loaded with ``window``), then the
    per-query values as ``rankkit_values``; with a diversity measure, the run ranked against the
    subtopic judgments too (rankkit.subtopic_ranks, parameter ``subtopics``). The conventions are
    literals: DuckDB folds what they decide (the tie rule's sort keys, the judged_only branch) as it
    plans, where a parameter is bound and kept as an expression."""
    ties, scores, depth, queries, judged_only = conventions.sql_arguments()
    diverse = any(needs_subtopics(spec["metric"]) for spec in specs)
    subtopic_inputs = {"subtopics": "$subtopics", "subtopic_ranks": "rankkit_subtopic_ranked"} if diverse else {}
    values = compose(specs, qrels="$qrels", ranks="rankkit_ranked_run", ties=ties, queries=queries, dialect=LOADED,
                     kept=kept, **subtopic_inputs)
    literal = DUCKDB.literal
    ranking = f"ties := {literal(ties, 'VARCHAR')}, scores := {literal(scores, 'VARCHAR')}, depth := {literal(depth, 'BIGINT')}"
    arguments = f"{ranking}, judged_only := {'true' if judged_only else 'false'}"
    subtopic_ranks = (f", rankkit_subtopic_ranked AS (FROM rankkit.subtopic_ranks($subtopics, $run, {ranking}))"
                      if diverse else "")
    # load() checked the columns (rankkit.window_ranks would bind that check again)
    ranks = (f"rankkit.window_ranks_loaded($qrels, $run, {arguments})" if window else
             f"rankkit.ranks($qrels, $run, {arguments}, keyed := {'true' if keyed else 'false'})")
    return f"WITH rankkit_ranked_run AS (FROM {ranks}){subtopic_ranks}, rankkit_values AS MATERIALIZED ({values})"


def long_query(specs: Iterable[Mapping], per_query: bool, summary: bool, digits: int | None,
               conventions: Conventions, *, window: bool = False, keyed: bool = False) -> str:
    """The command line's table in SQL, as rankkit.output writes it in csv and json: ``measure,
    system, query_id, value, queries``, the per-query values (with ``per_query``), then the
    aggregate as query ``all`` with its query count (with ``summary``), per system in the order
    of ``$systems`` and per measure in the order of ``$measures``. ``digits``: rounded, else full
    precision. Parameters as engine_query's, and systems, measures."""
    value = "value" if digits is None else f"round(value, {int(digits)})"
    parts = ["SELECT 0 AS part, measure, system, query_id, value, NULL::BIGINT AS queries FROM rankkit_values"] * per_query
    parts += ["SELECT 1 AS part, measure, system, 'all' AS query_id, value, queries "
              "FROM rankkit.over_values('rankkit_values')"] * summary
    if not parts:  # -n without -q: nothing to write but the header
        parts = ["SELECT 0 AS part, NULL::VARCHAR AS measure, NULL::VARCHAR AS system, NULL::VARCHAR AS query_id, "
                 "NULL::DOUBLE AS value, NULL::BIGINT AS queries WHERE false"]
    return (f"{_stages(specs, conventions, window=window, keyed=keyed)} SELECT measure, system, query_id, {value} AS value, queries "
            f"FROM ({' UNION ALL '.join(parts)}) ORDER BY list_position($systems, system), part, "
            f"list_position($measures, measure), query_id")
