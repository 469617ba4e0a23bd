import pytest


def inst(gains, T=1.0, depth=1000):
    """INST restated from its definition: read on past rank i with chance ((i + 2T - 1 - G_i) / (i + 2T - G_i))^2."""
    gains = gains + [0.0] * (depth - len(gains))
    reads, read, total = [1.0], 0.0, 0.0
    for i, g in enumerate(gains[:-1], 1):
        read += g
        reads.append(reads[-1] * ((i + 2 * T - 1 - read) / (i + 2 * T - read)) ** 2)
    return sum(r * g for r, g in zip(reads, gains)) / sum(reads)


def test_inst_reads_on_less_once_the_wanted_gain_is_read(values):
    # q1 ranks b(0) a(2) d(-1) f(unjudged) c(1): scaled by max 4, gains 0, 0.5, 0, 0, 0.25
    assert values("inst") == pytest.approx({"q1": inst([0, 0.5, 0, 0, 0.25]), "q2": inst([0, 0])}, abs=1e-12)
    assert values("inst", "max := 1")["q1"] == pytest.approx(inst([0, 1, 0, 0, 1]), abs=1e-12)
    assert values("inst")["q1"] > 0
