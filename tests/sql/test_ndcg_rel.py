import math

import pytest


def test_ndcg_averaged_over_the_documents_of_gain(values):
    idcg = [3, 3 + 2 / math.log2(3), 3 + 2 / math.log2(3) + 1 / math.log2(4)]
    dcg_a = 2 / math.log2(3)
    dcg_end = dcg_a + 1 / math.log2(6)
    # a at rank 2, c at rank 5 (the ideal has run out after 3), e missed: the end's nDCG
    expected = (dcg_a / idcg[1] + dcg_end / idcg[2] + dcg_end / idcg[2]) / 3
    assert values("ndcg_rel") == pytest.approx({"q1": expected, "q2": 0.0})
