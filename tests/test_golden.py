"""The worked examples of DESIGN.md ("Worked examples"), to 1e-5, through the scalar list macros
and through the table macros and rankkit.evaluate on small tables."""

from __future__ import annotations

import pandas as pd
import pytest

import rankkit

TOL = 1e-5


def scalar(con, expression: str) -> float:
    return con.execute(f"SELECT {expression}").fetchall()[0][0]


def tables(con, ranked: dict[str, list[int]], unretrieved: dict[str, list[int]] | None = None) -> tuple[str, str]:
    """Qrels and run tables in ``con`` whose ranked lists have these grades in rank order.

    Document ``dN`` of a query is at rank N (scores descending, no ties); ``unretrieved`` adds judged
    documents that the run does not retrieve."""
    qrels, run = [], []
    for query, grades in ranked.items():
        for rank, grade in enumerate(grades, start=1):
            run.append((query, f"d{rank}", float(len(grades) - rank + 1)))
            qrels.append((query, f"d{rank}", grade))
        for n, grade in enumerate((unretrieved or {}).get(query, []), start=1):
            qrels.append((query, f"x{n}", grade))
    con.register("golden_qrels_frame", pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]))
    con.register("golden_run_frame", pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))
    con.execute("CREATE OR REPLACE TABLE golden_qrels AS FROM golden_qrels_frame")
    con.execute("CREATE OR REPLACE TABLE golden_run AS FROM golden_run_frame")
    return "golden_qrels", "golden_run"


def table_value(con, macro: str, **params) -> float:
    args = "".join(f", {name} := {value!r}" for name, value in params.items())
    rows = con.execute(f"SELECT value FROM rankkit.{macro}('golden_qrels', 'golden_run'{args})").fetchall()
    assert len(rows) == 1
    return rows[0][0]


def evaluated(con, measures: list[str], **options) -> dict[str, float]:
    frame = rankkit.evaluate("golden_qrels", "golden_run", measures, con=con, **options)
    return dict(zip(frame["measure"], frame["value"]))


# ---- example 1: linear gain, grades [3, 2, 3, 0, 1, 2] ------------------------------------------

EXAMPLE_1 = [3, 2, 3, 0, 1, 2]


def test_example_1_cg_and_dcg_from_lists(con):
    assert scalar(con, f"rankkit.cg({EXAMPLE_1}, 6)") == pytest.approx(11, abs=TOL)
    assert scalar(con, f"rankkit.dcg({EXAMPLE_1}, 6)") == pytest.approx(6.86113, abs=TOL)


@pytest.mark.parametrize("extra, ideal, idcg, ndcg", [
    ([3, 2], [3, 3, 3, 2, 2, 2], 8.74026, 0.78500),
    ([3, 0], [3, 3, 3, 2, 2, 1], 8.38406, 0.81835),
])
def test_example_1_ideal_of_every_judged_document_from_lists(con, extra, ideal, idcg, ndcg):
    judged = EXAMPLE_1 + extra
    assert scalar(con, f"rankkit.idcg({judged}, 6)") == pytest.approx(idcg, abs=TOL)
    assert scalar(con, f"rankkit.idcg({ideal}, 6)") == pytest.approx(idcg, abs=TOL)
    assert scalar(con, f"rankkit.ndcg({EXAMPLE_1}, 6, ideal := {judged})") == pytest.approx(ndcg, abs=TOL)


@pytest.mark.parametrize("extra, idcg, ndcg", [([3, 2], 8.74026, 0.78500), ([3, 0], 8.38406, 0.81835)])
def test_example_1_through_tables(con, extra, idcg, ndcg):
    tables(con, {"q": EXAMPLE_1}, {"q": extra})
    assert table_value(con, "cg", k=6) == pytest.approx(11, abs=TOL)
    assert table_value(con, "dcg", k=6) == pytest.approx(6.86113, abs=TOL)
    assert table_value(con, "idcg", k=6) == pytest.approx(idcg, abs=TOL)
    assert table_value(con, "ndcg", k=6) == pytest.approx(ndcg, abs=TOL)
    values = evaluated(con, ["CG@6", "DCG@6", "IDCG@6", "nDCG@6", "ndcg_cut_6"])
    assert values == pytest.approx({"CG@6": 11, "DCG@6": 6.86113, "IDCG@6": idcg, "nDCG@6": ndcg,
                                    "ndcg_cut_6": ndcg}, abs=TOL)


# ---- example 2: exponential gain ----------------------------------------------------------------

EXAMPLE_2 = [3, 2, 4, 5, 1]


def test_example_2_exponential_gain_from_lists(con):
    judged = EXAMPLE_2 + [3]
    assert scalar(con, f"rankkit.dcg({EXAMPLE_2}, 5, gain := 'exp')") == pytest.approx(30.13062, abs=TOL)
    assert scalar(con, f"rankkit.idcg({judged}, 5, gain := 'exp')") == pytest.approx(48.13924, abs=TOL)
    assert scalar(con, "rankkit.dcg([5, 4, 3, 3, 2], 5, gain := 'exp')") == pytest.approx(48.13924, abs=TOL)
    assert scalar(con, f"rankkit.ndcg({EXAMPLE_2}, 5, gain := 'exp', ideal := {judged})") == pytest.approx(0.62591, abs=TOL)


