import pytest


def test_ap_ia_averages_each_subtopics_ap(subtopic_values):
    # 0: a: A at 1 (AP 1); b: D at 2, B at 4 ((1/2 + 2/4) / 2); c: C missed (0)
    # 1: x: A at 2 (1/2); y: C at 1 of two relevant (1 / 2)
    assert subtopic_values("ap_ia") == pytest.approx({"0": (1 + 0.5 + 0) / 3, "1": (0.5 + 0.5) / 2})
    assert subtopic_values("ap_ia", "rel := 2")["1"] == 0.0  # only B counts, not retrieved
