import pytest


def test_bpref_skips_unjudged_and_negative_documents(values):
    # a and c each have one judged non-relevant document (b) above them; min(R, N) = min(3, 2) = 2;
    # d (grade -1) and f (unjudged) do not count
    assert values("bpref") == pytest.approx({"q1": ((1 - 1 / 2) + (1 - 1 / 2)) / 3, "q2": 0.0})


def test_bpref_relevance_level(values):
    # rel 2: relevant a, e; non-relevant b, c, g (N = 3); a has b above: 1 - 1/2
    assert values("bpref", "rel := 2")["q1"] == pytest.approx((1 - 1 / 2) / 2)
