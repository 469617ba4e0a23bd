"""``rankkit report``: the report written, and its command line recorded for verify."""

from __future__ import annotations

import argparse
from pathlib import Path

from rankkit.arguments import UsageError, baseline_name, column_mapping, conventions_of, run_arguments, sweep_of
from rankkit.cli.common import check_options, connect, refuse_beyond_on_spark, refuse_outputs


def run(args: argparse.Namespace) -> int:
    from rankkit.beyond import split
    from rankkit.report.build import build
    from rankkit.report.model import SUFFIXES
    from rankkit.report.beyond import asked

    if Path(args.output).suffix.lower() not in SUFFIXES:
        raise UsageError(f"-o {args.output}: a report is written as {', '.join(SUFFIXES)}; the suffix says which")
    if (args.by is None) != (args.queries is None):
        raise UsageError("--by and --queries go together: the column, and the query table that has it")
    # runs named as eval, compare, check and explore name them (PATH or NAME=PATH)
    runs = run_arguments(args.runs)
    refuse_outputs(args, _report_outputs(args), qrels=args.qrels, second_qrels=args.second_qrels, run=runs,
                   queries=args.queries, items=args.items, interactions=args.interactions)
    for path in [args.qrels, *(runs.values() if isinstance(runs, dict) else [runs]), args.items, args.interactions]:
        if path is None:
            continue
        if Path(path).exists() and not Path(path).is_file() and not Path(path).is_dir():
            raise UsageError(f"{path} is a pipe: a report records each input's sha256 for rankkit verify, which reads "
                             f"it again; save it to a file first")
    baseline = baseline_name(runs, args.baseline)
    measures = asked(args.measures)  # trec_eval's forms and nicknames as rankkit eval reads them
    con, conventions = connect(args), conventions_of(args)
    check_options(args, con, split(measures)[0], runs)
    given = {}
    if args.engine == "spark":
        if args.by is not None:
            raise UsageError("--engine spark computes the report's values; --by slices run on DuckDB")
        refuse_beyond_on_spark(args, measures)
        given = _spark_report_values(args, con, runs, measures, conventions)
    result = build(args.qrels, runs, measures, baseline=baseline, test=args.test,
                   correction=args.correction, alpha=args.alpha, ci=args.ci or None, seed=args.seed,
                   resamples=10000, by=args.by, queries=args.queries, title=args.title, con=con,
                   columns=column_mapping(args), conventions=conventions, call=_command_line(args),
                   second_qrels=args.second_qrels, sweep=sweep_of(args), items=args.items,
                   interactions=args.interactions, **given)
    result.save(args.output)
    from rankkit.safe.terminal import visible

    print(f"rankkit report: wrote {', '.join(visible(path) for path in result.written(args.output))}")
    return 0


def _report_outputs(args: argparse.Namespace) -> list[str]:
    """Every file ``report -o`` may write: the report, and with --second-qrels the agreement tables
    written beside a CSV or Parquet file (report.swaps.csv ...)."""
    from rankkit.report.data import AGREEMENT_FILES

    path = Path(args.output)
    if (args.second_qrels is None and args.sweep is None) or path.suffix.lower() not in (".csv", ".parquet"):
        return [args.output]
    return [args.output, *(str(path.with_name(f"{path.stem}.{name}{path.suffix}")) for name in AGREEMENT_FILES.values())]


def _spark_report_values(args: argparse.Namespace, con, runs, measures: list[str], conventions) -> dict:
    """The report's per-query values (its measures and their coverage) computed by Spark on --master:
    build's values= and engine=."""
    from rankkit import spark
    from rankkit.report.build import named_runs, shown_measures

    spark.require_pyspark()
    session = spark.session(args.master)
    wanted = shown_measures(con, measures, conventions.rel, conventions.pack)
    _, frames, labels = spark.read(session, args.qrels, named_runs(runs), wanted, conventions, columns=column_mapping(args))
    values = spark.evaluate(session, *frames, wanted, per_query=True, conventions=conventions, labels=labels)
    return {"values": spark.per_query_values(values, conventions)[0], "engine": spark.engine_name()}


def _command_line(args: argparse.Namespace) -> str:
    """The command as the parser understood it, every option spelled out, for the report's record."""
    import shlex

    from rankkit.io.files import run_glob_files

    # a glob of TREC run files as the files it matched (as report() records one), which verify reads again
    words = ["rankkit", "report", args.qrels, *(file for run in args.runs for file in run_glob_files(run) or [run])]
    words += [word for measure in args.measures for word in ("-m", measure)]
    for flag, value in (("--baseline", args.baseline), ("--test", args.test), ("--correction", args.correction),
                        ("--alpha", args.alpha), ("--ci", args.ci), ("--seed", args.seed), ("--by", args.by),
                        ("--queries", args.queries), ("--title", args.title), ("--second-qrels", args.second_qrels),
                        ("--items", args.items), ("--interactions", args.interactions),
                        ("-l", args.rel), ("-M", args.depth), ("--sweep", args.sweep),
                        ("--sweep-measure", args.sweep_measure), ("--sweep-step", args.sweep_step),
                        ("--sweep-norm", args.sweep_norm), ("--sweep-holdout", args.sweep_holdout),
                        ("--ties", args.ties), ("--query-set", getattr(args, "query_set", None)),
                        ("--conventions", args.conventions), ("--engine", None if args.engine == "duckdb" else args.engine),
                        ("--master", None if args.engine == "duckdb" else args.master)):
        if value is not None:
            words += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    words += ["-c"] * args.complete + [f"--column={item}" for item in args.columns] + ["-o", args.output]
    return shlex.join(words)
