"""What a report costs over evaluate plus compare: two systems, five measures, workload A.

    python bench/generate.py A        # once
    python bench/report.py -r 3       # fresh processes, median (min-max) of each figure

The second system is workload A's run with its scores moved by a hash of the document (written
once beside the run as run2.txt), so the two systems differ on most queries. Each figure is a fresh
process that imports rankkit and reads the three TREC files:

- ``evaluate+compare``: ``read_qrels``, ``read_run`` twice, ``evaluate`` (the aggregate) and
  ``compare`` (paired t-test against the first run): what a user would run without a report;
- ``report``: ``rankkit.report`` of the same files and measures, with its defaults (t-interval
  of every mean, Judged@k coverage, per-query values, sha256 of the inputs): the Report object;
- ``report+html+json``: the same, then ``to_html()`` (ten figures drawn, 6,980 queries in the
  per-query table) and ``save("report.json")``.

Goal (issue 13): the report costs at most half again as much (ratio <= 1.5).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "A"
MEASURES = ["nDCG@10", "AP", "RR@10", "R@100", "P@10"]

BASELINE = """
import rankkit
con = rankkit.connect()
qrels = rankkit.read_qrels({qrels!r}, con=con)
runs = {{name: rankkit.read_run(path, con=con, system=name) for name, path in {runs!r}.items()}}
rankkit.evaluate(qrels, runs, {measures!r}, con=con)
rankkit.compare(qrels, runs, {measures!r}, baseline="run", con=con)
"""

REPORT = """
import rankkit
made = rankkit.report({qrels!r}, {runs!r}, {measures!r}, baseline="run")
"""
EXPORT = REPORT + """
made.to_html()
made.save({out!r})
"""


def second_run() -> Path:
    """Workload A's run with every score moved by a hash of its document: another system."""
    import duckdb

    target = DATA / "run2.txt"
    if target.exists():
        return target
    con = duckdb.connect()
    con.execute(f"""COPY (
        SELECT query_id, 'Q0', doc_id, row_number() OVER (PARTITION BY query_id ORDER BY score DESC, doc_id DESC),
               score, 'run2'
        FROM (SELECT column0 AS query_id, column2 AS doc_id,
                     column4::DOUBLE + (hash(column2) % 48) / 16.0E0 AS score
              FROM read_csv('{DATA / "run.txt"}', delim = ' ', header = false, all_varchar = true))
        ORDER BY query_id, score DESC, doc_id DESC)
        TO '{target}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '')""")
    return target


def timed(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, stderr=subprocess.DEVNULL)  # no progress bars
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-r", "--repeat", type=int, default=3, help="fresh processes per figure (default 3)")
    args = parser.parse_args()
    if not (DATA / "run.txt").exists():
        sys.exit(f"{DATA} is missing: python bench/generate.py A")
    runs = {"run": str(DATA / "run.txt"), "run2": str(second_run())}
    qrels = str(DATA / "qrels.txt")
    with tempfile.TemporaryDirectory() as folder:
        out = str(Path(folder) / "report.json")
        codes = {"evaluate+compare": BASELINE, "report": REPORT, "report+html+json": EXPORT}
        figures: dict[str, list[float]] = {name: [] for name in codes}
        for _ in range(args.repeat):  # interleaved: a machine slowing down slows every figure alike
            for name, code in codes.items():
                figures[name].append(timed(code.format(qrels=qrels, runs=runs, measures=MEASURES, out=out)))
    medians = {name: statistics.median(values) for name, values in figures.items()}
    print(f"workload A, 2 systems x {len(MEASURES)} measures, {args.repeat} fresh processes each (seconds)\n")
    print("| what | median | min-max |\n|---|---|---|")
    for name, values in figures.items():
        print(f"| {name} | {medians[name]:.2f} | {min(values):.2f}-{max(values):.2f} |")
    for name in ("report", "report+html+json"):
        print(f"\n{name} / (evaluate + compare) = {medians[name] / medians['evaluate+compare']:.2f} (goal: at most 1.5)")


if __name__ == "__main__":
    main()
