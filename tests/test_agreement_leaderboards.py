"""Leaderboard agreement (sql/62_leaderboards.sql, rankkit.leaderboard_agreement) against scipy's
kendalltau, spearmanr and pearsonr, tau_AP against its definition (a worked example and a brute-force
reference), and a real case: the DL19 runs under the official qrels and a perturbed copy."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import rankkit
from rankkit.errors import RankkitError
from tests.support import shared_path

metrics = pytest.importorskip("sklearn.metrics")


def correlation(con, boards: pd.DataFrame, top=None) -> dict:
    con.register("boards", boards)
    frame = con.execute("FROM rankkit.rank_correlation('boards', top := ?)", [top]).df()
    return frame.iloc[0].to_dict()


def tau_ap_brute_force(truth: list[str], estimate: list[str]) -> float:
    """Yilmaz, Aslam and Robertson (2008), section 3, as the random experiment it is: pick a system
    of the estimated list other than its first, uniformly; pick one of the systems above it there,
    uniformly; p is the chance that the true list also puts it above. tau_AP = 2p - 1."""
    p = 0.0
    for i in range(1, len(estimate)):
        above = estimate[:i]
        right = sum(truth.index(other) < truth.index(estimate[i]) for other in above)
        p += right / len(above) / (len(estimate) - 1)
    return 2 * p - 1


def boards_of(order_a: list[str], order_b: list[str]) -> pd.DataFrame:
    n = len(order_a)
    return pd.DataFrame({"system": order_a, "value_a": [n - i for i in range(n)],
                         "value_b": [n - order_b.index(s) for s in order_a]})


def test_tau_ap_worked_example(con):
    # Four systems, one swap of neighbours: Kendall's tau is 2/3 wherever the swap is; tau_AP weighs
    # a swap at the top more. Top swap: b = s2 s1 s3 s4; s1 has s2 above it, wrongly (0/1), s3 and
    # s4 have only right systems above (2/2, 3/3): p = (0 + 1 + 1) / 3, tau_AP = 2p - 1 = 1/3.
    # Bottom swap: b = s1 s2 s4 s3; 1/1, 2/2, then s3 has s4 above it wrongly (2/3): tau_AP = 7/9.
    truth = ["s1", "s2", "s3", "s4"]
    top = correlation(con, boards_of(truth, ["s2", "s1", "s3", "s4"]))
    bottom = correlation(con, boards_of(truth, ["s1", "s2", "s4", "s3"]))
    assert top["kendall_tau_b"] == pytest.approx(2 / 3) and bottom["kendall_tau_b"] == pytest.approx(2 / 3)
    assert top["tau_ap"] == pytest.approx(1 / 3) and bottom["tau_ap"] == pytest.approx(7 / 9)
    assert top["swaps"] == 1 and bottom["swaps"] == 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.permutations([f"s{i}" for i in range(8)]), st.integers(min_value=3, max_value=8))
def test_tau_ap_matches_the_brute_force(con, estimate, n):
    truth = [f"s{i}" for i in range(n)]
    estimate = [s for s in estimate if s in truth]
    assert correlation(con, boards_of(truth, estimate))["tau_ap"] == pytest.approx(tau_ap_brute_force(truth, estimate), abs=1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.permutations([f"s{i}" for i in range(8)]), st.integers(min_value=3, max_value=7))
def test_tau_ap_among_the_top_k_is_tau_ap_of_those_systems(con, estimate, k):
    """top := k keeps a's best k systems and reads b's order among them: its divisor counts the kept
    systems above on b, not every system above (DL19's five best in one order on both sides gave 0.9,
    and 0.36 here where a system outside the top stood first on b)."""
    truth = [f"s{i}" for i in range(8)]
    kept = [s for s in estimate if s in truth[:k]]
    assert correlation(con, boards_of(truth, estimate), top=k)["tau_ap"] == pytest.approx(
        tau_ap_brute_force(truth[:k], kept), abs=1e-12)
    first_on_b = ["s7"] + truth[:7]  # the top 5 in one order on both boards, a system not kept first on b
    assert correlation(con, boards_of(truth, first_on_b), top=5)["tau_ap"] == pytest.approx(1.0, abs=1e-12)


values = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 1000).map(lambda v: v / 1000)), min_size=3, max_size=12)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values, st.integers(min_value=2, max_value=12))
def test_correlations_match_scipy(con, pairs, top):
    # grades of 0..5 under a (ties), any value under b
    boards = pd.DataFrame({"system": [f"s{i:02}" for i in range(len(pairs))],
                           "value_a": [a / 5 for a, _ in pairs], "value_b": [b for _, b in pairs]})
    for k in (None, top):
        kept = boards if k is None else boards[boards.value_a.rank(method="min", ascending=False) <= k]
        if len(kept) < 3:
            with pytest.raises(Exception, match="rank correlations need 3 systems or more"):
                correlation(con, boards, k)
            continue
        found = correlation(con, boards, k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy warns on a constant input (NaN)
            expected = {"kendall_tau_b": stats.kendalltau(kept.value_a, kept.value_b).statistic,
                        "spearman": stats.spearmanr(kept.value_a, kept.value_b).statistic,
                        "pearson": stats.pearsonr(kept.value_a, kept.value_b).statistic
                        if kept.value_a.nunique() > 1 and kept.value_b.nunique() > 1 else math.nan}
        assert found["systems"] == len(kept)
        for name, want in expected.items():
            if math.isnan(want):
                assert found[name] is None or math.isnan(found[name]), name
            else:
                assert found[name] == pytest.approx(want, abs=1e-9), name
        swapped = sum((x.value_a - y.value_a) * (x.value_b - y.value_b) < 0
                      for x in kept.itertuples() for y in kept.itertuples() if x.system < y.system)
        assert found["swaps"] == swapped


def test_too_few_systems_and_bad_boards_are_refused(con):
    two = pd.DataFrame({"system": ["x", "y"], "value_a": [0.1, 0.2], "value_b": [0.2, 0.1]})
    with pytest.raises(Exception, match=r"rank correlations need 3 systems or more, got 2 \(x, y\)"):
        correlation(con, two)
    con.register("two", two)  # two systems have leaderboards and swaps, no rank correlation
    assert con.execute("SELECT above_a, below_a FROM rankkit.system_swaps('two')").fetchall() == [("y", "x")]
    con.register("one", two.head(1))
    with pytest.raises(Exception, match=r"leaderboards: a leaderboard orders 2 systems or more, got 1 \(x\)"):
        con.execute("FROM rankkit.system_swaps('one')").fetchall()
    twice = pd.DataFrame({"system": ["x", "x", "y"], "value_a": [0.1, 0.2, 0.3], "value_b": [0.2, 0.1, 0.3]})
    with pytest.raises(Exception, match="system x is listed twice"):
        correlation(con, twice)
    missing = pd.DataFrame({"system": ["x", "y", "z"], "value_a": [0.1, 0.2, 0.3], "value_b": [0.2, None, 0.3]})
    with pytest.raises(Exception, match="system y has no finite value on both leaderboards"):
        correlation(con, missing)
    three = pd.DataFrame({"system": ["x", "y", "z"], "value_a": [0.1, 0.2, 0.3], "value_b": [0.2, 0.1, 0.3]})
    with pytest.raises(Exception, match="top must be 2 or more, got 1"):
        correlation(con, three, 1)
    with pytest.raises(Exception, match=r"need 3 systems or more, got 2 among the top 2 of leaderboard a \(y, z\)"):
        correlation(con, three, 2)


def _tiny():
    qrels = pd.DataFrame({"query_id": ["1", "2", "3", "4"] * 2, "doc_id": ["a"] * 4 + ["b"] * 4,
                          "relevance": [1, 1, 1, 1, 0, 0, 0, 0]})
    # b's labels swapped: a system that ranks a first under a ranks b first under b
    other = qrels.assign(relevance=1 - qrels.relevance)
    runs = {name: pd.DataFrame({"query_id": ["1", "1", "2", "2", "3", "3", "4", "4"], "doc_id": ["a", "b"] * 4,
                                "score": scores})
            for name, scores in {"good": [2, 1] * 4, "half": [2, 1, 1, 2] * 2, "bad": [1, 2] * 4}.items()}
    return qrels, other, runs


def test_python_leaderboard_agreement_on_a_tiny_case():
    qrels, other, runs = _tiny()
    found = rankkit.leaderboard_agreement(qrels, other, runs, "RR")
    assert found.leaderboards.system.tolist() == ["good", "half", "bad"]
    assert found.leaderboards.rank_b.tolist() == [3, 2, 1]
    assert found.correlations.kendall_tau_b.tolist() == [-1.0]
    assert found.swaps[["above_a", "below_a"]].values.tolist() == [["good", "half"], ["good", "bad"], ["half", "bad"]]
    tested = rankkit.compare(qrels, runs, "RR").set_index(["system", "baseline"])
    p = tested.p_adjusted.get(("bad", "good"), tested.p_adjusted.get(("good", "bad")))
    assert found.swaps.set_index(["above_a", "below_a"]).p_adjusted[("good", "bad")] == p
    assert found.swaps.significant.dtype == bool
    for frame in (found.leaderboards, found.correlations, found.swaps):
        assert {key: frame.attrs[key] for key in ("qrels_a", "qrels_b", "measure")} == {
            "qrels_a": "DataFrame", "qrels_b": "DataFrame", "measure": "RR"}


def test_python_leaderboard_agreement_refuses_unknown_measures_and_few_systems():
    qrels, other, runs = _tiny()
    with pytest.raises(rankkit.MeasureError):
        rankkit.leaderboard_agreement(qrels, other, runs, "nDGC@10")
    with pytest.raises(rankkit.RankkitError, match="ERR-IA@20 reads subtopic judgments, not the two judgment tables"):
        rankkit.leaderboard_agreement(qrels, other, runs, "ERR-IA@20")
    with pytest.raises(rankkit.RankkitError, match=r"a leaderboard orders 2 systems or more, got 1 \(good\)"):
        rankkit.leaderboard_agreement(qrels, other, {"good": runs["good"]}, "RR")


def test_two_systems_are_compared_without_a_rank_correlation():
    """Two systems were refused, and agree printed nothing: their leaderboards and swap are what two
    give (any correlation of two is 1 or -1, the swap again): the correlations NaN, a warning says why."""
    qrels, other, runs = _tiny()
    with pytest.warns(rankkit.RankkitWarning, match=r"rank correlations need 3 systems or more, got 2 \(bad, good\)"):
        found = rankkit.leaderboard_agreement(qrels, other, {k: runs[k] for k in ("good", "bad")}, "RR", top=2, ci=0.9,
                                              resamples=100)
    assert found.leaderboards[["system", "rank_a", "rank_b"]].values.tolist() == [["good", 1, 2], ["bad", 2, 1]]
    assert found.swaps[["above_a", "below_a"]].values.tolist() == [["good", "bad"]]
    assert found.correlations[["systems", "swaps"]].values.tolist() == [[2, 1], [2, 1]]
    assert found.correlations.drop(columns=["top", "systems", "swaps"]).isna().all().all()  # intervals too


def perturbed(qrels: pd.DataFrame, seed: int = 24, share: float = 0.3) -> pd.DataFrame:
    """A second judgment table from the first: a share of the labels moved one grade up or down,
    drawn with a seed, as a noisy judge would."""
    rng = np.random.default_rng(seed)
    moved = rng.random(len(qrels)) < share
    step = rng.choice([-1, 1], len(qrels))
    return qrels.assign(relevance=np.where(moved, (qrels.relevance + step).clip(0, 3), qrels.relevance))


def test_dl19_runs_under_official_and_perturbed_qrels():
    qrels_path = shared_path("data", "anserini-tools", "qrels.dl19-passage.txt")
    runs = sorted(shared_path("data", "rank_llm").glob("dl19.*.trec_results.txt"))
    if len(runs) < 3:
        pytest.skip(f"fewer than 3 DL19 runs under {shared_path('data', 'rank_llm')}")
    official = rankkit.read_qrels(qrels_path).df()
    noisy = perturbed(official)
    labels = rankkit.agreement(official, noisy, resamples=1000)
    kappa = labels.aggregate.set_index("measure").value
    expected = metrics.cohen_kappa_score(official.relevance, noisy.relevance, weights="quadratic")
    print(f"\nDL19 official vs perturbed (seed 24): pairs {labels.pairs}, kappa {kappa['kappa']:.4f}, "
          f"quadratic kappa {kappa['kappa_quadratic']:.4f} (sklearn {expected:.4f})")
    assert kappa["kappa_quadratic"] == pytest.approx(expected, abs=1e-9)
    assert kappa["kappa"] == pytest.approx(
        metrics.cohen_kappa_score(official.relevance >= 1, noisy.relevance >= 1), abs=1e-12)
    krippendorff = pytest.importorskip("krippendorff")
    assert kappa["alpha_ordinal"] == pytest.approx(krippendorff.alpha(
        np.vstack([official.relevance, noisy.relevance]).astype(float), level_of_measurement="ordinal"), abs=1e-12)
    found = rankkit.leaderboard_agreement(official, noisy, runs, "nDCG@10", top=3)
    boards = found.leaderboards
    for qrels, column in ((official, "value_a"), (noisy, "value_b")):
        values = rankkit.evaluate(qrels, runs, "nDCG@10").set_index("system").value
        assert boards.set_index("system")[column].to_dict() == pytest.approx(values.to_dict(), abs=1e-12)
    whole = found.correlations.iloc[0]
    print(f"DL19 nDCG@10 leaderboards: tau_b {whole.kendall_tau_b:.4f}, tau_AP {whole.tau_ap:.4f}, "
          f"swaps {whole.swaps}")
    assert whole.kendall_tau_b == pytest.approx(stats.kendalltau(boards.value_a, boards.value_b).statistic, abs=1e-9)
    assert whole.spearman == pytest.approx(stats.spearmanr(boards.value_a, boards.value_b).statistic, abs=1e-9)
    # P@10: TAS-B and SPLADE tie under the official qrels (348/430 each, as trec_eval prints 0.8093 for
    # both) though their means differ in the last bit; tied, so one swap (TAS-B below ADA2 under b), not two
    found = rankkit.leaderboard_agreement(official, noisy, runs, "P@10")
    boards = found.leaderboards
    exact = boards[["value_a", "value_b"]].round(12)
    whole = found.correlations.iloc[0]
    print(f"DL19 P@10 leaderboards: tau_b {whole.kendall_tau_b:.4f}, swaps {whole.swaps}")
    assert whole.kendall_tau_b == pytest.approx(stats.kendalltau(exact.value_a, exact.value_b).statistic, abs=1e-12)
    assert found.swaps[["above_a", "below_a"]].values.tolist() == [
        ["dl19.D_BERT_KD_TASB.trec_results", "dl19.OPEN_AI_ADA2.trec_results"]]


def test_correlation_intervals_resample_the_queries():
    # five systems over twelve queries, a second judge who disagrees on some
    rng = np.random.default_rng(5)
    queries = [f"q{i:02}" for i in range(12)]
    qrels = pd.DataFrame([(q, f"d{j}", int(rng.integers(0, 3))) for q in queries for j in range(6)],
                         columns=["query_id", "doc_id", "relevance"])
    other = perturbed(qrels, seed=3, share=0.4)
    runs = {f"s{n}": pd.DataFrame([(q, f"d{j}", float(rng.random())) for q in queries for j in range(6)],
                                  columns=["query_id", "doc_id", "score"]) for n in range(5)}
    found = rankkit.leaderboard_agreement(qrels, other, runs, "P@3", ci=0.9, resamples=300, seed=11)
    row = found.correlations.iloc[0]
    assert "ok" not in found.correlations.columns
    # the same draws, each leaderboard made again with pandas and correlated by scipy
    per_query = {side: rankkit.evaluate(q, runs, "P@3", per_query=True).pivot(index="query_id", columns="system",
                                                                               values="value")
                 for side, q in (("a", qrels), ("b", other))}
    counts = np.random.default_rng(11).multinomial(12, [1 / 12] * 12, size=300)
    taus = []
    for weights in counts:
        # rounded: P@3's means are fractions, equal ones summed in another order differ in the last bit (a tie)
        means = {side: (table.loc[queries].mul(weights, axis=0).sum() / weights.sum()).round(12)
                 for side, table in per_query.items()}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            taus.append(stats.kendalltau(means["a"], means["b"][means["a"].index]).statistic)
    taus = np.array(taus)
    low, high = np.percentile(taus[~np.isnan(taus)], [5, 95])
    assert (row.kendall_tau_b_low, row.kendall_tau_b_high) == pytest.approx((low, high), abs=1e-9)
    again = rankkit.leaderboard_agreement(qrels, other, runs, "P@3", ci=0.9, resamples=300, seed=11)
    # one seed, the same interval (to the last bits: DuckDB's sums run in parallel, in any order)
    assert again.correlations.drop(columns="top").to_numpy(dtype=float) == pytest.approx(
        found.correlations.drop(columns="top").to_numpy(dtype=float), abs=1e-12, nan_ok=True)
    with pytest.raises(rankkit.RankkitError, match="'runid' is text, not a number"):
        rankkit.leaderboard_agreement(qrels, other, runs, "runid", ci=0.9, resamples=10)


@pytest.mark.parametrize("measure", ["gm_map", "gm_bpref"])
def test_correlation_intervals_of_geometric_means(measure):
    """gm_map's leaderboards made again from each draw as trec_eval makes them: exp of the mean of the
    logs of the drawn queries' AP, each floored at 0.00001 (a brute-force reference, per draw)."""
    rng = np.random.default_rng(8)
    queries = [f"q{i:02}" for i in range(10)]
    qrels = pd.DataFrame([(q, f"d{j}", int(rng.integers(0, 3))) for q in queries for j in range(8)],
                         columns=["query_id", "doc_id", "relevance"])
    other = perturbed(qrels, seed=4, share=0.4)
    # one system retrieves nothing relevant on some queries: its AP there is 0, floored in the geometric mean
    runs = {f"s{n}": pd.DataFrame([(q, f"d{j}", float(rng.random())) for q in queries for j in range(8 if n else 2)],
                                  columns=["query_id", "doc_id", "score"]) for n in range(5)}
    found = rankkit.leaderboard_agreement(qrels, other, runs, measure, top=4, ci=0.9, resamples=200, seed=2)
    base = measure.removeprefix("gm_").replace("map", "AP")
    per_query = {side: rankkit.evaluate(q, runs, base, per_query=True).pivot(index="query_id", columns="system",
                                                                             values="value").loc[queries]
                 for side, q in (("a", qrels), ("b", other))}
    assert (per_query["a"] < 1e-5).any(axis=None)  # the floor is exercised
    whole = {side: np.exp(np.log(table.clip(lower=1e-5)).mean()) for side, table in per_query.items()}
    assert found.leaderboards.set_index("system").value_a.to_dict() == pytest.approx(whole["a"].to_dict(), abs=1e-12)
    counts = np.random.default_rng(2).multinomial(10, [1 / 10] * 10, size=200)
    drawn = {name: [] for name in ("all", "top")}
    for weights in counts:
        boards = {side: np.exp(np.log(table.clip(lower=1e-5)).mul(weights, axis=0).sum() / weights.sum())
                  for side, table in per_query.items()}
        best = boards["a"].sort_values(ascending=False, kind="stable").index[:4]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            drawn["all"].append(stats.kendalltau(boards["a"], boards["b"][boards["a"].index]).statistic)
            drawn["top"].append(stats.spearmanr(boards["a"][best], boards["b"][best]).statistic)
    rows = found.correlations.set_index(found.correlations.top.fillna(0).astype(int))
    for scope, column, top in (("all", "kendall_tau_b", 0), ("top", "spearman", 4)):
        values = np.array(drawn[scope])
        low, high = np.percentile(values[~np.isnan(values)], [5, 95])
        assert (rows.loc[top, f"{column}_low"], rows.loc[top, f"{column}_high"]) == pytest.approx((low, high), abs=1e-9)


