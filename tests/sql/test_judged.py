import pytest


def test_judged_share_of_top_k_in_the_qrels(values):
    # q1 top 5: b a d f c, all but f judged (a grade of -1 is judged); q2: x judged, y not
    assert values("judged", "k := 5") == pytest.approx({"q1": 4 / 5, "q2": 1 / 2})
    assert values("judged", "k := 3")["q1"] == pytest.approx(1.0)


def test_judged_over_the_number_retrieved_when_fewer_than_k(values):
    assert values("judged", "k := 10") == pytest.approx({"q1": 4 / 5, "q2": 1 / 2})
