"""Spark local at scale: a workload's Parquet run evaluated by rankkit.spark.evaluate within a stated
driver memory, timed, its peak memory measured over the process tree (the JVM's resident set, sampled
by psutil), and its stages as Spark's status API reports them (which stages shuffle, how many bytes),
beside the physical plan's exchanges.

    RANKKIT_BENCH_DATA=/tmp/rk-xl nice -n 19 python bench/generate.py XL        # 100M rows, into /tmp
    nice -n 19 python bench/spark_scale.py /tmp/rk-xl/XL --memory 4g --plan /tmp/rk-xl/plan.txt
    python bench/generate.py A && python bench/spark_scale.py bench/data/A      # workload A's stages

It prints Markdown for bench/README.md: one line of time and memory, and one row per stage.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import threading
import time
import urllib.request
from pathlib import Path

import psutil

MEASURES = ["nDCG@10", "AP", "RR@10", "P@10", "R@100"]


class PeakMemory:
    """The largest resident memory of this process and its children (the JVM), and of the JVM alone,
    sampled every ``every`` seconds in a thread."""

    def __init__(self, every: float = 0.5):
        self.every, self.tree, self.jvm = every, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            total = jvm = 0
            for process in [me, *me.children(recursive=True)]:
                with contextlib.suppress(psutil.Error):
                    rss = process.memory_info().rss
                    total += rss
                    if "java" in process.name():
                        jvm += rss
            self.tree, self.jvm = max(self.tree, total), max(self.jvm, jvm)
            self._stop.wait(self.every)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *_):
        self._stop.set()
        self._thread.join()


def stages(spark) -> list[dict]:
    """Every completed stage of the session, from the status API (the UI's REST endpoint)."""
    base = spark.sparkContext.uiWebUrl.rstrip("/") + "/api/v1/applications"
    with urllib.request.urlopen(base) as answer:
        app = json.load(answer)[0]["id"]
    with urllib.request.urlopen(f"{base}/{app}/stages?status=complete") as answer:
        return sorted(json.load(answer), key=lambda stage: stage["stageId"])


def plan_text(frame) -> str:
    """The physical plan as ``explain('formatted')`` prints it."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        frame.explain("formatted")
    return printed.getvalue()


def gb(value: float) -> str:
    return f"{value / 2**30:.2f} GB"


def mb(value: float) -> str:
    return f"{value / 2**20:,.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="a folder with qrels.parquet and run.parquet (bench/generate.py)")
    parser.add_argument("--memory", default="4g", help="Spark driver memory (local mode: the executor too)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", default="16", help="spark.sql.shuffle.partitions")
    parser.add_argument("--plan", help="write the physical plan (explain formatted) to this file")
    args = parser.parse_args()
    folder = Path(args.folder)
    qrels, run = str(folder / "qrels.parquet"), str(folder / "run.parquet")

    from rankkit.spark import evaluate, session

    local = folder / "spark-local"  # the shuffle's and spills' files, beside the data, deleted with it
    started = time.perf_counter()
    with PeakMemory() as peak:
        spark = session(args.master, memory=args.memory, config={
            "spark.ui.enabled": "true", "spark.ui.port": "0", "spark.local.dir": str(local),
            "spark.sql.shuffle.partitions": args.partitions})
        rows = spark.read.parquet(run).count()
        frame = evaluate(spark, spark.read.parquet(qrels), spark.read.parquet(run), MEASURES)
        if args.plan:
            Path(args.plan).write_text(plan_text(frame))
        ready = time.perf_counter()
        values = frame.toPandas()
        seconds = time.perf_counter() - ready
        found = stages(spark)
    total = time.perf_counter() - started
    print(values.to_string(index=False))
    print(f"\n{rows:,} run rows, {', '.join(MEASURES)}; {args.master}, driver memory {args.memory}, "
          f"{args.partitions} shuffle partitions; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"evaluation {seconds:.0f} s (session start and row count included: {total:.0f} s); peak resident "
          f"memory {gb(peak.jvm)} the JVM, {gb(peak.tree)} with Python\n")
    print("| stage | tasks | input rows | shuffle read | shuffle written (rows) | spilled (disk) | task time (s) |")
    print("|---|---|---|---|---|---|---|")
    for stage in found:
        print(f"| {stage['stageId']} | {stage['numTasks']} | {stage['inputRecords']:,} | "
              f"{mb(stage['shuffleReadBytes'])} | {mb(stage['shuffleWriteBytes'])} ({stage['shuffleWriteRecords']:,}) | "
              f"{mb(stage['diskBytesSpilled'])} | {stage['executorRunTime'] / 1000:.0f} |")
    spark.stop()


if __name__ == "__main__":
    main()
