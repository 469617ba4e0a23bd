def test_numrel_counts_relevant_judgments(values):
    assert values("numrel") == {"q1": 3.0, "q2": 0.0}
    assert values("numrel", "rel := 2") == {"q1": 2.0, "q2": 0.0}


def test_numrel_sums_in_the_aggregate(tables):
    assert tables.execute("SELECT value FROM rankkit.evaluate('qrels', 'run', ['num_rel'], queries := 'qrels')").fetchall() == [(4.0,)]
