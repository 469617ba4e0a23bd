"""Statistics on per-query values: paired tests, intervals, effect sizes, multiple-testing corrections.

Everything here works on plain vectors that the SQL macros computed (one value per query); nothing
here computes a measure. scipy does the statistics; what is written by hand (the sign-flip
permutation test, for speed; the corrections, the bootstrap p-value, the effect size) is short and
pinned to scipy or textbook values by tests/test_compare.py. Randomised procedures take a seed and draw from ``numpy.random.Generator``,
so one seed gives the same numbers to the bit.
"""

from __future__ import annotations

import inspect
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from rankkit.errors import RankkitError

__all__ = ["TESTS", "CORRECTIONS", "Paired", "paired_test", "bootstrap_ci", "recentred_bootstrap_ci", "AGGREGATE_INTERVAL", "INTERVALS", "difference_interval", "correct", "mean"]

TESTS = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "permutation": "paired randomisation (sign-flip permutation) test",
    "bootstrap": "paired bootstrap test (shifted percentile)",
}
CORRECTIONS = {
    "none": "no correction",
    "bonferroni": "Bonferroni",
    "holm": "Holm",
    "bh": "Benjamini-Hochberg",
}
# The intervals rankkit shows, by the name the report's record gives them. An aggregate's is always
# the percentile bootstrap (it stays inside a bounded measure's range); a paired difference's follows
# the test (difference_interval).
INTERVALS = {
    "bootstrap": "percentile bootstrap interval",
    "t": "Student's t interval",
}
AGGREGATE_INTERVAL = "bootstrap"
# Per-query differences this small are float noise (the same value summed in another order): ties.
TIE_TOLERANCE = 1e-12
# Resampled values held at once (8 bytes each): 10000 resamples of 7000 queries would take 560 MB.
BATCH_VALUES = 2 ** 21


@dataclass(frozen=True)
class Paired:
    """The outcome of one paired comparison, ``x - y`` over the same queries."""

    diff: float
    ci_low: float
    ci_high: float
    effect: float
    p_value: float
    wins: int
    ties: int
    losses: int
    queries: int


def paired_test(x, y, test: str = "t", *, alpha: float = 0.05, seed: int | None = 0,
                resamples: int = 10000) -> Paired:
    """Compare two systems' per-query values (same queries, same order), ``x`` against ``y``.

    The interval is for the mean difference at confidence ``1 - alpha``: Student's t for
    ``test="t"``, the percentile bootstrap over queries for the other tests. The effect size is
    Cohen's d_z: the mean difference over the standard deviation of the differences.
    """
    if test not in TESTS:
        raise RankkitError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    if not 0 < alpha < 1:
        raise RankkitError(f"alpha must be between 0 and 1, got {alpha!r}")
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    d = differences(x, y)
    n = len(d)
    average = mean(d)
    counts = dict(wins=int(np.sum(d > 0)), ties=int(np.sum(d == 0)), losses=int(np.sum(d < 0)), queries=n)
    if n < 2:
        return Paired(average, float("nan"), float("nan"), float("nan"), float("nan"), **counts)
    sd = float(np.std(d, ddof=1))
    effect = average / sd if sd > 0 else float("nan")
    if difference_interval(test) == "t":
        low, high, p = _t(d, alpha)
    else:
        low, high, boot = _bootstrap(d, np.mean, 1 - alpha, seed, resamples)
        if test == "bootstrap":
            # Efron and Tibshirani (1993) 16.4: resampling d - mean(d) (the null shifted in) gives
            # boot - mean; count how often that is at least as far from 0 as the observed mean.
            p = (1 + np.sum(np.abs(boot - average) >= abs(average))) / (len(boot) + 1)
        elif test == "permutation":
            p = permutation_p(d, seed, resamples)
        else:
            p = _wilcoxon(d)
    if not np.any(d):
        p = 1.0  # identical systems: no evidence of a difference (scipy gives NaN or 1)
    return Paired(average, float(low), float(high), effect, float(p), **counts)


def difference_interval(test: str) -> str:
    """The interval paired_test gives the mean difference with ``test``: Student's t for the t-test,
    the percentile bootstrap otherwise (a key of INTERVALS)."""
    return "t" if test == "t" else "bootstrap"


def mean(values) -> float:
    """The mean as trec_eval and rankkit.over_queries take it: the values added one after another in
    the order given, then divided by their count (np.mean adds pairwise: another last bit). NaN when
    there is none."""
    values = np.asarray(values, dtype=float)
    return float(np.cumsum(values)[-1] / len(values)) if len(values) else float("nan")


def differences(x, y) -> np.ndarray:
    d = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
    return np.where(np.abs(d) <= TIE_TOLERANCE, 0.0, d)


