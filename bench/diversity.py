"""The diversity measures at TREC Web track scale, rankkit against pyndeval (run by hand, never by the tests).

A deterministic set in the shape of the Web track's diversity task: 50 queries, 1 to 6 subtopics each,
120 judgments per subtopic (grades 0-2) over 300 documents, and runs of 1,000 documents a query (700
unjudged). It times rankkit's Python evaluate, its command line and pyndeval on the ndeval measures at
ndeval's cutoffs, checks that every per-query value agrees to 1e-9, and prints a Markdown table.

    python bench/diversity.py [--systems 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

OURS = ["alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20", "ERR-IA@20", "nERR-IA@20", "NRBP", "P-IA@20", "AP-IA",
        "S-recall@20"]
THEIRS = ["alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20", "ERR-IA@20", "nERR-IA@20", "NRBP", "P-IA@20", "MAP-IA",
          "strec@20"]
DATA = Path(__file__).parent / "data" / "diversity"


def generate(systems: int) -> list[Path]:
    """The subtopic judgments and ``systems`` runs, written once (seeded: the same files every time)."""
    DATA.mkdir(parents=True, exist_ok=True)
    rng = random.Random(25)
    runs = [DATA / f"run{n}.txt" for n in range(1, systems + 1)]
    with open(DATA / "qrels.div.txt", "w") as qrels:
        files = [open(path, "w") for path in runs]
        for topic in range(1, 51):
            docs = [f"clueweb09-{topic:03d}-{i:04d}" for i in range(300)]
            for subtopic in range(1, rng.randint(2, 7)):
                for doc in rng.sample(docs, 120):
                    qrels.write(f"{topic} {subtopic} {doc} {rng.choice([0, 0, 1, 1, 2])}\n")
            for run in files:
                for rank, doc in enumerate(rng.sample(docs + [f"other-{topic}-{i}" for i in range(700)], 1000), 1):
                    run.write(f"{topic} Q0 {doc} {rank} {1000 - rank} bench\n")
        for run in files:
            run.close()
    return runs


def timed(repeat: int, work) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import pyndeval

    import rankkit

    runs = generate(args.systems)
    subtopics = DATA / "qrels.div.txt"
    qrels = [(q, s, d, int(g)) for q, s, d, g in (line.split() for line in open(subtopics))]
    rows = ["| run | pyndeval | rankkit evaluate | rankkit eval (CLI, a process) | largest difference |",
            "|---|---|---|---|---|"]
    for path in runs:
        run = [(f[0], f[2], float(f[4])) for f in (line.split() for line in open(path))]
        theirs_time, theirs = timed(args.repeat, lambda: pyndeval.ndeval(qrels, run, THEIRS))
        ours_time, ours = timed(args.repeat, lambda: rankkit.evaluate(None, str(path), OURS, per_query=True,
                                                                       subtopics=str(subtopics)))
        cli = [str(Path(sys.executable).parent / "rankkit"), "eval", "--subtopics", str(subtopics)]
        cli_time, _ = timed(args.repeat, lambda: subprocess.run(
            cli + [arg for m in OURS for arg in ("-m", m)] + [str(subtopics), str(path)], check=True,
            capture_output=True))
        names = dict(zip(OURS, THEIRS))
        worst = max(abs(row.value - theirs[row.query_id][names[row.measure]]) for row in ours.itertuples())
        assert worst < 1e-9, f"{path.name}: rankkit and pyndeval differ by {worst}"
        rows.append(f"| {path.name} | {theirs_time:.3f} s | {ours_time:.3f} s | {cli_time:.3f} s | {worst:.1e} |")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
