import pytest

EPS = 1e-5


def test_infap_estimates_precision_from_the_judged_documents_above(values):
    # a (rank 2): 1/2 + 1/2 * (1 judged above / 1) * (0 + eps) / (0 + 1 nonrel + 2 eps)
    # c (rank 5): 1/5 + 4/5 * (3 judged above (b, a, d) / 4) * (1 + eps) / (1 + 1 + 2 eps); f unjudged is skipped
    a = 0.5 + 0.5 * EPS / (1 + 2 * EPS)
    c = 0.2 + 0.8 * (3 / 4) * (1 + EPS) / (2 + 2 * EPS)
    assert values("infap") == pytest.approx({"q1": (a + c) / 3, "q2": 0.0}, abs=1e-12)


def test_infap_is_ap_when_everything_retrieved_is_judged(tables):
    tables.execute("DELETE FROM run WHERE doc_id IN ('d', 'f', 'y')")
    infap = dict(tables.execute("SELECT query_id, value FROM rankkit.infap('qrels', 'run')").fetchall())
    ap = dict(tables.execute("SELECT query_id, value FROM rankkit.ap('qrels', 'run')").fetchall())
    assert infap == pytest.approx(ap, abs=1e-4)  # the epsilons keep it a hair off