def test_example_2_exponential_gain_through_tables(con):
    tables(con, {"q": EXAMPLE_2}, {"q": [3]})
    assert table_value(con, "dcg", k=5, gain="exp") == pytest.approx(30.13062, abs=TOL)
    assert table_value(con, "idcg", k=5, gain="exp") == pytest.approx(48.13924, abs=TOL)
    assert table_value(con, "ndcg", k=5, gain="exp") == pytest.approx(0.62591, abs=TOL)
    values = evaluated(con, ["DCG(gain=exp)@5", "IDCG(gain=exp)@5", "nDCG(gain=exp)@5"])
    assert list(values.values()) == pytest.approx([30.13062, 48.13924, 0.62591], abs=TOL)


# ---- example 3: linear gain, nothing else judged ------------------------------------------------

EXAMPLE_3 = [3, 2, 5, 0, 1]


def test_example_3_from_lists(con):
    assert scalar(con, f"rankkit.dcg({EXAMPLE_3}, 5)") == pytest.approx(7.14871, abs=TOL)
    assert scalar(con, f"rankkit.idcg({EXAMPLE_3}, 5)") == pytest.approx(8.32347, abs=TOL)
    assert scalar(con, f"rankkit.ndcg({EXAMPLE_3}, 5)") == pytest.approx(0.85886, abs=TOL)
    assert scalar(con, f"rankkit.ndcg({EXAMPLE_3}, 5, ideal := {EXAMPLE_3})") == pytest.approx(0.85886, abs=TOL)


def test_example_3_through_tables(con):
    tables(con, {"q": EXAMPLE_3})
    assert table_value(con, "dcg", k=5) == pytest.approx(7.14871, abs=TOL)
    assert table_value(con, "idcg", k=5) == pytest.approx(8.32347, abs=TOL)
    assert table_value(con, "ndcg", k=5) == pytest.approx(0.85886, abs=TOL)
    assert table_value(con, "ndcg", k=5, ideal="run") == pytest.approx(0.85886, abs=TOL)
    values = evaluated(con, ["DCG@5", "IDCG@5", "nDCG@5", "nDCG(ideal=run)@5"])
    assert list(values.values()) == pytest.approx([7.14871, 8.32347, 0.85886, 0.85886], abs=TOL)


# ---- example 4: scikit-learn's example, tied scores ---------------------------------------------

def sklearn_example(con) -> None:
    """Documents A..E with grades [3, 2, 1, 0, 0] and scores [3, 2, 0, 0, 1]: C and D tie at 0."""
    docs = ["A", "B", "C", "D", "E"]
    qrels = pd.DataFrame({"query_id": "q", "doc_id": docs, "relevance": [3, 2, 1, 0, 0]})
    run = pd.DataFrame({"query_id": "q", "doc_id": docs, "score": [3.0, 2.0, 0.0, 0.0, 1.0]})
    con.register("sk_qrels", qrels)
    con.register("sk_run", run)
    con.execute("CREATE OR REPLACE TABLE golden_qrels AS FROM sk_qrels")
    con.execute("CREATE OR REPLACE TABLE golden_run AS FROM sk_run")


def test_example_4_trec_ties_put_d_before_c(con):
    sklearn_example(con)
    order = con.execute("SELECT list(doc_id ORDER BY rank) FROM rankkit.ranked('golden_run')").fetchall()[0][0]
    assert order == ["A", "B", "E", "D", "C"]
    assert scalar(con, "rankkit.dcg([3, 2, 0, 0, 1], 5)") == pytest.approx(4.64871, abs=TOL)
    assert scalar(con, "rankkit.ndcg([3, 2, 0, 0, 1], 5)") == pytest.approx(0.97624, abs=TOL)
    assert table_value(con, "dcg") == pytest.approx(4.64871, abs=TOL)
    assert table_value(con, "ndcg") == pytest.approx(0.97624, abs=TOL)
    assert table_value(con, "ndcg", ideal="run") == pytest.approx(0.97624, abs=TOL)
    values = evaluated(con, ["DCG", "nDCG", "nDCG(ideal=run)"])
    assert list(values.values()) == pytest.approx([4.64871, 0.97624, 0.97624], abs=TOL)


def test_example_4_average_ties_as_scikit_learn(con):
    sklearn_example(con)
    values = evaluated(con, ["DCG", "IDCG(ideal=run)", "nDCG(ideal=run)"], ties="average")
    assert list(values.values()) == pytest.approx([4.67062, 4.76186, 0.98084], abs=TOL)


# ---- example 5: MRR -----------------------------------------------------------------------------

def test_example_5_mrr(con):
    ranked = {"q1": [0, 0, 1], "q2": [1, 0], "q3": [0, 0, 0, 0, 1], "q4": [0, 0]}
    rrs = [scalar(con, f"rankkit.rr({grades}, NULL)") for grades in ranked.values()]
    assert sum(rrs) / len(rrs) == pytest.approx(0.38333, abs=TOL)
    tables(con, ranked)
    per_query = con.execute("SELECT list(value ORDER BY query_id) FROM rankkit.rr('golden_qrels', 'golden_run')").fetchall()[0][0]
    assert per_query == pytest.approx([1 / 3, 1, 1 / 5, 0], abs=TOL)
    assert evaluated(con, ["RR", "MRR", "recip_rank"]) == pytest.approx(
        {"RR": 0.38333, "MRR": 0.38333, "recip_rank": 0.38333}, abs=TOL)
    frame = rankkit.evaluate("golden_qrels", "golden_run", ["RR"], con=con)
    assert frame["queries"][0] == 4
