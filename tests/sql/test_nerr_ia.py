import pytest


def test_nerr_ia_over_the_greedy_ideal(subtopic_values):
    # the ideal gains 1, 1, 1, 0.5 (query 0) and 1, 1, 0.5 (query 1), over their ranks
    assert subtopic_values("nerr_ia", "k := 5") == pytest.approx({
        "0": (1 + 1 / 2 + 0.5 / 4) / (1 + 1 / 2 + 1 / 3 + 0.5 / 4),
        "1": (1 + 1 / 2) / (1 + 1 / 2 + 0.5 / 3)})
    # alpha = 0.2: B, meeting b again, gains 0.8
    assert subtopic_values("nerr_ia", "k := 4, alpha := 0.2")["0"] == pytest.approx(
        (1 + 1 / 2 + 0.8 / 4) / (1 + 1 / 2 + 1 / 3 + 0.8 / 4))
