"""One library, one workload, in this process: import, load, compute; prints JSON on stdout.

    python bench/worker.py LIBRARY DATA_DIR FORMAT [--repeat N]
    python bench/worker.py everyday LIBRARY --qrels Q [Q ...] --runs R [R ...] [--sweep RUN] [--files R ...]
                                    [--repeat N]

run.py starts it in a fresh process: the wall time of that process is the end-to-end figure, its
peak RSS the memory figure. Inside, it times each phase: import, load (file -> the library's own
structure), the first compute (ranx compiles with numba there) and N warm computes.
The five measures: nDCG@10, AP, RR@10, R@100, P@10 (trec_eval's definitions).

``everyday`` is the TREC DL workload (run.py's ``DL``), warm in one process: each qrels read once,
then every run read and evaluated N times (per run: file to five values); for rankkit also the SQL
macro ``rankkit.evaluate`` on tables already loaded, ``evaluate`` on inputs read once, and
../shared/perf/lean_floor.py's plain statement (the reference line) on the same tables; the sweep (one
file of 200 systems) read and evaluated in one call, or by the peers system after system; and the
same 200 systems as 200 files (``--files``) in one call, or by the peers file after file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

MEASURES = ["nDCG@10", "AP", "RR@10", "R@100", "P@10"]


# ---- rankkit ---------------------------------------------------------------------------------

def rankkit_import():
    import rankkit
    return rankkit


def bench_settings() -> dict:
    """DuckDB settings run.py passes down (threads, and the XL run's memory limit)."""
    names = {"threads": "RANKKIT_BENCH_THREADS", "memory_limit": "RANKKIT_BENCH_MEMORY_LIMIT",
             "temp_directory": "RANKKIT_BENCH_TEMP"}
    return {key: os.environ[var] for key, var in names.items() if os.environ.get(var)}


def rankkit_load(rankkit, data: Path, fmt: str):
    con = rankkit.connect(**bench_settings())
    if fmt == "txt":
        return (con, rankkit.read_qrels(data / "qrels.txt", con=con),
                rankkit.read_run(data / "run.txt", con=con))
    # the readers check a Parquet file (a view: DuckDB reads it again inside the evaluation)
    return (con, rankkit.read_qrels(data / "qrels.parquet", con=con),
            rankkit.read_run(data / "run.parquet", con=con))


def rankkit_compute(rankkit, loaded):
    con, qrels, run = loaded
    frame = rankkit.evaluate(qrels, run, MEASURES, con=con, progress=False)
    return dict(zip(frame["measure"], frame["value"]))


def rankkit_relation_compute(rankkit, loaded):
    # relation=True keeps the result in DuckDB: no pandas
    con, qrels, run = loaded
    rows = rankkit.evaluate(qrels, run, MEASURES, con=con, progress=False, relation=True).fetchall()
    return {measure: value for measure, _, value, _ in rows}  # measure, system, value, queries


# ---- rankkit's command line -----------------------------------------------------------------
# `rankkit eval` as a user runs it: files in, trec_eval text out, all in the timed call (the CLI
# has no separate load). In this fresh process that is `python -m rankkit.cli eval ...` end to end.

def rankkit_cli_import():
    import rankkit.cli
    return rankkit.cli


def rankkit_cli_load(cli, data: Path, fmt: str):
    return data / f"qrels.{fmt}", data / f"run.{fmt}"


def rankkit_cli_compute(cli, paths):
    import contextlib
    import io

    settings = bench_settings()
    options = [f"--{key.replace('_', '-')}={value}" for key, value in settings.items()]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(["eval", "--digits", "15", *options, *(f"-m{m}" for m in MEASURES), *map(str, paths)])
    assert code == 0, code
    return {line.split("\t")[0].strip(): float(line.split("\t")[2]) for line in out.getvalue().splitlines()}


# ---- pytrec_eval ----------------------------------------------------------------------------
# pytrec_eval has no RR cutoff: RR@10 is recip_rank over each query's top 10, cut in Python
# with trec_eval's order (score descending, then doc id descending).

def pytrec_import():
    import pytrec_eval
    return pytrec_eval


def pytrec_load(pytrec_eval, data: Path, fmt: str):
    if fmt == "txt":
        with open(data / "qrels.txt") as f:
            qrels = pytrec_eval.parse_qrel(f)
        with open(data / "run.txt") as f:
            run = pytrec_eval.parse_run(f)
        return qrels, run
    return _nested_from_parquet(data, "relevance", int), _nested_from_parquet(data, "score", float, "run")


def _nested_from_parquet(data: Path, column: str, cast, kind: str = "qrels"):
    import pyarrow.parquet as pq
    table = pq.read_table(data / f"{kind}.parquet").to_pydict()
    nested: dict[str, dict[str, float]] = {}
    for q, d, v in zip(table["query_id"], table["doc_id"], table[column]):
        nested.setdefault(q, {})[d] = cast(v)
    return nested


def pytrec_compute(pytrec_eval, loaded, evaluators=None):
    import heapq
    qrels, run = loaded
    main, recip = evaluators or (pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recall.100", "P.10"}),
                              pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}))
    values = main.evaluate(run)
    top10 = {q: dict(heapq.nlargest(10, docs.items(), key=lambda item: (item[1], item[0])))
             for q, docs in run.items()}
    rr = recip.evaluate(top10)
    names = {"nDCG@10": "ndcg_cut_10", "AP": "map", "R@100": "recall_100", "P@10": "P_10"}
    out = {m: _mean(v[key] for v in values.values()) for m, key in names.items()}
    out["RR@10"] = _mean(v["recip_rank"] for v in rr.values())
    return out


