import pytest


def test_p_ia_is_the_precision_per_subtopic_averaged(subtopic_values):
    # 0: three (document, subtopic) pairs relevant in the top 5, over 5 x 3 subtopics; 1: two over 5 x 2
    assert subtopic_values("p_ia", "k := 5") == pytest.approx({"0": 3 / 15, "1": 2 / 10})
    assert subtopic_values("p_ia", "k := 1") == pytest.approx({"0": 1 / 3, "1": 1 / 2})
    with pytest.raises(Exception, match="P-IA needs a cutoff"):
        subtopic_values("p_ia")
