def test_one_per_query_and_summed(values, tables):
    assert values("numq") == {"q1": 1.0, "q2": 1.0}
    assert tables.execute("SELECT value FROM rankkit.evaluate('qrels', 'run', ['num_q'])").fetchall() == [(2.0,)]
    # -c: every judged query
    assert tables.execute("SELECT value FROM rankkit.evaluate('qrels', 'run', ['NumQ'], queries := 'qrels')"
                          ).fetchall() == [(3.0,)]