def _mean(values) -> float:
    values = list(values)
    return sum(values) / len(values)


# ---- ir_measures ----------------------------------------------------------------------------

def irm_import():
    import ir_measures
    return ir_measures


def irm_load(ir_measures, data: Path, fmt: str):
    if fmt == "txt":
        # ir_measures reads lazily; list() makes the load a load
        return (list(ir_measures.read_trec_qrels(str(data / "qrels.txt"))),
                list(ir_measures.read_trec_run(str(data / "run.txt"))))
    import pandas as pd
    return pd.read_parquet(data / "qrels.parquet"), pd.read_parquet(data / "run.parquet")


def irm_compute(ir_measures, loaded):
    qrels, run = loaded
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    values = ir_measures.calc_aggregate(measures, qrels, run)
    return {str(m): float(v) for m, v in values.items()}


# ---- ranx -----------------------------------------------------------------------------------

def ranx_import():
    import ranx
    return ranx


def ranx_load(ranx, data: Path, fmt: str):
    if fmt == "txt":
        return ranx.Qrels.from_file(str(data / "qrels.txt"), kind="trec"), ranx.Run.from_file(str(data / "run.txt"), kind="trec")
    # ranx's from_parquet insists on object-dtype ids, which pandas 3 no longer gives by default
    import pandas as pd
    frames = [pd.read_parquet(data / f"{kind}.parquet").astype({"query_id": object, "doc_id": object})
              for kind in ("qrels", "run")]
    frames[0] = frames[0].astype({"relevance": "int64"})
    qrels = ranx.Qrels.from_df(frames[0], q_id_col="query_id", doc_id_col="doc_id", score_col="relevance")
    run = ranx.Run.from_df(frames[1], q_id_col="query_id", doc_id_col="doc_id", score_col="score")
    return qrels, run


def ranx_compute(ranx, loaded):
    qrels, run = loaded
    names = {"nDCG@10": "ndcg@10", "AP": "map", "RR@10": "mrr@10", "R@100": "recall@100", "P@10": "precision@10"}
    values = ranx.evaluate(qrels, run, list(names.values()), save_results_in_run=False)
    return {m: float(values[key]) for m, key in names.items()}


# ---- the floor ------------------------------------------------------------------------------
# What no evaluator can beat: DuckDB touching every run row once, hash-joining it with the qrels
# and aggregating per query, with no ranking. Loaded like rankkit loads (tables in DuckDB).

