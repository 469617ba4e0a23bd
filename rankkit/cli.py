"""The command line: ``rankkit eval`` (trec_eval's options and output), ``compare``, ``agree``, ``macros``, ``demo``.

Every command exits 0 on success and 2 on bad usage or bad input, with one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import warnings
from pathlib import Path
from typing import Callable, NoReturn, Sequence

__all__ = ["main"]

FORMATS = ("trec", "csv", "json", "markdown", "markdown-table", "latex")
RUN_FILES = ("in the same kinds of file, each PATH or NAME=PATH; a TREC file is one run named by its stem "
             "(--split-by-tag: one per tag), a table with a system column holds several; a quoted glob of "
             "TREC files ('runs/*.run') is each file it matches, sorted")
RUN_HELP = "one or more runs, " + RUN_FILES


class UsageError(Exception):
    """Bad usage found after argument parsing."""


_opened: list = []  # the command's DuckDB connections (_connect), left open to the end of main


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _main(argv)
    finally:
        opened = list(_opened)
        _opened.clear()
        if "rankkit.io.files" in sys.modules:  # the plain copies of pipes and gzip files: os._exit runs no atexit
            sys.modules["rankkit.io.files"].remove_copies()
    # Spark's session stops in Python's teardown (atexit): with --engine spark the process ends as usual
    if argv is None and "pyspark" not in sys.modules:
        _leave(code, opened)
    return code


def _leave(code: int, opened: list) -> NoReturn:
    """End the command line's own process. Python's teardown would close DuckDB (its threads joined)
    and collect every object the imports made, a noticeable part of a `rankkit eval`. What
    must happen at exit happens here first: a connection that spilled to disk is closed (DuckDB
    deletes its temporary files then), the output is flushed. Not for a caller of main([...]): its
    process goes on."""
    for con in opened:
        try:
            spilled = con.execute("SELECT count(*) FROM duckdb_temporary_files()").fetchall()[0][0]
        except Exception:  # noqa: BLE001 - a connection in a bad state is closed, whatever it holds
            spilled = True
        if spilled:
            con.close()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (rankkit eval | head) ends quietly
            stream.flush()
    os._exit(code)


def _main(argv: Sequence[str] | None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    from rankkit import _engine as duckdb
    from rankkit.errors import RankkitError, RankkitWarning
    from rankkit.safe.terminal import visible

    said: set[str] = set()

    def show(message, category, *rest, **kwargs):
        if issubclass(category, RankkitWarning):
            if str(message) not in said:  # each run is evaluated twice with -q: say things once
                said.add(str(message))
                print(f"rankkit {args.command}: warning: {visible(cli_syntax(str(message)))}", file=sys.stderr)
        else:
            shown(message, category, *rest, **kwargs)

    shown = warnings.showwarning
    with warnings.catch_warnings():
        warnings.simplefilter("always", RankkitWarning)
        warnings.showwarning = show
        try:
            return args.run(args) or 0
        except (RankkitError, UsageError) as error:
            message = _one_line(error)
            if not hasattr(args, "duplicates"):  # the readers' advice names an option this command has not
                message = _NO_DUPLICATES_OPTION.sub("", message)
            print(f"rankkit {args.command}: {visible(cli_syntax(message))}", file=sys.stderr)
            return 2
        except duckdb.Error as error:  # a DuckDB failure rankkit did not foresee: still one line, no trace
            print(f"rankkit {args.command}: {visible(_one_line(error))}", file=sys.stderr)
            return 2
        except BrokenPipeError:
            return 0


def _one_line(error: Exception) -> str:
    """The message on one line (DuckDB's spans several). Only spaces and newlines are joined: any
    other control character is left for safe.terminal.visible to show (RankkitError's are already)."""
    return re.sub(r"[ \n]+", " ", str(error)).strip()


# The readers' hints name Python arguments; on the command line the same advice is an option.
_HINTS = [
    (re.compile(r"""columns=\{(['"])([^'"]*)\1: None\}"""), lambda m: f"--column {m.group(2)}="),
    (re.compile(r"""columns=\{(['"])([^'"]*)\1: (['"])([^'"]*)\3\}"""), lambda m: f"--column {m.group(2)}={m.group(4)}"),
    (re.compile(r"""duplicates=(['"])first\1"""), lambda m: "--duplicates first"),
    (re.compile(r"""queries=(['"])qrels\1, trec_eval -c,"""), lambda m: "-c"),
    (re.compile(r"""queries=(['"])qrels\1"""), lambda m: "-c"),
    (re.compile(r"""ties=(['"])(\w+)\1"""), lambda m: f"--ties {m.group(2)}"),
    (re.compile(r""" \(integer_grades=True does too\)"""), lambda m: ""),
    # the command line reads files only: a missing one was never meant as a table
    (re.compile(r", and no table or view of that name"), lambda m: ""),
]


# The readers' advice on a duplicate document, dropped where the command has no --duplicates (agree,
# compare, report refuse duplicates: a judgment or a ranking listed twice is a question for its author)
_NO_DUPLICATES_OPTION = re.compile(r""" \(duplicates=(['"])first\1 keeps the first\)""")


# the temporary copies of standard input (see _stdin_runs), and how messages name them
_STDIN_COPIES: dict[str, str] = {}


def _read_once(run: str) -> str:
    """A run argument (PATH or NAME=PATH) naming a pipe, naming its plain copy instead (rankkit.io.files)."""
    from rankkit.io.files import plain_copy

    name, sep, path = ("", "", run) if Path(run).exists() else run.partition("=")
    given = Path(path)
    if run == "-" or not given.exists() or given.is_file() or given.is_dir():
        return run
    return f"{name}{sep}{plain_copy(given)}"


def cli_syntax(message: str) -> str:
    """A message from the library with its Python hints said as command-line options, and a copy
    of standard input named as the user gave it."""
    for pattern, option in _HINTS:
        message = pattern.sub(option, message)
    for path, name in _STDIN_COPIES.items():
        message = message.replace(path, name)
    if "rankkit.io.files" in sys.modules:  # a pipe's plain copy, named as given
        message = sys.modules["rankkit.io.files"].as_given(message)
    return message


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its one-line errors (which quote the arguments: 'unrecognized arguments:
    --x\x1b[2J') with control characters visible; its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        from rankkit.safe.terminal import visible

        super().error(visible(message))


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rankkit", description="Ranking evaluation as DuckDB SQL macros.")
    parser.add_argument("--version", action=_Version, nargs=0, help="show rankkit's version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, add, run) in COMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=help_text)
        add(sub)
        sub.set_defaults(run=run)
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
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None


# ---- eval -------------------------------------------------------------------------------------

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


def _connect(args: argparse.Namespace, lean: bool = False):
    from rankkit._sql import engine_connection

    con = engine_connection(memory_limit=args.memory_limit, temp_directory=args.temp_directory, threads=args.threads,
                            lean=lean)
    _opened.append(con)
    return con


def _columns(args: argparse.Namespace) -> dict[str, str]:
    mapping = {}
    for item in args.columns:
        theirs, sep, ours = item.partition("=")
        if not sep or not theirs.strip():
            raise UsageError(f"--column expects YOURS=OURS such as clicks=relevance (or title= to ignore), got '{item}'")
        mapping[theirs.strip()] = ours.strip() or None
    return mapping


def _check_options(args: argparse.Namespace, con, measures: Sequence[str] = (), runs=None) -> None:
    """The options' values checked before any input is read, so that a bad one is the command's first
    and only message, never said after a warning about the inputs: the column mapping, the measures
    (with -l and -N), the digits, the test, correction, alpha and interval level, -o's format and the
    baseline (when the runs given name every system)."""
    from rankkit.copying import OUTPUT_FORMATS
    from rankkit.input_checks import refuse_without_subtopics
    from rankkit.specs import measure_specs

    _columns(args)
    if getattr(args, "digits", None) is not None and args.digits < 0:
        raise UsageError(f"--digits {args.digits}: expected a number of decimals, 0 or more")
    if args.command == "agree" and measures:  # its own words: the leaderboards read neither judgment table
        from rankkit.agreement import refuse_subtopic_measures

        refuse_subtopic_measures(con, measures[0])
    elif measures:
        specs = measure_specs(con, list(measures), rel=getattr(args, "rel", 1), docs=getattr(args, "docs", 0))
        if getattr(args, "subtopics", None) is None:
            refuse_without_subtopics(specs)
    if hasattr(args, "test"):  # (compare loads pandas: eval's path never needs it)
        from rankkit.compare import check_options

        check_options(args.test, args.correction, args.alpha)
    if getattr(args, "ci", None) and not 0 < args.ci < 1:
        raise UsageError(f"--ci {args.ci:g}: expected a level between 0 and 1, such as 0.95")
    output = getattr(args, "output", None)
    if args.command == "eval" and output and Path(output).suffix.lower() not in OUTPUT_FORMATS:
        raise UsageError(f"-o {output}: the suffix says the format, one of {', '.join(OUTPUT_FORMATS)}")
    named = baseline_name(runs, getattr(args, "baseline", None)) if isinstance(runs, dict) else None
    if named is not None and not any(named == name or named.startswith(f"{name}/") for name in runs):
        raise UsageError(f"baseline '{args.baseline}' is not one of the systems: {', '.join(runs)}")


def run_arguments(given: Sequence[str]) -> str | dict[str, str]:
    """The runs as evaluate() takes them, named as Python names them: one PATH as it is (its systems
    are what the file holds), or ``{name: path}`` with names from NAME=PATH or the file stem, made
    unique when stems collide. A glob of TREC run files (quoted, so that rankkit sees it: 'runs/*.run')
    is its files, sorted, as if each were given (rankkit.inputs.run_files)."""
    from rankkit.inputs import run_files, unique_name
    from rankkit.io import run_name

    pairs = []
    for text in given:
        name, sep, path = text.partition("=")
        if not sep or _exists(text):
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


def _exists(path: str) -> bool:
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


def _refuse_inputs(args: argparse.Namespace, outputs: list[str], **inputs) -> None:
    """An output that is one of the command's inputs (however spelled: a link, a hard link, a glob's
    file), refused before anything is read or written: -o would replace what it reads."""
    from rankkit._files import named_inputs, refuse_inputs

    given = named_inputs(**inputs)
    if "-" in getattr(args, "runs", []) and os.path.exists("/dev/stdin"):  # `-o run.csv - < run.csv`
        given.append(("standard input", "/dev/stdin"))
    refuse_inputs([("-o", output) for output in outputs], given)


def _run_eval(args: argparse.Namespace) -> int:
    # rows, not frames: printing numbers does not need pandas (half a second to import)
    from rankkit.evaluate import evaluate_file, evaluate_rows
    from rankkit.io.sources import read_table
    from rankkit.output import TABLES, write_eval
    from rankkit.trec import expand, family_of

    if args.format in TABLES and (args.per_query or not args.summary):
        raise UsageError(f"--format {args.format} prints the summary of each system (a table of systems x measures): "
                         f"-q and -n print per-query values, in --format trec, csv, json or markdown")
    names = expand(args.measures or ["official"])
    if args.engine == "spark" and (args.output or args.baseline is not None):
        raise UsageError("--engine spark prints the evaluation: -o and --baseline run on DuckDB")
    text = [name for name in names if (family := family_of(name)) is not None and family.text]
    measures = [name for name in names if name not in text]
    if args.baseline is not None:
        return _marked_table(args, measures)
    # the text measures (rankkit.relstring) and the diversity ones (their table macros) read macros
    # written for SQL users: the lean connection has only those of rankkit's own statements
    if args.output:
        _refuse_inputs(args, [args.output], qrels=args.qrels, run=run_arguments(args.runs), subtopics=args.subtopics)
    con = _connect(args, lean=not text and args.subtopics is None)
    _check_options(args, con, measures or ["num_q"])
    columns = _columns(args)
    if _qrels_are_subtopics(args) and len(measures) < len(names):
        raise UsageError(f"{', '.join(text)} read plain qrels; with the subtopic judgments as qrels, give them apart")
    # --engine spark: Spark reads the files (relstring, a text measure, reads the qrels on DuckDB)
    if _qrels_are_subtopics(args):
        qrels = None
    elif args.engine == "spark":
        qrels = args.qrels
    else:
        qrels = read_table(con, args.qrels, "qrels", columns=columns, duplicates=args.duplicates)
    options = dict(con=con, rel=args.rel, depth=args.depth, ties=args.ties, columns=columns,
                   duplicates=args.duplicates, split_by_tag=args.split_by_tag,
                   queries="qrels" if args.complete else "both", judged_only=args.judged_only, docs=args.docs,
                   subtopics=args.subtopics)
    with _stdin_runs(args.runs) as given:
        runs = run_arguments(given)
        if args.output:
            if args.per_query and qrels is not None:
                _refuse_aggregate_query(con, qrels, args.qrels)
            evaluate_file(qrels, runs, measures or ["num_q"], args.output, per_query=args.per_query,
                          summary=args.summary, digits=args.digits, **options)
            return 0
        # one evaluation of every run, the same as Python's: each system printed apart, in the order given
        evaluated = _spark_rows(args, con, measures) if args.engine == "spark" else evaluate_rows
        systems, aggregate, per_query = evaluated(qrels, runs, measures or ["num_q"], per_query=args.per_query,
                                                  **options)
        if not measures:  # text measures only: num_q only named the systems
            aggregate, per_query = [], None if per_query is None else []
        aggregate, per_query = _with_text(con, text, systems, runs, qrels, aggregate, per_query, args)
    frames = [(system, [row for row in aggregate if row["system"] == system],
               None if per_query is None else [row for row in per_query if row["system"] == system])
              for system in systems]
    write_eval(sys.stdout, frames, args.format, args.digits, summary=args.summary, where=args.qrels)
    return 0


def _refuse_aggregate_query(con, qrels: str, label: str) -> None:
    """-q -o FILE: a query named all would read as a system's aggregate, which the file names so."""
    from rankkit.errors import InputError
    from rankkit.output import AGGREGATE

    found = con.execute(f"SELECT query_id FROM {qrels} WHERE trim(query_id) = ? LIMIT 1", [AGGREGATE]).fetchall()
    if found:
        raise InputError(f"{label}: a query is named '{found[0][0]}', and the file names each system's aggregate over "
                         f"queries '{AGGREGATE}' (trec_eval's text does): rename the query")


def _qrels_are_subtopics(args: argparse.Namespace) -> bool:
    """``rankkit eval --subtopics FILE FILE run``: the qrels are the subtopic judgments' own (ndeval's usage)."""
    return args.subtopics is not None and Path(args.qrels).resolve() == Path(args.subtopics).resolve()


def _spark_rows(args: argparse.Namespace, con, measures: list[str]):
    """evaluate_rows on a Spark session of --master (rankkit.spark.evaluate_rows), started here once the
    measures are known to run there (a diversity measure is refused before Spark starts)."""
    from rankkit import spark
    from rankkit.specs import measure_specs

    spark.refuse_diversity(measure_specs(con, measures or ["num_q"], rel=args.rel, docs=args.docs))
    spark.require_pyspark()
    session = spark.session(args.master)
    # the files are read by Spark: DuckDB's connection is not passed on
    return lambda *given, con=None, **options: spark.evaluate_rows(session, *given, **options)


def _marked_table(args: argparse.Namespace, measures: list[str]) -> int:
    """--baseline: the table with significance marks, made as rankkit report makes its own (one
    evaluation, paired tests against the baseline) and drawn by the same renderer."""
    from rankkit.conventions import Conventions
    from rankkit.output import EVAL_CAPTION, HUMAN_DIGITS, TABLES
    from rankkit.report.build import build
    from rankkit.report.render import table

    if args.format not in TABLES:
        raise UsageError(f"--baseline marks significance in the tables of --format {' or '.join(TABLES)}; "
                         f"rankkit compare prints the tests themselves")
    if args.split_by_tag:
        raise UsageError("--baseline takes runs as files, one run each: give each tag's run as its own file")
    conventions = Conventions(rel=args.rel, ties=args.ties, depth=args.depth,
                              queries="qrels" if args.complete else "both", duplicates=args.duplicates,
                              judged_only=args.judged_only, docs=args.docs)
    con = _connect(args)
    _check_options(args, con, measures, runs=run_arguments(args.runs))
    with _stdin_runs(args.runs) as given:
        runs = run_arguments(given)
        made = build(args.qrels, runs, measures, baseline=baseline_name(runs, args.baseline), test="t",
                     correction="holm", alpha=0.05, ci=None, seed=0, resamples=10000, by=None, queries=None, title=None,
                     con=con, columns=_columns(args), conventions=conventions,
                     call=f"rankkit eval --baseline {args.baseline}")
    latex = args.format == "latex"  # Markdown's table, as without --baseline, has no caption line
    sys.stdout.write(table(made, TABLES[args.format], caption=EVAL_CAPTION if latex else None,
                           label="tab:results" if latex else None,
                           digits=HUMAN_DIGITS if args.digits is None else args.digits))
    return 0


def _with_text(con, text: list[str], systems, runs, qrels, aggregate, per_query, args):
    """The measures whose value is text: runid (the tag of a run file's last line, as trec_eval
    reads it) in the summary, relstring per query."""
    from rankkit.io import last_tag
    from rankkit.io.sources import read_table

    for system in systems:
        path = runs if isinstance(runs, str) else runs.get(system, runs.get(str(system).split("/")[0]))
        if "runid" in text:
            aggregate = [{"measure": "runid", "system": system, "value": last_tag(path) or system,
                          "queries": None}] + aggregate
        relstrings = [name for name in text if name != "runid"]
        if not relstrings or per_query is None:
            continue
        if qrels == args.qrels:  # the Spark engine's path (Spark read the files): read here for relstring alone
            qrels = read_table(con, args.qrels, "qrels", columns=_columns(args), duplicates=args.duplicates)
        run = read_table(con, path, "run", columns=_columns(args), duplicates=args.duplicates)
        for name in relstrings:
            k = int(name.rsplit("_", 1)[1]) if "_" in name else 10
            rows = con.execute(
                "SELECT query_id, value FROM rankkit.relstring(?, ?, k := ?, ties := ?, depth := ?, queries := ?, "
                "judged_only := ?)", [qrels, run, k, args.ties, args.depth,
                                      "qrels" if args.complete else "both", args.judged_only]).fetchall()
            per_query = per_query + [{"measure": name, "system": system, "query_id": q, "value": f"'{v}'"}
                                     for q, v in rows]
    return aggregate, per_query


@contextlib.contextmanager
def _stdin_runs(runs: list[str]):
    """The runs' paths, '-' (standard input, as trec_eval reads it) copied to a temporary file first,
    and a FIFO or ``<(...)`` (``/dev/fd/N``) read once into a plain copy: the command may read a run
    more than once (runid, relstring), and a pipe holds its lines for one reading only."""
    runs = [_read_once(run) for run in runs]
    if "-" not in runs:
        yield list(runs)
        return
    if runs.count("-") > 1:
        raise UsageError("standard input (-) can be read once: give - for one run only")
    import shutil
    import tempfile  # (with random and hashlib: a cost of every command's start, here for '-' alone)

    with tempfile.TemporaryDirectory(prefix="rankkit-stdin-") as folder:
        path = Path(folder) / "stdin"
        with open(path, "wb") as copy:
            shutil.copyfileobj(sys.stdin.buffer, copy)
        _STDIN_COPIES[str(path)] = "standard input"
        yield [str(path) if run == "-" else run for run in runs]


# ---- sql --------------------------------------------------------------------------------------

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


def _run_sql(args: argparse.Namespace) -> int:
    """Print the one statement computing the measures over the two tables."""
    from rankkit.specs import measure_specs
    from rankkit.io import default_connection
    from rankkit.spark import ANALYSER_PASSES
    from rankkit.spark_dialect import QRELS_COLUMNS, RUN_COLUMNS, duckdb_statement, statement

    specs = measure_specs(default_connection(), args.measures, rel=args.rel, docs=args.docs)
    options = dict(per_query=args.per_query, ties=args.ties, depth=args.depth, judged_only=args.judged_only,
                   queries="qrels" if args.complete else "both")
    columns, known = _columns(args), list(dict.fromkeys(RUN_COLUMNS + QRELS_COLUMNS))
    for theirs, ours in columns.items():  # the statement reads rankkit's columns only: none is ignored
        if ours not in known:
            raise UsageError(f"--column {theirs}={ours or ''}: expected one of {', '.join(known)}")
    if args.dialect == "duckdb":
        if not args.system:
            raise UsageError("--no-system is for --dialect spark: rankkit.ranks reads a system column where there is one")
        print(duckdb_statement(specs, qrels=args.qrels_table, run=args.run_table, columns=columns, **options))
        return 0
    names = {ours: ours for ours in RUN_COLUMNS + QRELS_COLUMNS if ours not in ("rank", "system")}
    names["system"] = "system" if args.system else None
    if args.ties == "rank":  # the statement reads the run's rank column only when the ties ask for it
        names["rank"] = "rank"
    for theirs, ours in columns.items():
        names[ours] = theirs
    # the run's system column, unless mapped or refused, is read where the table has one (as DuckDB's macros)
    # built before anything is printed: a table name that cannot be quoted is refused alone
    text = statement(specs, qrels=args.qrels_table, run=args.run_table,
                     qrels_columns={c: names[c] for c in QRELS_COLUMNS},
                     run_columns={c: names.get(c) for c in RUN_COLUMNS}, check=True,
                     optional_system=names["system"] == "system", **options)
    print(f"-- Spark 3.5: SET spark.sql.analyzer.maxIterations = {ANALYSER_PASSES} first, for many measures")
    print(text + ";")
    return 0


# ---- compare ----------------------------------------------------------------------------------

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
    _add_inputs(sub)


def _run_compare(args: argparse.Namespace) -> int:
    import io

    from rankkit._files import write_text
    from rankkit.compare import compare, write_comparison

    import rankkit

    fmt = _compare_format(args)  # a wrong suffix or format is said before the inputs are read
    measures = args.measures
    runs = run_arguments(args.runs)
    if args.output:
        _refuse_inputs(args, [args.output], qrels=args.qrels, run=runs)
    baseline = baseline_name(runs, args.baseline)
    con = _connect(args)
    _check_options(args, con, measures, runs)
    columns = _columns(args)
    # the same runs and names as rankkit eval and Python: a TREC file is one run, whatever its tags say
    result = compare(rankkit.read_qrels(args.qrels, con=con, columns=columns), runs, measures, baseline=baseline,
                     test=args.test, correction=args.correction, alpha=args.alpha, seed=args.seed, con=con,
                     conventions=_conventions(args), columns=columns, split_by_tag=args.split_by_tag)
    if not args.output:
        write_comparison(sys.stdout, result, fmt, args.digits)
        return 0
    text = io.StringIO()
    write_comparison(text, result, fmt, args.digits)
    write_text(args.output, text.getvalue())
    return 0


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


# ---- agree ------------------------------------------------------------------------------------

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


def _run_agree(args: argparse.Namespace) -> int:
    from rankkit.agreement import agreement, leaderboard_agreement
    from rankkit.agreement_output import agreement_rows, write_agreement
    from rankkit.safe.terminal import visible

    if args.runs and not args.measure:
        raise UsageError("runs are compared by one measure: give -m, e.g. -m nDCG@10")
    if args.measure and not args.runs:
        raise UsageError("-m names the measure of the leaderboards: give two or more runs after the two qrels")
    con = _connect(args)
    _check_options(args, con, [args.measure] if args.measure else [])
    columns = _columns(args)
    labels = agreement(args.qrels_a, args.qrels_b, threshold=args.threshold, seed=args.seed, con=con, columns=columns)
    boards = None
    if args.runs:
        boards = leaderboard_agreement(args.qrels_a, args.qrels_b, run_arguments(args.runs), args.measure,
                                       top=args.top, test=args.test, correction=args.correction, alpha=args.alpha,
                                       ci=args.ci, seed=args.seed, resamples=1000 if args.ci else 10000, con=con,
                                       conventions=_conventions(args), columns=columns)
    rows = agreement_rows(labels, boards, per_query=args.per_query, one_sided=args.one_sided)
    write_agreement(sys.stdout, rows, args.format, args.digits)
    if labels.only_a + labels.only_b and not args.one_sided:
        print(f"rankkit agree: {labels.only_a + labels.only_b} pairs judged by one table only ({labels.only_a} by "
              f"{visible(args.qrels_a)}, {labels.only_b} by {visible(args.qrels_b)}) are left out of the measures: "
              f"--one-sided lists them, -q counts them per query", file=sys.stderr)
    return 0


# ---- report -----------------------------------------------------------------------------------

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
    _add_conventions(sub)
    _add_engine(sub)
    _add_inputs(sub)


TIE_RULES = {"trec": "score then doc_id descending (trec_eval)", "rank": "the run's rank column",
             "average": "expected value over the orderings of equal scores (gain-based measures)"}


def _add_conventions(sub: argparse.ArgumentParser, ties: tuple[str, ...] = tuple(TIE_RULES)) -> None:
    """trec_eval's -c, -l, -M and the tie rule: the options that make rankkit.Conventions."""
    sub.add_argument("-c", action="store_true", dest="complete",
                     help="every qrels query, those missing from a run scoring 0")
    sub.add_argument("-l", type=number, default=1, dest="rel", metavar="LEVEL",
                     help="relevance level: a grade >= LEVEL is relevant (default 1)")
    sub.add_argument("-M", type=positive_int, default=None, dest="depth", metavar="N",
                     help="keep only the top N documents of each query")
    sub.add_argument("--ties", choices=ties, default="trec",
                     help="; ".join(f"{rule}: {TIE_RULES[rule]}" for rule in ties))


def _conventions(args: argparse.Namespace):
    from rankkit.conventions import Conventions

    return Conventions(rel=args.rel, depth=args.depth, ties=args.ties, queries="qrels" if args.complete else "both")


def _run_report(args: argparse.Namespace) -> int:
    from rankkit.report.build import build
    from rankkit.report.model import SUFFIXES
    from rankkit.trec import expand, family_of

    if Path(args.output).suffix.lower() not in SUFFIXES:
        raise UsageError(f"-o {args.output}: a report is written as {', '.join(SUFFIXES)}; the suffix says which")
    if (args.by is None) != (args.queries is None):
        raise UsageError("--by and --queries go together: the column, and the query table that has it")
    # runs named as eval, compare, check and explore name them (PATH or NAME=PATH)
    runs = run_arguments(args.runs)
    _refuse_inputs(args, _report_outputs(args), qrels=args.qrels, second_qrels=args.second_qrels, run=runs,
                   queries=args.queries)
    for path in [args.qrels, *(runs.values() if isinstance(runs, dict) else [runs])]:
        if Path(path).exists() and not Path(path).is_file() and not Path(path).is_dir():
            raise UsageError(f"{path} is a pipe: a report records each input's sha256 for rankkit verify, which reads "
                             f"it again; save it to a file first")
    baseline = baseline_name(runs, args.baseline)
    # trec_eval's forms (P.5,10, families, nicknames) as rankkit eval reads them; text measures
    # (runid, relstring) have no mean to report
    measures = [name for name in expand(args.measures or ["official"])
                if (family := family_of(name)) is None or not family.text]
    con, conventions = _connect(args), _conventions(args)
    _check_options(args, con, measures, runs)
    given = {}
    if args.engine == "spark":
        if args.by is not None:
            raise UsageError("--engine spark computes the report's values; --by slices run on DuckDB")
        given = _spark_report_values(args, con, runs, measures, conventions)
    result = build(args.qrels, runs, measures, baseline=baseline, test=args.test,
                   correction=args.correction, alpha=args.alpha, ci=args.ci or None, seed=args.seed,
                   resamples=10000, by=args.by, queries=args.queries, title=args.title, con=con,
                   columns=_columns(args), conventions=conventions, call=_command_line(args),
                   second_qrels=args.second_qrels, **given)
    result.save(args.output)
    from rankkit.safe.terminal import visible

    print(f"rankkit report: wrote {', '.join(visible(path) for path in result.written(args.output))}")
    return 0


def _report_outputs(args: argparse.Namespace) -> list[str]:
    """Every file ``report -o`` may write: the report, and with --second-qrels the agreement tables
    written beside a CSV or Parquet file (report.swaps.csv ...)."""
    from rankkit.report.render import AGREEMENT_FILES

    path = Path(args.output)
    if args.second_qrels is None or path.suffix.lower() not in (".csv", ".parquet"):
        return [args.output]
    return [args.output, *(str(path.with_name(f"{path.stem}.{name}{path.suffix}")) for name in AGREEMENT_FILES.values())]


def _spark_report_values(args: argparse.Namespace, con, runs, measures: list[str], conventions) -> dict:
    """The report's per-query values (its measures and their coverage) computed by Spark on --master:
    build's values= and engine=."""
    from rankkit import spark
    from rankkit.report.build import named_runs, shown_measures

    spark.require_pyspark()
    session = spark.session(args.master)
    wanted = shown_measures(con, measures, conventions.rel)
    _, frames, labels = spark.read(session, args.qrels, named_runs(runs), wanted, conventions, columns=_columns(args))
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
                        ("-l", args.rel), ("-M", args.depth),
                        ("--ties", args.ties), ("--engine", None if args.engine == "duckdb" else args.engine),
                        ("--master", None if args.engine == "duckdb" else args.master)):
        if value is not None:
            words += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    words += ["-c"] * args.complete + [f"--column={item}" for item in args.columns] + ["-o", args.output]
    return shlex.join(words)


def _add_verify(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("report", help="a report saved as JSON (rankkit report ... -o report.json)")
    sub.add_argument("-o", "--output", metavar="FILE",
                     help="when it holds, write the report made again from the inputs (.html, .md, .tex, .csv, .json "
                          "or .parquet): its numbers are the recomputed ones, never the file's")


def _run_verify(args: argparse.Namespace) -> int:
    from rankkit.report.model import SUFFIXES
    from rankkit.report.verify import export, verify
    from rankkit.safe.terminal import visible

    if args.output and Path(args.output).suffix.lower() not in SUFFIXES:  # said before the recomputation
        raise UsageError(f"-o {args.output}: a report is written as {', '.join(SUFFIXES)}; the suffix says which")
    outcome = verify(args.report)
    # its lines quote names and paths from the report, a file that may come from anyone
    print("\n".join(visible(line) for line in str(outcome).split("\n")))
    if outcome.holds and args.output:
        written = export(outcome, args.output)
        print(f"rankkit verify: wrote {', '.join(visible(str(path)) for path in written)}")
    return 0 if outcome.holds else 1


# ---- macros -----------------------------------------------------------------------------------

def _add_macros(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("-o", "--output", help="write the script to this file instead of stdout")


def _run_macros(args: argparse.Namespace) -> int:
    from rankkit._files import write_text
    from rankkit.macros import script

    if args.output:
        write_text(args.output, script())
    else:
        sys.stdout.write(script())
    return 0


# ---- measures ---------------------------------------------------------------------------------

def _add_measures(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("name", nargs="?", help="show one measure in full (a name or alias)")


def _run_measures(args: argparse.Namespace) -> int:
    from rankkit.measures import registry
    from rankkit.trec import NICKNAMES

    if args.name:
        shown = []
        for asked, label, measure in _meant(args.name):
            if asked != label:  # a trec_eval name or another spelling: say what it computes
                from rankkit.safe.terminal import visible

                print(visible(f"{asked} means {label}"))
            if measure not in shown:
                shown.append(measure)
        for measure in shown:
            _describe_measure(measure)
        return 0
    rows = [(m.name, _names_of(m), ", ".join(m.params) or "-", m.aggregate, _alone(m)) for m in registry().values()]
    head = ("measure", "aliases (and presets)", "parameters", "aggregate", "the name alone")
    widths = [max(len(row[i]) for row in rows + [head]) for i in range(4)]
    for row in [head] + sorted(rows, key=lambda row: row[0].lower()):
        print("  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths)) + "  " + row[4])
    print()
    print("nicknames (trec_eval's): " + ", ".join(NICKNAMES) + ". A name without @k is the measure over the whole "
          "ranking, except a trec_eval family name alone (P, recall, success, ndcg_cut ...), which stands for "
          "trec_eval's default cutoffs: the last column says which")
    return 0


def _names_of(measure) -> str:
    """A measure's aliases and its presets (ndcg_burges=nDCG(gain=exp)), as the listing shows them."""
    presets = [f"{name}={measure.name}({fixed})" for name, fixed in measure.presets]
    return ", ".join([*measure.aliases, *presets]) or "-"


def _alone(measure) -> str:
    """What the measure's names alone give: one value over the whole ranking, except a trec_eval
    family name (P, recall, ndcg_cut ...), which gives its default cutoffs."""
    from rankkit.measures import needs_subtopics
    from rankkit.trec import expand

    if needs_subtopics(measure.metric):
        return "whole ranking, over subtopic judgments (eval --subtopics FILE)"
    names = [measure.name, *(alias.split("_{")[0] if "{" in alias else alias for alias in measure.aliases)]
    families = []
    for name in dict.fromkeys(names):
        rows = expand([name], text=False)
        if len(rows) > 1:
            families.append(f"{name}: {len(rows)} rows, {rows[0]} ... {rows[-1]}")
    return "; ".join(families + ["other names: whole ranking"]) if families else "whole ranking"


def _meant(name: str) -> list[tuple]:
    """Each measure a name given to ``eval -m`` stands for, read by eval's own parser (trec_eval's
    names, cutoffs and parameters, families and nicknames): (name, canonical label, Measure)."""
    import rankkit
    from rankkit.errors import MeasureError
    from rankkit.specs import measure_specs
    from rankkit.measures import get, label, registry
    from rankkit.trec import expand, family_of

    meant = []
    try:
        expanded = expand([name])
        for one in expanded:
            family = family_of(one)
            if family is not None and family.text:  # runid, relstring: text, no number to parse
                meant.append((one, one, get(family.name)))
                continue
            spec = measure_specs(rankkit.connect(), [one])[0]
            # a translated name (ranx's ndcg_burges, ir_measures' NumRet(rel=1)) says what it was given
            meant.append((name if len(expanded) == 1 else one, label(spec), registry()[spec["metric"]]))
    except MeasureError as error:
        raise UsageError(f"{error}; rankkit measures lists them") from None
    return meant


def _describe_measure(measure) -> None:
    from rankkit.measures import params

    print(f"{measure.name}: {measure.summary}")
    print(f"  aliases:   {', '.join(measure.aliases) or '-'}")
    print(f"  aggregate: {measure.aggregate}")
    print(f"  cite:      {measure.cite}")
    for name in measure.params:
        param = params()[name]
        print(f"  {name} ({param.type}, default {param.default}): {param.description}")
    print(f"  SQL:       {measure.path.name}")


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
    from rankkit.check import describe_qrels, describe_run, diagnose

    con = _connect(args)
    _check_options(args, con)
    columns = _columns(args)
    runs = run_arguments(args.runs)
    # each run as eval reads it, under the name eval gives it; the qrels' line once, before the first
    for i, one in enumerate([{name: path} for name, path in runs.items()] if isinstance(runs, dict) else [runs]):
        found = diagnose(args.qrels, one, con=con, columns=columns, split_by_tag=args.split_by_tag)
        print("\n".join([describe_qrels(found)] * (i == 0) + describe_run(found)))
    return 0


# ---- explore ----------------------------------------------------------------------------------

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


def _run_explore(args: argparse.Namespace) -> int:
    from rankkit.explore.serve import serve

    return serve(args.qrels, run_arguments(args.runs), measures=args.measures, queries=args.queries, docs=args.docs,
                 port=args.port, split_by_tag=args.split_by_tag, second_qrels=args.second_qrels,
                 max_pages=args.max_pages)


COMMANDS: dict[str, tuple[str, Callable, Callable]] = {
    "eval": ("Evaluate runs against qrels, as trec_eval does.", _add_eval, _run_eval),
    "check": ("Check qrels and runs (queries on each side, judged share, duplicates, ties) without evaluating.",
              _add_check, _run_check),
    "compare": ("Compare runs measure by measure with paired significance tests.", _add_compare, _run_compare),
    "agree": ("Do two judgment tables agree: on the labels (kappa, alpha, one-sided pairs) and, given runs, on "
              "the leaderboards (Kendall's tau, tau_AP, swapped pairs).", _add_agree, _run_agree),
    "measures": ("List every measure with its aliases and parameters (or one in full).", _add_measures, _run_measures),
    "report": ("Write a report (aggregate with intervals and significance, comparison, per-query values, "
               "judgment coverage, how it was made) as HTML, Markdown, LaTeX, CSV, JSON or Parquet.",
               _add_report, _run_report),
    "verify": ("Recompute a saved report (JSON) from the inputs it records; exit 1 when a value differs.",
               _add_verify, _run_verify),
    "sql": ("Print the one SQL statement computing measures over a qrels and a run table, for the duckdb shell or "
            "Spark SQL.", _add_sql, _run_sql),
    "macros": ("Print the SQL macros as one script for the duckdb shell (.read it).", _add_macros, _run_macros),
    "demo": ("Generate the sample data, evaluate two systems on it, write per-query results and a report, and "
             "the files the documentation's examples read (run.csv, run.parquet, topics.csv, rankkit.sql).",
             _add_demo, _run_demo),
    "explore": ("Serve the explorer (per-query plots, system against system, traces) on 127.0.0.1 with Voila.",
                _add_explore, _run_explore),
}

if __name__ == "__main__":
    sys.exit(main())
