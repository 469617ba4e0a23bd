from math import log2

import pytest


def test_idcg_of_every_judged_document(values):
    # e(3), a(2), c(1): e is judged though not retrieved
    assert values("idcg") == pytest.approx({"q1": 3 + 2 / log2(3) + 1 / 2, "q2": 0.0})
    assert values("idcg", "k := 2")["q1"] == pytest.approx(3 + 2 / log2(3))


def test_idcg_of_the_retrieved_documents_only(values):
    assert values("idcg", "ideal := 'run'")["q1"] == pytest.approx(2 + 1 / log2(3))


def test_idcg_exponential_gain(values):
    assert values("idcg", "gain := 'exp'")["q1"] == pytest.approx(7 + 3 / log2(3) + 1 / 2)
