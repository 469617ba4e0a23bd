"""The command line's arguments: the parser of every command and its options, and the arguments
read as the library takes them (runs, columns, conventions). It sits below the commands and the
report: verify reads a report's recorded command line with this same parser (rankkit.report.call)."""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import Callable, NoReturn, Sequence

__all__ = ["FORMATS", "RUN_FILES", "RUN_HELP", "UsageError", "baseline_name", "column_mapping", "command_parser",
           "conventions_of", "number", "positive_int", "run_arguments"]


FORMATS = ("trec", "csv", "json", "markdown", "markdown-table", "latex")
RUN_FILES = ("in the same kinds of file, each PATH or NAME=PATH; a TREC file is one run named by its stem "
             "(--split-by-tag: one per tag), a table with a system column holds several; a quoted glob of "
             "TREC files ('runs/*.run') is each file it matches, sorted")
RUN_HELP = "one or more runs, " + RUN_FILES


class UsageError(Exception):
    """Bad usage found after argument parsing."""


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its one-line errors (which quote the arguments: 'unrecognized arguments:
    --x\x1b[2J') with control characters visible; its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        from rankkit.safe.terminal import visible

        super().error(visible(message))


def command_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rankkit", description="Ranking evaluation as DuckDB SQL macros.")
    parser.add_argument("--version", action=_Version, nargs=0, help="show rankkit's version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, add) in COMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        add(sub)
    return parser


def _version() -> str:
    from rankkit import __version__

    return __version__


class _Version(argparse.Action):
    """--version, looked up when asked: the lookup reads the installed package's metadata, which
    every other command paid while the parser was built."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs):
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"rankkit {_version()}")
        parser.exit()


def positive_int(text: str) -> int:
    if not re.fullmatch(r"\+?\d+", text.strip()) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return int(text)


def number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):  # nan or inf: no level, alpha or threshold means anything by it
        raise argparse.ArgumentTypeError(f"expected a finite number, got '{text}'")
    return value


def _add_eval(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("qrels", help="qrels: TREC text (plain or gzip), CSV/TSV with a header, Parquet file/glob/folder")
    sub.add_argument("runs", nargs="+", metavar="run", help=RUN_HELP)
    sub.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                     help="a measure (nDCG@10, AP, P(rel=2)@5), a trec_eval name (ndcg_cut_10, map, "
                          "P.5,10, iprec_at_recall..10,.25) or nickname (official, all_trec, set); "
                          "repeatable; default: official, as trec_eval")
    sub.add_argument("-q", action="store_true", dest="per_query", help="also print every query's values")
    _add_conventions(sub, ties=("trec", "rank"))
    sub.add_argument("--baseline", metavar="NAME",
                     help="with --format latex or markdown-table: test every run against this one (paired t-test, "
                          "Holm correction, adjusted p < 0.05) and mark a run with the letter of each run it beats, "
                          "as rankkit report does")
    sub.add_argument("-J", action="store_true", dest="judged_only",
                     help="keep only the documents the qrels judge, ranked among themselves (trec_eval -J)")
    sub.add_argument("-N", type=int, default=0, dest="docs", metavar="N",
                     help="documents in the collection, for utility (trec_eval -N; default 0)")
    sub.add_argument("-n", action="store_false", dest="summary",
                     help="no summary: print per-query values only (with -q)")
    sub.add_argument("--format", choices=FORMATS, default="trec", metavar="FORMAT",
                     help="output format: trec (default), csv, json or markdown print a row per value; "
                          "markdown-table and latex print the summary as a table of systems x measures to paste "
                          "into a paper (LaTeX: a booktabs table float with caption and label), the best mean in "
                          "bold; --baseline adds significance marks")
    sub.add_argument("--digits", type=int, default=None,
                     help="decimals printed (default: 4 in trec, markdown, markdown-table and latex; "
                          "full precision in csv and json)")
    sub.add_argument("-o", "--output", metavar="FILE",
                     help="write the results to FILE (.parquet, .csv, .tsv, .json, .jsonl) streamed by DuckDB: "
                          "the fields --format csv and json print (measure, system, query_id, value, queries), "
                          "full precision unless --digits; nothing is printed")
    sub.add_argument("--duplicates", choices=("error", "first"), default="error",
                     help="a document listed twice for a query: error (trec_eval) or keep the first")
    _add_engine(sub)
    _add_inputs(sub, subtopics=True)
    _add_side_tables(sub)


def _add_side_tables(sub: argparse.ArgumentParser) -> None:
    """--items and --interactions: the side tables of the beyond-accuracy measures (rankkit.beyond)."""
    sub.add_argument("--items", metavar="FILE",
                     help="the catalog for the beyond-accuracy measures (Coverage@10, Gini@10, ILD@10): CSV/TSV/"
                          "Parquet with an item_id column, optionally features (a list of numbers) or category")
    sub.add_argument("--interactions", metavar="FILE",
                     help="the training log for the beyond-accuracy measures (Novelty@10, ARP@10, TailShare@10, "
                          "ILD@10 by co-occurrence): CSV/TSV/Parquet with user_id and item_id columns")


def _add_engine(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--engine", choices=("duckdb", "spark"), default="duckdb",
                     help="duckdb (default), or spark: the files read by Spark and evaluated by Spark SQL (pyspark "
                          "and Java needed); the same output")
    sub.add_argument("--master", default="local[2]", metavar="URL",
                     help="with --engine spark: the Spark master (default local[2], bound to 127.0.0.1)")


def _add_inputs(sub: argparse.ArgumentParser, subtopics: bool = False) -> None:
    sub.add_argument("--column", action="append", dest="columns", metavar="YOURS=OURS", default=[],
                     help="map a column of CSV/Parquet input to rankkit's (query_id, doc_id, relevance, score, "
                          "system, rank), e.g. --column clicks=relevance, or ignore one: --column title=; repeatable")
    sub.add_argument("--memory-limit", metavar="SIZE", help="DuckDB memory limit, e.g. 2GB: larger work spills to disk")
    sub.add_argument("--temp-directory", metavar="DIR", help="where DuckDB spills (default: DuckDB's own)")
    sub.add_argument("--threads", type=positive_int, metavar="N", help="DuckDB threads (default: all cores)")
    sub.add_argument("--split-by-tag", action="store_true",
                     help="make each tag of a TREC run file a system (default: a file is one run, as in trec_eval)")
    # eval alone reads subtopic judgments: compare, report and check offered --subtopics and ignored it, and
    # agree compares two judgment tables, which a measure over subtopic judgments reads neither of
    if not subtopics:
        return
    sub.add_argument("--subtopics", metavar="FILE",
                     help="subtopic judgments for the diversity measures (alpha-nDCG@10, ERR-IA@20, NRBP, ...): "
                          "'query subtopic doc grade' lines as ndeval reads them, or CSV/TSV/Parquet with a subtopic "
                          "column; give the same file as qrels to evaluate against it alone, as ndeval does")


def column_mapping(args: argparse.Namespace) -> dict[str, str]:
    mapping = {}
    for item in args.columns:
        theirs, sep, ours = item.partition("=")
        if not sep or not theirs.strip():
            raise UsageError(f"--column expects YOURS=OURS such as clicks=relevance (or title= to ignore), got '{item}'")
        mapping[theirs.strip()] = ours.strip() or None
    return mapping


def run_arguments(given: Sequence[str]) -> str | dict[str, str]:
    """The runs as evaluate() takes them, named as Python names them: one PATH as it is (its systems
    are what the file holds), or ``{name: path}`` with names from NAME=PATH or the file stem, made
    unique when stems collide. A glob of TREC run files (quoted, so that rankkit sees it: 'runs/*.run')
    is its files, sorted, as if each were given (rankkit.evaluate.run_files)."""
    from rankkit.inputs import run_files, unique_name
    from rankkit.io import run_name

    pairs = []
    for text in given:
        name, sep, path = text.partition("=")
        if not sep or exists(text):
            name, path = "", text
        elif not name or not path:
            raise UsageError(f"a run is PATH or NAME=PATH, got '{text}'")
        files = run_files({name: path} if name else [path])
        pairs += [(name, file) for file in (files.values() if name else files)]
    if len(pairs) == 1 and not pairs[0][0]:
        return pairs[0][1]
    names: list[str] = []
    for name, path in pairs:
        names.append(unique_name(name or run_name(path), names))
    return dict(zip(names, (path for _, path in pairs)))


def exists(path: str) -> bool:
    """Whether a file is there; a name the system cannot hold (longer than 255 bytes: a NAME=PATH whose
    name is long) is none, where Path.exists raises."""
    try:
        return Path(path).exists()
    except OSError:
        return False


def baseline_name(runs: str | dict[str, str], baseline: str | None) -> str | None:
    """The baseline as run_arguments() named it: given by that name, or by the run's path or file name."""
    if isinstance(runs, dict) and baseline is not None and baseline not in runs:
        return next((name for name, path in runs.items() if baseline in (path, Path(path).name)), baseline)
    return baseline


def _add_sql(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--dialect", choices=("duckdb", "spark"), default="duckdb",
                     help="duckdb: for the duckdb shell after rankkit macros; spark: for spark-sql or Databricks SQL, "
                          "no Python on the cluster")
    sub.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE", required=True,
                     help="a measure (nDCG@10, AP, P(rel=2)@5) or a trec_eval name (ndcg_cut_10, map); repeatable")
    sub.add_argument("--qrels", required=True, dest="qrels_table", metavar="TABLE", help="the qrels table (or view) as SQL names it")
    sub.add_argument("--run", required=True, dest="run_table", metavar="TABLE", help="the run table (or view) as SQL names it")
    sub.add_argument("-q", action="store_true", dest="per_query",
                     help="one row per measure, system and query (default: the mean over queries, per system)")
    _add_conventions(sub)
    sub.add_argument("-J", action="store_true", dest="judged_only",
                     help="keep only the documents the qrels judge, ranked among themselves (trec_eval -J)")
    sub.add_argument("-N", type=int, default=0, dest="docs", metavar="N",
                     help="documents in the collection, for utility (trec_eval -N; default 0)")
    sub.add_argument("--column", action="append", dest="columns", metavar="YOURS=OURS", default=[],
                     help="a column of the tables named otherwise than rankkit's (query_id, doc_id, relevance, "
                          "score, system, rank), e.g. --column clicks=relevance; repeatable. An id column is read "
                          "under that name from both tables; the duckdb shell's macros also recognise common names "
                          "themselves (qid, docno, rel ...)")
    sub.add_argument("--no-system", action="store_false", dest="system",
                     help="spark: read no system column (one system, named NULL as in DuckDB) even if the run "
                          "table has one; without it, the statement reads the column where there is one")


def _add_significance(sub: argparse.ArgumentParser, test: str = "paired test over queries",
                      corrected: str = "each measure's comparisons") -> None:
    """--test, --correction and --alpha, as compare, report and agree take them."""
    sub.add_argument("--test", choices=("t", "wilcoxon", "permutation", "bootstrap"), default="t",
                     help=f"{test} (default t)")
    sub.add_argument("--correction", choices=("none", "bonferroni", "holm", "bh"), default="holm",
                     help=f"multiple-testing correction over {corrected} (default holm)")
    sub.add_argument("--alpha", type=number, default=0.05, help="significance level (default 0.05)")


def _add_compare(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("qrels", help="qrels: TREC text (plain or gzip), CSV/TSV with a header, Parquet file/glob/folder")
    sub.add_argument("runs", nargs="+", metavar="run", help=RUN_HELP)
    sub.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE", required=True,
                     help="a measure (nDCG@10, AP, ...) or trec_eval name; repeatable")
    _add_significance(sub)
    sub.add_argument("--baseline", metavar="NAME", help="compare every run with this one (a run's name, "
                     "path or file name); default: every pair")
    sub.add_argument("--seed", type=int, default=0, help="seed of the randomised tests and intervals (default 0)")
    _add_conventions(sub)
    sub.add_argument("--format", choices=("text", "csv", "json"), default=None, metavar="FORMAT",
                     help="text (default: the table with marks), csv (a row per comparison: every number of the "
                          "table, the test, correction, alpha, interval, seed and conventions) or json (the same "
                          "numbers: the settings, then a list of comparisons)")
    sub.add_argument("-o", "--output", metavar="FILE",
                     help="write to FILE (.txt, .csv, .tsv or .json: the suffix says the format) instead of printing")
    sub.add_argument("--digits", type=int, default=None,
                     help="decimals (default: 4 in text, full precision in csv and json)")
    _add_engine(sub)  # spark: the per-query values computed by Spark, compared as on DuckDB
    _add_inputs(sub)
    _add_side_tables(sub)


def _add_agree(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("qrels_a", help="the reference judgments: TREC text, CSV/TSV with a header, Parquet")
    sub.add_argument("qrels_b", help="the judgments compared with them (another judge, an LLM ...)")
    sub.add_argument("runs", nargs="*", metavar="run",
                     help="runs, to compare the leaderboards each judgment table gives (with -m): two or more "
                          "systems, each one's value and place under each table and the pairs swapped, and for "
                          "three or more the rank correlations; " + RUN_FILES)
    sub.add_argument("-m", "--measure", dest="measure", metavar="MEASURE",
                     help="the measure of the leaderboards (nDCG@10, AP, ...); required with runs")
    sub.add_argument("--threshold", type=number, default=1,
                     help="the grade from which a document is relevant, for Cohen's kappa (default 1)")
    sub.add_argument("--top", type=positive_int, metavar="K",
                     help="also compare the leaderboards among the K best systems under QRELS_A")
    sub.add_argument("-q", action="store_true", dest="per_query",
                     help="also print every query's label agreement (after the summary)")
    sub.add_argument("--one-sided", action="store_true",
                     help="also list every pair judged by one table only (the summary counts them: only_a, only_b)")
    sub.add_argument("--ci", type=number, default=None, metavar="LEVEL",
                     help="with runs: each correlation's percentile bootstrap interval over queries at this level "
                          "(e.g. 0.95; 1000 draws)")
    _add_significance(sub, test="paired test under QRELS_A saying which swapped pairs differ significantly",
                      corrected="every pair of systems")
    sub.add_argument("--seed", type=int, default=0, help="seed of the randomised tests and intervals (default 0)")
    sub.add_argument("--format", choices=("trec", "csv", "json"), default="trec", metavar="FORMAT",
                     help="trec (default: name, scope, value per line), csv or json (section, name, scope, value)")
    sub.add_argument("--digits", type=int, default=None,
                     help="decimals printed (default: 4 in trec, full precision in csv and json)")
    _add_conventions(sub, ties=("trec", "rank"))
    _add_inputs(sub)


def _add_report(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("qrels", help="qrels: TREC text (plain or gzip), CSV/TSV with a header, Parquet file/glob/folder")
    sub.add_argument("runs", nargs="+", metavar="run", help=RUN_HELP)
    sub.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE", required=True,
                     help="a measure (nDCG@10, AP, ...) or trec_eval name; repeatable")
    sub.add_argument("-o", "--output", metavar="FILE", required=True,
                     help="the report: .html, .md, .tex (a document for pdflatex), .csv, .json or .parquet")
    sub.add_argument("--baseline", metavar="NAME", help="compare every run with this one (a run's name, "
                     "path or file name); default: every pair")
    _add_significance(sub)
    sub.add_argument("--ci", type=number, default=0.95, help="level of the percentile bootstrap interval of each "
                     "aggregate, as evaluate(ci=) gives it (default 0.95; 0: none); the comparison's intervals, "
                     "of the differences, follow --test")
    sub.add_argument("--seed", type=int, default=0, help="seed of the randomised tests and intervals (default 0)")
    sub.add_argument("--by", metavar="COLUMN", help="also split the aggregate by this column of --queries")
    sub.add_argument("--queries", metavar="FILE", help="query table (CSV/TSV/Parquet) with query_id and attribute columns")
    sub.add_argument("--title", help="the report's title")
    sub.add_argument("--second-qrels", metavar="QRELS_B",
                     help="a second judgment table (another judge, an LLM): the report gains an agreement section "
                          "(kappa, alpha, and with three runs or more the two leaderboards under the first measure, "
                          "their correlations and swapped pairs), as rankkit agree computes it")
    sub.add_argument("--sweep", metavar="METHOD", help="add a fusion sweep of the runs (wsum, wmnz or rrf; rankkit "
                     "fuse --sweep's): each grid point judged against the best point and the best single run, drawn as "
                     "a line or a heat map")
    sub.add_argument("--sweep-measure", metavar="MEASURE", help="with --sweep: the measure judging the grid "
                                                                "(default the first -m)")
    sub.add_argument("--sweep-step", type=number, metavar="STEP", help="with --sweep: the weights' step (default 0.1)")
    sub.add_argument("--sweep-norm", metavar="NORM", help="with --sweep: the runs' normalisation (as fuse --norm)")
    sub.add_argument("--sweep-holdout", type=number, metavar="FRACTION",
                     help="with --sweep: hold out this fraction of the queries and measure the best point on them")
    _add_conventions(sub)
    _add_engine(sub)
    _add_inputs(sub)
    _add_side_tables(sub)


def sweep_of(args: argparse.Namespace) -> dict | None:
    """report's sweep= from --sweep and its options (those not given take fusion_sweep's defaults)."""
    given = {"measure": args.sweep_measure, "step": args.sweep_step, "norm": args.sweep_norm,
             "holdout": args.sweep_holdout}
    if args.sweep is None:
        if any(value is not None for value in given.values()):
            raise UsageError("--sweep-measure, --sweep-step, --sweep-norm and --sweep-holdout go with --sweep METHOD")
        return None
    return {"method": args.sweep, **{name: value for name, value in given.items() if value is not None}}


TIE_RULES = {"trec": "score then doc_id descending (trec_eval)", "rank": "the run's rank column",
             "average": "expected value over the orderings of equal scores (gain-based measures)"}


def _add_conventions(sub: argparse.ArgumentParser, ties: tuple[str, ...] = tuple(TIE_RULES)) -> None:
    """trec_eval's -c, -l, -M and the tie rule: the options that make rankkit.Conventions."""
    sub.add_argument("-c", action="store_true", dest="complete",
                     help="every qrels query, those missing from a run scoring 0 (--query-set qrels)")
    sub.add_argument("--query-set", choices=("both", "qrels", "run"), default=None, dest="query_set",
                     help="query set: both (default), qrels (-c) or run (every query of the run, those the qrels lack "
                          "scored by each measure's empty rule, as torchmetrics and LensKit)")
    sub.add_argument("-l", type=number, default=1, dest="rel", metavar="LEVEL",
                     help="relevance level: a grade >= LEVEL is relevant (default 1)")
    sub.add_argument("-M", type=positive_int, default=None, dest="depth", metavar="N",
                     help="keep only the top N documents of each query")
    sub.add_argument("--ties", choices=ties, default="trec",
                     help="; ".join(f"{rule}: {TIE_RULES[rule]}" for rule in ties))
    sub.add_argument("--conventions", default=None, metavar="LIBRARY",
                     help="a library's conventions and measure parameters by its name (recbole, recommenders, spark, "
                          "torchmetrics, lenskit; rankkit measures NAME says what each changes): its numbers")


def query_set(args: argparse.Namespace) -> str:
    """The query set -c and --query-set ask for (both when neither is given)."""
    if args.complete and getattr(args, "query_set", None) not in (None, "qrels"):
        raise UsageError(f"-c is --query-set qrels; it cannot go with --query-set {args.query_set}")
    return "qrels" if args.complete else getattr(args, "query_set", None) or "both"


def conventions_of(args: argparse.Namespace):
    from rankkit.conventions import Conventions

    from rankkit.conventions import resolve_conventions

    given = dict(rel=args.rel, depth=args.depth, ties=args.ties, queries=query_set(args))
    return resolve_conventions(args.conventions, **given) if args.conventions else Conventions(**given)


def _add_verify(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("report", help="a report saved as JSON (rankkit report ... -o report.json)")
    sub.add_argument("-o", "--output", metavar="FILE",
                     help="when it holds, write the report made again from the inputs (.html, .md, .tex, .csv, .json "
                          "or .parquet): its numbers are the recomputed ones, never the file's")


def _add_macros(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-o", "--output", help="write the script to this file instead of stdout")


def _add_measures(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("name", nargs="?", help="show one measure in full (a name or alias)")


def _add_demo(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-o", "--output", default="rankkit-demo", help="folder for the sample data and results")
    sub.add_argument("--queries", type=positive_int, help="queries in the sample (default 300)")
    sub.add_argument("--recsys", action="store_true",
                     help="the recommender sample instead, in OUTPUT/recsys: interactions, a train/test split by "
                          "time, an items catalog and two recommenders' top 20, as Parquet, evaluated and compared")
    sub.add_argument("--users", type=positive_int, help="users in the recommender sample (default 300)")


def _add_check(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("qrels", help="qrels: TREC text, CSV/TSV with a header, or Parquet")
    sub.add_argument("runs", nargs="+", metavar="run", help="one or more runs")
    _add_inputs(sub)


def _add_explore(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("qrels", help="qrels: TREC text (plain or gzip), CSV/TSV with a header, Parquet")
    sub.add_argument("runs", nargs="+", metavar="run", help=RUN_HELP)
    sub.add_argument("--split-by-tag", action="store_true",
                     help="make each tag of a TREC run file a system (default: a file is one run, as in trec_eval)")
    sub.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                     help="a measure to offer (repeatable; the first is shown); default: every measure, nDCG@10 shown")
    sub.add_argument("--queries", metavar="FILE", help="CSV/TSV/Parquet with query_id and text and/or attribute columns")
    sub.add_argument("--docs", metavar="FILE", help="CSV/TSV/Parquet with doc_id and text (or title)")
    sub.add_argument("--second-qrels", metavar="QRELS",
                     help="a second judgment table (B): every value under both, and a query's ranks with both labels, "
                          "the documents labelled differently marked")
    sub.add_argument("--port", type=positive_int, help="port on 127.0.0.1 (default: a free one)")
    sub.add_argument("--max-pages", type=positive_int, default=4, metavar="N",
                     help="pages served at once, each a kernel of some 300 MB (default: 4); one more gets an error page")


def _add_fuse(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("runs", nargs="+", metavar="run", help="two or more runs to fuse, " + RUN_FILES)
    sub.add_argument("-o", "--output", metavar="FILE",
                     help="the fused run: TREC text, or .parquet, .csv, .tsv, .json by the suffix; never an input "
                          "(required unless --sweep; with --sweep, the table as CSV)")
    sub.add_argument("--method", default="rrf",
                     help="rrf (default), isr, combsum, combmnz, combmax, combmin, combmed, combanz, wsum, wmnz, "
                          "borda or condorcet (sql/80_fusion.sql cites each)")
    sub.add_argument("-k", type=number, default=60, help="rrf's constant: each run adds 1 / (k + rank) (default 60)")
    sub.add_argument("--norm", help="each run's scores normalised per query before a score method fuses them: none, "
                                    "min-max (default), max, sum, zmuv, rank, borda or dbsf")
    sub.add_argument("--weights", metavar="W,W,...", help="one weight per run, in the order given (wsum and wmnz "
                                                          "need them, rrf takes them)")
    sub.add_argument("--depth", type=positive_int, metavar="N", help="fuse each run's top N documents per query")
    sub.add_argument("--sweep", metavar="QRELS",
                     help="instead of fusing once, fuse at every point of a grid and judge each against the best "
                          "point and the best single run under these qrels (wsum, wmnz: weights on the simplex in "
                          "--step; rrf: k in 1, 5, 10, 20, 60)")
    sub.add_argument("-m", "--measure", metavar="MEASURE", help="with --sweep: the measure (nDCG@10, AP ...)")
    sub.add_argument("--step", type=number, help="with --sweep: the weights' step (default 0.1)")
    sub.add_argument("--holdout", type=number, metavar="FRACTION",
                     help="with --sweep: hold out this fraction of the queries (0.5: half), tune on the others and "
                          "report the best point on the held-out ones (drawn with --seed)")
    _add_significance(sub, test="paired test of each point against the best point and the best single run",
                      corrected="the points of the grid")
    sub.add_argument("--seed", type=int, default=0, help="seed of the randomised tests and intervals (default 0)")
    _add_engine(sub)  # spark: the runs read and fused by Spark (not --sweep, nor borda and condorcet)
    _add_inputs(sub)


# every command, its help and its options; rankkit/cli/<command>.py runs it
COMMANDS: dict[str, tuple[str, Callable]] = {
    "eval": ("Evaluate runs against qrels, as trec_eval does.", _add_eval),
    "check": ("Check qrels and runs (queries on each side, judged share, duplicates, ties) without evaluating.",
              _add_check),
    "compare": ("Compare runs measure by measure with paired significance tests.", _add_compare),
    "agree": ("Do two judgment tables agree: on the labels (kappa, alpha, one-sided pairs) and, given runs, on "
              "the leaderboards (Kendall's tau, tau_AP, swapped pairs).", _add_agree),
    "fuse": ("Fuse runs into one (RRF, CombSUM, Borda ...), written as a run that eval, compare and report read.",
             _add_fuse),
    "measures": ("List every measure with its aliases and parameters (or one in full).", _add_measures),
    "report": ("Write a report (aggregate with intervals and significance, comparison, per-query values, "
               "judgment coverage, how it was made) as HTML, Markdown, LaTeX, CSV, JSON or Parquet.",
               _add_report),
    "verify": ("Recompute a saved report (JSON) from the inputs it records; exit 1 when a value differs.",
               _add_verify),
    "sql": ("Print the one SQL statement computing measures over a qrels and a run table, for the duckdb shell or "
            "Spark SQL.", _add_sql),
    "macros": ("Print the SQL macros as one script for the duckdb shell (.read it).", _add_macros),
    "demo": ("Generate the sample data, evaluate two systems on it, write per-query results and a report, and "
             "the files the documentation's examples read (run.csv, run.parquet, topics.csv, rankkit.sql).",
             _add_demo),
    "explore": ("Serve the explorer (per-query plots, system against system, traces) on 127.0.0.1 with Voila.",
                _add_explore),
}
