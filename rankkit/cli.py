"""The command line: ``rankkit eval`` (trec_eval's options and output), ``compare``, ``macros``, ``demo``.

Every command exits 0 on success and 2 on bad usage or bad input, with one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import shutil
import tempfile
import sys
import warnings
from pathlib import Path
from typing import Callable, Sequence

__all__ = ["main"]

FORMATS = ("trec", "csv", "json", "markdown")


class UsageError(Exception):
    """Bad usage found after argument parsing."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    import duckdb

    from rankkit.errors import RankkitError, RankkitWarning

    said: set[str] = set()

    def show(message, category, *rest, **kwargs):
        if issubclass(category, RankkitWarning):
            if str(message) not in said:  # each run is evaluated twice with -q: say things once
                said.add(str(message))
                print(f"rankkit {args.command}: warning: {message}", file=sys.stderr)
        else:
            shown(message, category, *rest, **kwargs)

    shown = warnings.showwarning
    with warnings.catch_warnings():
        warnings.simplefilter("always", RankkitWarning)
        warnings.showwarning = show
        try:
            return args.run(args) or 0
        except (RankkitError, UsageError) as error:
            print(f"rankkit {args.command}: {_one_line(error)}", file=sys.stderr)
            return 2
        except duckdb.Error as error:  # a DuckDB failure rankkit did not foresee: still one line, no trace
            print(f"rankkit {args.command}: {_one_line(error)}", file=sys.stderr)
            return 2
        except BrokenPipeError:
            return 0


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rankkit", description="Ranking evaluation as DuckDB SQL macros.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, add, run) in COMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        add(sub)
        sub.set_defaults(run=run)
    return parser


