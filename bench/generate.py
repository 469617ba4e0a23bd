"""Deterministic benchmark workloads, written by DuckDB SQL into bench/data/<name>/.

Each workload is a qrels and a run, as TREC text and as Parquet. Nothing is random: every value
comes from integer mixing of (query, document) numbers, so the same command writes the same bytes.

Scores are multiples of 1/16 below 128, exact in float32, so pytrec_eval (which reads scores as
32-bit floats) ranks exactly as trec_eval does. Documents nobody judged tie with each other often
(in A, 63% of the run rows share their score with another row of the query; in B, 49%); a judged
document's score is unique within its query. So the run has ties, yet every tie rule gives the same numbers: tied documents are all
unjudged and only swap places among themselves. That is what lets the benchmark require equal
values from every library.

    python bench/generate.py            # A, B and the ladder
    python bench/generate.py XL         # the 100M-row Parquet run (about 1 GB, 4 minutes)
    python bench/generate.py sweep      # 200 systems in the shape of the TREC DL19 BM25 run

The sweep is the everyday workload's many-systems case: 200 systems, each the DL19 BM25 run from
../shared/data (43 queries x 100 documents) with its scores moved by a deterministic jitter, in one
TREC file whose tag names the system (860,000 rows), and the same systems one file each in runs/.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import duckdb

# RANKKIT_BENCH_DATA: write elsewhere (the 100M-row Spark bench writes XL into /tmp and deletes it)
DATA = Path(os.environ.get("RANKKIT_BENCH_DATA") or Path(__file__).resolve().parent / "data")
SWEEP_SYSTEMS = 200


def shared_data() -> Path:
    """The reference data: $RANKKIT_SHARED/data, else the nearest ``shared/data`` beside the checkout
    or one of its parents (a git worktree sits one level deeper than the main checkout)."""
    if os.environ.get("RANKKIT_SHARED"):
        return Path(os.environ["RANKKIT_SHARED"]) / "data"
    root = Path(__file__).resolve().parent.parent
    for parent in root.parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    return root.parent / "shared" / "data"


# the everyday workload: TREC DL runs as users evaluate them, read in place from the reference data
DL_QRELS = {"dl19": "anserini-tools/qrels.dl19-passage.txt", "dl20": "anserini-tools/qrels.dl20-passage.txt"}
DL_RUN = "rank_llm/{year}.BM25.trec_results.txt"

# name: (queries, documents per query, qrels style, formats)
WORKLOADS = {
    "A": (6_980, 1_000, "sparse", ("txt", "parquet")),
    "B": (200, 1_000, "graded", ("txt", "parquet")),
    "L1k": (1_000, 100, "sparse", ("txt", "parquet")),
    "L10k": (10_000, 100, "sparse", ("txt", "parquet")),
    "L100k": (100_000, 100, "sparse", ("txt", "parquet")),
    "XL": (100_000, 1_000, "sparse", ("parquet",)),
}

# mix(a, b): a well-spread non-negative integer from two integers (rounds of a Lehmer generator
# and xor-shifts; every product fits in BIGINT, so DuckDB never reports an overflow).
MACROS = """
CREATE OR REPLACE MACRO lehmer(x) AS (x * 48271) % 2147483647;
CREATE OR REPLACE MACRO stir(x) AS xor(x, x >> 13);
CREATE OR REPLACE MACRO mix(a, b) AS
    stir(lehmer(stir(lehmer(stir(lehmer((a::BIGINT * 1000003 + b::BIGINT * 7919 + 17) % 2147483647))))));
CREATE OR REPLACE MACRO doc_name(q, d) AS
    'D' || lpad((((q::UBIGINT * 1000 + d + 1) * 48271) % 2147483647)::VARCHAR, 10, '0');
