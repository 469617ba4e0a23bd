"""compare(): statistics pinned to scipy on the same paired vectors, reproducible to the bit."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import rankkit
from rankkit import stats
from rankkit.errors import InputError, RankkitError, RankkitWarning


def _sample(seed: int, queries: int = 30, systems=("a", "b", "c")):
    """Generated qrels and one run table holding several systems (scores multiples of 1/8)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(queries):
        grades = rng.integers(0, 3, 12)
        qrels += [(f"q{q:02d}", f"d{d}", int(grades[d])) for d in range(12)]
        for skill, system in enumerate(systems):  # later systems rank relevant documents higher
            for d in range(12):
                noise = rng.integers(0, 16) / 8.0
                run.append((system, f"q{q:02d}", f"d{d}", noise + skill * grades[d] / 2.0))
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score"]))


def _vectors(seed: int, n: int = 25):
    rng = np.random.default_rng(seed)
    x = rng.beta(2, 3, n)
    return x, np.clip(x + rng.normal(0.05, 0.1, n), 0, 1)


def test_t_test_is_scipys_ttest_rel():
    x, y = _vectors(1)
    got = stats.paired_test(x, y, "t", alpha=0.1)
    want = sps.ttest_rel(x, y)
    interval = want.confidence_interval(0.9)
    assert got.p_value == pytest.approx(want.pvalue, rel=1e-12)
    assert (got.ci_low, got.ci_high) == pytest.approx((interval.low, interval.high), rel=1e-12)
    assert got.diff == pytest.approx(np.mean(x - y), rel=1e-12)
    assert got.effect == pytest.approx(np.mean(x - y) / np.std(x - y, ddof=1), rel=1e-12)
    assert (got.wins, got.ties, got.losses, got.queries) == (int(np.sum(x > y)), 0, int(np.sum(x < y)), 25)


def test_wilcoxon_is_scipys():
    x, y = _vectors(2)
    y[:3] = x[:3]  # zero differences, dropped as scipy's default zero_method does
    assert stats.paired_test(x, y, "wilcoxon").p_value == pytest.approx(sps.wilcoxon(x, y).pvalue, rel=1e-12)


def test_permutation_test_exact_when_every_sign_fits():
    x, y = _vectors(3, n=10)  # 2^10 = 1024 sign patterns <= 10000 resamples: exact
    d = x - y
    flips = np.array(list(itertools.product([1, -1], repeat=len(d))))
    null = (flips * d).mean(axis=1)
    exact = np.mean(np.abs(null) >= abs(d.mean()) - 1e-15)
    got = stats.paired_test(x, y, "permutation").p_value
    assert got == pytest.approx(exact, rel=1e-12)
    want = sps.permutation_test((x, y), lambda a, b, axis: np.mean(a - b, axis=axis), vectorized=True,
                                permutation_type="samples").pvalue
    assert got == pytest.approx(want, rel=1e-12)


def test_permutation_test_randomised_agrees_with_scipys_paired_samples_test():
    x, y = _vectors(4, n=40)
    got = stats.paired_test(x, y, "permutation", seed=7, resamples=20000).p_value
    want = sps.permutation_test((x, y), lambda a, b, axis: np.mean(a - b, axis=axis), vectorized=True,
                                permutation_type="samples", n_resamples=20000,
                                **stats._rng(8)).pvalue
    assert abs(got - want) < 0.01  # two Monte Carlo estimates of one p-value


def test_bootstrap_interval_and_p_value_are_scipys_percentile_bootstrap():
    x, y = _vectors(5)
    d = x - y
    got = stats.paired_test(x, y, "bootstrap", alpha=0.05, seed=11, resamples=5000)
    want = sps.bootstrap((d,), np.mean, n_resamples=5000, confidence_level=0.95, method="percentile",
                         **stats._rng(11))
    assert (got.ci_low, got.ci_high) == (want.confidence_interval.low, want.confidence_interval.high)
    shifted = want.bootstrap_distribution - d.mean()
    assert got.p_value == (1 + np.sum(np.abs(shifted) >= abs(d.mean()))) / 5001
    # a large, clean effect: the shifted bootstrap agrees with the t-test that p is tiny
    far = stats.paired_test(x + 0.3, y, "bootstrap", seed=11, resamples=5000)
    assert far.p_value == 1 / 5001


