"""``rankkit macros``: the SQL macros as one script for the duckdb shell."""

from __future__ import annotations

import argparse
import sys


def run(args: argparse.Namespace) -> int:
    from rankkit._files import write_text
    from rankkit.macros import script

    if args.output:
        write_text(args.output, script())
    else:
        sys.stdout.write(script())
    return 0
