"""The composed statement (rankkit.compose) beside ../shared/perf/lean_floor.py's plain statement and
rankkit.evaluate, on the same loaded tables: DL19 BM25 (4,300 run rows, 9,260 qrels rows), five
measures (nDCG@10, AP, RR@10, R@100, P@10), trec_eval's conventions (issue 21).

    python bench/lean.py          # from the project's root, in its virtualenv
    python bench/lean.py --qrels bench/data/A/qrels.txt --run bench/data/A/run.txt --repeat 5   # workload A

Rows (median ms per call, after warm-up, the calls taken in turn):
  plain statement       lean_floor.py's statement (windows, these five measures only)
  composed, whole call  rankkit.ranks (counting ranks, what a large run gets) or rankkit.window_ranks
                        (one window, what evaluate takes for a DL19 run; over plain tables, so with their
                        columns matched, which evaluate's window_ranks_loaded skips) + the composed values +
                        rankkit.over_values (the means), over the plain statement's tables
  composed values       the composed statement alone, over a ranks table made once
  rankkit.evaluate      on inputs read with read_qrels / read_run
each statement with DuckDB's profile beside it (binding, optimizer, execution CPU). The means are
printed so that they can be compared.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rankkit  # noqa: E402
from rankkit.compose import compose  # noqa: E402
from rankkit.specs import measure_specs  # noqa: E402

MEASURES = ["nDCG@10", "AP", "RR@10", "R@100", "P@10"]
PROFILE = str(Path(tempfile.gettempdir()) / f"rankkit-lean-profile-{os.getpid()}.json")


def shared() -> Path:
    """$RANKKIT_SHARED, else the nearest ``shared`` folder beside the checkout or one of its parents."""
    if os.environ.get("RANKKIT_SHARED"):
        return Path(os.environ["RANKKIT_SHARED"])
    return next((p / "shared" for p in ROOT.parents if (p / "shared").is_dir()), ROOT.parent / "shared")


def load_floor():
    path = shared() / "perf" / "lean_floor.py"
    spec = importlib.util.spec_from_file_location("lean_floor", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def whole_call(specs, ranks: str = "ranks") -> str:
    """Rank the run (rankkit.``ranks``), compose the values, take the means: what evaluate runs."""
    return (f"WITH rankkit_ranked_run AS (FROM rankkit.{ranks}('qrels', 'run')), "
            f"rankkit_values AS MATERIALIZED ({compose(specs, qrels=chr(39) + 'qrels' + chr(39), ranks='rankkit_ranked_run')}) "
            "FROM rankkit.over_values('rankkit_values')")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qrels", help="TREC qrels (default: lean_floor.py's, DL19)")
    parser.add_argument("--run", help="a TREC run of one system (default: lean_floor.py's, DL19 BM25)")
    parser.add_argument("--repeat", type=int, default=25, help="timed calls of each, in turn")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    floor = load_floor()
    qrels_path, run_path = args.qrels or floor.QRELS, args.run or floor.RUN
    con = rankkit.connect()
    # the plain statement's tables, made as lean_floor.py makes them
    con.execute(f"""CREATE TABLE qrels AS SELECT column0 AS query_id, column2 AS doc_id, column3::INT AS rel
                    FROM read_csv('{qrels_path}', delim = ' ', header = false, all_varchar = true)""")
    con.execute(f"""CREATE TABLE run AS SELECT column0 AS query_id, column2 AS doc_id, column4::DOUBLE AS score
                    FROM read_csv('{run_path}', delim = ' ', header = false, all_varchar = true)""")
    specs = measure_specs(con, MEASURES)
    whole, window = whole_call(specs), whole_call(specs, "window_ranks")
    con.execute("CREATE TABLE ranks AS FROM rankkit.ranks('qrels', 'run')")
    values = compose(specs, qrels="'qrels'", ranks="ranks")
    qrels, run = rankkit.read_qrels(str(qrels_path), con=con), rankkit.read_run(str(run_path), con=con)

    print("means, plain:   ", [round(v, 6) for v in con.execute(floor.LEAN).fetchone()])
    print("means, composed:", [round(row[2], 6) for row in con.execute(whole).fetchall()])
    print("means, window:  ", [round(row[2], 6) for row in con.execute(window).fetchall()])
    calls = {
        "plain statement (lean_floor.py)": lambda: con.execute(floor.LEAN).fetchall(),
        "composed, whole call (ranks + values + means)": lambda: con.execute(whole).fetchall(),
        "composed, whole call, window ranks": lambda: con.execute(window).fetchall(),
        "composed values over a ranks table": lambda: con.execute(values).fetchall(),
        "rankkit.evaluate on loaded inputs": lambda: rankkit.evaluate(qrels, run, MEASURES, con=con),
    }
    statements = {"plain statement (lean_floor.py)": floor.LEAN, "composed, whole call (ranks + values + means)": whole,
                  "composed, whole call, window ranks": window,
                  "composed values over a ranks table": values}
    timed = round_robin(calls, args.repeat)
    for label, ms in timed.items():
        split = profile(con, statements[label], min(9, args.repeat)) if label in statements else ""
        print(f"{label:48s} {ms:6.1f} ms   {split}")
    plain = timed["plain statement (lean_floor.py)"]
    print(f"ratio to the plain statement: composed whole call {timed['composed, whole call (ranks + values + means)'] / plain:.2f}x, "
          f"with window ranks {timed['composed, whole call, window ranks'] / plain:.2f}x, "
          f"composed values {timed['composed values over a ranks table'] / plain:.2f}x, "
          f"evaluate {timed['rankkit.evaluate on loaded inputs'] / plain:.2f}x (target 1.3x)")


def round_robin(calls: dict, repeat: int = 25) -> dict:
    """Median ms per call, the calls taken in turn (the machine is shared: a busy spell slows them all)."""
    times = {label: [] for label in calls}
    for n in range(repeat + 3):
        for label, call in calls.items():
            start = time.perf_counter()
            call()
            if n >= 3:  # warm-up
                times[label].append(time.perf_counter() - start)
    return {label: statistics.median(found) * 1e3 for label, found in times.items()}


def profile(con, sql: str, repeat: int = 9) -> str:
    """Where a statement's time goes, from DuckDB's profiler (medians): binding, optimizer, execution CPU."""
    found = []
    for _ in range(repeat):
        con.execute("SET enable_profiling = 'json'; SET profiling_mode = 'detailed'; "
                    f"SET profiling_output = '{PROFILE}'")
        con.execute(sql).fetchall()
        con.execute("RESET enable_profiling")
        report = json.loads(Path(PROFILE).read_text())
        found.append((report["planner"]["binding_time"], report["optimizer"]["total_time"],
                      report["query"]["cpu_time"], report["query"]["total_intermediate_rows"]))
    bind, optimize, cpu, rows = (statistics.median(column) for column in zip(*found))
    return f"(binding {bind * 1e3:4.1f} ms, optimizer {optimize * 1e3:4.1f} ms, execution CPU {cpu * 1e3:5.1f} ms, {rows:,.0f} intermediate rows)"


if __name__ == "__main__":
    main()
