"""rankkit.window_ranks (every row ranked by a window, what evaluate takes for a small run) gives
rankkit.ranks' rows (counting ranks, for a large run): the same judged documents, ranks, grades and
num_ret, under every tie, depth, judged_only and score rule, with several systems or none named; and
evaluate's values are the same, bit for bit, whichever ranks the run (issue 21)."""

from __future__ import annotations

import importlib
import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rankkit
from rankkit.io import Source, sources
from tests.test_compose import inputs, same_double

# the module (rankkit.evaluate is also the function)
evaluate_module = importlib.import_module("rankkit.evaluate")
ARGUMENTS = "ties := ?, scores := ?, depth := ?, judged_only := ?"


@pytest.fixture(scope="module")
def con():
    return rankkit.connect()


def ranks_rows(con, macro: str, arguments: list) -> tuple[list, list]:
    """A ranks macro's judged rows, and each query's num_ret (a query without judged rows included)."""
    judged = con.execute(f"SELECT system, query_id, num_ret, rank, grade, tie_first, tie_size "
                         f"FROM rankkit.{macro}('q', 'r', {ARGUMENTS}) WHERE rank IS NOT NULL ORDER BY ALL",
                         arguments).fetchall()
    queries = con.execute(f"SELECT DISTINCT system, query_id, num_ret FROM rankkit.{macro}('q', 'r', {ARGUMENTS}) "
                          "ORDER BY ALL", arguments).fetchall()
    return judged, queries


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inputs(), st.sampled_from(["trec", "rank"]), st.sampled_from(["double", "float32"]),
       st.sampled_from([None, 1, 2, 5]), st.booleans(), st.booleans())
def test_window_ranks_are_counted_ranks(con, data, ties, scores, depth, judged_only, unnamed):
    qrels, run = data
    # scores equal at 32 bits but not at 64 (scores := 'float32' ties them)
    run = run.assign(score=run["score"] + (run.index % 2) * 1e-12)
    if unnamed and run["system"].nunique() == 1:  # a run without a system column: system NULL
        run = run.drop(columns="system")
    con.register("q", qrels)
    con.register("r", run)
    arguments = [ties, scores, depth, judged_only]
    assert ranks_rows(con, "window_ranks", arguments) == ranks_rows(con, "ranks", arguments)


def test_window_ranks_leave_average_ties_to_ranks():
    con = rankkit.connect()
    con.execute("CREATE OR REPLACE TEMP TABLE q AS SELECT 'q1' AS query_id, 'd1' AS doc_id, 1 AS relevance")
    con.execute("CREATE OR REPLACE TEMP TABLE r AS SELECT 'q1' AS query_id, 'd1' AS doc_id, 1.0 AS score")
    with pytest.raises(Exception, match="rankkit.ranks takes average"):
        con.execute("FROM rankkit.window_ranks('q', 'r', ties := 'average')").fetchall()
    qrels, run = Source("q", "q", "qrels", rows=100, lists=1), Source("r", "r", "run", rows=10, lists=1)
    assert evaluate_module.ranks_by_window(qrels, run, "trec")
    assert not evaluate_module.ranks_by_window(qrels, run, "average")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inputs(), st.sampled_from(["trec", "rank"]), st.sampled_from([None, 2]), st.booleans(),
       st.sampled_from(["both", "qrels"]))
def test_evaluate_gives_the_same_values_whichever_ranks_the_run(monkeypatch, data, ties, depth, judged_only, queries):
    qrels, run = data
    assume(set(qrels["query_id"]) & set(run["query_id"]))  # else evaluate refuses the inputs
    measures = ["AP", "nDCG@5", "P@3", "RR", "R@5", "bpref", "ERR@5", "infAP", "NumRet", "Rprec"]
    found = []
    # every run ranked by a window, then every run counted
    for limit, judged in ((evaluate_module.WINDOW_ROWS, 0), (0, evaluate_module.JUDGED_COUNTED)):
        monkeypatch.setattr(evaluate_module, "WINDOW_ROWS", limit)
        monkeypatch.setattr(evaluate_module, "JUDGED_COUNTED", judged)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found.append(rankkit.evaluate(qrels, run, measures, per_query=True, ties=ties, depth=depth,
                                          judged_only=judged_only, queries=queries))
    window, counted = found
    assert window[["measure", "query_id"]].equals(counted[["measure", "query_id"]])
    assert all(same_double(a, b) for a, b in zip(window["value"], counted["value"]))


