def test_fallout_is_judged_nonrelevant_retrieved_over_judged_nonrelevant(values):
    # q1 judges b (0) and g (0) non-relevant; d (-1) is judged but unusable, f unjudged: neither counts.
    # q1 retrieves b at rank 1: 1 of 2; q2 retrieves x (0), its one judged non-relevant: 1 of 1
    assert values("fallout") == {"q1": 0.5, "q2": 1.0}
    assert values("fallout", "k := 1") == {"q1": 0.5, "q2": 1.0}
    # rel := 2: c (1) is non-relevant too, retrieved at rank 5: 2 of 3, and within k = 2 only b
    assert values("fallout", "rel := 2")["q1"] == 2 / 3
    assert values("fallout", "rel := 2, k := 2")["q1"] == 1 / 3


def test_names(tables):
    rows = tables.execute("SELECT measure, value FROM rankkit.evaluate('qrels', 'run', ['fall_out@1', 'FallOut'])").fetchall()
    assert rows == [("fall_out@1", 0.75), ("FallOut", 0.75)]
