"""``rankkit fuse``: runs fused into one (sql/80_fusion.sql), written as a run file."""

from __future__ import annotations

import argparse
import math

from rankkit.arguments import UsageError, column_mapping, run_arguments
from rankkit.cli.common import check_options, connect, refuse_outputs, stdin_runs


def run(args: argparse.Namespace) -> int:
    from rankkit.fusion import fuse

    weights = _weights(args.weights)
    with stdin_runs(args.runs) as given:
        runs = run_arguments(given)
        refuse_outputs(args, [args.output], run=runs)
        con = connect(args)
        check_options(args, con)
        fuse(runs, method=args.method, k=args.k, norm=args.norm,
             weights=weights, depth=args.depth, output=args.output, con=con, columns=column_mapping(args),
             split_by_tag=args.split_by_tag)
    return 0


def _weights(text: str | None) -> list[float] | None:
    """--weights 0.3,0.7: one finite number per run."""
    if text is None:
        return None
    try:
        weights = [float(part) for part in text.split(",")]
    except ValueError:
        weights = [math.nan]
    if not all(math.isfinite(w) for w in weights):
        raise UsageError(f"--weights {text}: expected numbers separated by commas, one per run, such as 0.3,0.7")
    return weights
