from math import log2

import pytest

DCG = 2 / log2(3) + 1 / log2(6)


def test_ndcg_over_the_ideal_of_every_judged_document(values):
    assert values("ndcg") == pytest.approx({"q1": DCG / (3 + 2 / log2(3) + 1 / 2), "q2": 0.0})
    assert values("ndcg", "k := 3")["q1"] == pytest.approx((2 / log2(3)) / (3 + 2 / log2(3) + 1 / 2))


def test_ndcg_ideal_run_and_exponential_gain(values):
    assert values("ndcg", "ideal := 'run'")["q1"] == pytest.approx(DCG / (2 + 1 / log2(3)))
    exp = (3 / log2(3) + 1 / log2(6)) / (7 + 3 / log2(3) + 1 / 2)
    assert values("ndcg", "gain := 'exp'")["q1"] == pytest.approx(exp)


def test_ndcg_empty_skip_leaves_queries_without_ideal_out(values, tables):
    assert values("ndcg", "empty := 'skip'")["q2"] is None
    mean = tables.execute("SELECT value, queries FROM rankkit.evaluate('qrels', 'run', ['nDCG(empty=skip)'])").fetchall()
    assert mean[0][0] == pytest.approx(DCG / (3 + 2 / log2(3) + 1 / 2)) and mean[0][1] == 1
