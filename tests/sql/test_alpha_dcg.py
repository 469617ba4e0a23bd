import math

import pytest

L = math.log2


def ideal_ideal(subtopics, k, alpha=0.5):
    """ndeval's normalisation: every document relevant to every subtopic."""
    return subtopics * sum((1 - alpha) ** (i - 1) / L(i + 1) for i in range(1, k + 1))


def test_alpha_dcg_over_ndevals_ideal_ideal(subtopic_values):
    # 0: A gains 1 at rank 1, D 1 at 2, B 0.5 at 4; three subtopics. 1: C 1 at 1, A 1 at 2; two.
    assert subtopic_values("alpha_dcg", "k := 5") == pytest.approx({
        "0": (1 + 1 / L(3) + 0.5 / L(5)) / ideal_ideal(3, 5), "1": (1 + 1 / L(3)) / ideal_ideal(2, 5)})
    assert subtopic_values("alpha_dcg", "k := 1") == {"0": 1.0, "1": 1.0}  # ndeval's unnormalised first rank
    with pytest.raises(Exception, match="alpha-DCG needs a cutoff"):
        subtopic_values("alpha_dcg")
