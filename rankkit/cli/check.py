"""``rankkit check``: qrels and runs described without evaluating."""

from __future__ import annotations

import argparse

from rankkit.arguments import column_mapping, run_arguments
from rankkit.cli.common import check_options, connect


def run(args: argparse.Namespace) -> int:
    from rankkit.check import describe_qrels, describe_run, diagnose

    con = connect(args)
    check_options(args, con)
    columns = column_mapping(args)
    runs = run_arguments(args.runs)
    # each run as eval reads it, under the name eval gives it; the qrels' line once, before the first
    for i, one in enumerate([{name: path} for name, path in runs.items()] if isinstance(runs, dict) else [runs]):
        found = diagnose(args.qrels, one, con=con, columns=columns, split_by_tag=args.split_by_tag)
        print("\n".join([describe_qrels(found)] * (i == 0) + describe_run(found)))
    return 0
