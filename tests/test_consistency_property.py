"""The command line, ``rankkit.evaluate`` and the SQL macro ``rankkit.evaluate`` give the same numbers
for the same generated input, with one system (a TREC run file) and with several (a Parquet file with
a system column), on one thread and on several (issue 10: one answer everywhere)."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankkit
from rankkit.cli import main

MEASURES = ["AP", "nDCG@5", "nDCG(gain=exp)@10", "P@3", "RR", "RR@3", "R@5", "Rprec", "bpref", "ERR@5",
            "Success@3", "Judged@5", "DCG@5", "CG@4", "IDCG@5", "NumRel", "NumRet@5", "NumRelRet"]
DOCS = [f"d{i}" for i in range(12)]


@st.composite
def inputs(draw):
    """Qrels and a run of one or several systems; scores in eighths, so they tie often."""
    queries = [f"q{i}" for i in range(draw(st.integers(1, 6)))]
    qrels = [(q, d, draw(st.integers(-1, 3))) for q in queries
             for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))]
    systems = draw(st.sampled_from([["bm25"], ["a", "b", "c"]]))
    run = [(s, q, d, draw(st.integers(0, 16)) / 8) for s in systems
           for q in draw(st.lists(st.sampled_from(queries + ["q9"]), min_size=1, max_size=4, unique=True))
           for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))]
    if not {q for _, q, _, _ in run} & {q for q, _, _ in qrels}:  # no query in common is an error
        run.append((systems[0], qrels[0][0], qrels[0][1], 1.0))
        run = list({(s, q, d): (s, q, d, v) for s, q, d, v in run}.values())
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score"]))


def by_cli(folder: Path, qrels: pd.DataFrame, run: pd.DataFrame, threads: int, capsys) -> dict:
    (folder / "qrels.txt").write_text("".join(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n" for r in qrels.itertuples()))
    if run["system"].nunique() == 1:  # one system: a TREC run file, named by its stem
        path = folder / "bm25.run"
        path.write_text("".join(f"{r.query_id} Q0 {r.doc_id} 0 {r.score} tag{i % 2}\n"
                                for i, r in enumerate(run.itertuples())))
    else:
        path = folder / "runs.parquet"
        run.to_parquet(path)
    assert main(["eval", "--format", "json", "--threads", str(threads),
                 *[a for m in MEASURES for a in ("-m", m)], str(folder / "qrels.txt"), str(path)]) == 0
    rows = json.loads(capsys.readouterr().out)
    return {(row["system"], row["measure"]): (row["value"], row["queries"]) for row in rows}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inputs(), st.sampled_from([1, 3]))
def test_command_line_python_and_sql_agree(capsys, data, threads):
    qrels, run = data
    con = rankkit.connect(threads=threads)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tempfile.TemporaryDirectory() as folder:
            printed = by_cli(Path(folder), qrels, run, threads, capsys)
        frame = rankkit.evaluate(qrels, run, MEASURES, con=con)
    python = {(r.system, r.measure): (r.value, r.queries) for r in frame.itertuples()}
    con.register("q", qrels)
    con.register("r", run)
    sql = {(s or "bm25", m): (v, n) for m, s, v, n in con.execute(
        "SELECT measure, system, value, queries FROM rankkit.evaluate('q', 'r', ?)", [MEASURES]).fetchall()}
    assert python.keys() == sql.keys() == printed.keys()
    for key, (value, queries) in python.items():
        assert sql[key] == (value, queries), key  # the same double
        assert printed[key] == (value, queries), key  # json carries full precision
