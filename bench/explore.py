"""Explorer timings on workload A (6,980 queries x 1,000 documents, two systems), written to bench/README.md.

    python bench/generate.py A && python bench/explore.py

The second system is the first with its scores perturbed (a deterministic mix of query and
document, multiples of 1/16), written once beside the workload as run_b.txt. Timed, each the
median of --repeat tries with a different value each time: the first render (reading both runs,
per-query values of nDCG@10 and the measures computed with it, the plots and the table), a change
of measure among those (read from the cache), a change of k and a change of gain (new per-query values from
SQL), and a query selection (the trace of both systems, the drill-down, the three plots redrawn with
the query marked), with its trace and drill-down alone (made again for the same query) beside it,
then a change of k with that query open (new values and the query's trace at the new k).
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import statistics
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import duckdb

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "A"
START, END = "<!-- explore:start -->", "<!-- explore:end -->"
SWITCHES_START, SWITCHES_END = "<!-- explore-switches:start -->", "<!-- explore-switches:end -->"


def second_run(folder: Path) -> Path:
    path = folder / "run_b.txt"
    if not path.exists():
        con = duckdb.connect()
        con.execute(f"""
            COPY (
                SELECT column0 AS q, 'Q0' AS z, column2 AS d,
                       row_number() OVER (PARTITION BY column0 ORDER BY s DESC, column2 DESC) AS r, s, 'b' AS tag
                FROM (SELECT *, column4::DOUBLE + (hash(column0, column2) % 64) / 16.0 AS s
                      FROM read_csv('{folder / "run.txt"}', delim = ' ', header = false, all_varchar = true))
                ORDER BY q, r
            ) TO '{path}' (DELIMITER ' ', HEADER false, QUOTE '')""")
    return path


CPU: list[float] = []  # the CPU seconds of each timed step, in the order timed


def timed(action) -> float:
    """Wall seconds of one step; its CPU seconds (every thread of this process) go to CPU. On a
    shared machine the wall time includes waiting for a core; the CPU time does not."""
    started, cpu = time.perf_counter(), time.process_time()
    action()
    CPU.append(time.process_time() - cpu)
    return time.perf_counter() - started


def _cycle(values: tuple, n: int) -> list:
    return [values[i % len(values)] for i in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="tries of each step (a shared machine needs several)")
    parser.add_argument("--no-write", action="store_true", help="print, leave bench/README.md alone")
    parser.add_argument("--switches", action="store_true",
                        help="time each step with the kept axes on and off, interleaved in one explorer")
    args = parser.parse_args()
    if not (DATA / "run.txt").exists():
        raise SystemExit("bench/data/A is missing: python bench/generate.py A")
    run_b = second_run(DATA)
    warnings.simplefilter("ignore")
    if args.switches:
        return switches(run_b, args)
    import rankkit
    from rankkit.explore.widget import Explorer

    load = os.getloadavg()[0]
    made: list[Explorer] = []
    first = [timed(lambda: made.append(rankkit.explore(DATA / "qrels.txt", {"a": DATA / "run.txt", "b": run_b})))
             for _ in range(args.repeat)]
    for old in made[:-1]:
        old.data.close()
    ex = made[-1]
    # the values cycle: each try changes the setting (a cached measure, a new k, a new gain)
    # (each at 10: a name brings its own cutoff, so "AP" would be the whole list, a setting not yet computed)
    measures = [timed(lambda m=m: setattr(ex, "measure", m))
                for m in _cycle(("AP@10", "RR@10", "P@10", "nDCG@10"), args.repeat + 1)]
    cutoffs = [timed(lambda k=k: setattr(ex, "k", k)) for k in _cycle((20, 5, 100, 50, 3), args.repeat)]
    gains = []
    ex.measure = "nDCG"  # (untimed) a measure that takes a gain: the measure loop may end on RR or P
    for i, gain in enumerate(_cycle(("exp", "linear"), args.repeat)):
        # a cutoff not used before (untimed), so that each change of gain is a setting not yet cached:
        # toggling the gain at one k read the cache from the third try on
        ex.k = 6 + i
        gains.append(timed(lambda g=gain: setattr(ex, "gain", g)))
    ids = sorted(set(ex.per_query["query_id"]))
    chosen = [ids[i * len(ids) // (args.repeat + 1)] for i in range(1, args.repeat + 1)]
    selections, drilldowns = [], []
    for query_id in chosen:
        selections.append(timed(lambda q=query_id: setattr(ex, "query", q)))
        drilldowns.append(timed(ex._refresh_trace))  # the chosen query's trace and drill-down again, alone
    # a change of k with the last query open: its trace at the new k too (cutoffs not used before)
    opened = [timed(lambda k=k: setattr(ex, "k", k)) for k in range(30, 30 + args.repeat)]
    rows = [("first render (read both runs, values of nDCG@10 and its batch, plots, table)", first),
            ("change of measure (cached values)", measures),
            ("change of k (new values from SQL)", cutoffs),
            ("change of gain (new values from SQL)", gains),
            ("query selection: trace, drill-down and the three plots marked", selections),
            ("of which the trace and the drill-down", drilldowns),
            ("change of k with a query open (new values, the query's trace)", opened)]
    table = ["| step | median s | min s | max s | CPU s (median) | tries |", "|---|---|---|---|---|---|"]
    cpu = iter(CPU)
    cpus = {id(times): [next(cpu) for _ in times] for times in (first, measures, cutoffs, gains)}
    paired = [next(cpu) for _ in range(2 * len(chosen))]  # selection and drill-down alternate
    cpus[id(selections)], cpus[id(drilldowns)] = paired[0::2], paired[1::2]
    cpus[id(opened)] = list(cpu)
    for label, times in rows:  # milliseconds count here: three decimals
        table.append(f"| {label} | {statistics.median(times):.3f} | {min(times):.3f} | {max(times):.3f} | "
                     f"{statistics.median(cpus[id(times)]):.3f} | {len(times)} |")
    note = (f"Workload A, two systems ({len(ids):,} queries evaluated), text input; {platform.machine()}, "
            f"{os.cpu_count()} cores, DuckDB {duckdb.__version__}; load average {load:.1f} when the run began "
            f"(the machine is shared: read the ratios, not the seconds). Made by `python bench/explore.py`.")
    text = "\n".join([START, "", note, "", *table, "", END])
    print(text)
    if not args.no_write:
        write(text, START, END, "## The explorer on workload A")


def write(text: str, start: str, end: str, heading: str) -> None:
    """Put text between its markers in bench/README.md (at the end, under heading, the first time)."""
    readme = HERE / "README.md"
    current = readme.read_text(encoding="utf-8")
    if start in current:
        current = current[:current.index(start)] + text + current[current.index(end) + len(end):]
    else:
        current = current.rstrip() + f"\n\n{heading}\n\n" + text + "\n"
    readme.write_text(current, encoding="utf-8")


# What can be switched off, and how: without the kept axes each figure is drawn whole (Agg's own draw).
VARIANTS = ("as shipped", "no kept axes")


@contextmanager
def variant(name: str):
    from rankkit.explore.render import KeptAxes, canvas

    saved = KeptAxes.draw
    if name == "no kept axes":
        KeptAxes.draw = lambda self, fig: canvas(fig).draw()
    try:
        yield
    finally:
        KeptAxes.draw = saved


def switches(run_b: Path, args) -> None:
    """Each step timed in every variant, the variants taking turns within each try (one explorer,
    so that a variant does not get a quieter minute of the machine): each try's value is new to
    the cache in every variant (a new k, a new gain at a new k, a new query)."""
    import rankkit

    load = os.getloadavg()[0]
    ex = rankkit.explore(DATA / "qrels.txt", {"a": DATA / "run.txt", "b": run_b})
    times: dict[tuple[str, str], list[float]] = {}

    def step(label: str, name: str, action) -> None:
        with variant(name):
            times.setdefault((label, name), []).append(timed(action))

    for name in VARIANTS:  # each variant draws every shape once (untimed): the first drawing of a shape is its own cost
        with variant(name):
            for m in ("AP@10", "RR@10", "P@10", "nDCG@10"):
                ex.measure = m
    ks = iter(range(11, 1000))  # never the cutoff shown (10), so that each is a change
    # three measures, so that the variants take each in turn; never nDCG@10, set before each try
    measures = itertools.cycle(("AP@10", "RR@10", "P@10"))
    ids = sorted(set(ex.per_query["query_id"]))
    tries = len(VARIANTS) * args.repeat
    queries = iter(ids[i * len(ids) // (tries + 1)] for i in range(1, tries + 1))
    for i in range(args.repeat):
        for name in VARIANTS:
            step("change of measure (cached values)", name, lambda m=next(measures): setattr(ex, "measure", m))
        ex.measure = "nDCG@10"
        for name in VARIANTS:
            step("change of k (new values from SQL)", name, lambda k=next(ks): setattr(ex, "k", k))
        for name in VARIANTS:
            ex.k = next(ks)  # (untimed) a new cutoff, so that the gain's setting is not cached
            step("change of gain (new values from SQL)", name,
                 lambda g="exp" if ex.gain == "linear" else "linear": setattr(ex, "gain", g))
        for name in VARIANTS:
            step("query selection", name, lambda q=next(queries): setattr(ex, "query", q))
    labels = list(dict.fromkeys(label for label, _ in times))
    table = ["| step | " + " | ".join(VARIANTS) + " |", "|---|" + "---|" * len(VARIANTS)]
    for label in labels:
        table.append(f"| {label} | " + " | ".join(
            f"{statistics.median(times[label, name]):.3f} ({min(times[label, name]):.3f}-{max(times[label, name]):.3f})"
            for name in VARIANTS) + " |")
    note = (f"Workload A, two systems ({len(ids):,} queries), median wall seconds of {args.repeat} tries "
            f"(min-max), the variants taking turns in one explorer; {platform.machine()}, {os.cpu_count()} cores, "
            f"DuckDB {duckdb.__version__}; load average {load:.1f} when the run began. "
            f"Made by `python bench/explore.py --switches`.")
    text = "\n".join([SWITCHES_START, "", note, "", *table, "", SWITCHES_END])
    print(text)
    if not args.no_write:
        write(text, SWITCHES_START, SWITCHES_END, "## The explorer's kept axes, on and off")


if __name__ == "__main__":
    main()