def test_values_equal_but_for_float_noise_are_tied():
    # DL19's TAS-B and SPLADE both have P@10 = 348/430, summed in another order: 0.8093023255813953
    # and 0.8093023255813951. Read as two values they made a swap under A that is none, and tau_b
    # 0.6 where scipy on the true tie gives 0.738 (trec_eval prints 0.8093 for both).
    boards = pd.DataFrame({"system": ["tasb", "splade", "ada2", "rm3", "bm25"],
                           "value_a": [0.8093023255813953, 0.8093023255813951, 0.806976744186046,
                                       0.6511627906976745, 0.6186046511627908],
                           "value_b": [0.7953488372093023, 0.8046511627906976, 0.7999999999999998,
                                       0.669767441860465, 0.6441860465116278]})
    exact = boards.assign(value_a=boards.value_a.round(12), value_b=boards.value_b.round(12))
    con = rankkit.connect()
    found = correlation(con, boards)
    assert found["kendall_tau_b"] == pytest.approx(stats.kendalltau(exact.value_a, exact.value_b).statistic, abs=1e-12)
    assert found["spearman"] == pytest.approx(stats.spearmanr(exact.value_a, exact.value_b).statistic, abs=1e-12)
    assert found["pearson"] == pytest.approx(stats.pearsonr(boards.value_a, boards.value_b).statistic, abs=1e-12)
    assert math.isnan(found["tau_ap"])  # the definition has no ties
    assert found["swaps"] == 1  # tasb and ada2; tasb and splade are tied under a, no swap
    places = con.execute("FROM rankkit.leaderboards('boards')").df().set_index("system")
    assert places.loc[["tasb", "splade"], "rank_a"].tolist() == [1, 1]
    swaps = con.execute("FROM rankkit.system_swaps('boards')").df()
    assert swaps[["above_a", "below_a"]].values.tolist() == [["tasb", "ada2"]]


@pytest.mark.parametrize("options, said", [({"ci": 1.5}, "ci must be between 0 and 1"),
                                           ({"alpha": 2.0}, "alpha"), ({"test": "z"}, "test")])
def test_python_leaderboard_agreement_checks_its_options_before_reading(tmp_path, options, said):
    # the qrels do not exist: an option is refused first, as on the command line
    missing = str(tmp_path / "missing.qrels")
    with pytest.raises(RankkitError, match=said):
        rankkit.leaderboard_agreement(missing, missing, [missing], "AP", **options)


def test_python_label_agreement_refuses_a_threshold_that_is_no_number():
    a = pd.DataFrame({"query_id": ["q1"] * 2, "doc_id": ["x", "y"], "relevance": [0, 1]})
    with pytest.raises(RankkitError, match="threshold must be a finite number, got nan"):
        rankkit.agreement(a, a, threshold=float("nan"))
