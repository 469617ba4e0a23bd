"""The command line: ``rankkit eval`` (trec_eval's options and output), ``compare``, ``agree``, ``macros``, ``demo``.

Each command runs in its own module here (rankkit/cli/eval.py ...); every command's options are
declared in rankkit.arguments, where verify reads a report's command line too.

Every command exits 0 on success and 2 on bad usage or bad input, with one line on stderr."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import warnings
from importlib import import_module
from typing import NoReturn, Sequence

from rankkit.arguments import UsageError, command_parser
from rankkit.cli.common import STDIN_COPIES, connections

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _main(argv)
    finally:
        opened = list(connections)
        connections.clear()
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
    parser = command_parser()
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
            # the command's own module (rankkit/cli/eval.py ...), imported for that command alone
            return import_module(f"{__name__}.{args.command}").run(args) or 0
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
        except OSError as error:  # a file the system refuses (a name too long, no permission): one line
            where = f"{error.filename}: " if error.filename is not None else ""
            print(f"rankkit {args.command}: {visible(where + (error.strerror or str(error)))}", file=sys.stderr)
            return 2


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


def cli_syntax(message: str) -> str:
    """A message from the library with its Python hints said as command-line options, and a copy
    of standard input named as the user gave it."""
    for pattern, option in _HINTS:
        message = pattern.sub(option, message)
    for path, name in STDIN_COPIES.items():
        message = message.replace(path, name)
    if "rankkit.io.files" in sys.modules:  # a pipe's plain copy, named as given
        message = sys.modules["rankkit.io.files"].as_given(message)
    return message
