"""``rankkit check``: what a qrels and a run hold, and what would go wrong, without evaluating."""

from __future__ import annotations

import duckdb

from rankkit._sql import connect
from rankkit.input_checks import compare_inputs
from rankkit.inputs import load_runs
from rankkit.io import default_connection, load, release
from rankkit.safe.terminal import visible
from rankkit.specs import SPEC_TYPE, measure_specs

__all__ = ["diagnose"]


def diagnose(qrels, run, *, con: duckdb.DuckDBPyConnection | None = None, columns=None,
             split_by_tag: bool = False) -> dict:
    """Counts that say whether a run and its qrels fit together.

    Returns a dict: ``qrels_queries, judgments, run_queries, retrieved, systems, system_names, common, run_only,
    qrels_only, judged_at_10`` (mean share of each common query's top 10 that is judged, the
    ``Judged@10`` measure), ``run_duplicates, qrels_duplicates`` (documents listed again for a
    query), ``ties`` (per system with ties, in the order of ``system_names``: the system, its documents
    sharing a score with another of the same query, and its queries holding such documents: trec_eval
    orders them by doc_id), ``qrels_ignored, run_ignored`` (the columns
    left alone, such as a timestamp). ``system_names`` are the systems
    ``evaluate`` makes of the same ``run`` (the rule in :func:`rankkit.read_run`). Unreadable input
    raises InputError; the warnings ``evaluate`` gives are given here too.
    """
    con = connect(con) if con is not None else default_connection()
    qrels_source = load(con, qrels, "qrels", columns=columns, duplicates="keep")
    run_source = load_runs(con, run, columns=columns, duplicates="keep", split_by_tag=split_by_tag)
    try:
        return _diagnose(con, qrels_source, run_source)
    finally:
        release(con, run_source)
        release(con, qrels_source)


def _diagnose(con, qrels_source, run_source) -> dict:
    counts = compare_inputs(con, qrels_source, run_source, warn=True)
    sizes = con.execute(
        f"SELECT (SELECT sum(n) FROM {qrels_source.queries}), (SELECT sum(n - docs) FROM {qrels_source.queries}), "
        f"(SELECT sum(n) FROM {run_source.queries}), (SELECT sum(n - docs) FROM {run_source.queries})"
    ).fetchall()[0]
    # per system: a query tied in two systems is two systems' tie, not two queries of one
    rows = con.execute(
        f"SELECT system, sum(c), count(DISTINCT query_id) FROM (SELECT system, query_id, score, count(*) AS c "
        f"FROM {run_source.table} GROUP BY ALL HAVING count(*) > 1) GROUP BY system").fetchall()
    tied = {system: (int(documents), int(queries)) for system, documents, queries in rows}
    specs = measure_specs(con, ["Judged@10"])
    judged = con.execute(  # over the systems in a fixed order, as every mean
        f"SELECT rankkit.ordered_sum(list(value ORDER BY system)) / count(value) FROM rankkit.aggregate(?, ?, "
        f"?::{SPEC_TYPE}[], validate := false)", [qrels_source.table, run_source.engine, specs]
    ).fetchall()[0][0]
    return {
        "qrels": qrels_source.label, "run": run_source.label,
        "qrels_queries": counts["qrels_queries"], "judgments": int(sizes[0] or 0),
        "run_queries": counts["run_queries"], "retrieved": int(sizes[2] or 0),
        "systems": len(run_source.systems), "system_names": run_source.systems,
        "common": counts["common"], "run_only": counts["run_only"], "qrels_only": counts["qrels_only"],
        "judged_at_10": judged,
        "qrels_duplicates": int(sizes[1] or 0), "run_duplicates": int(sizes[3] or 0),
        "ties": [(system, *tied[system]) for system in run_source.systems if system in tied],
        "qrels_ignored": qrels_source.ignored, "run_ignored": run_source.ignored,
    }


def describe(found: dict) -> list[str]:
    """The diagnosis as lines of text, for the command line (file and system names written visibly):
    the qrels' line, then the run's."""
    return [describe_qrels(found), *describe_run(found)]


def describe_qrels(found: dict) -> str:
    """The qrels' lines of the diagnosis: the same for every run checked against them, printed once."""
    return (f"qrels\t{visible(found['qrels'])}\t{found['qrels_queries']} queries, {found['judgments']} judgments, "
            f"{found['qrels_duplicates']} duplicate{'s' if found['qrels_duplicates'] != 1 else ''}"
            + "".join("\n" + line for line in _ignored("qrels", found.get("qrels_ignored", []))))


def _ignored(kind: str, columns: list[str]) -> list[str]:
    """The line naming the columns of the qrels or the run that rankkit leaves alone, if any."""
    names = ", ".join(visible(c) for c in columns)
    return [f"ignored\t{kind} columns: {names} (left alone)"] if columns else []


def describe_run(found: dict) -> list[str]:
    """The run's lines of the diagnosis, and how it fits the qrels."""
    judged = "n/a" if found["judged_at_10"] is None else f"{found['judged_at_10']:.4f}"
    return [
        f"run\t{visible(found['run'])}\t{found['run_queries']} queries, {found['retrieved']} documents, "
        f"{found['systems']} system{'s' if found['systems'] != 1 else ''}",
        *_ignored("run", found.get("run_ignored", [])),
        f"systems\t{', '.join('(unnamed)' if s is None else visible(s) for s in found['system_names'])}\t"
        f"what rankkit eval and evaluate() evaluate and print",
        f"queries\tin common {found['common']}, run only {found['run_only']}, qrels only {found['qrels_only']}",
        f"judged@10\t{judged} (mean share of the top 10 that is judged, over common queries)",
        f"duplicates\trun {found['run_duplicates']} (a duplicate in the run or the qrels is an error when "
        f"evaluating, unless --duplicates first)",
        f"ties\t{_ties(found.get('ties', []), found['systems'])} (ordered by doc_id descending, as trec_eval)",
    ]


def _ties(ties: list, systems: int) -> str:
    """The documents sharing a score within a query, and in how many queries: per system when there are several."""
    def counted(documents: int, queries: int) -> str:
        return f"{documents} document{'s' * (documents != 1)} in {queries} quer{'ies' if queries != 1 else 'y'}"

    if systems <= 1:
        return counted(*(ties[0][1:] if ties else (0, 0))) + " share a score with another of their query"
    each = ", ".join(f"{'(unnamed)' if system is None else visible(system)} {counted(documents, queries)}"
                     for system, documents, queries in ties)
    return f"per system: {each or 'none'} share a score with another of their query"
