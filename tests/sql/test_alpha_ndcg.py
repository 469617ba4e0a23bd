import math

import pytest

L = math.log2


def test_alpha_ndcg_over_the_greedy_ideal(subtopic_values):
    # 0: A (a) gains 1 at rank 1, D (b) 1 at 2, B (b again) 0.5 at 4; the ideal gains 1, 1, 1, 0.5
    # 1: C (y) 1, A (x) 1 at 2; the ideal C (ties to the greatest id), A, then B (y again) 0.5
    assert subtopic_values("alpha_ndcg", "k := 5") == pytest.approx({
        "0": (1 + 1 / L(3) + 0.5 / L(5)) / (1 + 1 / L(3) + 1 / L(4) + 0.5 / L(5)),
        "1": (1 + 1 / L(3)) / (1 + 1 / L(3) + 0.5 / L(4))})


def test_alpha_and_rel(subtopic_values):
    # alpha = 1: a subtopic met again gains nothing, so 0's B adds nothing, and the ideal stops at 3
    assert subtopic_values("alpha_ndcg", "k := 5, alpha := 1")["0"] == pytest.approx(
        (1 + 1 / L(3)) / (1 + 1 / L(3) + 1 / L(4)))
    # rel = 2: only B is relevant (to y), not retrieved by 1
    assert subtopic_values("alpha_ndcg", "k := 3, rel := 2") == {"0": 0.0, "1": 0.0}
    # the cutoff: at 1, query 0's A against the ideal's first document
    assert subtopic_values("alpha_ndcg", "k := 1")["0"] == 1.0
