"""Time rankkit against pytrec-eval-terrier, ir-measures and ranx on the same files; write Markdown.

    python bench/generate.py                      # once: writes bench/data/ (gitignored)
    python bench/run.py                           # A, B and the ladder, 3 repetitions
    python bench/run.py -w A -r 5 -l rankkit ranx # pick workloads, repetitions, libraries
    python bench/run.py --xl                      # the 100M-row Parquet run under memory_limit=2GB
    python bench/run.py -w DL                     # the everyday workload: TREC DL runs, 200 systems, 200 files

Every library runs in its own fresh processes (bench/worker.py). Values are checked equal (to 1e-9)
across libraries before any time is reported. The table goes to bench/results/<stamp>.md and stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import duckdb

from generate import DL_QRELS, DL_RUN, SWEEP_SYSTEMS, shared_data

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
DATA = BENCH / "data"
RESULTS = BENCH / "results"
WORKER = BENCH / "worker.py"
PEERS = ["pytrec_eval", "ir_measures", "ranx"]
# the Python API returning a DataFrame, the same keeping the result in DuckDB (relation=True, no
# pandas), and `rankkit eval` on the command line
OURS = ["rankkit", "rankkit-relation", "rankkit-cli"]
LIBRARIES = OURS + PEERS
TOLERANCE = 1e-9
TIE_ORDER = ("ranx", "ir_measures")  # break tied scores otherwise than trec_eval (see everyday_mismatch)
SLOW_START = 2  # seconds: a fresh process slower than this is started `repeat` times, not 3 x `repeat`
EVERYDAY = "DL"  # the everyday workload: TREC DL runs from ../shared/data, and the generated sweep
CLI_MEASURES = ["nDCG@10", "AP", "RR@10", "R@100", "P@10"]
# trec_eval's names for them; its recip_rank has no cutoff, so its RR is not compared
TREC_EVAL_MEASURES = {"ndcg_cut_10": "nDCG@10", "map": "AP", "recall_100": "R@100", "P_10": "P@10",
                      "recip_rank": "RR"}


def spawn(args: list[str], env: dict | None = None) -> tuple[dict | None, float, int, str]:
    """Like child, but measures RSS with os.wait4 on the exact process."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(WORKER), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, cwd=ROOT)
    out_chunks, err_chunks = _drain(proc)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = err_chunks.decode(errors="replace")
    rss = usage.ru_maxrss // 1024
    if proc.returncode:
        lines = err.strip().splitlines()
        return None, wall, rss, lines[-1] if lines else f"exit {proc.returncode}"
    return json.loads(out_chunks), wall, rss, err


def _drain(proc: subprocess.Popen) -> tuple[bytes, bytes]:
    """Read stdout and stderr to the end without waiting on the process (wait4 reaps it)."""
    import selectors
    sel = selectors.DefaultSelector()
    chunks = {proc.stdout: [], proc.stderr: []}
    for stream in chunks:
        sel.register(stream, selectors.EVENT_READ)
    while sel.get_map():
        for key, _ in sel.select():
            data = os.read(key.fileobj.fileno(), 1 << 16)
            if data:
                chunks[key.fileobj].append(data)
            else:
                sel.unregister(key.fileobj)
    return b"".join(chunks[proc.stdout]), b"".join(chunks[proc.stderr])


