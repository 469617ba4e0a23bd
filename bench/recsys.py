"""Issue 35's scale benchmark: top-100 recommendations per user, nDCG@10, R@10, HitRate@10,
Coverage@10 and Novelty@10, rankkit against torchmetrics (CPU) and Microsoft Recommenders'
python_evaluation, each a whole process from the Parquet files to the printed numbers.

    python bench/recsys.py generate --users 100000            # bench/data/recsys-100000/ (DuckDB SQL)
    python bench/recsys.py run --users 100000 -r 3            # rankkit, torchmetrics, recommenders
    python bench/recsys.py run --users 1000000 -l rankkit -r 1
    python bench/recsys.py run --users 10000 --recommenders-python /tmp/peer/bin/python

Each user (user_id 0 .. users-1) gets 100 recommendations of distinct items out of ITEMS, scored
(100 - rank) / 4 (exact in float32, no ties), 1 to 5 held-out test items (rating 1: implicit
feedback; about 60% of them among the user's recommendations, the j-th at a rank between 20j + 1
and 20j + 20) and about
10 training interactions skewed towards popular items (none of them recommended to that user:
Recommenders refuses a recommendation of an item the user has in the log), plus one interaction per
item by 1,000 users who have only a log (user_id users .. users + 999), so that every item is in it (Recommenders' catalog_coverage counts the log's items as the catalog, as
rankkit's Coverage does with --interactions alone). Values come from integer mixing of user and
position numbers, so every run of the generator writes the same files.

rankkit runs as `rankkit eval --memory-limit 1.5GB` and, as rankkit-python, as `rankkit.evaluate` on a
connection with memory_limit=1.5GB (recsys_peer.py; --memory-limit sets both and the floor's): DuckDB's
limit bounds its buffer pool, and the process takes some 150 MiB more (Python, memory outside the
pool), so 1.5GB keeps the process under the issue's 2 GB; torchmetrics' script (bench/recsys_peer.py) reads
the files with pandas, labels the recommendations by the test and runs RetrievalNormalizedDCG,
RetrievalRecall and RetrievalHitRate; Recommenders' reads them with pandas and runs ndcg_at_k,
recall_at_k, catalog_coverage and novelty (it has no hit rate; torchmetrics no coverage or novelty,
so each peer computes fewer measures than rankkit). `duckdb` is the floor: the five in one plain
DuckDB statement written for this shape (recsys_peer.py's FLOOR: no checks, no options, the same
memory limit); a "faster by" below 1 there is rankkit's cost over it. Values are compared first: torchmetrics' to 1e-6
(float32), Recommenders' to 1e-9. Peak RSS is the process's own (os.wait4).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("RANKKIT_BENCH_DATA") or HERE / "data")
ITEMS = 20_000
MEASURES = ["nDCG@10", "R@10", "HitRate@10", "Coverage@10", "Novelty@10"]
MEMORY_LIMIT = "1.5GB"  # DuckDB's, for a process under 2 GB (bench/README.md, recsys)
TOLERANCE = {"torchmetrics": 1e-6, "recommenders": 1e-9, "duckdb": 1e-9, "rankkit-python": 1e-9}

GENERATE = """
CREATE MACRO mix(x) AS (x * 2654435761) % 4294967296;
CREATE TABLE users AS
    SELECT u, mix(u) % {items} AS first, 1 + (mix(u) >> 8) % 7 AS step, 1 + (mix(u) >> 12) % 5 AS relevant
    FROM range({users}) t(u);
COPY (SELECT u AS user_id, (first + r * step) % {items} AS item_id, ((100 - r) / 4)::FLOAT AS prediction
      FROM users, range(100) s(r) ORDER BY u, r)
    TO '{folder}/recs.parquet' (FORMAT parquet);
COPY (SELECT u AS user_id,
             CASE WHEN mix(u * 8 + j) % 10 < 6
                  THEN (first + step * (j * 20 + (mix(u * 8 + j) >> 8) % 20)) % {items}
                  ELSE (first + step * 100 + j) % {items} END AS item_id,
             1.0::DOUBLE AS rating
      FROM users, range(5) s(j) WHERE j < relevant ORDER BY u, j)
    TO '{folder}/test.parquet' (FORMAT parquet);
COPY (SELECT DISTINCT user_id, item_id FROM (
          (SELECT u AS user_id, ({items} * ((mix(u * 16 + t) / 4294967296) ^ 3))::BIGINT % {items} AS item_id
           FROM users, range(10) s(t)
           EXCEPT SELECT user_id, item_id FROM '{folder}/recs.parquet')
          UNION ALL SELECT {users} + i % 1000, i FROM range({items}) c(i))
      ORDER BY user_id, item_id)
    TO '{folder}/train.parquet' (FORMAT parquet);
