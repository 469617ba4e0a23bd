import pytest


def test_cg_sums_gains_negative_grades_gain_nothing(values):
    assert values("cg") == pytest.approx({"q1": 3.0, "q2": 0.0})
    assert values("cg", "k := 2")["q1"] == pytest.approx(2.0)


def test_cg_exponential_gain(values):
    assert values("cg", "gain := 'exp'")["q1"] == pytest.approx(3.0 + 1.0)
