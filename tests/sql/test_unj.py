import pytest


def test_unjudged_share_of_the_top_k(values):
    # q1: d (judged -1) and f (unjudged) at ranks 3 and 4; q2: y at rank 2
    assert values("unj", "k := 5") == pytest.approx({"q1": 2 / 5, "q2": 1 / 5})
    assert values("unj", "k := 2") == pytest.approx({"q1": 0.0, "q2": 1 / 2})
    # past the end of the ranking counts as judged
    assert values("unj", "k := 10")["q1"] == pytest.approx(2 / 10)
