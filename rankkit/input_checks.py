"""The checks of a run against its qrels before evaluating: errors (no query in common) and warnings
(queries on one side only, fractional grades, grades above ERR's scale, no document at the relevance
level, queries without subtopic judgments); a diversity measure without subtopic judgments refused."""

from __future__ import annotations

import weakref

from rankkit import _engine as duckdb

from rankkit.errors import InputError, MeasureError, warn
from rankkit.io import Source
from rankkit.measures import needs_subtopics
from rankkit.specs import takes_rel


# compare_inputs' counts per connection and pair of checked sources: each source's table of queries
# is made once, by its checking pass, under a name used once, so the counts of a pair never change (a
# notebook loop evaluating one run again and again asked for them at every call)
_compared: "weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, dict]" = weakref.WeakKeyDictionary()


def compare_inputs(con: duckdb.DuckDBPyConnection, qrels: Source, run: Source, specs=(), *,
                   queries: str = "both", ties: str = "trec", warn: bool = True) -> dict:
    """Check a run against its qrels before evaluating: no query in common is an error; queries on
    one side only, fractional grades and grades above ERR's scale are warnings. Returns the counts."""
    found = _compared.setdefault(con, {}).get((qrels.queries, run.queries))
    if found is None:
        found = con.execute(
            f"SELECT count(r.query_id), count(q.query_id), count(r.query_id) FILTER (WHERE q.query_id IS NOT NULL), "
            f"count(r.query_id) FILTER (WHERE q.query_id IS NULL), min(r.query_id, 3) FILTER (WHERE q.query_id IS NULL), "
            f"count(q.query_id) FILTER (WHERE r.query_id IS NULL), min(q.query_id, 3) FILTER (WHERE r.query_id IS NULL), "
            f"min(r.query_id, 3), min(q.query_id, 3), (SELECT sum(no_rank) FROM {run.queries}) "
            f"FROM (SELECT DISTINCT query_id FROM {run.queries}) r FULL JOIN (SELECT query_id FROM {qrels.queries}) q "
            f"ON r.query_id = q.query_id"
        ).fetchall()[0]
        _compared[con][(qrels.queries, run.queries)] = found
    counts = dict(zip(("run_queries", "qrels_queries", "common", "run_only", "run_only_examples",
                       "qrels_only", "qrels_only_examples", "run_examples", "qrels_examples", "no_rank"), found))
    if warn and len(run.runs) > 1:
        counts["runs"] = _run_counts(con, qrels, run)
    checked = checked_counts(counts, qrels, run, specs, queries=queries, ties=ties, warn=warn)
    if warn:
        _warn_no_relevant(con, qrels, specs)
    return checked


def _run_counts(con: duckdb.DuckDBPyConnection, qrels: Source, run: Source) -> list[dict]:
    """compare_inputs' counts of queries on one side only, per run of a source holding several
    (``run.runs``), in their order: each warning names only the runs it concerns."""
    key = (qrels.queries, run.queries, "runs")
    if key not in _compared[con]:
        # run.queries has a row per system and query; the judged queries a run lacks are looked for only
        # in the runs that lack some
        rows = con.execute(
            f"WITH r AS (SELECT system, query_id FROM {run.queries}), q AS (SELECT query_id FROM {qrels.queries}), "
            f"c AS (SELECT r.system, count(*) AS n, count(*) FILTER (WHERE q.query_id IS NULL) AS unjudged, "
            f"min(r.query_id, 3) FILTER (WHERE q.query_id IS NULL) AS examples, "
            f"(SELECT count(*) FROM q) - count(q.query_id) AS missing FROM r LEFT JOIN q USING (query_id) GROUP BY r.system), "
            f"m AS (SELECT c.system, min(q.query_id, 3) AS examples FROM (SELECT system FROM c WHERE missing > 0) c "
            f"CROSS JOIN q ANTI JOIN r ON r.system = c.system AND r.query_id = q.query_id GROUP BY c.system) "
            f"SELECT c.system, n, unjudged, c.examples, missing, m.examples FROM c LEFT JOIN m USING (system)").fetchall()
        found = {row[0]: dict(zip(("run_queries", "run_only", "run_only_examples", "qrels_only",
                                   "qrels_only_examples"), row[1:])) for row in rows}
        _compared[con][key] = [{"run": name, **found[system]} for system, name in run.runs.items() if system in found]
    return _compared[con][key]


def _warn_no_relevant(con: duckdb.DuckDBPyConnection, qrels: Source, specs) -> None:
    """At a relevance level above 1 (a recommender's rating 4, say), judged queries with no document
    that high score 0 on R, AP, P, RR and Success, as trec_eval scores them; said, since at such a
    level they can be many. (At level 1 a query without a relevant document is TREC's rare case.)"""
    levels = sorted({spec["rel"] for spec in specs if takes_rel(spec) and spec["rel"] > 1})
    for level in levels:
        none, queries, examples = con.execute(
            f"SELECT count(*) FILTER (WHERE top < $level), count(*), min(query_id, 3) FILTER (WHERE top < $level) "
            f"FROM {qrels.queries}", {"level": level}).fetchall()[0]
        if none:
            asked = ", ".join(dict.fromkeys(s["measure"] for s in specs if takes_rel(s) and s["rel"] == level))
            warn(f"{qrels.label}: {none} of {queries} judged queries have no document graded {level:g} or above "
                 f"(such as {_examples(examples)}): {asked} score 0 there, as in trec_eval")


