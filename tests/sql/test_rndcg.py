import math

import pytest


def test_ndcg_at_the_r_levels(values):
    # q1's ideal gains 3, 2, 1 drop after ranks 1, 2 and 3; the ranking (5 long) runs past them
    idcg = [3, 3 + 2 / math.log2(3), 3 + 2 / math.log2(3) + 1 / math.log2(4)]
    dcg = [0, 2 / math.log2(3), 2 / math.log2(3), 2 / math.log2(3) + 1 / math.log2(6)]
    expected = (dcg[0] / idcg[0] + dcg[1] / idcg[1] + dcg[2] / idcg[2] + dcg[3] / idcg[2]) / 4
    assert values("rndcg") == pytest.approx({"q1": expected, "q2": 0.0})


def test_a_short_ranking_is_read_at_its_end(tables):
    tables.execute("DELETE FROM run WHERE query_id = 'q1' AND doc_id NOT IN ('b', 'a')")
    value = dict(tables.execute("SELECT query_id, value FROM rankkit.rndcg('qrels', 'run')").fetchall())["q1"]
    idcg = [3, 3 + 2 / math.log2(3), 3 + 2 / math.log2(3) + 1 / math.log2(4)]
    dcg = 2 / math.log2(3)
    assert value == pytest.approx((0 / idcg[0] + dcg / idcg[1] + dcg / idcg[2]) / 3)