def env_for(threads: int | None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if threads:
        # DuckDB reads this through rankkit's connect(); numba through its own variable
        env["NUMBA_NUM_THREADS"] = str(threads)
        env["RANKKIT_BENCH_THREADS"] = str(threads)
    return env


def summary(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


# ---- the everyday workload ---------------------------------------------------------------------

def trec_eval_binary() -> str | None:
    """trec_eval 10.0, a peer only where the user points at it ($RANKKIT_TREC_EVAL) or it is on PATH."""
    import shutil
    given = os.environ.get("RANKKIT_TREC_EVAL")
    return given if given and Path(given).is_file() else shutil.which("trec_eval")


def fresh_commands(qrels: Path, run: Path, peers: list[str]) -> dict[str, list[str] | None]:
    """Each tool as a user starts it: a fresh process from files to printed numbers."""
    binary = trec_eval_binary()
    measures = ["-m", "ndcg_cut.10", "-m", "map", "-m", "recip_rank", "-m", "recall.100", "-m", "P.10"]
    scripts = {"pytrec_eval": [str(BENCH / "pytrec_script.py")],
               "ir_measures": [str(BENCH / "peer_script.py"), "ir_measures"],
               "ranx": [str(BENCH / "peer_script.py"), "ranx"]}
    return {
        "rankkit": [sys.executable, "-m", "rankkit.cli", "eval", "--digits", "15",
                    *(f"-m{m}" for m in CLI_MEASURES), str(qrels), str(run)],
        **{peer: [sys.executable, *scripts[peer], str(qrels), str(run)] for peer in peers},
        "trec_eval": [binary, *measures, str(qrels), str(run)] if binary else None,
    }


def fresh_values(tool: str, out: str) -> dict[str, float]:
    values = {}
    for line in out.splitlines():
        fields = line.split("\t")
        if tool == "trec_eval":
            values[TREC_EVAL_MEASURES[fields[0].strip()]] = float(fields[2])
        elif tool == "rankkit":
            values[fields[0].strip()] = float(fields[2])
        else:
            values[fields[0]] = float(fields[1])
    return values


def everyday(repeat: int, env: dict, log, peers: list[str] = ("pytrec_eval",)) -> dict:
    """The fresh-process, warm, loaded-tables, sweep and many-files figures of the DL workload, the
    peers interleaved with rankkit (each round starts every tool once)."""
    import compileall
    # An installed package has its bytecode (pip compiles it); where PYTHONDONTWRITEBYTECODE is set,
    # a fresh process would otherwise compile rankkit's modules (and the bench's) on every start.
    for folder in (ROOT / "rankkit", BENCH):
        compileall.compile_dir(folder, quiet=1)
    data = shared_data()
    pairs = [(data / DL_QRELS[year], data / DL_RUN.format(year=year)) for year in DL_QRELS]
    missing = [str(path) for pair in pairs for path in pair if not path.exists()]
    if missing:
        return {"skipped": f"{', '.join(missing)} absent: the everyday workload reads TREC DL runs from ../shared/data"}
    sweep = DATA / "sweep" / "run.txt"
    files = sorted((DATA / "sweep" / "runs").glob("*.run"))
    result: dict = {"fresh": {}, "warm": {}, "values": {}, "mismatch": [], "peers": list(peers)}
    if not sweep.exists() or len(files) != SWEEP_SYSTEMS:
        result["sweep_skipped"] = "bench/data/sweep is absent or incomplete: run `python bench/generate.py sweep`"
    for qrels, run in pairs:
        commands = {tool: cmd for tool, cmd in fresh_commands(qrels, run, list(peers)).items() if cmd}
        times: dict[str, list[float]] = {tool: [] for tool in commands}
        for _ in range(repeat * 3):
            for tool, cmd in commands.items():
                if len(times[tool]) >= repeat and statistics.median(times[tool]) > SLOW_START:
                    continue  # ranx compiles with numba in every fresh process: 10-20 s a start
                started = time.perf_counter()
                done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
                times[tool].append(time.perf_counter() - started)
                if done.returncode:
                    raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.strip()[-300:]}")
                result["values"].setdefault(f"fresh {tool} {run.name}", fresh_values(tool, done.stdout))
        result["fresh"][run.name] = {tool: summary(t) for tool, t in times.items()}
        log(f"  DL fresh {run.name}: " + ", ".join(f"{t} {statistics.median(v) * 1000:.0f} ms" for t, v in times.items()))
    warm: dict[str, dict] = {}
    args = ["--qrels", *(str(q) for q, _ in pairs), "--runs", *(str(r) for _, r in pairs), "--repeat", "10"]
    args += ["--sweep", str(sweep), "--files", *map(str, files)] if "sweep_skipped" not in result else []
    for _ in range(repeat):
        for library in ("rankkit", *peers):
            found, _, _, err = spawn(["everyday", library, *args], env)
            if found is None:
                raise SystemExit(f"everyday {library} failed: {err}")
            mine = warm.setdefault(library, {})
            for figure in ("warm", "sql", "loaded", "lean"):
                for name, times in found.get(figure, {}).items():
                    mine.setdefault(f"{figure} {name}", []).extend(times)
            for figure in ("sweep", "files"):
                mine.setdefault(figure, []).extend(found.get(figure, []))
                if f"{figure}_values" in found:
                    result["values"].setdefault(f"{figure} {library}", found[f"{figure}_values"])
            result["values"].setdefault(f"warm {library}", found["values"])
        log(f"  DL warm round done: {', '.join(('rankkit', *peers))}")
    result["warm"] = {lib: {k: summary(v) for k, v in figs.items() if v} for lib, figs in warm.items()}
    result["mismatch"], result["tie_notes"] = everyday_mismatch(result["values"])
    return result


def everyday_mismatch(values: dict) -> tuple[list[str], list[str]]:
    """Every value compared with rankkit's: the differences that stop the times, and notes. trec_eval's
    uncut RR is not compared (its 4 printed decimals are compared to 5e-5). The 200 generated systems
    have tied scores (the jitter rounds to 64ths); trec_eval, pytrec_eval and rankkit break ties by
    doc_id, ranx and ir_measures (its RR@10) their own way: their differences there are a note."""
    problems, ties = [], {}
    for key, found in values.items():
        kind, tool = key.split()[0], key.split()[1]
        tolerance = 5e-5 if tool == "trec_eval" else TOLERANCE
        ours = values.get(f"{kind} rankkit {key.split()[-1]}" if kind == "fresh" else f"{kind} rankkit")
        flat_ours, flat_found = _flatten(ours or {}), _flatten(found)
        for name, value in flat_found.items():
            if name.endswith(" RR") or name == "RR":
                continue
            if name not in flat_ours or abs(flat_ours[name] - value) > tolerance:
                if tool in TIE_ORDER and kind in ("sweep", "files") and name in flat_ours:
                    count, largest = ties.get(key, (0, 0.0))
                    ties[key] = (count + 1, max(largest, abs(flat_ours[name] - value)))
                    continue
                problems.append(f"{key} {name} = {value} but rankkit = {flat_ours.get(name)}")
    notes = [f"{key}: {count} of {len(_flatten(values[key]))} values differ from rankkit's (tied scores in another "
             f"order), by up to {largest:.2g}" for key, (count, largest) in ties.items()]
    return problems, notes


def _flatten(tree: dict, prefix: str = "") -> dict[str, float]:
    flat = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key} "))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def fmt_ms(s: dict | None) -> str:
    if not s:
        return "–"
    return f"{s['median'] * 1000:.1f} ({s['min'] * 1000:.1f}–{s['max'] * 1000:.1f})"


