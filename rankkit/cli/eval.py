"""``rankkit eval``: trec_eval's options and output, and the tables of --format latex and markdown-table."""

from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from pathlib import Path

from rankkit.arguments import UsageError, baseline_name, column_mapping, query_set, run_arguments
from rankkit.beyond import refuse_missing, split
from rankkit.cli.common import check_options, connect, refuse_beyond_on_spark, refuse_outputs, stdin_runs


def run(args: argparse.Namespace) -> int:
    # rows, not frames: printing numbers does not need pandas (half a second to import)
    from rankkit.evaluate import evaluate_file, evaluate_rows
    from rankkit.io.sources import read_table
    from rankkit.output import TABLES, write_eval
    from rankkit.specs import measure_specs

    if args.format in TABLES and (args.per_query or not args.summary):
        raise UsageError(f"--format {args.format} prints the summary of each system (a table of systems x measures): "
                         f"-q and -n print per-query values, in --format trec, csv, json or markdown")
    names, beyond = split(args.measures or ["official"], text=True)
    # the parser's specs of the names (trec_eval's forms and nicknames among them; the beyond measures are none
    # of them): the measures whose value is text (runid, relstring) are printed apart
    specs = measure_specs(None, names, text=True) if names or not beyond else []
    refuse_beyond_on_spark(args, beyond)
    if beyond and (args.output or args.baseline is not None or args.format in TABLES):
        raise UsageError(f"{beyond[0]}: the beyond-accuracy measures print on DuckDB in --format trec, csv, json or "
                         f"markdown, without -o or --baseline, for now")
    refuse_missing(beyond, {side for side in ("items", "interactions") if getattr(args, side)})
    if not beyond and (args.items or args.interactions):
        raise UsageError(f"--{'items' if args.items else 'interactions'} is read by the beyond-accuracy measures "
                         f"(Coverage@10, Novelty@10, ILD@10 ...), and none was asked for")
    if args.engine == "spark" and (args.output or args.baseline is not None):
        raise UsageError("--engine spark prints the evaluation: -o and --baseline run on DuckDB")
    text = [spec["measure"] for spec in specs if spec["agg"] == "text"]
    measures = [spec["measure"] for spec in specs if spec["agg"] != "text"]
    if args.baseline is not None:
        return _marked_table(args, measures)
    # the text measures (rankkit.relstring) and the diversity ones (their table macros) read macros
    # written for SQL users: the lean connection has only those of rankkit's own statements
    if args.output:
        refuse_outputs(args, [args.output], qrels=args.qrels, run=run_arguments(args.runs), subtopics=args.subtopics)
    con = connect(args, lean=not text and args.subtopics is None)
    check_options(args, con, measures or ["num_q"])
    columns = column_mapping(args)
    if _qrels_are_subtopics(args) and text:
        raise UsageError(f"{', '.join(text)} read plain qrels; with the subtopic judgments as qrels, give them apart")
    # --engine spark: Spark reads the files (relstring, a text measure, reads the qrels on DuckDB)
    if _qrels_are_subtopics(args):
        qrels = None
    elif args.engine == "spark":
        qrels = args.qrels
    else:
        qrels = read_table(con, args.qrels, "qrels", columns=columns, duplicates=args.duplicates)
    options = dict(con=con, rel=args.rel, depth=args.depth, ties=args.ties, columns=columns,
                   duplicates=args.duplicates, split_by_tag=args.split_by_tag,
                   queries=query_set(args), judged_only=args.judged_only, docs=args.docs,
                   subtopics=args.subtopics, pack=args.conventions)
    with stdin_runs(args.runs) as given:
        runs = run_arguments(given)
        if args.output:
            if args.per_query and qrels is not None:
                _refuse_aggregate_query(con, qrels, args.qrels)
            evaluate_file(qrels, runs, measures or ["num_q"], args.output, per_query=args.per_query,
                          summary=args.summary, digits=args.digits, **options)
            return 0
        with _checked_once(con, runs, beyond, args) as checked, _tops(con, checked, measures, beyond, args) as tops:
            if checked is not None:  # the run read and checked once, for every measure
                options.update(columns=None, split_by_tag=False)
            if checked is not None and not measures:  # no accuracy pass to name the systems
                systems, aggregate, per_query = checked.systems, [], [] if args.per_query else None
            else:
                # one evaluation of every run, the same as Python's: each system printed apart, in the order given
                evaluated = _spark_rows(args, con, measures) if args.engine == "spark" else evaluate_rows
                systems, aggregate, per_query = evaluated(qrels, runs if checked is None else tops[0],
                                                          measures or ["num_q"], per_query=args.per_query, **options)
            if not measures:  # text measures only: num_q only named the systems
                aggregate, per_query = [], None if per_query is None else []
            aggregate, per_query = _with_text(con, text, systems, runs, qrels, aggregate, per_query, args)
            if beyond:
                aggregate, per_query = _with_beyond(con, beyond, checked.table, aggregate, per_query, args, tops[1])
    frames = [(system, [row for row in aggregate if row["system"] == system],
               None if per_query is None else [row for row in per_query if row["system"] == system])
              for system in systems]
    write_eval(sys.stdout, frames, args.format, args.digits, summary=args.summary, where=args.qrels,
               aggregates=_aggregates(con, measures, args), better=_directions(con, measures, aggregate, args))
    return 0


