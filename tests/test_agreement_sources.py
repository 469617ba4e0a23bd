"""Mixed judgment tables: a source column with a precedence (rankkit.merged_qrels, merge_judgments) and
each source's share of the judged documents and of the gain (source_shares, through rankkit.evaluate)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import rankkit

MIXED = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2", "q3"], "doc_id": ["a", "a", "b", "c", "d", "e"],
                      "relevance": [2, 1, 1, 1, 3, 1], "source": ["llm", "human", "llm", "llm", "human", "llm"]})
RUN = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2", "q2", "q3"], "doc_id": ["a", "b", "c", "d", "x", "y"],
                    "score": [3.0, 2.0, 3.0, 2.0, 1.0, 1.0]})


def test_the_first_source_in_precedence_wins(con):
    con.register("mixed", MIXED)
    rows = con.execute("SELECT query_id, doc_id, relevance, source, labels, disagree "
                       "FROM rankkit.merged_qrels('mixed', ['human', 'llm'])").fetchall()
    assert rows[0] == ("q1", "a", 1.0, "human", 2, True)
    flipped = con.execute("SELECT relevance, source FROM rankkit.merged_qrels('mixed', ['llm', 'human']) "
                          "WHERE doc_id = 'a'").fetchall()
    assert flipped == [(2.0, "llm")]
    assert len(rows) == 5  # one row per query and document


@pytest.mark.parametrize("rows, precedence, message", [
    ([("q1", "a", "1", "crowd")], ["human", "llm"],
     r"source crowd \(document a, query q1\) is not in the precedence human, llm"),
    ([("q1", "a", "1", "llm"), ("q1", "a", "2", "llm")], ["llm"], "document a is labelled twice by llm for query q1"),
    ([("q1", "a", "high", "llm")], ["llm"], "the relevance of document a for query q1 is 'high'"),
    ([("q1", "a", "1", None)], ["llm"], "document a for query q1 has no source"),
])
def test_bad_mixed_tables_are_refused_by_name(con, rows, precedence, message):
    con.execute("CREATE TABLE mixed (query_id VARCHAR, doc_id VARCHAR, relevance VARCHAR, source VARCHAR)")
    con.executemany("INSERT INTO mixed VALUES (?, ?, ?, ?)", rows)
    with pytest.raises(Exception, match=message):
        con.execute("FROM rankkit.merged_qrels('mixed', ?::VARCHAR[])", [precedence]).fetchall()


def test_python_merge_judgments_feeds_evaluate():
    merged = rankkit.merge_judgments(MIXED, ["human", "llm"])
    assert merged[["doc_id", "source"]].values.tolist() == [["a", "human"], ["b", "llm"], ["c", "llm"],
                                                             ["d", "human"], ["e", "llm"]]
    value = rankkit.evaluate(merged[["query_id", "doc_id", "relevance"]], RUN, "P@1", queries="both")
    assert value.value.iloc[0] == pytest.approx(2 / 3)  # q1's a and q2's c are relevant at 1, q3's y is not judged
    with pytest.raises(rankkit.RankkitError, match="precedence: the sources in the order"):
        rankkit.merge_judgments(MIXED, "human")
    with pytest.raises(rankkit.RankkitError, match="the qrels DataFrame: source human .* is not in the precedence llm"):
        rankkit.merge_judgments(MIXED, ["llm"])


def test_source_shares_add_up_to_the_merged_table():
    shares = rankkit.source_shares(MIXED, RUN, ["human", "llm"], k=2)
    assert shares[["query_id", "source"]].values.tolist() == [["q1", "human"], ["q1", "llm"], ["q2", "human"],
                                                              ["q2", "llm"], ["q3", "human"], ["q3", "llm"]]
    q1 = shares[shares.query_id == "q1"].set_index("source")
    # a (human, grade 1) at rank 1 gains 1, b (llm, grade 1) at rank 2 gains 1 / log2(3)
    assert q1.gain["human"] == pytest.approx(1) and q1.gain["llm"] == pytest.approx(1 / math.log2(3))
    assert q1.gain_share["human"] == pytest.approx(1 / (1 + 1 / math.log2(3)))
    merged = rankkit.merge_judgments(MIXED, ["human", "llm"])[["query_id", "doc_id", "relevance"]]
    whole = rankkit.evaluate(merged, RUN, ["Judged@2", "DCG@2"], per_query=True).pivot(
        index="query_id", columns="measure", values="value")
    summed = shares.groupby("query_id")[["judged_at_k", "gain"]].sum()
    assert summed.judged_at_k.to_dict() == pytest.approx(whole["Judged@2"].to_dict())
    assert summed.gain.to_dict() == pytest.approx(whole["DCG@2"].to_dict())
    q3 = shares[shares.query_id == "q3"]
    assert q3.gain_share.isna().all()  # no gain at all in q3's top 2: no share to give