def _per(s: dict | None, per: int) -> dict | None:
    return {**s, "median": s["median"] / per, "min": s["min"] / per, "max": s["max"] / per} if s else None


def everyday_table(result: dict) -> str:
    lines = ["### Everyday workload (DL): TREC DL19 and DL20 BM25, 200 systems in one file and in 200 files", ""]
    if "skipped" in result:
        return "\n".join(lines + [f"Skipped: {result['skipped']}", ""])
    if result["mismatch"]:
        return "\n".join(lines + ["**Values differ; no times reported:**", ""] + [f"- {p}" for p in result["mismatch"][:20]]) + "\n"
    peers = result["peers"] + (["trec_eval"] if any("trec_eval" in t for t in result["fresh"].values()) else [])
    head = ["path (ms, median (min–max))", "rankkit", *peers, "fastest peer / rankkit"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def row(label: str, ours: dict | None, found: dict[str, dict | None], per: int = 1) -> None:
        ours, found = _per(ours, per), {peer: _per(found.get(peer), per) for peer in peers}
        fastest = min((s["median"] for s in found.values() if s), default=None)
        ratio = f"{fastest / ours['median']:.2f}x" if ours and fastest else "–"  # above 1: rankkit is faster
        lines.append("| " + " | ".join([label, fmt_ms(ours), *(fmt_ms(found[p]) for p in peers), ratio]) + " |")

    warm = result["warm"]
    names = list(result["fresh"])
    for name in names:
        tools = result["fresh"][name]
        row(f"fresh process, files to numbers, {name.split('.')[0]}", tools.get("rankkit"), tools)
    for name in names:
        row(f"warm, per run (qrels read once), {name.split('.')[0]}", warm["rankkit"].get(f"warm {name}"),
            {peer: warm.get(peer, {}).get(f"warm {name}") for peer in peers})
    if "sweep" in warm["rankkit"]:
        row(f"{SWEEP_SYSTEMS} systems in one file, read and evaluated, per system", warm["rankkit"]["sweep"],
            {peer: warm.get(peer, {}).get("sweep") for peer in peers}, per=SWEEP_SYSTEMS)
        row(f"{SWEEP_SYSTEMS} run files in one call, read and evaluated, per file", warm["rankkit"].get("files"),
            {peer: warm.get(peer, {}).get("files") for peer in peers}, per=SWEEP_SYSTEMS)
    else:
        lines.append(f"\nSweep skipped: {result.get('sweep_skipped')}")
    lines += ["", "On tables already loaded, against `../shared/perf/lean_floor.py`'s plain statement (five "
              "measures, no options, its own tables) as the reference line:", "",
              "| statement (ms, median (min–max)) | " + " | ".join(n.split(".")[0] for n in names) + " | / lean statement |",
              "|---|" + "---|" * len(names) + "---|"]
    for label, figure in (("lean_floor.py's plain statement", "lean"),
                          ("`evaluate` on inputs read once (`relation=True`)", "loaded"),
                          ("SQL `rankkit.evaluate` on plain tables", "sql")):
        figures = [warm["rankkit"].get(f"{figure} {name}") for name in names]
        lean = [warm["rankkit"].get(f"lean {name}") for name in names]
        ratios = " / ".join(f"{f['median'] / l['median']:.2f}x" for f, l in zip(figures, lean) if f and l)
        lines.append("| " + " | ".join([label, *(fmt_ms(f) for f in figures), ratios or "–"]) + " |")
    lines += ["", "Fresh process: `rankkit eval` (`python -m rankkit.cli`), `bench/pytrec_script.py`, "
              "`bench/peer_script.py ir_measures|ranx`, and the trec_eval binary from `$RANKKIT_TREC_EVAL` or PATH "
              "(its RR has no cutoff: not compared). Warm: rankkit `read_run` + `evaluate(..., relation=True)`; "
              "the peers read the run and evaluate it, the qrels read once. One file: rankkit reads the sweep "
              "file (`split_by_tag=True`) and evaluates every system in one call; the peers read it (pytrec_eval) "
              "and evaluate system after system. 200 files: rankkit `evaluate(qrels, paths, ...)` in one call; "
              "the peers read and evaluate file after file.", ""]
    lines += [f"- {note}" for note in result.get("tie_notes", [])] + ([""] if result.get("tie_notes") else [])
    return "\n".join(lines) + "\n"


def measure(workload: str, libraries: list[str], formats: list[str], repeat: int, budget: float,
            env: dict, log) -> dict:
    """Every figure for one workload: {library: {figure: summary}}, plus the values each gave."""
    data = DATA / workload
    if not (data / "run.parquet").exists():
        raise SystemExit(f"{data} is missing: run `python bench/generate.py {workload}` first")
    figures: dict[str, dict] = {}
    values: dict[str, dict] = {}
    for library in ["floor"] + libraries:
        fig = figures.setdefault(library, {})
        for fmt in (["parquet"] if library == "floor" else formats):
            if library != "floor":
                walls, rsss = end_to_end(library, data, fmt, repeat, budget, env, fig)
                if walls:
                    fig[f"e2e_{fmt}"] = summary(walls)
                    fig[f"rss_{fmt}"] = summary(rsss)
                    log(f"  {workload} {library} {fmt}: end to end {statistics.median(walls):.2f} s, "
                        f"{statistics.median(rsss)} MB")
                else:
                    log(f"  {workload} {library} {fmt}: failed: {fig.get(f'error_{fmt}')}")
                    continue
            # a slow library gets fewer repetitions: each one costs about an end-to-end run
            reps = repeat if library == "floor" or statistics.median(walls) * repeat <= budget else 1
            result, wall, rss, err = spawn([library, str(data), fmt, "--repeat", str(reps)], env)
            if result is None:
                fig[f"error_{fmt}"] = err
                log(f"    phases failed: {err}")
                continue
            values.setdefault(library, result["values"])
            if library != "rankkit-cli":  # the command line reads the files inside its one call
                fig[f"load_{fmt}"] = summary(result["load"])
            if fmt == formats[0] or library == "floor":
                fig["compute"] = summary(result["compute"])
                if library != "rankkit-cli":  # each of its calls reads the files again: no "first" extra
                    fig["first_extra"] = result["first_compute"] - statistics.median(result["compute"])
                fig["import"] = result["import"]
    return {"figures": figures, "values": values, "mismatch": check_values(values)}


def end_to_end(library: str, data: Path, fmt: str, repeat: int, budget: float, env: dict,
               fig: dict) -> tuple[list[float], list[int]]:
    """Fresh processes: import, load, compute once. Stops repeating once the budget is spent."""
    walls, rsss = [], []
    for _ in range(repeat):
        result, wall, rss, err = spawn([library, str(data), fmt], env)
        if result is None:
            fig[f"error_{fmt}"] = err
            return [], []
        walls.append(wall)
        rsss.append(rss)
        if sum(walls) > budget:
            break
    return walls, rsss


def check_values(values: dict[str, dict]) -> list[str]:
    """Libraries whose five values differ from rankkit's (or from the first library's)."""
    libs = [lib for lib in values if lib != "floor"]
    if not libs:
        return []
    reference = values[libs[0]]
    problems = []
    for lib in libs[1:]:
        for measure, value in reference.items():
            other = values[lib].get(measure)
            if other is None or abs(other - value) > TOLERANCE:
                problems.append(f"{lib} {measure} = {other} but {libs[0]} = {value}")
    return problems


def fmt_s(s: dict | None) -> str:
    if not s:
        return "–"
    if s["n"] == 1:
        return f"{s['median']:.2f} (1 run)"
    return f"{s['median']:.2f} ({s['min']:.2f}–{s['max']:.2f})"


def fmt_mb(s: dict | None) -> str:
    return f"{s['median']:,.0f}" if s else "–"


def table(workload: str, result: dict, formats: list[str]) -> str:
    figures = result["figures"]
    lines = [f"### Workload {workload}", ""]
    if result["mismatch"]:
        lines += ["**Values differ; no times reported:**", ""] + [f"- {p}" for p in result["mismatch"]]
        return "\n".join(lines) + "\n"
    head = ["library", "load txt", "load parquet", "warm compute", "first call extra",
            "end to end txt", "end to end parquet", "peak RSS txt (MB)", "peak RSS parquet (MB)"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for lib, fig in figures.items():
        if lib == "floor":
            continue
        lines.append("| " + " | ".join([
            lib, fmt_s(fig.get("load_txt")), fmt_s(fig.get("load_parquet")), fmt_s(fig.get("compute")),
            f"{fig['first_extra']:.2f}" if "first_extra" in fig else "–",
            fmt_s(fig.get("e2e_txt")), fmt_s(fig.get("e2e_parquet")),
            fmt_mb(fig.get("rss_txt")), fmt_mb(fig.get("rss_parquet"))]) + " |")
        for key in ("error_txt", "error_parquet"):
            if key in fig:
                lines.append(f"| {lib} {key[6:]} failed: {fig[key][:80]} |" + " |" * 7)
    floor = figures.get("floor", {}).get("compute")
    lines += ["", f"Floor (DuckDB hash join run x qrels + per-query aggregate, no ranking): {fmt_s(floor)} s", ""]
    lines += ratios(figures, floor)
    return "\n".join(lines) + "\n"


def ratios(figures: dict, floor: dict | None) -> list[str]:
    """How many times faster rankkit is than the fastest peer on each figure (> 1: rankkit faster)."""
    ours = figures.get("rankkit", {})
    out = []
    for key, label in (("compute", "warm compute"), ("e2e_txt", "end to end from TREC text"),
                       ("e2e_parquet", "end to end from Parquet"), ("rss_txt", "peak RSS (txt)"),
                       ("rss_parquet", "peak RSS (Parquet)")):
        peers = {lib: fig[key]["median"] for lib, fig in figures.items() if lib in PEERS and key in fig}
        if not peers:
            continue
        best = min(peers, key=peers.get)
        # the command line's "compute" is a whole call, files included: no warm-compute ratio for it
        for name in [lib for lib in OURS if key in figures.get(lib, {}) and (key != "compute" or lib != "rankkit-cli")]:
            mine = figures[name][key]["median"]
            out.append(f"- {label}: fastest peer {best} {peers[best]:.2f}, {name} {mine:.2f}: "
                       f"**{peers[best] / mine:.2f}x**")
    if floor and "compute" in ours:
        out.append(f"- warm compute vs the floor: rankkit is **{ours['compute']['median'] / floor['median']:.2f}x** the floor")
    return out


def xl(env: dict, log) -> str:
    """The 100M-row run from Parquet under memory_limit=2GB, in a fresh process."""
    data = DATA / "XL"
    if not (data / "run.parquet").exists():
        raise SystemExit(f"{data} is missing: run `python bench/generate.py XL` first (about 1.5 GB)")
    log("  XL rankkit parquet, memory_limit=2GB")
    env = dict(env, RANKKIT_BENCH_MEMORY_LIMIT="2GB", RANKKIT_BENCH_TEMP=str(DATA / "tmp"))
    result, wall, rss, err = spawn(["rankkit", str(data), "parquet"], env)
    rows = duckdb.execute(f"SELECT count(*) FROM '{data}/run.parquet'").fetchone()[0]
    if result is None:
        return f"### XL: {rows:,} run rows, memory_limit=2GB\n\nFailed after {wall:.0f} s: {err}\n"
    values = ", ".join(f"{k} {v:.4f}" for k, v in result["values"].items())
    return (f"### XL: {rows:,} run rows (Parquet), memory_limit=2GB\n\n"
            f"rankkit end to end {wall:.1f} s, peak RSS {rss:,} MB ({values})\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-w", "--workloads", nargs="+", default=["A", "B", "L1k", "L10k", "L100k", EVERYDAY])
    parser.add_argument("-l", "--libraries", nargs="+", default=LIBRARIES, choices=LIBRARIES)
    parser.add_argument("-f", "--formats", nargs="+", default=["txt", "parquet"], choices=["txt", "parquet"])
    parser.add_argument("-r", "--repeat", type=int, default=3, help="repetitions of every figure (median, min, max)")
    parser.add_argument("--budget", type=float, default=60,
                        help="seconds per figure: a library slower than this gets fewer repetitions (n shown)")
    parser.add_argument("--threads", type=int, default=None, help="DuckDB and numba threads (default: all cores)")
    parser.add_argument("--xl", action="store_true", help="also the 100M-row Parquet run under memory_limit=2GB")
    parser.add_argument("--only-xl", action="store_true", help="only the 100M-row run")
    args = parser.parse_args()
    env = env_for(args.threads)

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    parts = [f"## rankkit benchmark {stamp}", "",
             f"`python bench/run.py {' '.join(sys.argv[1:])}`; {os.cpu_count()} cores; duckdb {duckdb.__version__}; "
             f"times in seconds, median (min–max) of {args.repeat}; measures nDCG@10, AP, RR@10, R@100, P@10.", ""]
    raw = {}
    if not args.only_xl:
        for workload in args.workloads:
            if workload == EVERYDAY:
                raw[workload] = everyday(args.repeat, env, log, [p for p in PEERS if p in args.libraries])
                parts.append(everyday_table(raw[workload]))
                continue
            result = measure(workload, args.libraries, args.formats, args.repeat, args.budget, env, log)
            raw[workload] = result
            parts.append(table(workload, result, args.formats))
    if args.xl or args.only_xl:
        parts.append(xl(env, log))
    text = "\n".join(parts)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{stamp}.md").write_text(text)
    (RESULTS / f"{stamp}.json").write_text(json.dumps(raw, indent=1))
    print(text)


if __name__ == "__main__":
    main()
