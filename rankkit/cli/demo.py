"""``rankkit demo``: the sample data, evaluated and reported."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from rankkit.demo import run_demo

    run_demo(Path(args.output), args.queries, sys.stdout)
    return 0