def test_a_small_run_against_dense_judgments_is_ranked_by_a_window(monkeypatch):
    con = rankkit.connect()
    specs = evaluate_module.measure_specs(con, ["AP"])

    def engine(qrels: Source, run: Source) -> tuple[str, dict]:
        return evaluate_module.evaluation_query(qrels, run, specs, False, None, rankkit.Conventions())

    dl19 = Source("q", "q", "qrels", rows=9260, lists=43)  # 215 judged documents a query
    run = Source("r", "r", "run", rows=4300, lists=43)
    query, inputs = engine(dl19, run)
    assert "rankkit.window_ranks_loaded(" in query and "keyed" not in query
    # sparse judgments (one a query): counting wins at every size
    query, inputs = engine(Source("q", "q", "qrels", rows=50, lists=43), run)
    assert "rankkit.ranks(" in query and "keyed := false" in query  # Sources made here store no key
    monkeypatch.setattr(evaluate_module, "WINDOW_ROWS", 4299)  # a large run: counting, no sort
    assert "rankkit.ranks(" in engine(dl19, run)[0]
    assert not evaluate_module.ranks_by_window(dl19, Source("r", "r", "run"), "trec")  # rows not counted


def test_window_ranks_name_a_missing_column_and_read_tables_named_as_its_steps():
    con = rankkit.connect()
    con.execute("CREATE TABLE cut AS SELECT 'q1' AS query_id, 'd1' AS doc_id, 1 AS relevance")
    con.execute("CREATE TABLE ranked AS SELECT 'q1' AS query_id, 'd1' AS doc_id, 2.0 AS score")
    assert con.execute("SELECT query_id, num_ret, rank, grade FROM rankkit.window_ranks('cut', 'ranked')").fetchall() \
        == [("q1", 1, 1, 1.0)]
    con.execute("CREATE TABLE unscored AS SELECT 'q1' AS query_id, 'd1' AS doc_id")
    with pytest.raises(Exception, match="run table unscored: .*score"):
        con.execute("FROM rankkit.window_ranks('cut', 'unscored')").fetchall()


def in_file_order(run, scores: str = "double"):
    """The run as a run file written in trec_eval's order: each (system, query) one block, ranked 1, 2, ..."""
    key = run["score"].astype("float32") if scores == "float32" else run["score"]
    ordered = run.assign(key=key).sort_values(["system", "query_id", "key", "doc_id"],
                                                ascending=[True, True, False, False])
    ordered["rank"] = ordered.groupby(["system", "query_id"]).cumcount() + 1
    return ordered.drop(columns="key").reset_index(drop=True)


def file_order(con, run) -> tuple[bool, bool]:
    con.execute("CREATE OR REPLACE TEMP TABLE file_run AS FROM run")  # in the frame's order
    groups = len(run.drop_duplicates(["system", "query_id"]))
    return con.execute("SELECT double_ok, float32_ok FROM rankkit.file_order('file_run', ?)", [groups]).fetchall()[0]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inputs(), st.sampled_from(["trec", "rank"]), st.sampled_from(["double", "float32"]),
       st.sampled_from([None, 1, 2, 5]), st.booleans(), st.sampled_from(["double", "float32"]))
def test_a_run_in_file_order_is_ranked_by_its_given_ranks(con, data, ties, scores, depth, judged_only, written):
    """Where rankkit.file_order finds a run in trec_eval's order for the scores asked,
    rankkit.file_ranks_loaded's rows are window_ranks_loaded's: no sort, the same ranks."""
    qrels, run = data
    run = in_file_order(run.assign(score=run["score"] + (run.index % 2) * 1e-12), written)
    found = dict(zip(("double", "float32"), file_order(con, run)))
    assert found[written]  # written in that order: found so
    con.register("q", qrels)
    con.execute("CREATE OR REPLACE TEMP TABLE c AS SELECT system, query_id, count(*) AS n FROM file_run GROUP BY ALL")
    loaded = ("SELECT system, query_id, num_ret, rank, grade FROM rankkit.{}('q', 'file_run', {}) "
              "WHERE rank IS NOT NULL OR grade IS NULL ORDER BY ALL")
    file = con.execute(loaded.format("file_ranks_loaded", "'c', depth := ?, judged_only := ?"),
                       [depth, judged_only]).fetchall()
    window = con.execute(loaded.format("window_ranks_loaded", ARGUMENTS), [ties, scores, depth, judged_only]).fetchall()
    if found[scores]:
        assert file == window


