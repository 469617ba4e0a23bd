"""``rankkit fuse``: runs fused into one (sql/80_fusion.sql), written as a run file; with ``--sweep``,
fused at every point of a grid and each point judged (rankkit.fusion_sweep)."""

from __future__ import annotations

import argparse
import math

from rankkit.arguments import UsageError, column_mapping, run_arguments
from rankkit.cli.common import check_options, connect, refuse_outputs, stdin_runs


def run(args: argparse.Namespace) -> int:
    from rankkit.fusion import fuse

    weights = _weights(args.weights)
    if args.sweep is None and not args.output:
        raise UsageError("-o FILE: where to write the fused run (or --sweep QRELS -m MEASURE to judge a grid)")
    if args.holdout is not None and args.sweep is None:
        raise UsageError("--holdout holds queries out of a sweep: give --sweep QRELS -m MEASURE too")
    if args.step is not None and args.sweep is None:
        raise UsageError("--step is the step of a sweep's weights: give --sweep QRELS -m MEASURE too")
    if args.sweep is not None and not args.measure:
        raise UsageError("--sweep judges the grid by one measure: give -m, e.g. -m nDCG@10")
    with stdin_runs(args.runs) as given:
        runs = run_arguments(given)
        if args.output:
            refuse_outputs(args, [args.output], run=runs, qrels=args.sweep)
        con = connect(args)
        check_options(args, con, [args.measure] if args.measure else [])
        if args.sweep is not None:
            if args.engine == "spark":
                raise UsageError("--sweep runs on DuckDB: leave out --engine spark")
            return _sweep(args, runs, con)
        fuse(runs, method=args.method, k=args.k, norm=args.norm, weights=weights, depth=args.depth,
             output=args.output, con=con, columns=column_mapping(args), split_by_tag=args.split_by_tag,
             engine=args.engine, master=args.master)
    return 0


def _sweep(args: argparse.Namespace, runs, con) -> int:
    from rankkit._files import write_text
    from rankkit.fusion import fusion_sweep
    from rankkit.safe.terminal import visible

    table = fusion_sweep(args.sweep, runs, args.measure, method=args.method, step=0.1 if args.step is None else args.step, norm=args.norm,
                         depth=args.depth, test=args.test, correction=args.correction, alpha=args.alpha,
                         seed=args.seed, holdout=args.holdout, con=con, columns=column_mapping(args))
    if args.output:
        from rankkit.safe.csv import frame

        write_text(args.output, frame(table).to_csv(index=False))
        return 0
    for line in table.round(4).to_string(index=False).splitlines():
        print(visible(line))
    print(f"best: {visible(table.attrs['best'])}; best single run: {visible(table.attrs['best_single'])} "
          f"({table.attrs['best_single_mean']:.4f}); p: {table.attrs['test']} test, {table.attrs['correction']} "
          "over the grid")
    held = table.attrs.get("holdout")
    if held:
        print(f"held out ({held['queries']} queries): {visible(held['point'])} {held['mean']:.4f} "
              f"[{held['ci_low']:.4f}, {held['ci_high']:.4f}]; against {visible(held['single'])} "
              f"({held['single_mean']:.4f}): {held['diff_single']:+.4f}, p {held['p_single']:.4g}")
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
