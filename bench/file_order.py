"""Runs in trec_eval's order ranked by their given ranks (rankkit.file_order, rankkit.file_ranks_loaded)
against the window's sort, in one process, the two taken in turn, with pytrec_eval's loop over the
same files beside them (issue 21). Needs `python bench/generate.py sweep` and pytrec-eval-terrier.

    python bench/file_order.py               # 200 DL19-size run files in one call, 9 rounds
    python bench/file_order.py --one-file    # the same 200 systems in one file (split_by_tag=True)

Prints the median seconds per call (files to values, five measures, `relation=True` fetched) and
checks that the two rankings give the same values.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rankkit  # noqa: E402

SHARED = Path(os.environ.get("RANKKIT_SHARED", ROOT.parent / "shared"))
QRELS = SHARED / "data" / "anserini-tools" / "qrels.dl19-passage.txt"
SWEEP = ROOT / "bench" / "data" / "sweep"
MEASURES = ["ndcg_cut.10", "map", "recip_rank", "recall.100", "P.10"]
engine = importlib.import_module("rankkit.evaluate")  # the module (rankkit.evaluate is also the function)


def rankkit_call(con, qrels, one_file: bool):
    if one_file:
        run = rankkit.read_run(SWEEP / "run.txt", con=con, split_by_tag=True)
        try:
            return rankkit.evaluate(qrels, run, MEASURES, con=con, relation=True).fetchall()
        finally:
            rankkit.forget(con, run)
    paths = sorted(str(path) for path in (SWEEP / "runs").iterdir())
    return rankkit.evaluate(qrels, paths, MEASURES, con=con, relation=True).fetchall()


def pytrec_call(one_file: bool):
    import pytrec_eval

    with open(QRELS) as f:
        evaluator = pytrec_eval.RelevanceEvaluator(pytrec_eval.parse_qrel(f), set(MEASURES))
    if one_file:
        systems: dict = {}
        with open(SWEEP / "run.txt") as f:
            for line in f:
                query, _, doc, _, score, tag = line.split()
                systems.setdefault(tag, {}).setdefault(query, {})[doc] = float(score)
        return [evaluator.evaluate(run) for run in systems.values()]
    values = []
    for path in sorted((SWEEP / "runs").iterdir()):
        with open(path) as f:
            values.append(evaluator.evaluate(pytrec_eval.parse_run(f)))
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--one-file", action="store_true")
    args = parser.parse_args()
    con = rankkit.connect()
    qrels = rankkit.read_qrels(QRELS, con=con)
    order_rows = engine.ORDER_ROWS
    times: dict[str, list[float]] = {"given ranks": [], "window": [], "pytrec_eval": []}
    found = {}
    for round_ in range(args.rounds + 1):  # the first round warms up
        for what in times:
            start = time.perf_counter()
            if what == "pytrec_eval":
                pytrec_call(args.one_file)
            else:
                engine.ORDER_ROWS = order_rows if what == "given ranks" else float("inf")
                found[what] = rankkit_call(con, qrels, args.one_file)
            if round_:
                times[what].append(time.perf_counter() - start)
    engine.ORDER_ROWS = order_rows
    assert found["given ranks"] == found["window"], "the two rankings disagree"
    medians = {what: statistics.median(ts) for what, ts in times.items()}
    print(f"200 systems {'in one file' if args.one_file else 'in 200 files'}, median of {args.rounds} rounds, "
          f"load average {os.getloadavg()[0]:.1f}")
    for what, median in medians.items():
        print(f"  {what:12} {median:6.3f} s   pytrec_eval / this: {medians['pytrec_eval'] / median:.2f}x")


if __name__ == "__main__":
    main()
