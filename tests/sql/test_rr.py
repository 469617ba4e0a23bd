import pytest


def test_rr_reciprocal_rank_of_the_first_relevant(values):
    assert values("rr") == pytest.approx({"q1": 1 / 2, "q2": 0.0})
    assert values("rr", "k := 1")["q1"] == 0.0
    assert values("rr", "rel := 3")["q1"] == 0.0  # e is not retrieved


def test_rr_several_systems_in_one_run(tables):
    tables.execute("CREATE TABLE runs AS SELECT 'A' AS system, * FROM run UNION ALL SELECT 'B', query_id, doc_id, -score FROM run")
    got = tables.execute("SELECT system, query_id, value FROM rankkit.rr('qrels', 'runs')").fetchall()
    assert got == [("A", "q1", 0.5), ("A", "q2", 0.0), ("B", "q1", 1.0), ("B", "q2", 0.0)]
