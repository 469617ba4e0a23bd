import pytest


def test_interpolated_precision_at_recall_levels(values):
    # q1 (R = 3) finds its relevant documents at ranks 2 and 5: precisions 1/2 and 2/5.
    # level 0.1 -> round(0.3) = 0 documents: the best precision anywhere, 1/2;
    # 0.5 -> round(1.5) = 2: 2/5; 0.9 -> round(2.7) = 3: more than were retrieved, 0
    assert values("iprec_at_recall", "recall := 0.1") == pytest.approx({"q1": 0.5, "q2": 0.0})
    assert values("iprec_at_recall", "recall := 0.5")["q1"] == pytest.approx(0.4)
    assert values("iprec_at_recall", "recall := 0.9")["q1"] == 0.0


def test_names_trec_eval_and_ir_measures(tables):
    rows = tables.execute("SELECT measure, value FROM rankkit.evaluate('qrels', 'run', "
                          "['iprec_at_recall_0.50', 'IPrec@0.5', 'iprec_at_recall.0.9'])").fetchall()
    assert [round(v, 6) for _, v in rows] == [0.2, 0.2, 0.0]  # q1's 0.4 and q2's 0, averaged
