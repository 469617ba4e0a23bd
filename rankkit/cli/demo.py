"""``rankkit demo``: the sample data, evaluated and reported; ``--recsys``: the recommender sample."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rankkit.arguments import UsageError


def run(args: argparse.Namespace) -> int:
    from rankkit.demo import RECSYS_FOLDER, run_demo, run_recsys_demo

    if args.recsys:
        if args.queries is not None:
            raise UsageError("--queries sizes the search sample; with --recsys give --users")
        run_recsys_demo(Path(args.output) / RECSYS_FOLDER, args.users or 300, sys.stdout)
    elif args.users is not None:
        raise UsageError("--users sizes the recommender sample: add --recsys")
    else:
        run_demo(Path(args.output), args.queries or 300, sys.stdout)
    return 0
