import pytest


def test_hitrate_any_relevant_in_the_top_k(values):
    assert values("hitrate", "k := 1") == {"q1": 0.0, "q2": 0.0}
    assert values("hitrate", "k := 2") == {"q1": 1.0, "q2": 0.0}
    assert values("hitrate", "k := 2, rel := 3")["q1"] == 0.0
    assert values("hitrate", "k := 2") == values("success", "k := 2")


def test_empty_rule_scores_a_user_without_relevant_items_zero_one_none_or_refuses(values, tables):
    # q2 holds judgments, none relevant: each library's empty-user rule, one measure parameter
    for macro in ["hitrate", "p", "r", "ap", "rr", "ndcg"]:
        k = ", k := 2" if macro in ("hitrate", "p", "r") else ""
        assert values(macro, f"empty := 'one'{k}")["q2"] == 1.0
        assert values(macro, f"empty := 'skip'{k}")["q2"] is None
        assert values(macro, f"empty := 'zero'{k}")["q2"] == 0.0
    mean = tables.execute("SELECT value, queries FROM rankkit.evaluate('qrels', 'run', ['HitRate(empty=one)@2'])").fetchall()
    assert mean == [(1.0, 2)]
    with pytest.raises(Exception, match="the user \\(query\\) 'q2' has no relevant item in the qrels; empty=error"):
        tables.execute("FROM rankkit.evaluate('qrels', 'run', ['AP(empty=error)'])").fetchall()


def test_queries_run_scores_the_run_users_the_qrels_lack_by_the_empty_rule(values, tables):
    # q4 is in the run only: queries := 'run' evaluates it as a user with no relevant item (torchmetrics,
    # LensKit), q3 (judged only) is left out
    assert values("hitrate", "k := 2, empty := 'one', queries := 'run'") == {"q1": 1.0, "q2": 1.0, "q4": 1.0}
    assert values("ndcg", "queries := 'run'") == pytest.approx({"q1": values("ndcg")["q1"], "q2": 0.0, "q4": 0.0})
    mean = tables.execute("SELECT measure, value, queries FROM rankkit.evaluate('qrels', 'run', ['HitRate@2', "
                          "'AP(empty=skip)'], queries := 'run')").fetchall()
    assert mean == [("HitRate@2", pytest.approx(1 / 3), 3), ("AP(empty=skip)", pytest.approx(values("ap")["q1"]), 1)]
    with pytest.raises(Exception, match="queries must be both, qrels or run, got 'all'"):
        tables.execute("FROM rankkit.evaluate('qrels', 'run', ['P@2'], queries := 'all')").fetchall()
