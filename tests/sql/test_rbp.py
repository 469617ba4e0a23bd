import pytest


def test_rank_biased_precision(values):
    # q1's top grade is 3: a (rank 2) gains 2/3, c (rank 5) 1/3
    assert values("rbp") == pytest.approx({"q1": 0.1 * (2 / 3 * 0.9 + 1 / 3 * 0.9 ** 4), "q2": 0.0})
    assert values("rbp", "p := 0.8")["q1"] == pytest.approx(0.2 * (2 / 3 * 0.8 + 1 / 3 * 0.8 ** 4))


def test_names_and_a_bad_persistence(tables):
    import duckdb
    rows = tables.execute("SELECT value FROM rankkit.evaluate('qrels', 'run', ['rbp_p=0.8', 'RBP(p=0.8)'])").fetchall()
    assert rows[0][0] == pytest.approx(rows[1][0])
    with pytest.raises(duckdb.Error, match="p must be a number from 0 to 1"):
        tables.execute("FROM rankkit.evaluate('qrels', 'run', ['RBP(p=2)'])").fetchall()
