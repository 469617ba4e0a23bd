"""``rankkit explore``: the explorer served with Voila."""

from __future__ import annotations

import argparse

from rankkit.arguments import run_arguments


def run(args: argparse.Namespace) -> int:
    from rankkit.explore.serve import serve

    return serve(args.qrels, run_arguments(args.runs), measures=args.measures, queries=args.queries, docs=args.docs,
                 port=args.port, split_by_tag=args.split_by_tag, second_qrels=args.second_qrels,
                 max_pages=args.max_pages)
