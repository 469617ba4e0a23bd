"""ties="average": the expected gain over every ordering of tied documents, as scikit-learn's
dcg_score and ndcg_score compute it (McSherry and Najork, ECIR 2008)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import dcg_score, ndcg_score

import rankkit
from rankkit.errors import RankkitError


def _tied_inputs(seed: int, queries: int = 40, docs: int = 12):
    """Runs whose scores take few values (many ties), grades 0..3, some retrieved docs unjudged."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(queries):
        n = int(rng.integers(1, docs))
        scores = rng.integers(0, max(4, n // 8), n) / 2.0
        grades = rng.integers(0, 4, n)
        judged = rng.random(n) < 0.8
        for d in range(n):
            run.append((f"q{q}", f"d{d}", float(scores[d])))
            if judged[d]:
                qrels.append((f"q{q}", f"d{d}", int(grades[d])))
        qrels.append((f"q{q}", "unretrieved", 2))
    qrels = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    return qrels, run


def _sklearn(qrels, run, k, gain):
    """Per query: scikit-learn's dcg_score and ndcg_score over the retrieved documents."""
    grades = run.merge(qrels, on=["query_id", "doc_id"], how="left").fillna({"relevance": 0})
    out = {}
    for query, rows in grades.groupby("query_id"):
        true = rows["relevance"].to_numpy(float)
        true = 2.0 ** true - 1.0 if gain == "exp" else true
        if len(rows) == 1:  # scikit-learn refuses one document; the value is plain arithmetic then
            out[query] = (true[0], 1.0 if true[0] > 0 else 0.0)
            continue
        score = rows["score"].to_numpy(float)
        out[query] = (dcg_score([true], [score], k=k), ndcg_score([true], [score], k=k))
    return out


@pytest.mark.parametrize("seed,k,gain,docs", [(1, None, "linear", 12), (2, 3, "linear", 12), (3, 5, "exp", 12),
                                              (4, 1, "linear", 12), (5, 100, "linear", 300), (6, None, "exp", 300)])
def test_average_ties_equal_scikit_learn(seed, k, gain, docs):
    qrels, run = _tied_inputs(seed, queries=40 if docs < 100 else 10, docs=docs)
    cut = f"@{k}" if k else ""
    names = [f"DCG(gain={gain}){cut}", f"nDCG(gain={gain},ideal=run){cut}"]
    got = rankkit.evaluate(qrels, run, names, per_query=True, ties="average")
    want = _sklearn(qrels, run, k, gain)
    for position, name in enumerate(names):
        values = got[got["measure"] == name].set_index("query_id")["value"]
        assert sorted(values.index) == sorted(want)
        for query, value in values.items():
            assert value == pytest.approx(want[query][position], abs=1e-12, rel=1e-12), (name, query)


def test_design_worked_example_4():
    qrels = pd.DataFrame({"query_id": ["q"] * 5, "doc_id": list("ABCDE"), "relevance": [3, 2, 1, 0, 0]})
    run = pd.DataFrame({"query_id": ["q"] * 5, "doc_id": list("ABCDE"), "score": [3.0, 2, 0, 0, 1]})
    names = ["DCG", "IDCG(ideal=run)", "nDCG(ideal=run)"]
    average = rankkit.evaluate(qrels, run, names, ties="average").set_index("measure")["value"]
    assert average.round(5).tolist() == [4.67062, 4.76186, 0.98084]
    assert average["nDCG(ideal=run)"] == pytest.approx(ndcg_score([[3, 2, 1, 0, 0]], [[3, 2, 0, 0, 1]]), abs=1e-12)
    trec = rankkit.evaluate(qrels, run, ["DCG", "nDCG(ideal=run)"]).set_index("measure")["value"]
    assert trec.round(5).tolist() == [4.64871, 0.97624]


def test_average_ties_change_nothing_without_ties():
    qrels, run = _tied_inputs(5)
    run = run.assign(score=run["score"] + np.arange(len(run)) * 1e-3)
    names = ["CG@4", "DCG@4", "nDCG@4", "nDCG", "IDCG(ideal=run)@3"]
    average = rankkit.evaluate(qrels, run, names, per_query=True, ties="average")
    trec = rankkit.evaluate(qrels, run, names, per_query=True)
    assert np.allclose(average["value"], trec["value"], rtol=0, atol=1e-12)


def test_average_ties_cg_counts_the_expected_share_within_the_cutoff():
    # three equal scores over ranks 1..3, only one judged (grade 3): at @2 it is inside with chance 2/3
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "relevance": [3]})
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})
    value = rankkit.evaluate(qrels, run, ["CG@2"], ties="average")["value"][0]
    assert value == pytest.approx(2.0)


def test_average_ties_reject_measures_without_gain():
    qrels, run = _tied_inputs(6, queries=3)
    with pytest.raises(RankkitError, match="ties=average applies to the gain-based measures.*AP, P@5"):
        rankkit.evaluate(qrels, run, ["nDCG@5", "AP", "P@5"], ties="average")


def test_average_ties_in_the_sql_table_macros(con):
    con.execute("CREATE TABLE qrels AS SELECT * FROM (VALUES ('q','A',3),('q','B',2),('q','C',1),('q','D',0),('q','E',0)) t(query_id, doc_id, relevance)")
    con.execute("CREATE TABLE run AS SELECT * FROM (VALUES ('q','A',3.0),('q','B',2.0),('q','C',0.0),('q','D',0.0),('q','E',1.0)) t(query_id, doc_id, score)")
    value = con.execute("SELECT value FROM rankkit.ndcg('qrels', 'run', ideal := 'run', ties := 'average')").fetchone()[0]
    assert round(value, 5) == 0.98084


def test_average_ties_group_float32_scores_when_asked():
    # scores equal at 32-bit precision tie under scores="float32", as pytrec_eval reads them
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "relevance": [0, 1]})
    run = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "score": [1.0 + 1e-12, 1.0]})
    double = rankkit.evaluate(qrels, run, ["DCG"], ties="average")["value"][0]
    single = rankkit.evaluate(qrels, run, ["DCG"], ties="average", scores="float32")["value"][0]
    assert double == pytest.approx(1 / np.log2(3), abs=1e-15)
    assert single == pytest.approx((1 + 1 / np.log2(3)) / 2, abs=1e-15)