def permutation_p(d: np.ndarray, seed: int | None, resamples: int) -> float:
    """Two-sided p-value of the paired randomisation test: under the null every difference is as
    likely positive as negative. Exact (all 2^n sign patterns) when 2^n <= resamples; otherwise
    ``resamples`` random patterns, the observed one counted in, so p >= 1 / (resamples + 1).

    Written by hand because scipy.stats.permutation_test takes seconds for thousands of queries;
    tests/test_compare.py pins it to scipy's paired-samples permutation test.
    """
    d = np.asarray(d, dtype=float)
    n = len(d)
    observed = abs(d.mean())
    threshold = observed - abs(observed) * 1e-14  # scipy's tolerance for null values equal to it
    if n < 63 and 2 ** n <= resamples:
        signs = 1.0 - 2.0 * ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1)
        return float(np.mean(np.abs((signs * d).sum(axis=1)) / n >= threshold))
    rng = np.random.default_rng(seed)
    extreme = 0
    for start in range(0, resamples, _batch(n, resamples)):
        size = min(_batch(n, resamples), resamples - start)
        signs = 1.0 - 2.0 * (rng.random((size, n)) < 0.5)
        # an explicit sum, not BLAS: the same bits whatever the thread count
        extreme += int(np.sum(np.abs((signs * d).sum(axis=1)) / n >= threshold))
    return (extreme + 1) / (resamples + 1)


def bootstrap_ci(values, statistic=np.mean, level: float = 0.95, seed: int | None = 0,
                 resamples: int = 10000) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic`` over queries (NaN with fewer than 2)."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return float("nan"), float("nan")
    low, high, _ = _bootstrap(values, statistic, level, seed, resamples)
    return low, high


def recentred_bootstrap_ci(values, statistic, level: float = 0.95, seed: int | None = 0,
                           resamples: int = 10000) -> tuple[float, float]:
    """The percentile bootstrap interval of ``statistic`` moved by the bootstrap's estimate of its bias (the
    resamples' mean less the value): for a statistic that resampling itself shifts, such as the share of a
    catalog some user was recommended (a resample repeats users and leaves others out, so it covers fewer
    items), it keeps the bootstrap's spread around the value (NaN with fewer than 2)."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return float("nan"), float("nan")
    low, high, distribution = _bootstrap(values, statistic, level, seed, resamples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # every resample without a value: the interval is NaN already
        bias = float(np.nanmean(distribution)) - float(statistic(values))
    return low - bias, high - bias


def correct(p_values, method: str = "holm") -> np.ndarray:
    """p-values adjusted for a family of comparisons; NaN stays NaN and is not counted."""
    if method not in CORRECTIONS:
        raise RankkitError(f"correction must be one of {', '.join(CORRECTIONS)}, got {method!r}")
    p = np.asarray(p_values, dtype=float)
    out = np.full_like(p, np.nan)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if m == 0:
        return out
    q = p[ok]
    if method == "none":
        adjusted = q
    elif method == "bonferroni":
        adjusted = np.minimum(q * m, 1.0)
    elif method == "holm":
        # step-down: the i-th smallest times (m - i), kept monotone (Holm 1979)
        order = np.argsort(q, kind="stable")
        stepped = np.maximum.accumulate(q[order] * (m - np.arange(m)))
        adjusted = np.empty(m)
        adjusted[order] = np.minimum(stepped, 1.0)
    else:
        adjusted = stats.false_discovery_control(q, method="bh")
    out[ok] = adjusted
    return out


def _t(d: np.ndarray, alpha: float) -> tuple[float, float, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant differences: scipy says so, we know
        result = stats.ttest_1samp(d, 0.0)
        interval = result.confidence_interval(1 - alpha)
    return float(interval.low), float(interval.high), float(result.pvalue)


def _wilcoxon(d: np.ndarray) -> float:
    if not np.any(d):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "exact p-value unavailable with ties": scipy falls back
        return float(stats.wilcoxon(d).pvalue)


def _bootstrap(values: np.ndarray, statistic, level: float, seed: int | None,
               resamples: int) -> tuple[float, float, np.ndarray]:
    def vectorised(x, axis=-1):
        return statistic(x, axis=axis)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate (constant) data: the interval is that constant
        result = stats.bootstrap((values,), vectorised, vectorized=True, n_resamples=resamples,
                                 batch=_batch(len(values), resamples), confidence_level=level,
                                 method="percentile", **_rng(seed))
    interval = result.confidence_interval
    return float(interval.low), float(interval.high), result.bootstrap_distribution


def _batch(n: int, resamples: int) -> int:
    return max(1, min(resamples, BATCH_VALUES // max(n, 1)))


def _rng(seed: int | None) -> dict:
    """scipy >= 1.15 names the generator ``rng``; older releases call it ``random_state``."""
    generator = np.random.default_rng(seed)
    if "rng" in inspect.signature(stats.bootstrap).parameters:
        return {"rng": generator}
    return {"random_state": generator}
