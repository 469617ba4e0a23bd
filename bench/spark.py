"""The Spark engine beside DuckDB on one machine: a workload's Parquet run evaluated by
rankkit.evaluate (DuckDB) and by rankkit.spark.evaluate on Spark local[2], the same statement's values
compared, each engine timed cold (its first evaluation, Spark's session start apart) and warm.

    python bench/generate.py            # writes bench/data/A (6.98M run rows) among others
    python bench/spark.py A             # prints one Markdown row per engine for bench/README.md

The point is an honest single-machine cost, not a race: Spark is for data that already lives on a
cluster (see docs/spark.md).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import time
from pathlib import Path

import duckdb

import rankkit

DATA = Path(__file__).resolve().parent / "data"
MEASURES = ["nDCG@10", "AP", "RR@10", "P@10", "R@100"]


def timed(call) -> tuple[float, object]:
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workload", nargs="?", default="A")
    parser.add_argument("--memory", default="4g", help="Spark driver memory (local mode: the executor too)")
    parser.add_argument("--repeat", type=int, default=2, help="warm evaluations per engine")
    args = parser.parse_args()
    folder = DATA / args.workload
    if not (folder / "run.parquet").exists():
        raise SystemExit(f"{folder}/run.parquet is absent: python bench/generate.py {args.workload}")
    qrels, run = str(folder / "qrels.parquet"), str(folder / "run.parquet")

    rows = duckdb.connect().execute(f"SELECT count(*) FROM read_parquet('{run}')").fetchone()[0]
    duck = [timed(lambda: rankkit.evaluate(qrels, run, MEASURES))[0] for _ in range(1 + args.repeat)]
    print(f"DuckDB: {duck}", flush=True)
    want = rankkit.evaluate(qrels, run, MEASURES)

    from rankkit.spark import evaluate, session

    started, spark = timed(lambda: session("local[2]", memory=args.memory))
    spark.conf.set("spark.sql.shuffle.partitions", "4")
    frames = (spark.read.parquet(qrels), spark.read.parquet(run))
    times = []
    for _ in range(1 + args.repeat):
        seconds, got = timed(lambda: evaluate(spark, *frames, MEASURES).toPandas())
        times.append(seconds)
        print(f"Spark: {seconds:.1f} s", flush=True)
    worst = max(abs(a - b) for a, b in zip(got["value"], want["value"]))
    jvm = _jvm_peak()
    print(f"Workload {args.workload}: {rows:,} run rows, {', '.join(MEASURES)}; {platform.machine()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; max |Spark - DuckDB| {worst:.1e}\n")
    print("| engine | first (s) | warm, best (s) | peak memory |")
    print("|---|---|---|---|")
    print(f"| DuckDB (rankkit.evaluate) | {duck[0]:.1f} | {min(duck[1:]):.1f} | "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.1f} GB (the Python process) |")
    print(f"| Spark local[2] (rankkit.spark.evaluate, session start {started:.0f} s apart) | {times[0]:.1f} | "
          f"{min(times[1:]):.1f} | {jvm} (the JVM, driver memory {args.memory}) |")


def _jvm_peak() -> str:
    """The Spark JVM's peak resident memory (VmHWM), read from /proc where there is one."""
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
            cmdline = (status.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if b"java" in cmdline and b"pyspark" in cmdline and str(os.getpid()) in _parent_chain(status.parent):
            for line in text.splitlines():
                if line.startswith("VmHWM:"):
                    return f"{int(line.split()[1]) / 2**20:.1f} GB"
    return "unknown"


def _parent_chain(proc: Path) -> set[str]:
    """The process ids above ``proc``."""
    chain = set()
    pid = proc.name
    while pid not in ("0", "1", ""):
        try:
            fields = (Path("/proc") / pid / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            break
        pid = fields[1]
        chain.add(pid)
    return chain


if __name__ == "__main__":
    main()