@pytest.mark.parametrize("test", ["permutation", "bootstrap", "wilcoxon", "t"])
def test_one_seed_gives_the_same_numbers_to_the_bit(test):
    qrels, run = _sample(6)
    first = rankkit.compare(qrels, run, ["nDCG@10", "AP"], test=test, seed=3, resamples=2000)
    second = rankkit.compare(qrels, run, ["nDCG@10", "AP"], test=test, seed=3, resamples=2000)
    pd.testing.assert_frame_equal(first, second, check_exact=True)
    if test in ("permutation", "bootstrap"):
        other = rankkit.compare(qrels, run, ["nDCG@10", "AP"], test=test, seed=4, resamples=2000)
        assert not np.array_equal(first["ci_low"], other["ci_low"])


def test_permutation_false_positive_rate_within_a_binomial_bound():
    # 200 comparisons of two identically distributed systems: about 5% should come out below 0.05
    rng = np.random.default_rng(2024)
    trials, alpha = 200, 0.05
    rejected = 0
    for trial in range(trials):
        x, y = rng.beta(2, 3, 30), rng.beta(2, 3, 30)
        p = stats.paired_test(x, y, "permutation", seed=trial, resamples=199).p_value
        assert 1 / 200 <= p <= 1
        rejected += p < alpha
    assert rejected <= sps.binom.ppf(0.999, trials, alpha)  # 21 of 200
    assert rejected >= sps.binom.ppf(0.001, trials, alpha)  # and not a test that never rejects


def test_corrections():
    p = np.array([0.01, 0.04, 0.03, 0.005, np.nan])
    assert np.allclose(stats.correct(p, "bonferroni")[:4], [0.04, 0.16, 0.12, 0.02])
    assert np.allclose(stats.correct(p, "holm")[:4], [0.03, 0.06, 0.06, 0.02])  # Holm 1979, by hand
    assert np.allclose(stats.correct(p, "bh")[:4], sps.false_discovery_control(p[:4], method="bh"))
    assert np.allclose(stats.correct(p, "bh")[:4], [0.02, 0.04, 0.04, 0.02])  # Benjamini and Hochberg 1995, by hand
    assert np.array_equal(stats.correct(p, "none")[:4], p[:4])
    assert all(np.isnan(stats.correct(p, method)[4]) for method in stats.CORRECTIONS)
    assert np.allclose(stats.correct([0.5, 0.9], "bonferroni"), [1.0, 1.0])
    with pytest.raises(RankkitError, match="correction must be one of"):
        stats.correct(p, "sidak")


def test_compare_uses_the_sql_per_query_values_and_scipy():
    qrels, run = _sample(7)
    result = rankkit.compare(qrels, run, ["nDCG@10", "AP"], baseline="a", correction="bonferroni")
    per_query = rankkit.evaluate(qrels, run, ["nDCG@10", "AP"], per_query=True)
    assert list(result["system"]) == ["b", "c", "b", "c"] and set(result["baseline"]) == {"a"}
    for row in result.itertuples():
        values = per_query[per_query["measure"] == row.measure].pivot(index="query_id", columns="system", values="value")
        x, y = values[row.system], values["a"]
        assert row.mean == pytest.approx(x.mean(), abs=1e-15) and row.baseline_mean == pytest.approx(y.mean(), abs=1e-15)
        assert row.diff == pytest.approx((x - y).mean(), abs=1e-15)
        assert row.p_value == pytest.approx(sps.ttest_rel(x, y).pvalue, rel=1e-12)
        assert row.p_adjusted == pytest.approx(min(1.0, 2 * row.p_value), rel=1e-12)  # 2 comparisons per measure
        assert row.significant == (row.p_adjusted < 0.05)
        assert row.wins + row.ties + row.losses == row.queries == 30
    assert result.attrs["test"] == "t" and result.attrs["correction"] == "bonferroni"


def test_runs_as_a_dict_or_one_table_give_the_same_comparison():
    qrels, run = _sample(8)
    table = rankkit.compare(qrels, run, ["P@5"], test="bootstrap", resamples=500)
    runs = {name: rows.drop(columns=["system"]) for name, rows in run.groupby("system")}
    split = rankkit.compare(qrels, runs, ["P@5"], test="bootstrap", resamples=500)
    pd.testing.assert_frame_equal(table, split, check_exact=True)
    assert list(zip(table["system"], table["baseline"])) == [("b", "a"), ("c", "a"), ("c", "b")]


def test_run_files_named_by_file_stem(tmp_path):
    qrels, run = _sample(9, queries=8, systems=("x", "y"))
    paths = []
    for system, rows in run.groupby("system"):
        path = tmp_path / f"{system}.run"
        path.write_text("".join(f"{r.query_id} Q0 {r.doc_id} 0 {r.score} tag\n" for r in rows.itertuples()))
        paths.append(str(path))
    result = rankkit.compare(qrels, paths, "nDCG@5", baseline="x")
    assert list(result["system"]) == ["y"]


