from math import log2

import pytest

DCG = 2 / log2(3) + 1 / log2(6)


def test_ndcg_over_the_ideal_of_every_judged_document(values):
    assert values("ndcg") == pytest.approx({"q1": DCG / (3 + 2 / log2(3) + 1 / 2), "q2": 0.0})
    assert values("ndcg", "k := 3")["q1"] == pytest.approx((2 / log2(3)) / (3 + 2 / log2(3) + 1 / 2))


def test_ndcg_ideal_run_and_exponential_gain(values):
    assert values("ndcg", "ideal := 'run'")["q1"] == pytest.approx(DCG / (2 + 1 / log2(3)))
    exp = (3 / log2(3) + 1 / log2(6)) / (7 + 3 / log2(3) + 1 / 2)
    assert values("ndcg", "gain := 'exp'")["q1"] == pytest.approx(exp)


def test_ndcg_empty_skip_leaves_queries_without_ideal_out(values, tables):
    assert values("ndcg", "empty := 'skip'")["q2"] is None
    mean = tables.execute("SELECT value, queries FROM rankkit.evaluate('qrels', 'run', ['nDCG(empty=skip)'])").fetchall()
    assert mean[0][0] == pytest.approx(DCG / (3 + 2 / log2(3) + 1 / 2)) and mean[0][1] == 1


def test_gains_per_grade_as_trec_eval_ndcg_1_5(values):
    import math
    # grade 1 gains 5: q1's c (rank 5) gains 5, a (rank 2) 2; the ideal sorts by gain: 5, 3, 2
    dcg = 2 / math.log2(3) + 5 / math.log2(6)
    idcg = 5 + 3 / math.log2(3) + 2 / math.log2(4)
    assert values("ndcg", "gains := '1=5'")["q1"] == pytest.approx(dcg / idcg)
    assert values("ndcg", "gains := '[1=5]'")["q1"] == pytest.approx(dcg / idcg)


def test_bad_gain_map_is_refused(tables):
    import duckdb
    with pytest.raises(duckdb.Error, match="gains must read level=gain"):
        tables.execute("FROM rankkit.ndcg('qrels', 'run', gains := '1:5')").fetchall()
