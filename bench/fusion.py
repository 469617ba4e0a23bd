"""A weight sweep: rankkit.fusion_sweep against ranx's optimize_fusion, on the same three runs.

    python bench/fusion.py [QUERIES] [DOCUMENTS] [RANX_STEP]   # default 1000 queries x 100 documents per run
    python bench/fusion.py 6980 1000 0.5     # MS MARCO dev's shape; ranx timed on a coarser grid

RANX_STEP (default 0.1, the same grid as rankkit's) times ranx on a coarser grid where its whole grid
would take hours (MS MARCO dev size): its seconds per point are then counted for rankkit's number of
points, which is what the ratio printed compares (ranx fuses and evaluates each point on its own, so
its time is its points times one point's).

Three synthetic runs (a lexical, a dense and a third one, their scores on different scales, each
ranking its own documents of a shared pool) and graded qrels, written by DuckDB from integer mixing:
the same arguments give the same files. Both sides tune wsum over min-max normalised scores for
nDCG@10, with weights on the simplex in steps of 0.1. ranx is warmed up first on a tiny input, so that
numba's compilation is not counted; rankkit's connection is made before the clock starts.

What each side does is not the same work: ranx's optimize_fusion returns the best weights; rankkit's
fusion_sweep also gives every point its bootstrap interval and its paired tests against the best
point and the best single run. ranx also keeps only the weightings whose float sum is exactly 1.0,
so it tries fewer points than the simplex has (the count is printed).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import duckdb


def write_inputs(folder: Path, queries: int, documents: int) -> tuple[Path, list[Path]]:
    con = duckdb.connect()
    pool = documents * 2
    con.execute(f"""CREATE TABLE pool AS
        SELECT 'q' || q AS query_id, 'd' || d AS doc_id, (hash(q * 7919 + d) % 1000) / 1000.0 AS signal
        FROM range({queries}) a(q), range({pool}) b(d)""")
    qrels = folder / "qrels.txt"
    con.execute(f"""COPY (SELECT query_id, 0, doc_id, CASE WHEN signal > 0.97 THEN 2 ELSE 1 END FROM pool
                          WHERE signal > 0.9) TO '{qrels}' (FORMAT csv, DELIMITER ' ', HEADER false)""")
    runs = []
    for s, (scale, noise) in enumerate([(30.0, 0.5), (1.0, 0.35), (5.0, 0.6)]):
        path = folder / f"run{s}.run"
        con.execute(f"""COPY (
            SELECT query_id, 'Q0', doc_id, row_number() OVER (PARTITION BY query_id ORDER BY score DESC, doc_id DESC),
                   score, 'run{s}'
            FROM (SELECT query_id, doc_id,
                         {scale} * (signal + {noise} * (hash(doc_id || query_id || {s}) % 1000) / 1000.0) AS score,
                         row_number() OVER (PARTITION BY query_id ORDER BY hash(doc_id || {s})) AS pick
                  FROM pool)
            WHERE pick <= {documents}) TO '{path}' (FORMAT csv, DELIMITER ' ', HEADER false)""")
        runs.append(path)
    return qrels, runs


def main() -> None:
    queries = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    documents = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    ranx_step = float(sys.argv[3]) if len(sys.argv) > 3 else 0.1
    with tempfile.TemporaryDirectory() as folder:
        qrels, runs = write_inputs(Path(folder), queries, documents)
        import rankkit

        rankkit.connect()
        started = time.perf_counter()
        swept = rankkit.fusion_sweep(str(qrels), [str(r) for r in runs], "nDCG@10", method="wsum", step=0.1)
        ours = time.perf_counter() - started
        print(f"rankkit.fusion_sweep: {len(swept)} points in {ours:.1f} s; best {swept.attrs['best']}")

        from ranx import Qrels, Run, optimize_fusion

        tiny = [Run({"q": {"a": 1.0, "b": 0.5}}), Run({"q": {"a": 0.2, "b": 0.9}}), Run({"q": {"b": 1.0, "a": 0.1}})]
        optimize_fusion(Qrels({"q": {"a": 1}}), tiny, method="wsum", metric="ndcg@10", step=0.5, show_progress=False)
        ranx_qrels, ranx_runs = Qrels.from_file(str(qrels), kind="trec"), [Run.from_file(str(r), kind="trec") for r in runs]
        started = time.perf_counter()
        best, report = optimize_fusion(ranx_qrels, ranx_runs, norm="min-max", method="wsum", metric="ndcg@10",
                                       step=ranx_step, show_progress=False, return_optimization_report=True)
        theirs = time.perf_counter() - started
        print(f"ranx optimize_fusion: {len(report.configs)} points in {theirs:.1f} s; best {best}")
        print(f"ratio (ranx / rankkit, per point): {theirs / len(report.configs) / (ours / len(swept)):.2f}")


if __name__ == "__main__":
    main()