def floor_import():
    import duckdb
    return duckdb


def floor_load(duckdb, data: Path, fmt: str):
    con = duckdb.connect()
    for key, value in bench_settings().items():
        con.execute(f"SET {key} = '{value}'")
    con.execute("SET enable_progress_bar = false")
    con.execute(f"CREATE TABLE qrels AS SELECT query_id, doc_id, relevance FROM '{data}/qrels.parquet'")
    con.execute(f"CREATE TABLE run AS SELECT query_id, doc_id, score FROM '{data}/run.parquet'")
    return con


def floor_compute(duckdb, con):
    rows = con.execute(
        "SELECT count(*), sum(judged), sum(gain) FROM (SELECT query_id, count(relevance) AS judged, "
        "sum(relevance) AS gain FROM run LEFT JOIN qrels USING (query_id, doc_id) GROUP BY query_id)"
    ).fetchone()
    return {"queries": rows[0], "judged": rows[1], "gain": rows[2]}


# ---- the everyday workload ----------------------------------------------------------------------

def rankkit_everyday(pairs, sweep, files, repeat: int) -> dict:
    import rankkit
    con = rankkit.connect(**bench_settings())
    out = {"warm": {}, "sql": {}, "loaded": {}, "lean": {}, "values": {}}
    for qrels_path, run_path in pairs:
        qrels = rankkit.read_qrels(qrels_path, con=con)

        def once():
            run = rankkit.read_run(run_path, con=con)
            rows = rankkit.evaluate(qrels, run, MEASURES, con=con, progress=False, relation=True).fetchall()
            return {measure: value for measure, _, value, _ in rows}  # measure, system, value, queries

        name = Path(run_path).name
        out["values"][name], out["warm"][name] = _timed(once, repeat)
        # the SQL macro on plain tables, as a SQL user has them
        con.execute(f"CREATE OR REPLACE TABLE bench_qrels AS SELECT * FROM {qrels.alias}")
        con.execute(f"CREATE OR REPLACE TABLE bench_run AS SELECT query_id, doc_id, score "
                    f"FROM {rankkit.read_run(run_path, con=con).alias}")
        names = "[" + ", ".join(f"'{m}'" for m in MEASURES) + "]"
        sql = f"SELECT measure, value FROM rankkit.evaluate('bench_qrels', 'bench_run', {names})"
        values, out["sql"][name] = _timed(lambda: dict(con.execute(sql).fetchall()), repeat)
        assert _close(values, out["values"][name]), (values, out["values"][name])
        # evaluate on inputs read once: the statement and its Python, no reading
        run = rankkit.read_run(run_path, con=con)
        values, out["loaded"][name] = _timed(lambda: {m: v for m, _, v, _ in rankkit.evaluate(
            qrels, run, MEASURES, con=con, progress=False, relation=True).fetchall()}, repeat)
        assert _close(values, out["values"][name]), (values, out["values"][name])
        values, out["lean"][name] = lean_statement(qrels_path, run_path, repeat)
        assert _close(values, out["values"][name]), (values, out["values"][name])
    if sweep:
        qrels = rankkit.read_qrels(pairs[0][0], con=con)

        def sweep_once():
            # one TREC file, a system per tag: a TREC file is one run unless split by its tags
            run = rankkit.read_run(sweep, con=con, split_by_tag=True)
            rows = rankkit.evaluate(qrels, run, MEASURES, con=con, progress=False, relation=True).fetchall()
            found: dict = {}
            for measure, system, value, _ in rows:
                found.setdefault(system, {})[measure] = value
            return found

        out["sweep_values"], out["sweep"] = _timed(sweep_once, max(1, repeat // 3))
    if files:
        qrels = rankkit.read_qrels(pairs[0][0], con=con)

        def files_once():
            # a list of TREC files, each one system named by its stem: read together in one call
            rows = rankkit.evaluate(qrels, files, MEASURES, con=con, progress=False, relation=True).fetchall()
            return _by_system((system, measure, value) for measure, system, value, _ in rows)

        out["files_values"], out["files"] = _timed(files_once, max(1, repeat // 3))
    return out


def lean_statement(qrels_path, run_path, repeat: int):
    """../shared/perf/lean_floor.py's plain statement (five measures, no options) on its own tables:
    the reference line, as that script loads and runs it."""
    import importlib.util

    import duckdb

    from generate import shared_data
    spec = importlib.util.spec_from_file_location("lean_floor", shared_data().parent / "perf" / "lean_floor.py")
    lean = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lean)
    con = duckdb.connect()
    for key, value in bench_settings().items():
        con.execute(f"SET {key} = '{value}'")
    con.execute(f"""CREATE TABLE qrels AS SELECT column0 AS query_id, column2 AS doc_id, column3::INT AS rel
                    FROM read_csv('{qrels_path}', delim = ' ', header = false, all_varchar = true)""")
    con.execute(f"""CREATE TABLE run AS SELECT column0 AS query_id, column2 AS doc_id, column4::DOUBLE AS score
                    FROM read_csv('{run_path}', delim = ' ', header = false, all_varchar = true)""")
    return _timed(lambda: dict(zip(MEASURES, con.execute(lean.LEAN).fetchone())), repeat)


def _by_system(rows) -> dict:
    """{system: {measure: value}} from (system, measure, value) rows; a file's system is its stem."""
    found: dict = {}
    for system, measure, value in rows:
        found.setdefault(Path(str(system)).name.split(".")[0], {})[measure] = value
    return found


def _peer_files(read_and_evaluate, files, repeat: int, out: dict) -> None:
    """A peer's figure for the run files: read and evaluate each, file after file."""
    if files:
        out["files_values"], out["files"] = _timed(
            lambda: {Path(f).name.split(".")[0]: read_and_evaluate(f) for f in files}, max(1, repeat // 3))


def pytrec_everyday(pairs, sweep, files, repeat: int) -> dict:
    import pytrec_eval
    out = {"warm": {}, "values": {}}
    for qrels_path, run_path in pairs:
        evaluate = _pytrec_evaluator(pytrec_eval, qrels_path)

        def once():
            with open(run_path) as f:
                return evaluate(pytrec_eval.parse_run(f))

        name = Path(run_path).name
        out["values"][name], out["warm"][name] = _timed(once, repeat)
    if sweep:
        evaluate = _pytrec_evaluator(pytrec_eval, pairs[0][0])

        def sweep_once():
            systems: dict[str, list[str]] = {}
            with open(sweep) as f:
                for line in f:
                    systems.setdefault(line.rsplit(None, 1)[-1], []).append(line)
            return {name: evaluate(pytrec_eval.parse_run(lines)) for name, lines in systems.items()}

        out["sweep_values"], out["sweep"] = _timed(sweep_once, max(1, repeat // 3))
    if files:
        evaluate = _pytrec_evaluator(pytrec_eval, pairs[0][0])

        def one_file(path):
            with open(path) as f:
                return evaluate(pytrec_eval.parse_run(f))

        _peer_files(one_file, files, repeat, out)
    return out


def irm_everyday(pairs, sweep, files, repeat: int) -> dict:
    """ir_measures: the qrels read once (a list), each run read and evaluated."""
    import ir_measures
    out = {"warm": {}, "values": {}}
    for qrels_path, run_path in pairs:
        qrels = list(ir_measures.read_trec_qrels(qrels_path))
        name = Path(run_path).name
        out["values"][name], out["warm"][name] = _timed(
            lambda: irm_compute(ir_measures, (qrels, list(ir_measures.read_trec_run(run_path)))), repeat)
    if files:
        qrels = list(ir_measures.read_trec_qrels(pairs[0][0]))
        _peer_files(lambda f: irm_compute(ir_measures, (qrels, list(ir_measures.read_trec_run(f)))), files, repeat, out)
    return out


def ranx_everyday(pairs, sweep, files, repeat: int) -> dict:
    """ranx: the qrels read once, each run read and evaluated (numba compiles in the untimed first call)."""
    import ranx
    out = {"warm": {}, "values": {}}
    for qrels_path, run_path in pairs:
        qrels = ranx.Qrels.from_file(qrels_path, kind="trec")
        name = Path(run_path).name
        out["values"][name], out["warm"][name] = _timed(
            lambda: ranx_compute(ranx, (qrels, ranx.Run.from_file(run_path, kind="trec"))), repeat)
    if files:
        qrels = ranx.Qrels.from_file(pairs[0][0], kind="trec")
        _peer_files(lambda f: ranx_compute(ranx, (qrels, ranx.Run.from_file(f, kind="trec"))), files, repeat, out)
    return out


def _pytrec_evaluator(pytrec_eval, qrels_path):
    """The five means of a parsed run, the qrels read once (the evaluators keep them)."""
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    main = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recall.100", "P.10"})
    rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    return lambda run: pytrec_compute(pytrec_eval, (qrels, run), (main, rr))


def _timed(work, repeat: int):
    """The result of a first call (not timed: caches warm), and the times of ``repeat`` more."""
    clock = time.perf_counter
    result = work()
    times = []
    for _ in range(repeat):
        start = clock()
        again = work()
        times.append(clock() - start)
        assert again == result or _close(again, result), (again, result)
    return result, times


def _close(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return abs(a - b) <= 1e-12


LIBRARIES = {
    "floor": (floor_import, floor_load, floor_compute),
    "rankkit": (rankkit_import, rankkit_load, rankkit_compute),
    "rankkit-relation": (rankkit_import, rankkit_load, rankkit_relation_compute),
    "rankkit-cli": (rankkit_cli_import, rankkit_cli_load, rankkit_cli_compute),
    "pytrec_eval": (pytrec_import, pytrec_load, pytrec_compute),
    "ir_measures": (irm_import, irm_load, irm_compute),
    "ranx": (ranx_import, ranx_load, ranx_compute),
}


EVERYDAY = {"rankkit": rankkit_everyday, "pytrec_eval": pytrec_everyday, "ir_measures": irm_everyday,
            "ranx": ranx_everyday}


def everyday_main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="worker.py everyday")
    parser.add_argument("library", choices=EVERYDAY)
    parser.add_argument("--qrels", nargs="+", required=True)
    parser.add_argument("--runs", nargs="+", required=True)
    parser.add_argument("--sweep", help="one TREC file of many systems (tags), judged by the first qrels")
    parser.add_argument("--files", nargs="*", default=[], help="TREC run files, one system each, judged by the first qrels")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args(argv)
    json.dump(EVERYDAY[args.library](list(zip(args.qrels, args.runs)), args.sweep, args.files, args.repeat),
              sys.stdout)


def main() -> None:
    if sys.argv[1:2] == ["everyday"]:
        return everyday_main(sys.argv[2:])
    parser = argparse.ArgumentParser()
    parser.add_argument("library", choices=LIBRARIES)
    parser.add_argument("data", type=Path)
    parser.add_argument("format", choices=["txt", "parquet"])
    parser.add_argument("--repeat", type=int, default=0, help="warm loads and computes to time after the first")
    args = parser.parse_args()
    do_import, load, compute = LIBRARIES[args.library]
    clock = time.perf_counter
    t0 = clock()
    lib = do_import()
    t1 = clock()
    loaded = load(lib, args.data, args.format)
    t2 = clock()
    values = compute(lib, loaded)
    t3 = clock()
    result = {"import": t1 - t0, "load": [t2 - t1], "first_compute": t3 - t2, "compute": [], "values": values}
    for _ in range(args.repeat):
        start = clock()
        values_again = compute(lib, loaded)
        result["compute"].append(clock() - start)
        # parallel sums may differ in the last bits from one run to the next
        assert all(abs(values_again[m] - values[m]) <= 1e-12 for m in values), (values_again, values)
    for _ in range(args.repeat - 1 if args.repeat else 0):
        del loaded
        start = clock()
        loaded = load(lib, args.data, args.format)
        result["load"].append(clock() - start)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
