import pytest


def test_set_precision_times_set_recall(values):
    # q1: 2 relevant retrieved of 5 retrieved and 3 relevant: 2 * 2 / (5 * 3)
    assert values("set_map") == pytest.approx({"q1": 4 / 15, "q2": 0.0})
    # rel 2: a and e are relevant, a retrieved: 1 / (5 * 2)
    assert values("set_map", "rel := 2")["q1"] == pytest.approx(1 / 10)
