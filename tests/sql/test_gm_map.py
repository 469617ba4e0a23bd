import math

import pytest


def test_gm_map_is_ap_per_query(values):
    # q1: relevant a at rank 2, c at rank 5, e not retrieved: (1/2 + 2/5) / 3; q2 has nothing relevant
    assert values("gm_map") == pytest.approx({"q1": 0.3, "q2": 0.0})


def test_gm_map_aggregate_is_the_geometric_mean_with_zero_floored(tables):
    (value, queries), = tables.execute(
        "SELECT value, queries FROM rankkit.evaluate('qrels', 'run', ['gm_map'])").fetchall()
    # trec_eval floors q2's 0 at 0.00001 before taking logs
    assert value == pytest.approx(math.sqrt(0.3 * 1e-5), abs=1e-12) and queries == 2