"""


def run_sql(n_queries: int, n_docs: int, style: str) -> str:
    """One row per (query, document): the ranked list a system returned, with its scores."""
    return f"""
    SELECT 'Q' || q AS query_id, doc_name(q, d) AS doc_id, {judged_sql(style)} AS judged,
           CASE WHEN {judged_sql(style)}
                -- odd sixteenths, distinct within the query (37 is coprime to {n_docs})
                THEN (2 * ((d * 37 + q * 11) % {n_docs}) + 1) / 16.0E0
                -- even sixteenths from fewer values than documents: ties
                ELSE (2 * (mix(q, d) % {n_docs})) / 16.0E0 END AS score
    FROM range({n_queries}) t(q), range({n_docs}) u(d)
    """


def judged_sql(style: str) -> str:
    if style == "sparse":
        # one judged (relevant) document per query, at a query-dependent position
        return "d = mix(q, 7) % n_docs_placeholder"
    # graded: every fifth document of the first three quarters, about 150 per 1000
    return "((d + q) % 5 = 0 AND d < n_docs_placeholder * 3 / 4)"


def qrels_sql(n_queries: int, n_docs: int, style: str) -> str:
    if style == "sparse":
        # the relevant document is in the run for 9 queries in 10; 1 query in 16 has a second
        # relevant document the run missed (MS MARCO dev has about 1.07 per query)
        return f"""
        SELECT 'Q' || q AS query_id,
               CASE WHEN mix(q, 3) % 10 < 9 THEN doc_name(q, mix(q, 7) % {n_docs}) ELSE 'X' || q END AS doc_id,
               1 AS relevance
        FROM range({n_queries}) t(q)
        UNION ALL
        SELECT 'Q' || q, 'Y' || q, 1 FROM range({n_queries}) t(q) WHERE mix(q, 5) % 16 = 0
        """
    # graded 0..3: the judged documents of the run, and 50 judged documents it missed
    return f"""
    SELECT 'Q' || q AS query_id, doc_name(q, d) AS doc_id, mix(q, d + 1) % 4 AS relevance
    FROM range({n_queries}) t(q), range({n_docs}) u(d)
    WHERE (d + q) % 5 = 0 AND d < {n_docs} * 3 / 4
    UNION ALL
    SELECT 'Q' || q, 'Z' || q || '_' || j, mix(q, j + 77) % 4
    FROM range({n_queries}) t(q), range(50) u(j)
    """


def write(con: duckdb.DuckDBPyConnection, name: str) -> None:
    n_queries, n_docs, style, formats = WORKLOADS[name]
    out = DATA / name
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    run = run_sql(n_queries, n_docs, style).replace("n_docs_placeholder", str(n_docs))
    con.execute(f"CREATE OR REPLACE TEMP VIEW run AS {run}")
    con.execute(f"CREATE OR REPLACE TEMP VIEW qrels AS {qrels_sql(n_queries, n_docs, style)}")
    ordered = "ORDER BY query_id, score DESC, doc_id DESC"
    if "parquet" in formats:
        con.execute(f"COPY (SELECT query_id, doc_id, score FROM run) TO '{out}/run.parquet' (FORMAT parquet)")
        con.execute(f"COPY qrels TO '{out}/qrels.parquet' (FORMAT parquet)")
    if "txt" in formats:
        # TREC text in the usual layout: each query's list best first, with its rank
        con.execute(f"""COPY (
            SELECT query_id, 'Q0', doc_id, row_number() OVER (PARTITION BY query_id ORDER BY score DESC, doc_id DESC),
                   score, 'bench'
            FROM run {ordered}) TO '{out}/run.txt' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '')""")
        con.execute(f"""COPY (SELECT query_id, 0, doc_id, relevance FROM qrels ORDER BY query_id, doc_id)
            TO '{out}/qrels.txt' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '')""")
    rows = con.execute("SELECT count(*) FROM run").fetchone()[0]
    print(f"{name}: {n_queries} queries x {n_docs} documents = {rows:,} run rows "
          f"in {time.perf_counter() - started:.1f} s -> {out}")


def write_sweep(con: duckdb.DuckDBPyConnection) -> None:
    """200 systems shaped like DL19 BM25: each document's score moved by up to 2, in 64ths.

    Multiples of 1/64 below 64 are exact in float32, so pytrec_eval (32-bit scores) ranks as
    trec_eval and rankkit do; ties that the rounding makes are broken by doc_id in every library."""
    source = shared_data() / DL_RUN.format(year="dl19")
    if not source.exists():
        raise SystemExit(f"{source} is absent: the sweep is made from the DL19 BM25 run in ../shared/data")
    out = DATA / "sweep"
    out.mkdir(parents=True, exist_ok=True)
    con.execute(f"""CREATE OR REPLACE TEMP VIEW dl19 AS SELECT query_id, doc_id, score
        FROM read_csv('{source}', delim = ' ', header = false, auto_detect = false,
                      columns = {{'query_id': 'VARCHAR', 'q0': 'VARCHAR', 'doc_id': 'VARCHAR', 'rank': 'INTEGER',
                                 'score': 'DOUBLE', 'tag': 'VARCHAR'}})""")
    con.execute(f"""CREATE OR REPLACE TEMP TABLE sweep AS
        SELECT s, query_id, 'Q0' AS q0, doc_id,
               row_number() OVER (PARTITION BY s, query_id ORDER BY score DESC, doc_id DESC) AS rank, score,
               'sys' || lpad(s::VARCHAR, 3, '0') AS tag
        FROM (SELECT s, query_id, doc_id,
                     round((score + (mix(s, hash(query_id, doc_id) % 1000003) % 128) / 64.0E0) * 64) / 64.0E0 AS score
              FROM dl19, range(1, {SWEEP_SYSTEMS} + 1) t(s))
        ORDER BY s, query_id, score DESC, doc_id DESC""")
    trec = "(FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '')"
    con.execute(f"COPY (SELECT * EXCLUDE (s) FROM sweep ORDER BY s, query_id, rank) TO '{out}/run.txt' {trec}")
    # the same systems one file each, as `rankkit eval qrels runs/*.run` and evaluate(qrels, paths) read them
    (out / "runs").mkdir(exist_ok=True)
    for s in range(1, SWEEP_SYSTEMS + 1):
        con.execute(f"COPY (SELECT * EXCLUDE (s) FROM sweep WHERE s = {s} ORDER BY query_id, rank) "
                    f"TO '{out}/runs/sys{s:03d}.run' {trec}")
    rows = con.execute("SELECT count(*) FROM sweep").fetchone()[0]
    print(f"sweep: {SWEEP_SYSTEMS} systems x DL19 BM25 = {rows:,} run rows -> {out}/run.txt and {out}/runs/*.run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="*", default=["A", "B", "L1k", "L10k", "L100k"],
                        help=f"which to write (default: all but XL); choices: {', '.join(WORKLOADS)}, sweep")
    args = parser.parse_args()
    con = duckdb.connect()
    con.execute(f"SET temp_directory = '{DATA / 'tmp'}'")
    con.execute(MACROS)
    for name in args.workloads:
        if name == "sweep":
            write_sweep(con)
            continue
        if name not in WORKLOADS:
            parser.error(f"unknown workload {name}; choices: {', '.join(WORKLOADS)}, sweep")
        write(con, name)


if __name__ == "__main__":
    main()
