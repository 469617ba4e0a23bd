"""The SQL user's path (issue 21): rankkit.evaluate in a plain DuckDB connection, with the macros of one
or more scripts (``rankkit macros > x.sql``, one per version of the code), beside
../shared/perf/lean_floor.py's plain statement on the same tables: DL19 BM25, five measures (nDCG@10,
AP, RR@10, R@100, P@10). Also its two first stages alone: the name parser (rankkit.measure_specs) and
the input checks (rankkit.input_checks).

    rankkit macros > /tmp/after.sql
    (cd ../main && rankkit macros > /tmp/before.sql)   # another checkout: the code before
    python bench/sql_path.py /tmp/before.sql /tmp/after.sql

Each script gets its own connection in this one process; one DuckDB thread; CPU time (process time),
median of 11 calls after a warm-up, the calls taken in turn over --rounds rounds; the best round and
the range are printed, each as a multiple of the plain statement. The values of every script's
rankkit.evaluate are checked equal first.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent
MEASURES = "['nDCG@10', 'AP', 'RR@10', 'R@100', 'P@10']"


def shared() -> Path:
    """$RANKKIT_SHARED, else the nearest ``shared`` folder beside the checkout or one of its parents (as
    bench/lean.py finds it)."""
    if os.environ.get("RANKKIT_SHARED"):
        return Path(os.environ["RANKKIT_SHARED"])
    return next((p / "shared" for p in ROOT.parents if (p / "shared").is_dir()), ROOT.parent / "shared")


def floor_module(path: Path):
    spec = importlib.util.spec_from_file_location("lean_floor", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def connection(floor, script: str | None) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("SET threads = 1")
    if script:
        con.execute(Path(script).read_text(encoding="utf-8"))
    con.execute(f"""CREATE TABLE qrels AS SELECT column0 AS query_id, column2 AS doc_id, column3::INT AS rel
                    FROM read_csv('{floor.QRELS}', delim = ' ', header = false, all_varchar = true)""")
    con.execute(f"""CREATE TABLE run AS SELECT column0 AS query_id, column2 AS doc_id, column4::DOUBLE AS score
                    FROM read_csv('{floor.RUN}', delim = ' ', header = false, all_varchar = true)""")
    return con


def cpu(con, sql: str, repeat: int = 11) -> float:
    con.execute(sql).fetchall()
    times = []
    for _ in range(repeat):
        start = time.process_time()
        con.execute(sql).fetchall()
        times.append(time.process_time() - start)
    return statistics.median(times) * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scripts", nargs="+", help="macro scripts (rankkit macros > x.sql)")
    parser.add_argument("--floor", default=str(shared() / "perf" / "lean_floor.py"),
                        help="lean_floor.py (its data and plain statement)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    floor = floor_module(Path(args.floor))
    calls = {"plain statement": (connection(floor, None), floor.LEAN)}
    values = []
    for script in args.scripts:
        con = connection(floor, script)
        name = Path(script).stem
        calls[f"{name}: rankkit.evaluate"] = (con, f"FROM rankkit.evaluate('qrels', 'run', {MEASURES})")
        calls[f"{name}: measure_specs"] = (con, f"FROM rankkit.measure_specs({MEASURES})")
        calls[f"{name}: input_checks"] = (con, "FROM rankkit.input_checks('qrels', 'run')")
        values.append(sorted(con.execute(f"FROM rankkit.evaluate('qrels', 'run', {MEASURES})").fetchall()))
    if any(v != values[0] for v in values):
        raise SystemExit("the scripts' rankkit.evaluate differ")
    found = {name: [] for name in calls}
    for _ in range(args.rounds):
        for name, (con, sql) in calls.items():
            found[name].append(cpu(con, sql))
    plain = min(found["plain statement"])
    for name, times in found.items():
        spread = "-".join(f"{t:.0f}" for t in sorted(times))
        print(f"{name:32s} {min(times):7.1f} ms CPU ({spread})  {min(times) / plain:5.1f}x the plain statement")


if __name__ == "__main__":
    main()
