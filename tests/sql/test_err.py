import pytest


def test_err_gdeval_scale_of_4(values):
    # R = (2^g - 1) / 16: a (rank 2) 3/16, c (rank 5) 1/16; d's grade -1 stops nobody
    assert values("err") == pytest.approx({"q1": (3 / 16) / 2 + (1 / 16) * (1 - 3 / 16) / 5, "q2": 0.0})
    assert values("err", "k := 2")["q1"] == pytest.approx((3 / 16) / 2)


def test_err_other_scale(values):
    assert values("err", "max := 2")["q1"] == pytest.approx((3 / 4) / 2 + (1 / 4) * (1 / 4) / 5)