"""


def folder_of(users: int) -> Path:
    return DATA / f"recsys-{users}"


def generate(users: int) -> Path:
    folder = folder_of(users)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = true")
    con.execute(GENERATE.format(users=users, items=ITEMS, folder=folder))
    rows = {name: con.execute(f"SELECT count(*) FROM '{folder}/{name}.parquet'").fetchone()[0]
            for name in ("recs", "test", "train")}
    print(f"{folder}: {rows} in {time.perf_counter() - started:.1f} s")
    return folder


def command(library: str, folder: Path, peer_python: dict[str, str], limit: str = MEMORY_LIMIT) -> list[str]:
    if library == "rankkit":
        measures = [arg for name in MEASURES for arg in ("-m", name)]
        return [sys.executable, "-m", "rankkit.cli", "eval", "--digits", "15", *measures,
                "--interactions", str(folder / "train.parquet"), "--memory-limit", limit,
                str(folder / "test.parquet"), str(folder / "recs.parquet")]
    return [peer_python.get(library, sys.executable), str(HERE / "recsys_peer.py"), library, str(folder), limit]


def run_process(argv: list[str]) -> tuple[str, float, float, int, str]:
    """Run a whole process: its output, wall time, CPU time (user + system), own peak RSS (MB, os.wait4)
    and, if it failed, its error output (stderr goes to a file, so neither pipe can fill while the other is read)."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errors)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - started
        errors.seek(0)
        err = errors.read().decode(errors="replace") if os.waitstatus_to_exitcode(status) else ""
    return out.decode(), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, err


def values_of(library: str, out: str) -> dict[str, float]:
    """The printed means: `measure<TAB>value` (peers), `measure all value` (rankkit eval)."""
    values = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in MEASURES:
            values[parts[0]] = float(parts[-1])
    return values


def disagreements(reference: dict[str, float], library: str, values: dict[str, float]) -> list[str]:
    tolerance = TOLERANCE.get(library, 0.0)
    return [f"{library} {name}: {value!r} against rankkit's {reference.get(name)!r}"
            for name, value in values.items()
            if reference.get(name) is None or abs(value - reference[name]) > tolerance]


def run(users: int, libraries: list[str], repetitions: int, peer_python: dict[str, str], limit: str) -> None:
    folder = folder_of(users)
    if not (folder / "recs.parquet").exists():
        generate(users)
    walls = {library: [] for library in libraries}
    cpus = {library: [] for library in libraries}
    rss = {library: [] for library in libraries}
    values = {}
    for _ in range(repetitions):
        for library in libraries:  # interleaved: each round starts every tool once
            out, wall, cpu, peak, err = run_process(command(library, folder, peer_python, limit))
            if err:
                raise SystemExit(f"{library} failed:\n{err[-3000:]}")
            walls[library].append(wall)
            cpus[library].append(cpu)
            rss[library].append(peak)
            values[library] = values_of(library, out)
    reference = values.get("rankkit", {})
    problems = [line for library in libraries if library != "rankkit" and reference
                for line in disagreements(reference, library, values[library])]
    load = os.getloadavg()
    print(f"\n{users:,} users x 100 recommendations ({users * 100:,} rows), {repetitions} run(s) each, "
          f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, {os.cpu_count()} cores, memory limit {limit}\n")
    print("| library | measures | end to end, wall s (median, min-max) | CPU s (median) | peak RSS, MB "
          "| rankkit faster by (wall, CPU) |")
    print("|---|---|---|---|---|---|")
    for library in libraries:
        wall, cpu = statistics.median(walls[library]), statistics.median(cpus[library])
        ratio = (f"{wall / statistics.median(walls['rankkit']):.1f}x, {cpu / statistics.median(cpus['rankkit']):.1f}x"
                 if "rankkit" in walls and library != "rankkit" else "")
        print(f"| {library} | {len(values[library])} | {wall:.2f} ({min(walls[library]):.2f}-"
              f"{max(walls[library]):.2f}) | {cpu:.2f} | {max(rss[library])} | {ratio} |")
    print("\n" + json.dumps(values, indent=1))
    print("\nvalues agree" if not problems else "\nVALUES DIFFER:\n" + "\n".join(problems))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["generate", "run"])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("-l", "--libraries", nargs="+", default=["rankkit", "rankkit-python", "torchmetrics", "recommenders", "duckdb"])
    parser.add_argument("-r", "--repetitions", type=int, default=3)
    parser.add_argument("--recommenders-python", default=sys.executable,
                        help="the Python that has Microsoft Recommenders (its own venv: it needs pandas < 3)")
    parser.add_argument("--memory-limit", default=MEMORY_LIMIT,
                        help="DuckDB's memory limit for rankkit, rankkit-python and the floor")
    args = parser.parse_args()
    if args.action == "generate":
        generate(args.users)
    else:
        run(args.users, args.libraries, args.repetitions, {"recommenders": args.recommenders_python}, args.memory_limit)


if __name__ == "__main__":
    main()
