import pytest


def test_eleven_point_average(values):
    # q1: levels 0..1 stand for round(level x 3) = 0,0,1,1,1,2,2,2,2,3,3 relevant documents:
    # interpolated precision 1/2 five times, 2/5 four times, 0 twice
    assert values("eleven_pt_avg") == pytest.approx({"q1": (5 * 0.5 + 4 * 0.4) / 11, "q2": 0.0})


def test_chosen_levels_as_trec_eval_writes_them(tables):
    (value,), = tables.execute("SELECT value FROM rankkit.evaluate('qrels', 'run', ['11pt_avg_.25,.5,.75'])").fetchall()
    # q1: round(0.75) = 1, round(1.5) = 2, round(2.25) = 2: (1/2 + 2/5 + 2/5) / 3; q2 0
    assert value == pytest.approx((0.5 + 0.4 + 0.4) / 3 / 2)


def test_bad_levels_are_refused(tables):
    import duckdb
    with pytest.raises(duckdb.Error, match="levels must be numbers"):
        tables.execute("FROM rankkit.evaluate('qrels', 'run', ['11pt_avg(levels=[.5,x])'])").fetchall()
