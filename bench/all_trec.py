"""trec_eval's all_trec: rankkit eval against pytrec_eval on the same files, in the same run.

    python bench/all_trec.py [-w A] [-r 3] [--rows 100000]

Each library runs in a fresh process (as bench/run.py's end-to-end figure): rankkit is
``rankkit eval -m all_trec QRELS RUN`` (files to printed numbers), pytrec_eval parses both files and
evaluates ``{"all_trec"}`` (the 9.0.8 measures: no rbp, rbp_resid or unj). The five-measure
command line runs beside them, so the cost of the larger set reads as a difference. ``--rows``
evaluates the first N rows' queries of the workload instead (the 100,000-row question of issue 11:
where does the memory go). Peak RSS is the child's ``ru_maxrss``. Not run by the test suite.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIVE = ["-m", "nDCG@10", "-m", "AP", "-m", "RR@10", "-m", "R@100", "-m", "P@10"]
PYTREC = """
import sys, pytrec_eval
with open(sys.argv[1]) as f: qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f: run = pytrec_eval.parse_run(f)
pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(run)
"""


def timed(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one fresh process."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    return seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def head(qrels: Path, run: Path, rows: int, folder: Path) -> tuple[Path, Path]:
    """The queries of the run's first ``rows`` lines (a run file is grouped by query)."""
    queries = []
    with open(run) as lines:
        out = (folder / "run.txt").open("w")
        for n, line in enumerate(lines):
            query = line.split(maxsplit=1)[0]
            if n >= rows and query != queries[-1]:
                break
            if not queries or queries[-1] != query:
                queries.append(query)
            out.write(line)
        out.close()
    wanted = set(queries)
    with open(qrels) as lines, (folder / "qrels.txt").open("w") as out:
        out.writelines(line for line in lines if line.split(maxsplit=1)[0] in wanted)
    return folder / "qrels.txt", folder / "run.txt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-w", "--workload", default="A")
    parser.add_argument("-r", "--repeat", type=int, default=3)
    parser.add_argument("--rows", type=int, help="only the queries of the run's first ROWS lines")
    parser.add_argument("--data", type=Path, default=HERE / "data", help="where generate.py wrote the workloads")
    args = parser.parse_args()
    data = args.data / args.workload
    qrels, run = data / "qrels.txt", data / "run.txt"
    with tempfile.TemporaryDirectory() as folder:
        if args.rows:
            qrels, run = head(qrels, run, args.rows, Path(folder))
        rankkit = [sys.executable, "-m", "rankkit.cli", "eval"]
        commands = {
            "rankkit eval, 5 measures": rankkit + FIVE + [str(qrels), str(run)],
            "pytrec_eval all_trec": [sys.executable, "-c", PYTREC, str(qrels), str(run)],
            "rankkit eval -m all_trec": rankkit + ["-m", "all_trec", str(qrels), str(run)],
        }
        print(f"| {args.workload}{f' (first {args.rows:,} rows)' if args.rows else ''} | seconds (median of "
              f"{args.repeat}) | peak RSS (MB) |\n|---|---|---|")
        for label, command in commands.items():
            # each label in its own child so that ru_maxrss is its own peak
            runs = [_child(command) for _ in range(args.repeat)]
            print(f"| {label} | {statistics.median(s for s, _ in runs):.2f} | {max(m for _, m in runs):,.0f} |",
                  flush=True)


def _child(command: list[str]) -> tuple[float, float]:
    """timed() in a throwaway process: RUSAGE_CHILDREN keeps the largest child ever seen."""
    code = (f"import json, sys; sys.path.insert(0, {str(HERE)!r}); from all_trec import timed; "
            f"print(json.dumps(timed({command!r})))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    seconds, peak = json.loads(out)
    return seconds, peak


if __name__ == "__main__":
    main()
