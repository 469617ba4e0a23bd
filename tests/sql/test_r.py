import pytest


def test_r_relevant_retrieved_over_relevant_judged(values):
    assert values("r") == pytest.approx({"q1": 2 / 3, "q2": 0.0})
    assert values("r", "k := 3")["q1"] == pytest.approx(1 / 3)
    assert values("r", "rel := 2")["q1"] == pytest.approx(1 / 2)
