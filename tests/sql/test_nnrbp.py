import pytest


def test_nnrbp_over_the_greedy_ideal(subtopic_values):
    # 0: the run gains 1, 1 (rank 2), 0.5 (rank 4); the ideal 1, 1, 1, 0.5 at ranks 1-4
    # 1: the run 1, 1 (rank 2); the ideal 1, 1, 0.5
    assert subtopic_values("nnrbp") == pytest.approx({
        "0": (1 + 0.5 + 0.5 * 0.5 ** 3) / (1 + 0.5 + 0.25 + 0.5 * 0.125),
        "1": (1 + 0.5) / (1 + 0.5 + 0.5 * 0.25)})
    # a query with no relevant subtopic scores 0 (ndeval divides 0 by 0)
    assert subtopic_values("nnrbp", "queries := 'qrels'")["2"] == 0.0
