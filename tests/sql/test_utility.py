import duckdb
import pytest


def test_utility_default_one_per_relevant_minus_one_per_other(values):
    # q1: 2 relevant retrieved, 3 others retrieved; q2: 0 and 2
    assert values("utility") == pytest.approx({"q1": -1.0, "q2": -2.0})
    assert values("utility", "coef := [2, -1, 0, 0]") == pytest.approx({"q1": 1.0, "q2": -2.0})


def test_missed_documents_and_the_collection_size(values):
    # q1 misses e: coef3 counts it; coef4 counts the non-relevant documents not retrieved
    # out of a collection of 100: 100 + 2 - 5 - 3 = 94 (trec_eval -N 100)
    assert values("utility", "coef := [0, 0, -1, 0]")["q1"] == -1.0
    assert values("utility", "coef := [0, 0, 0, 1], docs := 100")["q1"] == 94.0


def test_trec_eval_name_and_a_bad_coefficient_list(tables):
    rows = tables.execute("SELECT value FROM rankkit.evaluate('qrels', 'run', ['utility_2,-1,0,0'])").fetchall()
    assert rows[0][0] == pytest.approx(-0.5)
    with pytest.raises(duckdb.Error, match="utility takes four numbers"):
        tables.execute("FROM rankkit.evaluate('qrels', 'run', ['utility_2,-1,0'])").fetchall()
