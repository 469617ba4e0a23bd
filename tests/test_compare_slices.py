"""Slices: evaluate(by=) and compare(by=) per attribute of a query table, computed in SQL, equal to
evaluating each slice's queries alone."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankkit
from rankkit.errors import InputError, RankkitError
from support import in_duckdb_shell
from test_compare import _sample

MEASURES = ["nDCG@10", "AP", "P@5", "NumRet", "RR"]


def _query_table(queries: int):
    ids = [f"q{q:02d}" for q in range(queries)]
    return pd.DataFrame({"query_id": ids, "category": [["web", "news", "code"][q % 3] for q in range(queries)],
                         "length": [q % 4 for q in range(queries)]})


def test_each_slice_equals_evaluating_its_queries_alone():
    qrels, run = _sample(21, queries=30)
    topics = _query_table(27)  # the last three queries are not in the query table: slice NaN
    sliced = rankkit.evaluate(qrels, run, MEASURES, by="category", query_table=topics)
    assert set(sliced["category"].dropna()) == {"web", "news", "code"} and sliced["category"].isna().any()
    groups = topics.set_index("query_id")["category"].reindex(sorted(qrels["query_id"].unique()))
    for category, ids in groups.groupby(groups.fillna("<none>")).groups.items():
        alone = rankkit.evaluate(qrels[qrels["query_id"].isin(ids)], run[run["query_id"].isin(ids)], MEASURES)
        rows = sliced[sliced["category"].isna()] if category == "<none>" else sliced[sliced["category"] == category]
        merged = rows.merge(alone, on=["measure", "system"], suffixes=("", "_alone"))
        assert len(merged) == len(alone) == len(MEASURES) * 3
        assert np.allclose(merged["value"], merged["value_alone"], rtol=0, atol=1e-12)
        assert (merged["queries"] == merged["queries_alone"]).all()


def test_slices_in_the_sql_macro(con):
    qrels, run = _sample(22, queries=12)
    con.register("qrels", qrels)
    con.register("run", run)
    con.register("topics", _query_table(12))
    sql = con.execute("SELECT * FROM rankkit.evaluate_by('qrels', 'run', ['AP', 'P@5'], 'topics', 'length') "
                      "ORDER BY measure, system, slice").df()
    python = rankkit.evaluate(qrels, run, ["AP", "P@5"], by="length", query_table=_query_table(12))
    python = python.sort_values(["measure", "system", "length"]).reset_index(drop=True)
    assert sql["slice"].tolist() == python["length"].tolist()
    assert np.allclose(sql["value"], python["value"], rtol=0, atol=1e-15)


def test_slices_with_ci_and_per_query():
    qrels, run = _sample(23, queries=15, systems=("a", "b"))
    topics = _query_table(15)
    result = rankkit.evaluate(qrels, run, ["AP"], by="category", query_table=topics, ci=0.95, resamples=500)
    assert list(result.columns) == ["measure", "system", "category", "value", "queries", "ci_low", "ci_high"]
    assert (result["ci_low"] <= result["value"]).all() and (result["value"] <= result["ci_high"]).all()
    per_query = rankkit.evaluate(qrels, run, ["AP"], per_query=True, by="category", query_table=topics)
    joined = per_query.merge(topics, on="query_id", suffixes=("", "_topic"))
    assert (joined["category"] == joined["category_topic"]).all() and len(per_query) == 30


def test_compare_by_slice_equals_comparing_each_slice_alone():
    qrels, run = _sample(24, queries=30)
    topics = _query_table(30)
    sliced = rankkit.compare(qrels, run, ["AP", "nDCG@10"], baseline="a", by="category", query_table=topics,
                             test="permutation", resamples=999)
    assert len(sliced) == 2 * 3 * 2
    for category, ids in topics.groupby("category")["query_id"]:
        alone = rankkit.compare(qrels[qrels["query_id"].isin(ids)], run[run["query_id"].isin(ids)],
                                ["AP", "nDCG@10"], baseline="a", test="permutation", resamples=999)
        rows = sliced[sliced["category"] == category].drop(columns=["category"]).reset_index(drop=True)
        columns = ["measure", "system", "mean", "baseline_mean", "diff", "ci_low", "ci_high", "p_value",
                   "wins", "ties", "losses", "queries"]
        pd.testing.assert_frame_equal(rows[columns], alone[columns], check_exact=False, rtol=1e-12, atol=1e-12)
    # the correction's family is every comparison of one measure: here 2 systems x 3 slices
    ap = sliced[sliced["measure"] == "AP"]
    assert np.allclose(ap["p_adjusted"], rankkit.stats.correct(ap["p_value"], "holm"))


def test_bad_query_tables_are_clear(con):
    qrels, run = _sample(25, queries=4)
    topics = _query_table(4)
    with pytest.raises(InputError, match="query_table has no column 'topic'; its columns: query_id, category, length"):
        rankkit.evaluate(qrels, run, ["AP"], by="topic", query_table=topics)
    with pytest.raises(InputError, match="both query_table"):
        rankkit.evaluate(qrels, run, ["AP"], by="category")
    with pytest.raises(RankkitError, match="query q00 is listed twice in the query table"):
        rankkit.evaluate(qrels, run, ["AP"], by="category", query_table=pd.concat([topics, topics.head(1)]))
    for taken in ("p_value", "alpha", "conventions.rel"):  # a column of compare's frame or of its CSV
        with pytest.raises(InputError, match=f"by: the attribute column cannot be called '{taken}'"):
            rankkit.compare(qrels, run, ["AP"], by=taken, query_table=topics.rename(columns={"category": taken}))


def test_query_table_from_a_csv_file(tmp_path):
    qrels, run = _sample(26, queries=6)
    path = tmp_path / "topics.csv"
    _query_table(6).to_csv(path, index=False)
    from_file = rankkit.evaluate(qrels, run, ["AP"], by="category", query_table=str(path))
    from_frame = rankkit.evaluate(qrels, run, ["AP"], by="category", query_table=_query_table(6))
    pd.testing.assert_frame_equal(from_file, from_frame)
    # ids stay strings: "007" is not "7"
    path.write_text("query_id,group\n007,a\n7,b\n")
    qrels = pd.DataFrame({"query_id": ["007", "7"], "doc_id": ["x", "x"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["007", "7"], "doc_id": ["x", "y"], "score": [1.0, 1.0]})
    result = rankkit.evaluate(qrels, run, ["P@1"], by="group", query_table=str(path))
    assert result[["group", "value"]].values.tolist() == [["a", 1.0], ["b", 0.0]]


def test_slices_and_average_ties_in_the_duckdb_shell(tmp_path):
    """The plain duckdb shell (1.5, from the duckdb-cli package) runs the new macros too."""
    commands = """CREATE TABLE qrels AS SELECT * FROM (VALUES ('q','A',3),('q','B',2),('q','C',1),('q','D',0),('q','E',0)) t(query_id, doc_id, relevance);
