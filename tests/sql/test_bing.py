import math

import pytest


def test_binary_g(values):
    # a at rank 2 has one non-relevant document above it, c at rank 5 three (b, d, f)
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / 3
    assert values("bing") == pytest.approx({"q1": expected, "q2": 0.0})