def _aggregates(con, measures: list[str], args: argparse.Namespace) -> dict[str, str]:
    """How each measure printed combines over queries, by its label: its spec's (parsed once already, by
    the evaluation: the specs are kept)."""
    from rankkit.specs import measure_specs

    if not measures:
        return {}
    return {spec["measure"]: spec["agg"] for spec in measure_specs(con, measures, rel=args.rel, docs=args.docs)}


def _directions(con, measures: list[str], aggregate, args: argparse.Namespace) -> dict[str, str]:
    """Which way each measure printed is better (its file's better:), by its label: the specs' measures by
    their metric, the others (beyond-accuracy, text) by their rows' names."""
    from rankkit.specs import directions, measure_specs

    specs = measure_specs(con, measures, rel=args.rel, docs=args.docs) if measures else []
    return directions(specs, list(dict.fromkeys(row["measure"] for row in aggregate)))


def _refuse_aggregate_query(con, qrels: str, label: str) -> None:
    """-q -o FILE: a query named all would read as a system's aggregate, which the file names so."""
    from rankkit.errors import InputError
    from rankkit.output import AGGREGATE

    found = con.execute(f"SELECT query_id FROM {qrels} WHERE trim(query_id) = ? LIMIT 1", [AGGREGATE]).fetchall()
    if found:
        raise InputError(f"{label}: a query is named '{found[0][0]}', and the file names each system's aggregate over "
                         f"queries '{AGGREGATE}' (trec_eval's text does): rename the query")


def _qrels_are_subtopics(args: argparse.Namespace) -> bool:
    """``rankkit eval --subtopics FILE FILE run``: the qrels are the subtopic judgments' own (ndeval's usage)."""
    return args.subtopics is not None and Path(args.qrels).resolve() == Path(args.subtopics).resolve()


def _spark_rows(args: argparse.Namespace, con, measures: list[str]):
    """evaluate_rows on a Spark session of --master (rankkit.spark.evaluate_rows), started here once the
    measures are known to run there (a diversity measure is refused before Spark starts)."""
    from rankkit import spark
    from rankkit.specs import measure_specs

    spark.refuse_diversity(measure_specs(con, measures or ["num_q"], rel=args.rel, docs=args.docs))
    spark.require_pyspark()
    session = spark.session(args.master)
    # the files are read by Spark: DuckDB's connection is not passed on
    return lambda *given, con=None, **options: spark.evaluate_rows(session, *given, **options)


