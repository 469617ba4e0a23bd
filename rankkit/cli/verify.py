"""``rankkit verify``: a saved report recomputed from the inputs it records."""

from __future__ import annotations

import argparse
from pathlib import Path

from rankkit.arguments import UsageError


def run(args: argparse.Namespace) -> int:
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
