def test_judged_non_relevant_retrieved(values):
    # q1: b (0); d is -1 and f unjudged; q2: x (0)
    assert values("num_nonrel_judged_ret") == {"q1": 1.0, "q2": 1.0}
    assert values("num_nonrel_judged_ret", "rel := 2")["q1"] == 2.0  # c (1) joins b


def test_summed_over_queries(tables):
    assert tables.execute("SELECT value FROM rankkit.evaluate('qrels', 'run', ['num_nonrel_judged_ret'])").fetchall() == [(2.0,)]
