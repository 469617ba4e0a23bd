import pytest


def test_rprec_relevant_in_the_top_r_over_r(values):
    # R = 3: the top 3 (b a d) hold one relevant document
    assert values("rprec") == pytest.approx({"q1": 1 / 3, "q2": 0.0})
    # R = 2 at rel 2: the top 2 (b a) hold a
    assert values("rprec", "rel := 2")["q1"] == pytest.approx(1 / 2)
