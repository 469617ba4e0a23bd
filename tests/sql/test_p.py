import pytest


def test_p_divides_by_k_even_when_fewer_retrieved(values):
    assert values("p", "k := 5") == pytest.approx({"q1": 2 / 5, "q2": 0.0})
    assert values("p", "k := 10")["q1"] == pytest.approx(2 / 10)
    assert values("p", "k := 1")["q1"] == 0.0


def test_p_without_cutoff_is_over_the_number_retrieved(values):
    assert values("p")["q1"] == pytest.approx(2 / 5)
    assert values("p", "k := 2, rel := 2")["q1"] == pytest.approx(1 / 2)


def test_p_rank_ties_use_the_rank_column(tables):
    tables.execute("CREATE TABLE ranked_run AS SELECT *, row_number() OVER (PARTITION BY query_id ORDER BY score) AS rank FROM run")
    got = dict(tables.execute("SELECT query_id, value FROM rankkit.p('qrels', 'ranked_run', k := 1, ties := 'rank')").fetchall())
    assert got["q1"] == 1.0  # reversed: c (grade 1) first
