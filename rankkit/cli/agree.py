"""``rankkit agree``: two judgment tables compared, on their labels and on the leaderboards they give."""

from __future__ import annotations

import argparse
import sys

from rankkit.arguments import UsageError, column_mapping, conventions_of, run_arguments
from rankkit.cli.common import check_options, connect


def run(args: argparse.Namespace) -> int:
    from rankkit.agreement import agreement, leaderboard_agreement
    from rankkit.agreement_output import agreement_rows, write_agreement
    from rankkit.safe.terminal import visible

    if args.runs and not args.measure:
        raise UsageError("runs are compared by one measure: give -m, e.g. -m nDCG@10")
    if args.measure and not args.runs:
        raise UsageError("-m names the measure of the leaderboards: give two or more runs after the two qrels")
    con = connect(args)
    check_options(args, con, [args.measure] if args.measure else [])
    columns = column_mapping(args)
    labels = agreement(args.qrels_a, args.qrels_b, threshold=args.threshold, seed=args.seed, con=con, columns=columns)
    boards = None
    if args.runs:
        boards = leaderboard_agreement(args.qrels_a, args.qrels_b, run_arguments(args.runs), args.measure,
                                       top=args.top, test=args.test, correction=args.correction, alpha=args.alpha,
                                       ci=args.ci, seed=args.seed, resamples=1000 if args.ci else 10000, con=con,
                                       conventions=conventions_of(args), columns=columns)
    rows = agreement_rows(labels, boards, per_query=args.per_query, one_sided=args.one_sided)
    write_agreement(sys.stdout, rows, args.format, args.digits)
    if labels.only_a + labels.only_b and not args.one_sided:
        print(f"rankkit agree: {labels.only_a + labels.only_b} pairs judged by one table only ({labels.only_a} by "
              f"{visible(args.qrels_a)}, {labels.only_b} by {visible(args.qrels_b)}) are left out of the measures: "
              f"--one-sided lists them, -q counts them per query", file=sys.stderr)
    return 0
