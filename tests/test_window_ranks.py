"""rankkit.window_ranks (every row ranked by a window, what evaluate takes for a small run) gives
rankkit.ranks' rows (counting ranks, for a large run): the same judged documents, ranks, grades, positive scores and
num_ret, under every tie, depth, judged_only and score rule, with several systems or none named; and
evaluate's values are the same, bit for bit, whichever ranks the run (issue 21)."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rankkit
from rankkit import statement
from rankkit.io import Source
from rankkit.specs import measure_specs
from tests.test_compose import inputs, same_double

ARGUMENTS = "ties := ?, scores := ?, depth := ?, judged_only := ?"


@pytest.fixture(scope="module")
def con():
    return rankkit.connect()


def ranks_rows(con, macro: str, arguments: list) -> tuple[list, list]:
    """A ranks macro's judged rows, and each query's num_ret (a query without judged rows included)."""
    judged = con.execute(f"SELECT system, query_id, num_ret, rank, grade, tie_first, tie_size, positive "
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
    assert statement.ranks_by_window(qrels, run, "trec")
    assert not statement.ranks_by_window(qrels, run, "average")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inputs(), st.sampled_from(["trec", "rank"]), st.sampled_from([None, 2]), st.booleans(),
       st.sampled_from(["both", "qrels"]))
def test_evaluate_gives_the_same_values_whichever_ranks_the_run(monkeypatch, data, ties, depth, judged_only, queries):
    qrels, run = data
    assume(set(qrels["query_id"]) & set(run["query_id"]))  # else evaluate refuses the inputs
    measures = ["AP", "nDCG@5", "P@3", "RR", "R@5", "bpref", "ERR@5", "infAP", "NumRet", "Rprec"]
    found = []
    # every run ranked by a window, then every run counted
    for limit, judged in ((statement.WINDOW_ROWS, 0), (0, statement.JUDGED_COUNTED)):
        monkeypatch.setattr(statement, "WINDOW_ROWS", limit)
        monkeypatch.setattr(statement, "JUDGED_COUNTED", judged)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found.append(rankkit.evaluate(qrels, run, measures, per_query=True, ties=ties, depth=depth,
                                          judged_only=judged_only, queries=queries))
    window, counted = found
    assert window[["measure", "query_id"]].equals(counted[["measure", "query_id"]])
    assert all(same_double(a, b) for a, b in zip(window["value"], counted["value"]))


def test_a_small_run_against_dense_judgments_is_ranked_by_a_window(monkeypatch):
    con = rankkit.connect()
    specs = measure_specs(con, ["AP"])

    def engine(qrels: Source, run: Source) -> tuple[str, dict]:
        return statement.evaluation_query(qrels, run, specs, False, None, rankkit.Conventions())

    dl19 = Source("q", "q", "qrels", rows=9260, lists=43)  # 215 judged documents a query
    run = Source("r", "r", "run", rows=4300, lists=43)
    query, inputs = engine(dl19, run)
    assert "rankkit.window_ranks_loaded(" in query and "keyed" not in query
    # sparse judgments (one a query): counting wins at every size
    query, inputs = engine(Source("q", "q", "qrels", rows=50, lists=43), run)
    assert "rankkit.ranks(" in query and "keyed := false" in query  # Sources made here store no key
    monkeypatch.setattr(statement, "WINDOW_ROWS", 4299)  # a large run: counting, no sort
    assert "rankkit.ranks(" in engine(dl19, run)[0]
    assert not statement.ranks_by_window(dl19, Source("r", "r", "run"), "trec")  # rows not counted


def test_window_ranks_name_a_missing_column_and_read_tables_named_as_its_steps():
    con = rankkit.connect()
    con.execute("CREATE TABLE cut AS SELECT 'q1' AS query_id, 'd1' AS doc_id, 1 AS relevance")
    con.execute("CREATE TABLE ranked AS SELECT 'q1' AS query_id, 'd1' AS doc_id, 2.0 AS score")
    assert con.execute("SELECT query_id, num_ret, rank, grade FROM rankkit.window_ranks('cut', 'ranked')").fetchall() \
        == [("q1", 1, 1, 1.0)]
    con.execute("CREATE TABLE unscored AS SELECT 'q1' AS query_id, 'd1' AS doc_id")
    with pytest.raises(Exception, match="run table unscored: .*score"):
        con.execute("FROM rankkit.window_ranks('cut', 'unscored')").fetchall()