def positive_int(text: str) -> int:
    if not re.fullmatch(r"\+?\d+", text.strip()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return int(text)


def number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None


# ---- eval -------------------------------------------------------------------------------------

def _add_eval(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("qrels", help="qrels: TREC text (plain or gzip), CSV/TSV with a header, Parquet file/glob/folder")
    sub.add_argument("runs", nargs="+", metavar="run", help="one or more runs, in the same kinds of file; "
                     "- reads a TREC run from standard input")
    sub.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                     help="a measure (nDCG@10, AP, P(rel=2)@5), a trec_eval name (ndcg_cut_10, map, "
                          "P.5,10, iprec_at_recall..10,.25) or nickname (official, all_trec, set); "
                          "repeatable; default: official, as trec_eval")
    sub.add_argument("-q", action="store_true", dest="per_query", help="also print every query's values")
    sub.add_argument("-c", action="store_true", dest="complete",
                     help="average over every qrels query, those missing from a run scoring 0")
    sub.add_argument("-l", type=number, default=1, dest="rel", metavar="LEVEL",
                     help="relevance level: a grade >= LEVEL is relevant (default 1)")
    sub.add_argument("-M", type=positive_int, default=None, dest="depth", metavar="N",
                     help="keep only the top N documents of each query")
    sub.add_argument("-J", action="store_true", dest="judged_only",
                     help="keep only the documents the qrels judge, ranked among themselves (trec_eval -J)")
    sub.add_argument("-N", type=int, default=0, dest="docs", metavar="N",
                     help="documents in the collection, for utility (trec_eval -N; default 0)")
    sub.add_argument("-n", action="store_false", dest="summary",
                     help="no summary: print per-query values only (with -q)")
    sub.add_argument("--format", choices=FORMATS, default="trec", help="output format (default trec)")
    sub.add_argument("--digits", type=int, default=4, help="decimals printed (default 4)")
    sub.add_argument("--ties", choices=("trec", "rank"), default="trec",
                     help="trec: score then doc_id descending (trec_eval); rank: the run's rank column")
    sub.add_argument("-o", "--output", metavar="FILE",
                     help="write the results to FILE (.parquet, .csv, .tsv, .json, .jsonl) streamed by DuckDB, "
                          "per query with -q; nothing is printed")
    sub.add_argument("--duplicates", choices=("error", "first"), default="error",
                     help="a document listed twice for a query: error (trec_eval) or keep the first")
    _add_inputs(sub)


def _add_inputs(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--column", action="append", dest="columns", metavar="YOURS=OURS", default=[],
                     help="map a column of CSV/Parquet input to rankkit's (query_id, doc_id, relevance, score, "
                          "system, rank), e.g. --column clicks=relevance, or ignore one: --column title=; repeatable")
    sub.add_argument("--memory-limit", metavar="SIZE", help="DuckDB memory limit, e.g. 2GB: larger work spills to disk")
    sub.add_argument("--temp-directory", metavar="DIR", help="where DuckDB spills (default: DuckDB's own)")
    sub.add_argument("--threads", type=positive_int, metavar="N", help="DuckDB threads (default: all cores)")


def _connect(args: argparse.Namespace):
    import rankkit

    return rankkit.connect(memory_limit=args.memory_limit, temp_directory=args.temp_directory, threads=args.threads)


def _columns(args: argparse.Namespace) -> dict[str, str]:
    mapping = {}
    for item in args.columns:
        theirs, sep, ours = item.partition("=")
        if not sep or not theirs.strip():
            raise UsageError(f"--column expects YOURS=OURS such as clicks=relevance (or title= to ignore), got '{item}'")
        mapping[theirs.strip()] = ours.strip() or None
    return mapping


def _run_eval(args: argparse.Namespace) -> int:
    # rows, not frames: printing numbers does not need pandas (half a second to import)
    from rankkit.evaluate import evaluate_rows
    from rankkit.output import write_eval
    from rankkit.trec import expand, family_of

    import rankkit

    names = expand(args.measures or ["official"])
    text = [name for name in names if (family := family_of(name)) is not None and family.text]
    measures = [name for name in names if name not in text]
    con = _connect(args)
    columns = _columns(args)
    qrels = rankkit.read_qrels(args.qrels, con=con, columns=columns, duplicates=args.duplicates)
    options = dict(con=con, rel=args.rel, depth=args.depth, ties=args.ties,
                   queries="qrels" if args.complete else "both", judged_only=args.judged_only, docs=args.docs)
    with _stdin_runs(args.runs) as paths:
        if args.output:
            runs = {Path(path).name: rankkit.read_run(path, con=con, columns=columns, duplicates=args.duplicates,
                                                      system=Path(path).name)
                    for path in paths}
            rankkit.evaluate(qrels, runs, measures, per_query=args.per_query, output=args.output, **options)
            return 0
        frames = []
        for given, path in zip(args.runs, paths):
            # One file is one run, as in trec_eval, which ignores the tag column (it may vary by line).
            run = rankkit.read_run(path, con=con, columns=columns, duplicates=args.duplicates, system=Path(given).name)
            aggregate = evaluate_rows(qrels, run, measures, **options) if measures else []
            per_query = (evaluate_rows(qrels, run, measures, per_query=True, **options) if measures else []
                         ) if args.per_query else None
            aggregate, per_query = _with_text(con, text, path, qrels, run, aggregate, per_query, args)
            frames.append((Path(given).name, aggregate, per_query))
    write_eval(sys.stdout, frames, args.format, args.digits, summary=args.summary)
    return 0


def _with_text(con, text: list[str], path: str, qrels, run, aggregate, per_query, args):
    """The measures whose value is text: runid (the tag of the run file's last line, as trec_eval
    reads it) in the summary, relstring per query."""
    from rankkit.io import last_tag

    if "runid" in text:
        aggregate = [{"measure": "runid", "value": last_tag(path) or Path(path).name}] + aggregate
    for name in (n for n in text if n != "runid"):
        k = int(name.rsplit("_", 1)[1]) if "_" in name else 10
        rows = con.execute(
            "SELECT query_id, value FROM rankkit.relstring(?, ?, k := ?, ties := ?, depth := ?, queries := ?, "
            "judged_only := ?)", [qrels.alias, run.alias, k, args.ties, args.depth,
                                  "qrels" if args.complete else "both", args.judged_only]).fetchall()
        if per_query is not None:
            per_query = per_query + [{"measure": name, "query_id": q, "value": f"'{v}'"} for q, v in rows]
    return aggregate, per_query


@contextlib.contextmanager
def _stdin_runs(runs: list[str]):
    """The runs' paths, '-' (standard input, as trec_eval reads it) copied to a temporary file first."""
    if "-" not in runs:
        yield list(runs)
        return
    if runs.count("-") > 1:
        raise UsageError("standard input (-) can be read once: give - for one run only")
    with tempfile.TemporaryDirectory(prefix="rankkit-stdin-") as folder:
        path = Path(folder) / "stdin"
        with open(path, "wb") as copy:
            shutil.copyfileobj(sys.stdin.buffer, copy)
        yield [str(path) if run == "-" else run for run in runs]


# ---- compare ----------------------------------------------------------------------------------

def _add_compare(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("qrels", help="qrels: TREC text (plain or gzip), CSV/TSV with a header, Parquet file/glob/folder")
    sub.add_argument("runs", nargs="+", metavar="run", help="two or more runs, named by file name")
    sub.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE", required=True,
                     help="a measure (nDCG@10, AP, ...) or trec_eval name; repeatable")
    sub.add_argument("--test", choices=("t", "wilcoxon", "permutation", "bootstrap"), default="t",
                     help="paired test over queries (default t)")
    sub.add_argument("--correction", choices=("none", "bonferroni", "holm", "bh"), default="holm",
                     help="multiple-testing correction over each measure's comparisons (default holm)")
    sub.add_argument("--baseline", metavar="NAME", help="compare every run with this one (a run's file "
                     "name or path); default: every pair")
    sub.add_argument("--alpha", type=number, default=0.05, help="significance level (default 0.05)")
    sub.add_argument("--seed", type=int, default=0, help="seed of the randomised tests and intervals (default 0)")
    sub.add_argument("-c", action="store_true", dest="complete",
                     help="every qrels query, those missing from a run scoring 0")
    sub.add_argument("--ties", choices=("trec", "rank", "average"), default="trec",
                     help="trec: score then doc_id descending (trec_eval); rank: the run's rank column; "
                          "average: expected value over the orderings of equal scores (gain-based measures)")
    sub.add_argument("--digits", type=int, default=4, help="decimals printed (default 4)")
    _add_inputs(sub)


def _run_compare(args: argparse.Namespace) -> int:
    from rankkit.compare import compare, format_comparison

    import rankkit

    measures = args.measures
    names = [Path(path).name for path in args.runs]
    if len(args.runs) < 2 or len(set(names)) < len(names):
        raise UsageError("give two or more run files with different file names")
    baseline = args.baseline
    if baseline is not None and baseline in args.runs:
        baseline = names[args.runs.index(baseline)]
    con = _connect(args)
    columns = _columns(args)
    # one file is one run, whatever its tags say, as in rankkit eval and trec_eval
    runs = {name: rankkit.read_run(path, con=con, columns=columns, system=name)
            for name, path in zip(names, args.runs)}
    result = compare(rankkit.read_qrels(args.qrels, con=con, columns=columns), runs, measures, baseline=baseline, test=args.test,
                     correction=args.correction, alpha=args.alpha, seed=args.seed, con=con,
                     ties=args.ties, queries="qrels" if args.complete else "both")
    sys.stdout.write(format_comparison(result, args.digits))
    return 0


# ---- macros -----------------------------------------------------------------------------------

def _add_macros(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-o", "--output", help="write the script to this file instead of stdout")


def _run_macros(args: argparse.Namespace) -> int:
    from rankkit._sql import script

    if args.output:
        Path(args.output).write_text(script(), encoding="utf-8")
    else:
        sys.stdout.write(script())
    return 0


# ---- measures ---------------------------------------------------------------------------------

def _add_measures(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("name", nargs="?", help="show one measure in full (a name or alias)")


def _run_measures(args: argparse.Namespace) -> int:
    from rankkit.measures import get, params, registry
    from rankkit.trec import NICKNAMES

    if args.name:
        try:
            measure = get(args.name.split("(")[0].split("@")[0])
        except KeyError:
            raise UsageError(f"unknown measure '{args.name}'; rankkit measures lists them") from None
        print(f"{measure.name}: {measure.summary}")
        print(f"  aliases:   {', '.join(measure.aliases) or '-'}")
        print(f"  aggregate: {measure.aggregate}")
        print(f"  cite:      {measure.cite}")
        for name in measure.params:
            param = params()[name]
            print(f"  {name} ({param.type}, default {param.default}): {param.description}")
        print(f"  SQL:       {measure.path.name}")
        return 0
    rows = [(m.name, ", ".join(m.aliases) or "-", ", ".join(m.params) or "-", m.aggregate) for m in registry().values()]
    widths = [max(len(row[i]) for row in rows + [("measure", "aliases", "parameters", "aggregate")]) for i in range(3)]
    print(f"{'measure':<{widths[0]}}  {'aliases':<{widths[1]}}  {'parameters':<{widths[2]}}  aggregate")
    for row in sorted(rows, key=lambda row: row[0].lower()):
        print(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}")
    print()
    print("nicknames (trec_eval's): " + ", ".join(NICKNAMES) + "; a family name alone (P, recall, ndcg_cut ...) "
          "stands for trec_eval's default cutoffs")
    return 0


# ---- demo -------------------------------------------------------------------------------------

def _add_demo(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-o", "--output", default="rankkit-demo", help="folder for the sample data and results")
    sub.add_argument("--queries", type=positive_int, default=300, help="queries in the sample (default 300)")


def _run_demo(args: argparse.Namespace) -> int:
    from rankkit.demo import run_demo

    run_demo(Path(args.output), args.queries, sys.stdout)
    return 0


# ---- check ------------------------------------------------------------------------------------

def _add_check(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("qrels", help="qrels: TREC text, CSV/TSV with a header, or Parquet")
    sub.add_argument("runs", nargs="+", metavar="run", help="one or more runs")
    _add_inputs(sub)


def _run_check(args: argparse.Namespace) -> int:
    from rankkit.check import describe, diagnose

    con = _connect(args)
    columns = _columns(args)
    for path in args.runs:
        for line in describe(diagnose(args.qrels, path, con=con, columns=columns)):
            print(line)
    return 0


COMMANDS: dict[str, tuple[str, Callable, Callable]] = {
    "eval": ("Evaluate runs against qrels, as trec_eval does.", _add_eval, _run_eval),
    "check": ("Check qrels and runs (queries on each side, judged share, duplicates, ties) without evaluating.",
              _add_check, _run_check),
    "compare": ("Compare runs measure by measure with paired significance tests.", _add_compare, _run_compare),
    "measures": ("List every measure with its aliases and parameters (or one in full).", _add_measures, _run_measures),
    "macros": ("Print the SQL macros as one script for the duckdb shell (.read it).", _add_macros, _run_macros),
    "demo": ("Generate the sample data, evaluate two systems on it, write per-query results.", _add_demo, _run_demo),
}

if __name__ == "__main__":
    sys.exit(main())
