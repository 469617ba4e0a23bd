import math

import pytest


def test_gm_bpref_is_bpref_per_query(values):
    # q1: a has b (judged 0) above it, c has b too (d is negative, f unjudged: skipped);
    # each loses min(1, R) / min(R, N) = 1/2: (1/2 + 1/2) / 3
    assert values("gm_bpref") == pytest.approx({"q1": 1 / 3, "q2": 0.0})


def test_gm_bpref_aggregate_is_the_geometric_mean_with_zero_floored(tables):
    (value,), = tables.execute("SELECT value FROM rankkit.evaluate('qrels', 'run', ['gm_bpref'])").fetchall()
    assert value == pytest.approx(math.sqrt(1 / 3 * 1e-5), abs=1e-12)