def _marked_table(args: argparse.Namespace, measures: list[str]) -> int:
    """--baseline: the table with significance marks, made as rankkit report makes its own (one
    evaluation, paired tests against the baseline) and drawn by the same renderer."""
    from rankkit.conventions import resolve_conventions
    from rankkit.output import EVAL_CAPTION, HUMAN_DIGITS, TABLES
    from rankkit.report.build import build
    from rankkit.report.render import table

    if args.format not in TABLES:
        raise UsageError(f"--baseline marks significance in the tables of --format {' or '.join(TABLES)}; "
                         f"rankkit compare prints the tests themselves")
    if args.split_by_tag:
        raise UsageError("--baseline takes runs as files, one run each: give each tag's run as its own file")
    conventions = resolve_conventions(args.conventions, rel=args.rel, ties=args.ties, depth=args.depth,
                                      queries=query_set(args), duplicates=args.duplicates,
                                      judged_only=args.judged_only, docs=args.docs)
    con = connect(args)
    check_options(args, con, measures, runs=run_arguments(args.runs))
    with stdin_runs(args.runs) as given:
        runs = run_arguments(given)
        made = build(args.qrels, runs, measures, baseline=baseline_name(runs, args.baseline), test="t",
                     correction="holm", alpha=0.05, ci=None, seed=0, resamples=10000, by=None, queries=None, title=None,
                     con=con, columns=column_mapping(args), conventions=conventions,
                     call=f"rankkit eval --baseline {args.baseline}")
    latex = args.format == "latex"  # Markdown's table, as without --baseline, has no caption line
    sys.stdout.write(table(made, TABLES[args.format], caption=EVAL_CAPTION if latex else None,
                           label="tab:results" if latex else None,
                           digits=HUMAN_DIGITS if args.digits is None else args.digits))
    return 0


@contextmanager
def _checked_once(con, runs, beyond: list[str], args: argparse.Namespace):
    """With beyond-accuracy measures, the runs read and checked once (their Source, released at the end),
    which the other measures and these then take as a table of the connection; else None."""
    from rankkit.inputs import load_runs
    from rankkit.io.sources import release

    if not beyond:
        yield None
        return
    source = load_runs(con, runs, columns=column_mapping(args), duplicates=args.duplicates,
                       split_by_tag=args.split_by_tag)
    try:
        yield source
    finally:
        release(con, source)


@contextmanager
def _tops(con, checked, measures: list[str], beyond: list[str], args: argparse.Namespace):
    """With beyond-accuracy measures, the run the others read (their top k where that is all they read) and
    the top tables of both (rankkit.evaluate.beyond_tops); else None."""
    from rankkit.conventions import Conventions
    from rankkit.evaluate import beyond_tops

    if checked is None:
        yield None
        return
    conventions = Conventions(rel=args.rel, ties=args.ties, depth=args.depth, judged_only=args.judged_only,
                              docs=args.docs, pack=args.conventions)
    with beyond_tops(con, checked.table, measures if args.subtopics is None else [], beyond, conventions) as tops:
        yield tops


def _with_beyond(con, beyond: list[str], run: str, aggregate, per_query, args, tops: dict):
    """The beyond-accuracy measures' rows after the others', from the checked run table ``run`` and its top
    tables ``tops``."""
    from rankkit.evaluate import beyond_rows

    options = dict(con=con, items=args.items, interactions=args.interactions, ties=args.ties,
                   duplicates=args.duplicates, tops=tops)
    found, found_per_query = beyond_rows(run, beyond, per_query is not None, **options)
    return aggregate + found, None if per_query is None else per_query + found_per_query


def _with_text(con, text: list[str], systems, runs, qrels, aggregate, per_query, args):
    """The measures whose value is text: runid (the tag of a run file's last line, as trec_eval
    reads it) in the summary, relstring per query."""
    from rankkit.io import last_tag
    from rankkit.io.sources import read_table

    for system in systems:
        path = runs if isinstance(runs, str) else runs.get(system, runs.get(str(system).split("/")[0]))
        if "runid" in text:
            aggregate = [{"measure": "runid", "system": system, "value": last_tag(path) or system,
                          "queries": None}] + aggregate
        relstrings = [name for name in text if name != "runid"]
        if not relstrings or per_query is None:
            continue
        if qrels == args.qrels:  # the Spark engine's path (Spark read the files): read here for relstring alone
            qrels = read_table(con, args.qrels, "qrels", columns=column_mapping(args), duplicates=args.duplicates)
        run = read_table(con, path, "run", columns=column_mapping(args), duplicates=args.duplicates)
        for name in relstrings:
            k = int(name.rsplit("_", 1)[1]) if "_" in name else 10
            rows = con.execute(
                "SELECT query_id, value FROM rankkit.relstring(?, ?, k := ?, ties := ?, depth := ?, queries := ?, "
                "judged_only := ?)", [qrels, run, k, args.ties, args.depth,
                                      query_set(args), args.judged_only]).fetchall()
            per_query = per_query + [{"measure": name, "system": system, "query_id": q, "value": f"'{v}'"}
                                     for q, v in rows]
    return aggregate, per_query
