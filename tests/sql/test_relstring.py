import duckdb
import pytest


def test_grades_of_the_top_documents_as_text(values):
    # q1: b 0, a 2, d judged -1 (.), f unjudged (-), c 1
    assert values("relstring") == {"q1": "02.-1", "q2": "0-"}
    assert values("relstring", "k := 2") == {"q1": "02", "q2": "0-"}


def test_missing_query_is_empty_with_every_qrels_query(values):
    assert values("relstring", "queries := 'qrels'")["q3"] == ""


def test_evaluate_refuses_text(tables):
    with pytest.raises(duckdb.Error, match="is text, not a number"):
        tables.execute("FROM rankkit.evaluate('qrels', 'run', ['relstring'])").fetchall()


def test_judged_only_ranks_the_judged_among_themselves(values, tables):
    # trec_eval -J: d (-1) and f (unjudged) go, c moves up; a ranking of unjudged documents only
    # leaves an empty string, not a missing query
    assert values("relstring", "judged_only := true") == {"q1": "021", "q2": "0"}
    tables.execute("DELETE FROM run WHERE doc_id = 'x'")
    assert values("relstring", "judged_only := true")["q2"] == ""
