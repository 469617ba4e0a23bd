import pytest


def test_residual_of_the_unjudged(values):
    # q1: judged >= 0 at ranks 1, 2 and 5; the rest (d judged -1, f unjudged, past the end) could gain
    assert values("rbp_resid") == pytest.approx({"q1": 1 - 0.1 * (1 + 0.9 + 0.9 ** 4), "q2": 1 - 0.1})


def test_zero_when_everything_retrieved_is_judged(values, tables):
    tables.execute("DELETE FROM run WHERE doc_id IN ('d', 'f')")
    assert values("rbp_resid")["q1"] == 0.0
