import pytest


def test_nrbp_over_the_whole_ranking(subtopic_values):
    # (1 - (1 - alpha) x patience) / subtopics x the gains weighted patience^(rank - 1)
    assert subtopic_values("nrbp") == pytest.approx({
        "0": 0.75 / 3 * (1 + 0.5 + 0.5 * 0.5 ** 3), "1": 0.75 / 2 * (1 + 0.5)})
    assert subtopic_values("nrbp", "alpha := 0.2, patience := 0.8")["1"] == pytest.approx(
        (1 - 0.8 * 0.8) / 2 * (1 + 0.8))
