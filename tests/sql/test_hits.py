def test_hits_counts_relevant_retrieved_and_averages(values, tables):
    # q1 retrieves a (2) and c (1) among its 5: 2 relevant, 1 in the top 3, 1 of grade >= 2
    assert values("hits") == {"q1": 2.0, "q2": 0.0}
    assert values("hits", "k := 3")["q1"] == 1.0
    assert values("hits", "rel := 2")["q1"] == 1.0
    # ranx averages its hits over queries, where trec_eval's num_rel_ret sums them
    rows = dict(tables.execute("SELECT measure, value FROM rankkit.evaluate('qrels', 'run', ['hits', 'num_rel_ret'])").fetchall())
    assert rows == {"hits": 1.0, "num_rel_ret": 2.0}
