from math import log2

import pytest


def test_dcg_discounts_by_log2_of_rank_plus_one(values):
    assert values("dcg") == pytest.approx({"q1": 2 / log2(3) + 1 / log2(6), "q2": 0.0})
    assert values("dcg", "k := 3")["q1"] == pytest.approx(2 / log2(3))


def test_dcg_exponential_gain(values):
    assert values("dcg", "gain := 'exp'")["q1"] == pytest.approx(3 / log2(3) + 1 / log2(6))