def test_file_order_says_no_to_every_way_a_run_file_can_stand_otherwise(con):
    run = pd.DataFrame([("s", "q1", "d3", 3.0, 1), ("s", "q1", "d2", 2.0, 2), ("s", "q1", "d1", 2.0, 3),
                        ("s", "q2", "d1", 1.0, 1)], columns=["system", "query_id", "doc_id", "score", "rank"])
    assert file_order(con, run) == (True, True)
    wrong = {
        "scores rising": run.assign(score=[2.0, 3.0, 2.0, 1.0]),
        "a tie in doc_id's ascending order": run.assign(doc_id=["d3", "d1", "d2", "d1"]),
        "a rank skipped": run.assign(rank=[1, 2, 4, 1]),
        "a block not ranked from 1": run.assign(rank=[1, 2, 3, 2]),
        "a NULL rank": run.assign(rank=pd.array([1, None, 3, 1], dtype="Int64")),
        "a query in two blocks": pd.concat([run.iloc[[0]], run.iloc[[3]], run.iloc[[1, 2]].assign(rank=[1, 2])]),
    }
    for what, table in wrong.items():
        assert file_order(con, table) == (False, False), what
    # equal at 32 bits, in doc_id's ascending order there: in order for double scores only
    close = run.assign(score=[3.0, 2.0 + 1e-9, 2.0, 1.0], doc_id=["d3", "d1", "d2", "d1"])
    assert file_order(con, close) == (True, False)


def test_evaluate_ranks_a_large_run_in_file_order_by_its_given_ranks(monkeypatch, tmp_path):
    qrels = pd.DataFrame([(f"q{q}", f"d{d}", (q + d) % 3) for q in range(4) for d in range(12)],
                         columns=["query_id", "doc_id", "relevance"])
    run = in_file_order(pd.DataFrame([("bm25", f"q{q}", f"d{d}", float((q * d) % 5), 0) for q in range(4)
                                      for d in range(15)], columns=["system", "query_id", "doc_id", "score", "rank"]))
    path = tmp_path / "bm25.run"
    path.write_text("".join(f"{r.query_id} Q0 {r.doc_id} {r.rank} {r.score} bm25\n" for r in run.itertuples()))
    shuffled = tmp_path / "shuffled.run"
    shuffled.write_text("".join(reversed(path.read_text().splitlines(keepends=True))))
    statements, original = [], evaluate_module.run_query

    def run_query(con, query, params, fetch=True):
        statements.append(query)
        return original(con, query, params, fetch)

    monkeypatch.setattr(evaluate_module, "run_query", run_query)
    measures = ["AP", "nDCG@5", "P@3", "RR", "R@5", "bpref", "ERR@5", "Rprec"]
    monkeypatch.setattr(evaluate_module, "ORDER_ROWS", 1)
    con = rankkit.connect()
    read = rankkit.read_run(path, con=con)
    for scores in ("double", "float32"):
        values = rankkit.evaluate(qrels, read, measures, per_query=True, scores=scores, con=con)
        assert "rankkit.file_ranks_loaded(" in statements[-1]
        reference = rankkit.evaluate(qrels, shuffled, measures, per_query=True, scores=scores, con=con)
        assert "rankkit.window_ranks_loaded(" in statements[-1]  # not in order: sorted
        assert values[["measure", "query_id"]].equals(reference[["measure", "query_id"]])
        assert all(same_double(a, b) for a, b in zip(values["value"], reference["value"]))
    assert sources._known(con, read, "run").ordered == ("double", "float32")  # looked at once, kept with the run
