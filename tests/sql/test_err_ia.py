import pytest


def ideal_ideal(subtopics, k, alpha=0.5):
    """ndeval's normalisation: every document relevant to every subtopic."""
    return subtopics * sum((1 - alpha) ** (i - 1) / i for i in range(1, k + 1))


def test_err_ia_over_ndevals_ideal_ideal(subtopic_values):
    # 0: A gains 1 at rank 1, D 1 at 2, B 0.5 at 4; three subtopics. 1: C 1 at 1, A 1 at 2; two.
    assert subtopic_values("err_ia", "k := 5") == pytest.approx({
        "0": (1 + 1 / 2 + 0.5 / 4) / ideal_ideal(3, 5), "1": (1 + 1 / 2) / ideal_ideal(2, 5)})


def test_at_one_ndeval_leaves_the_sum_unnormalised(subtopic_values):
    assert subtopic_values("err_ia", "k := 1") == {"0": 1.0, "1": 1.0}


def test_a_cutoff_is_needed(subtopic_values):
    with pytest.raises(Exception, match="ERR-IA needs a cutoff"):
        subtopic_values("err_ia")
