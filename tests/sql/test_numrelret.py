def test_numrelret_counts_relevant_retrieved(values):
    assert values("numrelret") == {"q1": 2.0, "q2": 0.0}
    assert values("numrelret", "k := 3")["q1"] == 1.0
    assert values("numrelret", "rel := 2")["q1"] == 1.0
