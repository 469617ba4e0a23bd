import math

import pytest


def test_normalised_gain(values):
    # q1: ideal gains 3 (e), 2 (a), 1 (c), total 6. a at rank 2: the ideal would have paid
    # 2 + (3 - 1) + (2 - 1) = 5 by then, this ranking gained 2: 2 / log2(2 + 5 - 2).
    # c at rank 5: cost 5 + 2 + 1 = 8, gained 3: 1 / log2(2 + 8 - 3)
    expected = (2 / math.log2(5) + 1 / math.log2(7)) / 6
    assert values("g") == pytest.approx({"q1": expected, "q2": 0.0})


def test_gains_per_level(values):
    # grade 1 gains 5: ideal 5 (c), 3 (e), 2 (a) = 10; a at rank 2: cost 2 + 4 + 2 = 8, gained 2;
    # c at rank 5: cost 5 + 4 + 2 + 1 = 12, gained 7
    expected = (2 / math.log2(2 + 8 - 2) + 5 / math.log2(2 + 12 - 7)) / 10
    assert values("g", "gains := '1=5'")["q1"] == pytest.approx(expected)
