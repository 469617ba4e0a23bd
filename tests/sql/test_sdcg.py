import math

import pytest


def test_scaled_dcg_over_k_documents_of_full_gain(values):
    # q1 ranks b(0) a(2) d(-1) f(unjudged) c(1); max 4: a gains 2/4 at rank 2, c 1/4 at rank 5
    norm3 = sum(1 / math.log2(r + 1) for r in range(1, 4))
    assert values("sdcg", "k := 3") == pytest.approx({"q1": 0.5 / math.log2(3) / norm3, "q2": 0.0})
    norm5 = sum(1 / math.log2(r + 1) for r in range(1, 6))
    assert values("sdcg", "k := 5, max := 1")["q1"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(6)) / norm5)
    # no cutoff: cwl_eval's depth, 1000 documents
    norm = sum(1 / math.log2(r + 1) for r in range(1, 1001))
    assert values("sdcg")["q1"] == pytest.approx((0.5 / math.log2(3) + 0.25 / math.log2(6)) / norm)
