import pytest


def test_f_measure_of_the_retrieved_set(values):
    # q1: P = 2/5, R = 2/3; F1 = 2PR / (P + R) = 1/2; q2 retrieves nothing relevant: 0
    assert values("set_f") == pytest.approx({"q1": 0.5, "q2": 0.0})
    # trec_eval's x is beta itself: (x + 1) P R / (x P + R)
    p, r = 0.4, 2 / 3
    assert values("set_f", "beta := 0.5")["q1"] == pytest.approx(1.5 * p * r / (0.5 * p + r))


def test_names(tables):
    rows = tables.execute("SELECT measure, value FROM rankkit.evaluate('qrels', 'run', "
                          "['set_F', 'SetF(beta=0.5)', 'set_F_0.5'])").fetchall()
    assert rows[1][1] == pytest.approx(rows[2][1]) and rows[0][1] == pytest.approx(0.25)


def test_f_measure_at_a_cutoff_is_of_p_at_k_and_r_at_k(values):
    # q1 at k = 3 retrieves a (2): P@3 = 1/3, R@3 = 1/3, F1 = 1/3 (ranx's f1@3); precision is over k
    assert values("set_f", "k := 3") == {"q1": 1 / 3, "q2": 0.0}
    assert values("set_f", "k := 10")["q1"] == 2 * 0.2 * (2 / 3) / (0.2 + 2 / 3)