def checked_counts(counts: dict, qrels, run, specs=(), *, queries: str = "both", ties: str = "trec",
                   warn: bool = True) -> dict:
    """compare_inputs' errors and warnings from its counts (the Spark engine counts them itself);
    ``qrels`` and ``run`` need ``label``, the qrels ``fractional`` and ``top_grade`` too."""
    if counts["run_queries"] and not counts["common"]:
        raise InputError(
            f"{run.label} and {qrels.label} have no query in common: the run has {counts['run_queries']} "
            f"(such as {_examples(counts['run_examples'])}), the qrels {counts['qrels_queries']} "
            f"(such as {_examples(counts['qrels_examples'])}); ids are compared as strings"
        )
    if ties == "rank" and counts["no_rank"]:
        raise InputError(f"{run.label}: ties='rank' needs an integer rank on every row; "
                         f"{counts['no_rank']} rows have none")
    if warn:
        _warn_coverage(counts, qrels, run, queries)
        _warn_grades(qrels, specs)
    return counts


def _warn_coverage(counts: dict, qrels: Source, run: Source, queries: str) -> None:
    """Queries on one side only, said of the runs concerned: one warning for the runs that share a count
    (DL19's 157 of 200 queries unjudged, in every run), each named by its file."""
    runs = counts.get("runs") or [{**counts, "run": run.label}]
    for (unjudged, of), named in _grouped(runs, "run_only", "run_queries"):
        each = " in each" if len(named) > 1 else ""
        fate = ("hold no relevant item (queries='run': each measure's empty rule scores them)" if queries == "run"
                else "are not evaluated")
        warn(f"{', '.join(one['run'] for one in named)}: {unjudged} of {of} queries{each} have no judgments in "
             f"{qrels.label} (such as {_examples(_first(named, 'run_only_examples'))}) and {fate}")
    then = ("score 0 (queries='qrels')" if queries == "qrels"
            else "are left out of the mean (queries='qrels', trec_eval -c, counts them as 0)")
    for (missing, _), named in _grouped(runs, "qrels_only", "qrels_only"):
        each = "each of " if len(named) > 1 else ""
        warn(f"{qrels.label}: {missing} of {counts['qrels_queries']} judged queries are missing from {each}"
             f"{', '.join(one['run'] for one in named)} (such as {_examples(_first(named, 'qrels_only_examples'))}) "
             f"and {then}")


def _grouped(runs: list[dict], count: str, total: str) -> list[tuple[tuple, list[dict]]]:
    """The runs with a non-zero ``count``, grouped by (count, total) in the order they come."""
    groups: dict[tuple, list[dict]] = {}
    for one in runs:
        if one[count]:
            groups.setdefault((one[count], one[total]), []).append(one)
    return list(groups.items())


def _first(runs: list[dict], examples: str) -> list:
    """The first three of the runs' examples, as DuckDB's min(query_id, 3) orders them."""
    return sorted({value for one in runs for value in one[examples] or []})[:3]


def _warn_grades(qrels: Source, specs) -> None:
    if qrels.fractional:
        query_id, doc_id, grade = qrels.fractional
        warn(
            f"{qrels.label}: fractional grades (such as {grade:g} for document {doc_id} of query {query_id}); "
            f"rankkit keeps them for gain where trec_eval truncates them (integer_grades=True does too)")
    tops = sorted({s["max"] for s in specs if s["metric"] == "err"})
    if qrels.top_grade is not None and tops and qrels.top_grade > tops[0]:
        warn(
            f"{qrels.label}: grade {qrels.top_grade:g} is above ERR's scale (max={tops[0]:g}), where it counts "
            f"as {tops[0]:g}; say ERR(max={qrels.top_grade:g})@k to use the whole scale")


def _examples(values) -> str:
    return ", ".join(f"'{v}'" for v in (values or [])) or "none"


def warn_unjudged_subtopics(con, qrels: Source, run: Source, subtopics: str | None, specs) -> None:
    """Queries evaluated (in the qrels and the run) that the subtopic judgments lack score 0 on the
    diversity measures: said, not left silent."""
    if subtopics is None or not any(needs_subtopics(spec["metric"]) for spec in specs):
        return
    missing, examples, evaluated = con.execute(
        f"SELECT count(*) FILTER (WHERE s.query_id IS NULL), min(q.query_id, 3) FILTER (WHERE s.query_id IS NULL), "
        f"count(*) FROM (SELECT query_id FROM {qrels.queries} SEMI JOIN (SELECT query_id FROM {run.queries}) "
        f"USING (query_id)) q LEFT JOIN (SELECT DISTINCT query_id FROM {subtopics}) s USING (query_id)").fetchall()[0]
    if missing:
        warn(f"{missing} of {evaluated} queries evaluated have no subtopic judgments (such as {_examples(examples)}): "
             f"the diversity measures score them 0")


def refuse_without_subtopics(specs) -> None:
    """A diversity measure asked where no subtopic judgments were given: refused, saying what to give."""
    diverse = [spec["measure"] for spec in specs if needs_subtopics(spec["metric"])]
    if diverse:
        raise MeasureError(f"{', '.join(diverse)} need{'s' * (len(diverse) == 1)} subtopic judgments (TREC's 'query "
                           "subtopic doc grade', ndeval's qrels): give subtopics= (rankkit eval --subtopics FILE)")
