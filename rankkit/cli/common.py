"""What the commands share: their DuckDB connections, their options checked before any input is read,
standard input and pipes read once, and an output refused when it is one of the inputs."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Sequence

from rankkit.arguments import UsageError, baseline_name, column_mapping, exists


connections: list = []  # the command's DuckDB connections (connect), left open to the end of main


def connect(args: argparse.Namespace, lean: bool = False):
    from rankkit._sql import engine_connection

    con = engine_connection(memory_limit=args.memory_limit, temp_directory=args.temp_directory, threads=args.threads,
                            lean=lean)
    connections.append(con)
    return con


def check_options(args: argparse.Namespace, con, measures: Sequence[str] = (), runs=None) -> None:
    """The options' values checked before any input is read, so that a bad one is the command's first
    and only message, never said after a warning about the inputs: the column mapping, the measures
    (with -l and -N), the digits, the test, correction, alpha and interval level, -o's format and the
    baseline (when the runs given name every system)."""
    from rankkit.copying import OUTPUT_FORMATS
    from rankkit.input_checks import refuse_without_subtopics
    from rankkit.specs import measure_specs

    column_mapping(args)
    if getattr(args, "digits", None) is not None and args.digits < 0:
        raise UsageError(f"--digits {args.digits}: expected a number of decimals, 0 or more")
    if args.command == "agree" and measures:  # its own words: the leaderboards read neither judgment table
        from rankkit.agreement import refuse_board_measure

        refuse_board_measure(con, measures[0])
    elif measures:
        specs = measure_specs(con, list(measures), rel=getattr(args, "rel", 1), docs=getattr(args, "docs", 0))
        if getattr(args, "subtopics", None) is None:
            refuse_without_subtopics(specs)
    if hasattr(args, "test"):  # (compare loads pandas: eval's path never needs it)
        from rankkit.compare import check_options as check_test

        check_test(args.test, args.correction, args.alpha)
    if getattr(args, "ci", None) and not 0 < args.ci < 1:
        raise UsageError(f"--ci {args.ci:g}: expected a level between 0 and 1, such as 0.95")
    output = getattr(args, "output", None)
    if args.command == "eval" and output and Path(output).suffix.lower() not in OUTPUT_FORMATS:
        raise UsageError(f"-o {output}: the suffix says the format, one of {', '.join(OUTPUT_FORMATS)}")
    named = baseline_name(runs, getattr(args, "baseline", None)) if isinstance(runs, dict) else None
    if named is not None and not any(named == name or named.startswith(f"{name}/") for name in runs):
        raise UsageError(f"baseline '{args.baseline}' is not one of the systems: {', '.join(runs)}")


def refuse_beyond_on_spark(args: argparse.Namespace, measures: Sequence[str]) -> None:
    """--engine spark: a beyond-accuracy measure refused by name, and --items or --interactions (read by those
    measures alone) refused, not ignored; before Spark starts."""
    if getattr(args, "engine", "duckdb") != "spark":
        return
    from rankkit.spark_dialect import refuse_beyond

    refuse_beyond(measures)
    for side in ("items", "interactions"):
        if getattr(args, side, None):
            raise UsageError(f"--{side} is read by the beyond-accuracy measures (Coverage@10, Novelty@10 ...), which "
                             "run on DuckDB only: leave out --engine spark")


def refuse_outputs(args: argparse.Namespace, outputs: list[str], **inputs) -> None:
    """An output that is one of the command's inputs (however spelled: a link, a hard link, a glob's
    file), refused before anything is read or written: -o would replace what it reads."""
    from rankkit._files import named_inputs, refuse_inputs

    given = named_inputs(**inputs)
    if "-" in getattr(args, "runs", []) and os.path.exists("/dev/stdin"):  # `-o run.csv - < run.csv`
        given.append(("standard input", "/dev/stdin"))
    refuse_inputs([("-o", output) for output in outputs], given)


# the temporary copies of standard input (see stdin_runs), and how messages name them
STDIN_COPIES: dict[str, str] = {}


def _read_once(run: str) -> str:
    """A run argument (PATH or NAME=PATH) naming a pipe, naming its plain copy instead (rankkit.io.files)."""
    from rankkit.io.files import plain_copy

    name, sep, path = ("", "", run) if exists(run) else run.partition("=")
    given = Path(path)
    if run == "-" or not exists(path) or given.is_file() or given.is_dir():
        return run
    return f"{name}{sep}{plain_copy(given)}"



@contextlib.contextmanager
def stdin_runs(runs: list[str]):
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
        STDIN_COPIES[str(path)] = "standard input"
        yield [str(path) if run == "-" else run for run in runs]
