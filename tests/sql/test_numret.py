def test_numret_counts_retrieved(values):
    assert values("numret") == {"q1": 5.0, "q2": 2.0}
    assert values("numret", "k := 3") == {"q1": 3.0, "q2": 2.0}


def test_numret_depth_keeps_the_top_n(values):
    assert values("numret", "depth := 1") == {"q1": 1.0, "q2": 1.0}


def test_numret_queries_qrels_scores_missing_queries_zero(values):
    assert values("numret", "queries := 'qrels'") == {"q1": 5.0, "q2": 2.0, "q3": 0.0}
