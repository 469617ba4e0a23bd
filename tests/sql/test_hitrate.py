def test_hitrate_any_relevant_in_the_top_k(values):
    assert values("hitrate", "k := 1") == {"q1": 0.0, "q2": 0.0}
    assert values("hitrate", "k := 2") == {"q1": 1.0, "q2": 0.0}
    assert values("hitrate", "k := 2, rel := 3")["q1"] == 0.0
    assert values("hitrate", "k := 2") == values("success", "k := 2")
