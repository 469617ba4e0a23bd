import pytest


def test_subtopic_recall(subtopic_values):
    assert subtopic_values("s_recall", "k := 1") == pytest.approx({"0": 1 / 3, "1": 1 / 2})
    assert subtopic_values("s_recall", "k := 2") == pytest.approx({"0": 2 / 3, "1": 1.0})
    assert subtopic_values("s_recall") == pytest.approx({"0": 2 / 3, "1": 1.0})
    # a depth cuts the run as trec_eval -M does
    assert subtopic_values("s_recall", "depth := 1") == pytest.approx({"0": 1 / 3, "1": 1 / 2})
    # queries := 'qrels': query 2, judged only (no subtopic with a relevant document), scores 0
    assert subtopic_values("s_recall", "queries := 'qrels'")["2"] == 0.0
