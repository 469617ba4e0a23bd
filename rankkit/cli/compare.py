"""``rankkit compare``: runs compared measure by measure with paired significance tests."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rankkit.arguments import UsageError, baseline_name, column_mapping, conventions_of, run_arguments
from rankkit.beyond import refuse_missing, split
from rankkit.cli.common import check_options, connect, refuse_beyond_on_spark, refuse_outputs


def run(args: argparse.Namespace) -> int:
    import io

    from rankkit._files import write_text
    from rankkit.compare import compare, write_comparison

    import rankkit

    fmt = _compare_format(args)  # a wrong suffix or format is said before the inputs are read
    measures = args.measures
    runs = run_arguments(args.runs)
    if args.output:
        refuse_outputs(args, [args.output], qrels=args.qrels, run=runs)
    baseline = baseline_name(runs, args.baseline)
    names, beyond = split(measures)
    refuse_beyond_on_spark(args, beyond)
    refuse_missing(beyond, {side for side in ("items", "interactions") if getattr(args, side)})
    con = connect(args)
    check_options(args, con, names, runs)
    columns = column_mapping(args)
    if args.engine == "spark":
        result = _on_spark(args, runs, names, baseline)
    else:
        # the same runs and names as rankkit eval and Python: a TREC file is one run, whatever its tags say
        result = compare(rankkit.read_qrels(args.qrels, con=con, columns=columns), runs, measures, baseline=baseline,
                         test=args.test, correction=args.correction, alpha=args.alpha, seed=args.seed, con=con,
                         conventions=conventions_of(args), columns=columns, split_by_tag=args.split_by_tag,
                         items=args.items, interactions=args.interactions)
    if not args.output:
        write_comparison(sys.stdout, result, fmt, args.digits)
        return 0
    text = io.StringIO()
    write_comparison(text, result, fmt, args.digits)
    write_text(args.output, text.getvalue())
    return 0


def _on_spark(args: argparse.Namespace, runs, measures: list[str], baseline: str | None):
    """The comparison of per-query values computed by Spark on --master (the files read by Spark)."""
    from rankkit import spark

    spark.require_pyspark()
    return spark.compare_files(spark.session(args.master), args.qrels, runs, measures, baseline, conventions_of(args),
                               columns=column_mapping(args), split_by_tag=args.split_by_tag, test=args.test,
                               correction=args.correction, alpha=args.alpha, seed=args.seed, resamples=10000)


def _compare_format(args: argparse.Namespace) -> str:
    """compare's format: --format, or -o's suffix (a --format saying otherwise is refused)."""
    from rankkit.compare import OUTPUTS

    if not args.output:
        return args.format or "text"
    suffix = Path(args.output).suffix.lower()
    if suffix not in OUTPUTS:
        raise UsageError(f"-o {args.output}: compare writes {', '.join(OUTPUTS)}; the suffix says which")
    if args.format is not None and args.format != OUTPUTS[suffix]:
        raise UsageError(f"--format {args.format} and -o {args.output} disagree: the suffix says the format of -o "
                         f"(leave --format out)")
    return OUTPUTS[suffix]
