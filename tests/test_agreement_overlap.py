"""Ranking overlap (sql/64_overlap.sql, rankkit.overlap): RBO's bounds and extrapolation against the
series of Webber, Moffat and Zobel (2010) summed term by term, on worked examples and hypothesis lists
(uneven lengths, disjoint lists, p near 0 and near 1), and overlap@k, Jaccard@k by sets."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankkit


def run(docs: list[str], query: str = "q1") -> pd.DataFrame:
    return pd.DataFrame({"query_id": query, "doc_id": docs, "score": [float(len(docs) - i) for i in range(len(docs))]})


def sql_overlap(con, a: list[str], b: list[str], p: float, k: int = 10) -> dict:
    con.register("run_a", run(a))
    con.register("run_b", run(b))
    return con.execute("FROM rankkit.overlap('run_a', 'run_b', p := ?, k := ?)", [p, k]).df().iloc[0].to_dict()


def series(a: list[str], b: list[str], p: float) -> dict:
    """RBO = (1 - p) * sum over d >= 1 of p^(d-1) * A_d, A_d = X_d / d, summed term by term until the
    terms vanish, X_d read off the prefixes: beyond what is seen, X_d is the seen overlap (min), as
    large as the unseen items allow (max), or the agreement at the shorter list's end carried on (ext)."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    s, l = len(short), len(long)
    seen = [len(set(short[:d]) & set(long[:d])) for d in range(1, l + 1)]
    x_s, x_l = seen[s - 1], seen[l - 1]
    unique_long = [doc for doc in long if doc not in set(short)]
    low = high = ext = 0.0
    d = 1
    while True:
        if d <= l:
            x = seen[d - 1]
            x_max = x if d <= s else x + min(d - s, len([u for u in unique_long if long.index(u) < d]))
            x_ext = x if d <= s else x + (d - s) * x_s / s
        else:
            x = x_l
            x_max = min(d, 2 * d - l - s + x_l)
            x_ext = (x_l + (l - s) * x_s / s) / l * d
        weight = (1 - p) * p ** (d - 1) / d
        low, high, ext = low + weight * x, high + weight * x_max, ext + weight * x_ext
        if p ** d < 1e-17 and d > l + s:
            return {"rbo_min": low, "rbo_max": high, "rbo_ext": ext}
        d += 1


def assert_series(found: dict, a, b, p) -> None:
    for name, value in series(a, b, p).items():
        assert found[name] == pytest.approx(value, abs=1e-9), name
    assert found["rbo_res"] == pytest.approx(found["rbo_max"] - found["rbo_min"], abs=1e-12)
    assert found["rbo_min"] - 1e-12 <= found["rbo_ext"] <= found["rbo_max"] + 1e-12


def test_worked_examples(con):
    # identical lists agree at every depth: ext and max are 1, min the weight of the seen depths plus
    # the seen overlap carried on (X_d = 7 for every d > 7, so A_d = 7/d)
    same = sql_overlap(con, list("abcdefg"), list("abcdefg"), 0.9)
    assert same["rbo_ext"] == pytest.approx(1) and same["rbo_max"] == pytest.approx(1)
    assert same["rbo_min"] == pytest.approx((1 - 0.9) / 0.9 * (sum(0.9 ** d for d in range(1, 8))
                                                               + 7 * (math.log(1 / 0.1) - sum(0.9 ** d / d for d in range(1, 8)))))
    # disjoint lists agree nowhere seen: min and ext are 0; max is what the unseen items could add
    apart = sql_overlap(con, list("abc"), list("xyz"), 0.9)
    assert apart["rbo_min"] == 0 and apart["rbo_ext"] == 0 and apart["rbo_max"] > 0
    assert_series(apart, list("abc"), list("xyz"), 0.9)
    # a swap of the first two and a different tail; uneven lengths (7 and 10)
    a, b = list("abcdefg"), list("bacdxyzuvw")
    found = sql_overlap(con, a, b, 0.9, k=3)
    assert found["overlap_at_k"] == 1 and found["jaccard_at_k"] == 1
    assert_series(found, a, b, 0.9)
    k5 = sql_overlap(con, a, b, 0.9, k=5)
    assert k5["overlap_at_k"] == pytest.approx(4 / 5) and k5["jaccard_at_k"] == pytest.approx(4 / 6)


lists = st.lists(st.sampled_from([f"d{i}" for i in range(15)]), min_size=1, max_size=12, unique=True)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lists, lists, st.sampled_from([0.001, 0.1, 0.5, 0.9, 0.98, 0.999]), st.integers(1, 12))
def test_generated_lists_match_the_series(con, a, b, p, k):
    found = sql_overlap(con, a, b, p, k)
    assert_series(found, a, b, p)
    top_a, top_b = set(a[:k]), set(b[:k])
    assert found["overlap_at_k"] == pytest.approx(len(top_a & top_b) / k)
    assert found["jaccard_at_k"] == pytest.approx(len(top_a & top_b) / len(top_a | top_b))
    assert (found["length_a"], found["length_b"]) == (len(a), len(b))


def test_bad_arguments_are_refused(con):
    con.register("run_a", run(list("abc")))
    con.register("run_b", run(list("abc"), query="q9"))
    with pytest.raises(Exception, match="have no query in common"):
        con.execute("FROM rankkit.overlap('run_a', 'run_b')").fetchall()
    with pytest.raises(Exception, match="p must be between 0 and 1"):
        con.execute("FROM rankkit.overlap('run_a', 'run_a', p := 1)").fetchall()
    two = pd.concat([run(list("ab")).assign(system="x"), run(list("ab")).assign(system="y")])
    con.register("two", two)
    with pytest.raises(Exception, match="run table two holds 2 systems"):
        con.execute("FROM rankkit.overlap('two', 'run_a')").fetchall()


def test_python_overlap_averages_and_lists_one_sided_queries():
    a = pd.concat([run(list("abcdef"), "q1"), run(list("uvw"), "q2"), run(list("xy"), "q3")])
    b = pd.concat([run(list("bacdef"), "q1"), run(list("wvu"), "q2")])
    found = rankkit.overlap(a, b, k=2, resamples=500)
    assert found.per_query.query_id.tolist() == ["q1", "q2"]
    assert found.one_sided[["query_id", "side"]].values.tolist() == [["q3", "a"]]
    means = found.aggregate.set_index("measure")["mean"]
    assert means["overlap_at_k"] == pytest.approx((1 + 0.5) / 2)
    assert means["rbo_ext"] == pytest.approx(found.per_query.rbo_ext.mean())
    with pytest.raises(rankkit.RankkitError, match="ties must be trec or rank"):
        rankkit.overlap(a, b, ties="average")