def test_identical_systems_are_not_different():
    qrels, run = _sample(10, systems=("a",))
    result = rankkit.compare(qrels, {"one": run, "two": run}, ["AP"], test="permutation")
    row = result.iloc[0]
    assert (row["diff"], row["p_value"], row["ties"], row["wins"], row["losses"]) == (0.0, 1.0, 30, 0, 0)


def test_queries_missing_from_one_system_are_left_out_with_a_warning():
    qrels, run = _sample(11, systems=("a", "b"))
    run = run[~((run["system"] == "b") & (run["query_id"] == "q00"))]
    with pytest.warns(UserWarning, match="1 queries are evaluated for only one"):
        result = rankkit.compare(qrels, run, ["AP"])
    assert result["queries"].tolist() == [29]
    filled = rankkit.compare(qrels, run, ["AP"], queries="qrels")
    assert filled["queries"].tolist() == [30]


def test_bad_arguments_are_clear():
    qrels, run = _sample(12, queries=3)
    with pytest.raises(InputError, match="baseline 'z' is not one of the systems: a, b, c"):
        rankkit.compare(qrels, run, ["AP"], baseline="z")
    with pytest.raises(InputError, match="two or more systems"):
        rankkit.compare(qrels, run[run["system"] == "a"], ["AP"])
    with pytest.raises(RankkitError, match="test must be one of t, wilcoxon, permutation, bootstrap"):
        rankkit.compare(qrels, run, ["AP"], test="sign")
    with pytest.raises(RankkitError, match="alpha must be between 0 and 1"):
        rankkit.compare(qrels, run, ["AP"], alpha=5)


def test_evaluate_ci_is_a_seeded_percentile_bootstrap_over_queries():
    qrels, run = _sample(13, systems=("a", "b"))
    result = rankkit.evaluate(qrels, run, ["nDCG@10", "NumRet"], ci=0.9, seed=5, resamples=3000)
    again = rankkit.evaluate(qrels, run, ["nDCG@10", "NumRet"], ci=0.9, seed=5, resamples=3000)
    # the intervals are bit for bit the same; DuckDB's parallel avg may differ in the last bit
    pd.testing.assert_frame_equal(result[["ci_low", "ci_high"]], again[["ci_low", "ci_high"]], check_exact=True)
    per_query = rankkit.evaluate(qrels, run, ["nDCG@10", "NumRet"], per_query=True)
    for row in result.itertuples():
        values = per_query[(per_query["measure"] == row.measure) & (per_query["system"] == row.system)]["value"]
        statistic = np.sum if row.measure == "NumRet" else np.mean
        want = sps.bootstrap((values.to_numpy(),), statistic, n_resamples=3000, confidence_level=0.9,
                             method="percentile", **stats._rng(5)).confidence_interval
        assert (row.ci_low, row.ci_high) == pytest.approx((want.low, want.high), rel=1e-12)
        assert row.ci_low <= row.value <= row.ci_high
    with pytest.raises(RankkitError, match="ci must be a confidence level"):
        rankkit.evaluate(qrels, run, ["AP"], ci=95)


def test_evaluate_ci_of_a_geometric_mean_bootstraps_the_floored_logs():
    """gm_map's interval: the bootstrap of exp(mean(log(max(value, 0.00001)))), its terms from SQL
    (rankkit.geometric_term); queries scoring 0 keep it from collapsing to 0."""
    qrels, run = _sample(17, systems=("a",))
    # a judged query the run lacks scores 0 with queries="qrels" (trec_eval -c)
    qrels = pd.concat([qrels, pd.DataFrame({"query_id": ["unretrieved"], "doc_id": ["d"], "relevance": [1]})])
    with pytest.warns(RankkitWarning, match="missing from the run DataFrame"):
        result = rankkit.evaluate(qrels, run, ["gm_map"], queries="qrels", ci=0.9, seed=3, resamples=2000)
        values = rankkit.evaluate(qrels, run, ["gm_map"], queries="qrels", per_query=True)["value"].to_numpy()
    assert (values == 0).any() and (values > 0).any()  # the floor matters here
    want = sps.bootstrap((np.log(np.maximum(values, 1e-5)),), lambda x, axis: np.exp(np.mean(x, axis=axis)),
                         n_resamples=2000, confidence_level=0.9, method="percentile", **stats._rng(3)).confidence_interval
    row = result.iloc[0]
    assert (row.ci_low, row.ci_high) == pytest.approx((want.low, want.high), rel=1e-12)
    assert 0 < row.ci_low <= row.value <= row.ci_high
