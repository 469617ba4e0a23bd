import pytest


def test_precision_at_multiples_of_r(values):
    # q1, R = 3: mult 1 reads the top floor(3 + 0.9) = 3 (b a d: one relevant), mult 0.5 the top
    # floor(2.4) = 2 (b a), mult 0.2 the top 1 (b), mult 2 the top 6: past the 5 retrieved, 2 / 6
    assert values("rprec_mult") == pytest.approx({"q1": 1 / 3, "q2": 0.0})
    assert values("rprec_mult", "mult := 0.5")["q1"] == pytest.approx(1 / 2)
    assert values("rprec_mult", "mult := 0.2")["q1"] == 0.0
    assert values("rprec_mult", "mult := 2")["q1"] == pytest.approx(2 / 6)


def test_trec_eval_name(tables):
    rows = tables.execute("SELECT value FROM rankkit.evaluate_queries('qrels', 'run', ['Rprec_mult_0.50'])").fetchall()
    assert rows[0][0] == pytest.approx(1 / 2)