CREATE TABLE run AS SELECT * FROM (VALUES ('q','A',3.0),('q','B',2.0),('q','C',0.0),('q','D',0.0),('q','E',1.0)) t(query_id, doc_id, score);
CREATE TABLE topics AS SELECT * FROM (VALUES ('q','long')) t(qid, len);
SELECT round(value, 5) AS v FROM rankkit.evaluate('qrels', 'run', ['nDCG(ideal=run)'], ties := 'average');
SELECT slice, round(value, 5) AS v FROM rankkit.evaluate_by('qrels', 'run', ['nDCG(ideal=run)'], 'topics', 'len');
"""
    out = in_duckdb_shell(tmp_path, commands)
    assert out.split() == ["v", "0.98084", "slice,v", "long,0.97624"]


@pytest.mark.parametrize("key, columns", [("qid", None), ("Topic", None), ("topic_no", {"topic_no": "query_id"})])
def test_a_query_table_keyed_by_another_name_of_the_query_id(con, tmp_path, key, columns):
    """The query table's id column is found as the readers find qrels' and runs' (qid, topic ..., or
    mapped with columns=), on every surface that takes one: DuckDB's binder error and rankkit's
    internal SQL were all a user of `qid` saw, in Python, on the command line, in the explorer and
    in SQL's evaluate_by."""
    qrels, run = _sample(23, queries=12)
    topics = _query_table(12)
    expected = rankkit.evaluate(qrels, run, ["AP"], by="category", query_table=topics)
    keyed = topics.rename(columns={"query_id": key})
    path = tmp_path / "topics.csv"
    keyed.to_csv(path, index=False)
    for table in (keyed, str(path)):
        found = rankkit.evaluate(qrels, run, ["AP"], by="category", query_table=table, columns=columns)
        pd.testing.assert_frame_equal(found, expected)
    compared = rankkit.compare(qrels, run, ["AP"], by="category", query_table=str(path), columns=columns)
    assert set(compared["category"].dropna()) == {"web", "news", "code"}
    from rankkit.explore.data import _query_table as explorer_queries
    assert explorer_queries(rankkit.connect(), keyed.rename(columns={key: "qid"})).index.name == "query_id"
    con.register("qrels", qrels)
    con.register("run", run)
    con.register("topics", keyed if columns is None else topics)
    sql = con.execute("SELECT slice, value FROM rankkit.evaluate_by('qrels', 'run', ['AP'], 'topics', 'category') "
                      "ORDER BY system, slice NULLS LAST").fetchall()
    assert [(s, round(v, 12)) for s, v in sql] == [(c, round(v, 12)) for c, v in expected.sort_values(
        ["system", "category"], na_position="last")[["category", "value"]].itertuples(index=False)]


def test_a_query_table_with_two_candidates_for_the_query_id_is_refused(con):
    """qid beside a column named query (the query's text, say): which is the id is not guessed."""
    qrels, run = _sample(24, queries=6)
    topics = _query_table(6).rename(columns={"query_id": "qid"}).assign(query="text")
    with pytest.raises(InputError, match="columns qid, query could each be the query_id"):
        rankkit.evaluate(qrels, run, ["AP"], by="category", query_table=topics)
    con.register("qrels", qrels)
    con.register("run", run)
    con.register("topics", topics)
    with pytest.raises(Exception, match="columns qid, query could each be the query id"):
        con.execute("FROM rankkit.evaluate_by('qrels', 'run', ['AP'], 'topics', 'category')").fetchall()
    # beside query_id itself, a column named query is text, not a second id (as in the readers)
    kept = _query_table(6).assign(query="text")
    assert len(rankkit.evaluate(qrels, run, ["AP"], by="category", query_table=kept)) > 0
    con.register("topics", kept)
    assert len(con.execute("FROM rankkit.evaluate_by('qrels', 'run', ['AP'], 'topics', 'category')").fetchall()) > 0
