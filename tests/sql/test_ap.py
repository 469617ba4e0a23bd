from math import isclose

import pytest


def test_ap_precision_at_each_relevant_over_all_relevant(values):
    # relevant at ranks 2 and 5 of q1, 3 relevant in the qrels
    assert values("ap") == pytest.approx({"q1": (1 / 2 + 2 / 5) / 3, "q2": 0.0})


def test_ap_cutoff_and_relevance_level(values):
    assert values("ap", "k := 3")["q1"] == pytest.approx((1 / 2) / 3)
    assert values("ap", "rel := 2")["q1"] == pytest.approx((1 / 2) / 2)  # a and e are >= 2


def test_ap_every_judged_query_with_queries_qrels(values):
    got = values("ap", "queries := 'qrels'")
    assert set(got) == {"q1", "q2", "q3"} and got["q3"] == 0 and isclose(got["q1"], 0.3)


def test_ap_denominators(values):
    # q1: relevant a at rank 2 among 3 relevant documents; within k = 3 one is retrieved
    assert values("ap", "k := 3, denom := 'min'")["q1"] == pytest.approx((1 / 2) / 3)
    assert values("ap", "k := 2, denom := 'min'")["q1"] == pytest.approx((1 / 2) / 2)
    assert values("ap", "k := 3, denom := 'retrieved'")["q1"] == pytest.approx(1 / 2)
    assert values("ap", "denom := 'retrieved'")["q1"] == pytest.approx((1 / 2 + 2 / 5) / 2)
