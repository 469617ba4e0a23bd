"""Ranking overlap (sql/64_overlap.sql, rankkit.overlap): RBO's bounds and extrapolation against the
series of Webber, Moffat and Zobel (2010) summed term by term, on worked examples and hypothesis lists
(uneven lengths, disjoint lists, p near 0 and near 1), and overlap@k, Jaccard@k by sets."""

from __future__ import annotations

import itertools
import math
import re

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
    assert found["rbo_min"] - 1e-9 <= found["rbo_ext"] <= found["rbo_max"] + 1e-9  # the series' tolerance


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


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
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
    tied_too = rankkit.overlap(a, b, ties="a", resamples=500)
    assert tied_too.one_sided.query_id.tolist() == ["q3"]  # no equal scores here: what the trec rule gives
    assert tied_too.per_query.rbo_ext.tolist() == pytest.approx(found.per_query.rbo_ext.tolist())
    with pytest.raises(rankkit.RankkitError, match="ties must be trec, rank .* or w, a, b"):
        rankkit.overlap(a, b, ties="average")
    for frame in (found.aggregate, found.per_query, found.one_sided):  # what was compared, kept with each frame
        assert (frame.attrs["run_a"], frame.attrs["run_b"]) == ("DataFrame", "DataFrame")


# Rows of rbo/test.csv of Corsi and Urbano's reference implementation (github.com/julian-urbano/
# sigir2024-rbo, MIT licence): two rankings, tie groups in parentheses, p, then ext, min, max, res
# for the variants w, a and b.
CORSI_URBANO = [
    ("(i5 i9 i13 i15 i16 i19 i20) (i3 i8)", "i6 (i4 i18) i2 i7 i8 i17 i14 (i11 i12) i1", 0.958074765324023,
     [0.0816485573277354, 0.0370062754797617, 0.59493569657566, 0.557929421095898, 0.0808189832771587,
      0.0354671825076603, 0.593396603603558, 0.557929421095898, 0.0813693619867344, 0.0356267307324464,
      0.593556151828344, 0.557929421095898]),
    ("(i3 i6) (i2 i7) i10", "(i3 i6 i7 i10) (i1 i2)", 0.965413635276732,
     [0.946064537517568, 0.343706790399566, 0.958770957517067, 0.615064167117501, 0.92051534467649,
      0.319428239558438, 0.934492406675939, 0.615064167117501, 0.956844651806714, 0.348953051936765,
      0.964017219054266, 0.615064167117501]),
    ("(i1 i3 i6 i11 i15) i17 (i5 i8)", "(i1 i2 i3 i4 i5 i6 i7 i8 i9 i10 i11 i12)", 0.966485585840186,
     [0.647993254615828, 0.307897712904381, 0.853885398258049, 0.545987685353668, 0.56593642947334,
      0.250532359019861, 0.795583602856033, 0.545051243836172, 0.658581961799868, 0.315458973083789,
      0.861496368240528, 0.546037395156739]),
    ("i3 (i1 i5 i7) i9", "(i1 i9) i7 i3 i4", 0.930093081332594,
     [0.697096710334179, 0.35176094170816, 0.836304027811629, 0.484543086103469, 0.678580739450433,
      0.333244970824414, 0.817788056927883, 0.484543086103469, 0.684614956129899, 0.339279187503881,
      0.82382227360735, 0.484543086103469]),
    ("(i4 i14) i10 i9 i16 i1 (i11 i21) i7", "(i4 i7 i9 i10 i14 i16) i21 (i1 i11) (i3 i6 i17 i18)", 0.980350757903177,
     [0.95731778452095, 0.350742506261885, 0.95731778452095, 0.606575278259065, 0.939619367902257,
      0.336112285552834, 0.939619367902257, 0.603507082349424, 0.96333114711547, 0.35963910728389,
      0.96333114711547, 0.60369203983158]),
    ("i21 i20 (i1 i16 i19) (i5 i10) i4", "(i12 i17) (i2 i3 i8 i11) (i15 i18) (i6 i13) (i7 i14) i9", 0.930074017489188,
     [0, 0, 0.389142712252727, 0.389142712252727, 0, 0, 0.38977330351866, 0.38977330351866, 0, 0,
      0.390116806797613, 0.390116806797613]),
]


def tied(groups: list[list[str]], query: str = "q1") -> pd.DataFrame:
    """A run whose tie groups share a score, the first group scoring highest."""
    rows = [(query, doc, float(len(groups) - i)) for i, group in enumerate(groups) for doc in group]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


def parse(text: str) -> list[list[str]]:
    return [group.split() if group else [single] for group, single in re.findall(r"\(([^)]*)\)|(\w+)", text)]


def rbo(con, x, y, p, ties) -> dict:
    con.register("run_a", tied(x))
    con.register("run_b", tied(y))
    return con.execute("FROM rankkit.rbo('run_a', 'run_b', p := ?, ties := ?)", [p, ties]).df().iloc[0].to_dict()


@pytest.mark.parametrize("x, y, p, expected", CORSI_URBANO)
def test_tie_variants_match_corsi_and_urbano(con, x, y, p, expected):
    for i, variant in enumerate("wab"):
        found = rbo(con, parse(x), parse(y), p, variant)
        for j, score in enumerate(("rbo_ext", "rbo_min", "rbo_max", "rbo_res")):
            assert found[score] == pytest.approx(expected[4 * i + j], abs=1e-9), (variant, score)


def orderings(groups):
    for chosen in itertools.product(*[itertools.permutations(group) for group in groups]):
        yield [doc for group in chosen for doc in group]


groups = st.lists(st.lists(st.sampled_from([f"d{i}" for i in range(9)]), min_size=1, max_size=3, unique=True),
                  min_size=1, max_size=4).map(lambda gs: [g for i, g in enumerate(
                      [[d for d in g if d not in {e for h in gs[:i] for e in h}] for i, g in enumerate(gs)]) if g])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(groups, groups, st.sampled_from([0.05, 0.5, 0.9, 0.99]))
def test_tie_variant_a_is_the_mean_over_the_orderings_of_ties(con, x, y, p):
    # RBO^a takes each tie as broken at random: its lower bound, linear in each document's chance to
    # be in a prefix, is the mean of every ordering's (max and ext, not linear in the orderings, are
    # pinned by the rows above)
    found = rbo(con, x, y, p, "a")
    every = [series(a, b, p) for a in orderings(x) for b in orderings(y)]
    assert found["rbo_min"] == pytest.approx(np.mean([one["rbo_min"] for one in every]), abs=1e-9)
    for variant in "wab":
        bounds = found if variant == "a" else rbo(con, x, y, p, variant)
        assert bounds["rbo_min"] - 1e-9 <= bounds["rbo_ext"] <= bounds["rbo_max"] + 1e-9, variant
        assert bounds["rbo_res"] == pytest.approx(bounds["rbo_max"] - bounds["rbo_min"], abs=1e-12)


def test_overlap_takes_the_tie_variants(con):
    con.register("run_a", tied([["a"], ["b", "c"], ["d"]]))
    con.register("run_b", tied([["b"], ["a", "c", "d"]]))
    through_overlap = con.execute("SELECT rbo_min, rbo_ext FROM rankkit.overlap('run_a', 'run_b', ties := 'b')").fetchall()
    assert through_overlap == con.execute("SELECT rbo_min, rbo_ext FROM rankkit.rbo('run_a', 'run_b', ties := 'b')").fetchall()
    with pytest.raises(Exception, match="ties must be w, a, b"):
        con.execute("FROM rankkit.rbo('run_a', 'run_b', ties := 'average')").fetchall()
