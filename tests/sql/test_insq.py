import pytest


def test_insq_weighs_rank_r_by_one_over_r_plus_one_squared(values):
    # T = 1: rank r is read with weight (2 / (r + 1))^2; q1 ranks a (2) at 2 and c (1) at 5; max 4
    norm = sum(1 / (r + 1) ** 2 for r in range(1, 1001))
    assert values("insq") == pytest.approx({"q1": (0.5 / 9 + 0.25 / 36) / norm, "q2": 0.0})
    assert values("insq", "max := 1")["q1"] == pytest.approx((1 / 9 + 1 / 36) / norm)
