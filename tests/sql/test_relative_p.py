import pytest


def test_relative_precision_over_min_k_r(values):
    # q1: top 5 hold 2 of R = 3 relevant: 2 / min(5, 3); top 2 hold 1: 1 / 2; q2 has R = 0: 0
    assert values("relative_p", "k := 5") == pytest.approx({"q1": 2 / 3, "q2": 0.0})
    assert values("relative_p", "k := 2")["q1"] == pytest.approx(1 / 2)


def test_without_cutoff_it_is_set_relative_p(tables):
    rows = dict(tables.execute("SELECT measure, value FROM rankkit.evaluate('qrels', 'run', "
                               "['set_relative_P', 'relative_P_5', 'SetRelP'])").fetchall())
    assert rows == pytest.approx({"set_relative_P": 1 / 3, "relative_P_5": 1 / 3, "SetRelP": 1 / 3})
