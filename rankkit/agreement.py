"""Agreement: do two judgment tables agree on the labels?

The numbers come from the SQL macros of ``sql/60_agreement.sql`` (``rankkit.label_pairs``,
``rankkit.label_agreement``, ``rankkit.label_confusion``); this module reads the inputs with
rankkit's checked readers, runs those macros, and adds bootstrap intervals over queries
(``rankkit.stats``).
"""

from __future__ import annotations

import itertools
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import duckdb
import numpy as np
import pandas as pd

from rankkit import stats
from rankkit._sql import connect
from rankkit.errors import InputError, RankkitError, warn
from rankkit.io import default_connection, is_frame, is_table, load, release
from rankkit.running import run_query

__all__ = ["agreement", "LabelAgreement", "LABEL_MEASURES", "leaderboard_agreement", "LeaderboardAgreement",
           "CORRELATIONS", "overlap", "RankingOverlap", "OVERLAPS", "merge_judgments", "source_shares"]

# The columns of rankkit.label_agreement that are agreement measures, with what each is.
LABEL_MEASURES = {
    "agreement": "share of pairs given the same grade",
    "kappa": "Cohen's kappa, relevant (grade >= threshold) or not",
    "kappa_grades": "Cohen's kappa over the grades, unweighted",
    "kappa_linear": "Cohen's weighted kappa over the grades, linear weights",
    "kappa_quadratic": "Cohen's weighted kappa over the grades, quadratic weights",
    "alpha_ordinal": "Krippendorff's alpha, ordinal",
    "alpha_interval": "Krippendorff's alpha, interval",
}
# The columns of rankkit.rank_correlation that are correlations, with what each is.
CORRELATIONS = {
    "kendall_tau_b": "Kendall's tau-b",
    "tau_ap": "AP rank correlation (Yilmaz, Aslam and Robertson 2008), leaderboard a the reference",
    "spearman": "Spearman's rho",
    "pearson": "Pearson's r",
}
# The level of agreement()'s intervals unless asked otherwise: a report's agreement section names it.
LEVEL = 0.95
_views = itertools.count(1)


@dataclass
class LabelAgreement:
    """What :func:`agreement` found.

    ``aggregate``: one row per measure: ``measure, value`` (over all pairs judged on both sides),
    ``mean`` (of the per-query values, over the queries where the measure is defined),
    ``ci_low, ci_high`` (percentile bootstrap interval of that mean over queries) and ``queries``.
    ``per_query``: ``query_id, pairs, only_a, only_b`` and every measure, one row per query.
    ``confusion``: ``query_id, grade_a, grade_b, pairs`` (``query_id`` None: all queries).
    ``one_sided``: the pairs judged on one side only, ``query_id, doc_id, grade_a, grade_b, side``.
    Each frame's ``attrs`` names the two sides, ``qrels_a`` and ``qrels_b`` (a path or table name
    as given, ``DataFrame``, or ``judge NAME in TABLE`` for one table with a judge column).
    """

    aggregate: pd.DataFrame
    per_query: pd.DataFrame
    confusion: pd.DataFrame
    one_sided: pd.DataFrame
    pairs: int
    only_a: int
    only_b: int


def agreement(qrels_a, qrels_b=None, *, judges: tuple[str, str] | None = None, threshold: float = 1,
              ci: float = LEVEL, seed: int | None = 0, resamples: int = 10000,
              con: duckdb.DuckDBPyConnection | None = None, columns=None) -> LabelAgreement:
    """How well two judgment tables agree on their labels, per query and over all pairs.

    Parameters
    ----------
    qrels_a, qrels_b:
        Two judgment tables, each as :func:`rankkit.evaluate` takes qrels (a path, DataFrame,
        relation or table name), read and checked as it reads them. Or ``qrels_b=None`` and one
        table (DataFrame, relation, table name, CSV or Parquet path) with a ``judge`` column
        holding both judges' labels: its two judges, or the two named by ``judges``.
    judges:
        With one table: the two judges to compare, ``(a, b)``.
    threshold:
        The grade from which a document is relevant, for ``kappa``.
    ci, seed, resamples:
        Level, seed and draws of the bootstrap intervals over queries.
    columns:
        Your column names to rankkit's, as for :func:`rankkit.evaluate` (two tables only).

    Returns
    -------
    LabelAgreement
        Frames ``aggregate``, ``per_query``, ``confusion`` and ``one_sided``, and the counts of
        pairs judged on both sides (``pairs``) and on one side only (``only_a``, ``only_b``).
        Pairs judged on one side only are counted and listed, never dropped silently; the
        measures read the pairs judged on both sides.

    Examples
    --------
    >>> import pandas as pd, rankkit
    >>> a = pd.DataFrame({"query_id": ["q1"] * 4, "doc_id": list("wxyz"), "relevance": [0, 1, 2, 0]})
    >>> b = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": list("wxy"), "relevance": [0, 1, 1]})
    >>> found = rankkit.agreement(a, b)
    >>> found.pairs, found.only_a, round(float(found.aggregate.set_index("measure").value["kappa_linear"]), 4)
    (3, 1, 0.5714)
    """
    _check_level(ci)
    if not np.isfinite(threshold):
        raise RankkitError(f"threshold must be a finite number, got {threshold!r}")
    con = connect(con) if con is not None else default_connection()
    with label_tables(con, qrels_a, qrels_b, judges, columns) as (table_a, table_b, labels):
        arguments = ("?, qrels_b := ?, judges := ?::VARCHAR[], labels := ?::VARCHAR[]",
                     [table_a, table_b, list(judges) if judges else None, labels])
        per_query = run_query(con, f"FROM rankkit.label_agreement({arguments[0]}, threshold := ?)",
                              [*arguments[1], threshold])
        confusion = run_query(con, f"FROM rankkit.label_confusion({arguments[0]})", arguments[1])
        one_sided = run_query(con, f"FROM rankkit.label_pairs({arguments[0]}) WHERE side <> 'both'", arguments[1])
        sides = _judgment_names(con, qrels_a, qrels_b, judges, table_a)
    overall = per_query[per_query.query_id.isna()].iloc[0]
    per_query = per_query[per_query.query_id.notna()].reset_index(drop=True)
    aggregate = pd.DataFrame([_aggregate_row(measure, overall[measure], per_query[measure], ci, seed, resamples)
                              for measure in LABEL_MEASURES])
    aggregate.attrs.update(threshold=threshold, ci=ci, seed=seed, interval=stats.AGGREGATE_INTERVAL)
    _record(sides, aggregate, per_query, confusion, one_sided)
    return LabelAgreement(aggregate=aggregate, per_query=per_query, confusion=confusion, one_sided=one_sided,
                          pairs=int(overall.pairs), only_a=int(overall.only_a), only_b=int(overall.only_b))


def source_name(source) -> str:
    """What an export calls an input, as a report's record names it: the path or table name as given,
    else its kind (DataFrame, relation)."""
    if isinstance(source, (str, Path)):
        return str(source)
    if is_frame(source):
        return "DataFrame"
    if isinstance(source, duckdb.DuckDBPyRelation):
        return "relation"
    return type(source).__name__


def _judgment_names(con, qrels_a, qrels_b, judges, table: str) -> dict[str, str]:
    """``qrels_a`` and ``qrels_b`` as exports name them; one table's sides are its judges, found as
    rankkit.label_pairs finds them (the judge column's two values in order) unless named."""
    if qrels_b is not None:
        return {"qrels_a": source_name(qrels_a), "qrels_b": source_name(qrels_b)}
    name = source_name(qrels_a)
    if judges is None:
        judges = con.execute("SELECT list(DISTINCT judge::VARCHAR ORDER BY judge::VARCHAR) FROM query_table(?)",
                             [table]).fetchall()[0][0]
        # a is the reference (one_sided's side, the confusion's rows): taken in order, so said
        warn(f"{name}: judges not named: a is judge {judges[0]} and b is judge {judges[1]}, the judge column's "
             f"values in order; name them with judges=({judges[0]!r}, {judges[1]!r}) to choose")
    return {"qrels_a": f"judge {judges[0]} in {name}", "qrels_b": f"judge {judges[1]} in {name}"}


def _record(sides: dict[str, str], *frames: pd.DataFrame) -> None:
    """Name the two sides in each frame's attrs, as compare's frames carry their conventions: a frame
    passed on alone still says what a and b were."""
    for frame in frames:
        frame.attrs.update(sides)


def _aggregate_row(measure: str, pooled, values: pd.Series, ci: float, seed, resamples: int) -> dict:
    defined = values.dropna().to_numpy(dtype=float)
    low, high = stats.bootstrap_ci(defined, np.mean, level=ci, seed=seed, resamples=resamples)
    return {"measure": measure, "value": float(pooled) if pd.notna(pooled) else float("nan"),
            "mean": stats.mean(defined), "ci_low": low, "ci_high": high, "queries": len(defined)}


@contextmanager
def label_tables(con, qrels_a, qrels_b, judges, columns) -> Iterator[tuple[str, str | None, list | None]]:
    """The names of the tables the label macros read and the sides' names for messages: two qrels
    read and checked as evaluate reads them, or one table with a judge column (rankkit's readers
    keep only rankkit's columns)."""
    if qrels_b is None:
        with _raw_table(con, qrels_a, columns, "judge") as (table, label):
            yield table, None, [label]
        return
    if judges is not None:
        raise RankkitError("judges names the two judges of one table with a judge column; "
                           "with two tables, give qrels_b=None or leave judges out")
    with _loaded_pair(con, qrels_a, qrels_b, "qrels", columns, ("qrels_a", "qrels_b")) as (a, b):
        yield a.table, b.table, [a.label, b.label]


@contextmanager
def _loaded_pair(con, first, second, kind: str, columns, sides: tuple[str, str]) -> Iterator[tuple]:
    """Two inputs read and checked as evaluate reads them, both released afterwards (the first too
    when the second fails); a message about either names its side (``sides``) unless a path does."""
    a = load(con, first, kind, columns=columns, label=_side_label(con, first, sides[0]))
    try:
        b = load(con, second, kind, columns=columns, label=_side_label(con, second, sides[1]))
    except BaseException:
        release(con, a)
        raise
    try:
        yield a, b
    finally:
        release(con, b)
        release(con, a)


@contextmanager
def _raw_table(con, source, columns, column: str) -> Iterator[tuple[str, str]]:
    """A table the macros read as it is, with a column (judge, source) rankkit's readers do not keep,
    and what messages call it."""
    if columns:
        raise RankkitError(f"columns applies to plain qrels; rename the columns of a table with a {column} column "
                           f"to query_id, doc_id, relevance and {column}")
    if isinstance(source, str) and is_table(con, source):
        yield source, f"qrels table {source}"
        return
    name = f"rankkit_labels_{next(_views)}"
    if is_frame(source):
        con.register(name, source)
        label = "the qrels DataFrame"
    elif isinstance(source, duckdb.DuckDBPyRelation):
        source.create_view(name, replace=True)
        label = "the qrels relation"
    elif isinstance(source, (str, Path)) and Path(source).is_file():
        con.execute(f"CREATE TEMP VIEW {name} AS FROM '{str(source).replace(chr(39), chr(39) * 2)}'")
        label = str(source)
    else:
        raise InputError(f"qrels: expected a DataFrame, relation, table name or a CSV or Parquet file "
                         f"with a {column} column, got {source!r}")
    try:
        yield name, label
    finally:
        if is_frame(source):
            con.unregister(name)
        else:
            con.execute(f"DROP VIEW IF EXISTS {name}")


def _side_label(con, source, side: str) -> str | None:
    """What messages call one of two inputs: its path, else the side it is (two DataFrames were both
    'the qrels DataFrame')."""
    if isinstance(source, (str, Path)) and not is_table(con, str(source)):
        return None
    if is_frame(source):
        return f"the {side} DataFrame"
    if isinstance(source, duckdb.DuckDBPyRelation):
        return f"the {side} relation"
    return f"{side} (table {source})"


@dataclass
class LeaderboardAgreement:
    """What :func:`leaderboard_agreement` found.

    ``leaderboards``: ``system, value_a, value_b, rank_a, rank_b`` (best first under a).
    ``correlations``: one row over every system (``top`` None) and, with ``top=k``, one over the k
    best systems under a: ``top, systems, kendall_tau_b, tau_ap, spearman, pearson, swaps`` and,
    with ``ci``, each correlation's interval (``kendall_tau_b_low, kendall_tau_b_high`` ...); each
    correlation and interval NaN for two systems.
    ``swaps``: the pairs the two leaderboards order oppositely: ``above_a, below_a`` (a's order),
    their values under a and b, and the paired test under a of the two systems (``p_value,
    p_adjusted, significant``), as :func:`rankkit.compare` computes it over every pair.
    Each frame's ``attrs`` names the judgment tables (``qrels_a``, ``qrels_b``) and the ``measure``.
    """

    measure: str
    leaderboards: pd.DataFrame
    correlations: pd.DataFrame
    swaps: pd.DataFrame


def _check_level(ci: float) -> None:
    if not 0 < ci < 1:
        raise RankkitError(f"ci must be between 0 and 1, got {ci!r}")


def leaderboard_agreement(qrels_a, qrels_b, runs, measure: str, *, top: int | None = None, test: str = "t",
                          correction: str = "holm", alpha: float = 0.05, ci: float | None = None,
                          seed: int | None = 0, resamples: int = 10000,
                          con: duckdb.DuckDBPyConnection | None = None,
                          conventions=None, columns=None) -> LeaderboardAgreement:
    """Do two judgment tables rank the systems alike? Every run is evaluated under ``qrels_a`` and
    under ``qrels_b`` by :func:`rankkit.evaluate`, then the two leaderboards are compared in SQL
    (``rankkit.rank_correlation``, ``rankkit.system_swaps``). Higher values rank first (a measure where
    higher is not better, its file's ``better:``, is refused by name); ``qrels_a`` is the reference
    (tau_AP, the top k and the significance of the swaps read it).

    Parameters
    ----------
    qrels_a, qrels_b:
        The two judgment tables, as :func:`rankkit.evaluate` takes qrels.
    runs:
        Two systems or more: a list or dict of runs, or one table with a ``system`` column, as
        :func:`rankkit.compare` takes them. Rank correlations need three: with two, the leaderboards
        and their swap are compared and each correlation is NaN (with a warning saying so).
    measure:
        One measure name (``"nDCG@10"``).
    top:
        Also compare the two leaderboards among the ``top`` best systems under ``qrels_a``.
    test, correction, alpha, seed, resamples:
        The paired test under ``qrels_a`` that says which swaps were significant, as for
        :func:`rankkit.compare` (the family is every pair of systems).
    ci:
        With ``ci=0.95``, each correlation's percentile bootstrap interval over queries: the queries
        evaluated under ``qrels_a`` (sorted by id) drawn ``resamples`` times with replacement
        (``numpy.random.default_rng(seed).multinomial(n, [1 / n] * n, size=resamples)``), both
        leaderboards made again from each draw's per-query values (a system's mean, or sum for a
        count, over the queries drawn), and the correlations computed in SQL for each
        (``rankkit.sample_correlations``). A geometric mean (gm_map, gm_bpref) is made again as the
        engine makes it, exp of the mean of each drawn query's ``rankkit.geometric_term``.
    conventions, columns:
        As for :func:`rankkit.evaluate`, the same for both judgment tables.

    Returns
    -------
    LeaderboardAgreement
        Frames ``leaderboards``, ``correlations`` and ``swaps``.
    """
    from rankkit.compare import check_options, compare
    from rankkit.evaluate import evaluate

    if not isinstance(measure, str):
        raise RankkitError(f"measure: one measure name, got {measure!r}")
    # every option before any input is read, as the command line checks them
    if ci is not None:
        _check_level(ci)
    check_options(test, correction, alpha)
    con = connect(con) if con is not None else default_connection()
    refuse_board_measure(con, measure)
    boards = None
    for side, qrels in (("a", qrels_a), ("b", qrels_b)):
        found = evaluate(qrels, runs, measure, con=con, conventions=conventions, columns=columns)
        if found.measure.nunique() != 1:
            raise RankkitError(f"measure: one measure, got {', '.join(found.measure.unique())}")
        found = found[["system", "value"]].rename(columns={"value": f"value_{side}"})
        boards = found if boards is None else boards.merge(found, on="system", how="outer")
    name = f"rankkit_boards_{next(_views)}"
    con.register(name, boards)
    try:
        leaderboards = run_query(con, f"FROM rankkit.leaderboards('{name}')", [])
        swaps = run_query(con, f"FROM rankkit.system_swaps('{name}')", [])
        correlations = _correlations(con, name, leaderboards, swaps, [None] if top is None else [None, top])
    finally:
        con.unregister(name)
    if ci is not None and len(leaderboards) < 3:
        correlations = correlations.assign(**{f"{name}_{end}": np.nan for name in CORRELATIONS for end in ("low", "high")})
    elif ci is not None:
        intervals = _correlation_intervals(con, qrels_a, qrels_b, runs, measure, top, ci=ci, seed=seed,
                                           resamples=resamples, conventions=conventions, columns=columns)
        correlations = correlations.merge(intervals, on="top", how="left")
    tested = compare(qrels_a, runs, measure, test=test, correction=correction, alpha=alpha, seed=seed,
                     resamples=resamples, con=con, conventions=conventions, columns=columns)
    swaps = swaps.merge(_pair_tests(tested), on=["above_a", "below_a"], how="left")
    swaps.attrs.update(test=test, correction=correction, alpha=alpha, seed=seed)
    _record({"qrels_a": source_name(qrels_a), "qrels_b": source_name(qrels_b), "measure": measure},
            leaderboards, correlations, swaps)
    return LeaderboardAgreement(measure=measure, leaderboards=leaderboards, correlations=correlations, swaps=swaps)


def _correlations(con, boards: str, leaderboards: pd.DataFrame, swaps: pd.DataFrame, tops: list) -> pd.DataFrame:
    """rankkit.rank_correlation over every system and among the top k. Two systems have what their
    leaderboards give (the systems and whether they swap) and no rank correlation: any of two is 1 or
    -1, the swap again; theirs are NaN, and said why."""
    if len(leaderboards) >= 3:
        return pd.concat([run_query(con, f"SELECT ?::BIGINT AS top, * FROM rankkit.rank_correlation('{boards}', top := ?)",
                                    [k, k]) for k in tops], ignore_index=True)
    warn(f"rank correlations need 3 systems or more, got {len(leaderboards)} ({', '.join(sorted(leaderboards.system))}): "
         f"the two leaderboards and their swap are compared, with no correlation (NaN)")
    rows = []
    for k in tops:
        kept = set(leaderboards.system[leaderboards.rank_a <= (k or len(leaderboards))])
        rows.append({"top": k, "systems": len(kept), **{name: np.nan for name in CORRELATIONS},
                     "swaps": int(sum(above in kept and below in kept for above, below in zip(swaps.above_a, swaps.below_a)))})
    frame = pd.DataFrame(rows)
    frame["top"] = frame["top"].astype("Int64")
    return frame


def refuse_board_measure(con, measure: str) -> None:
    """A measure the leaderboards cannot be compared under, refused naming why: a diversity measure reads
    subtopic judgments, neither of the tables compared (both leaderboards would be the same one: tau 1
    said of nothing), and one where higher is not better (FallOut, unj: its file's better:) would stand
    the leaderboards on their heads. An unknown name is refused here as evaluate refuses it."""
    from rankkit.specs import measure_specs
    from rankkit.measures import needs_subtopics, registry

    specs = measure_specs(con, [measure])
    if any(needs_subtopics(spec["metric"]) for spec in specs):
        raise RankkitError(f"measure: {measure} reads subtopic judgments, not the two judgment tables compared; "
                           f"compare the leaderboards under a measure over qrels (nDCG@10, AP, ...)")
    # the leaderboards rank the highest first (sql/62_leaderboards.sql): tau_AP and the top k read that order
    ways = {registry()[spec["metric"]].better for spec in specs} - {"higher"}
    if ways:
        why = "lower is better" if "lower" in ways else "neither higher nor lower is better"
        raise RankkitError(f"measure: the leaderboards rank the highest value first, and under {measure} {why}; "
                           f"compare them under a measure where higher is better (nDCG@10, AP, ...; rankkit report "
                           f"--second-qrels: the first -m)")


def _combined(agg: str, value: str) -> str:
    """A system's value over the queries of one draw, each query counted as often as it was drawn (weight),
    as evaluate aggregates a measure (rankkit.query_term, rankkit.combined). A query without a value
    (empty := 'skip') counts in no mean."""
    return (f"rankkit.combined('{agg}', sum(weight * rankkit.query_term('{agg}', {value})), "
            f"sum(weight) FILTER (WHERE {value} IS NOT NULL))")


def _correlation_intervals(con, qrels_a, qrels_b, runs, measure: str, top, *, ci: float, seed, resamples: int,
                           conventions, columns) -> pd.DataFrame:
    """The percentile bootstrap interval of each correlation over queries (see leaderboard_agreement)."""
    from rankkit.evaluate import evaluate
    from rankkit.specs import measure_specs

    _check_level(ci)
    aggregate = measure_specs(con, [measure])[0]["agg"]  # a text measure (runid) was refused by the leaderboards
    values = None
    for side, qrels in (("a", qrels_a), ("b", qrels_b)):
        found = evaluate(qrels, runs, measure, per_query=True, con=con, conventions=conventions, columns=columns)
        found = found[["system", "query_id", "value"]].rename(columns={"value": f"value_{side}"})
        values = found if values is None else values.merge(found, on=["system", "query_id"], how="outer")
    queries = sorted(values.loc[values.value_a.notna(), "query_id"].unique())
    counts = np.random.default_rng(seed).multinomial(len(queries), [1 / len(queries)] * len(queries), size=resamples)
    drawn = pd.DataFrame({"sample": np.repeat(np.arange(resamples), len(queries)),
                          "query_id": np.tile(np.asarray(queries, dtype=object), resamples),
                          "weight": counts.ravel()})
    names = f"rankkit_draws_{next(_views)}", f"rankkit_values_{next(_views)}"
    con.register(names[0], drawn[drawn.weight > 0])
    con.register(names[1], values)
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {names[0]}_boards AS "
                    f"SELECT sample, system, {_combined(aggregate, 'value_a')} AS value_a, {_combined(aggregate, 'value_b')} AS value_b "
                    f"FROM {names[0]} JOIN {names[1]} USING (query_id) GROUP BY sample, system")
        rows = []
        for k in [None] if top is None else [None, top]:
            found = run_query(con, f"FROM rankkit.sample_correlations('{names[0]}_boards', top := ?)", [k])
            row = {"top": k}
            for name in CORRELATIONS:
                drawn_values = found[name].to_numpy(dtype=float)
                drawn_values = drawn_values[~np.isnan(drawn_values)]
                low, high = (np.percentile(drawn_values, [50 * (1 - ci), 50 * (1 + ci)]) if len(drawn_values)
                             else (np.nan, np.nan))
                row.update({f"{name}_low": float(low), f"{name}_high": float(high)})
            rows.append(row)
    finally:
        con.execute(f"DROP TABLE IF EXISTS {names[0]}_boards")
        con.unregister(names[0])
        con.unregister(names[1])
    frame = pd.DataFrame(rows)
    frame["top"] = frame["top"].astype("Int64")
    return frame


def _pair_tests(tested: pd.DataFrame) -> pd.DataFrame:
    """compare()'s p-values for each unordered pair, under both orders of its names."""
    tests = tested[["system", "baseline", "p_value", "p_adjusted", "significant"]]
    both = pd.concat([tests.rename(columns={"system": "above_a", "baseline": "below_a"}),
                      tests.rename(columns={"system": "below_a", "baseline": "above_a"})], ignore_index=True)
    return both


# The columns of rankkit.overlap that are similarities, with what each is.
OVERLAPS = {
    "overlap_at_k": "documents in both top k, over k",
    "jaccard_at_k": "documents in both top k, over the documents in either",
    "rbo_min": "rank-biased overlap, lower bound",
    "rbo_max": "rank-biased overlap, upper bound",
    "rbo_res": "rank-biased overlap, residual (max - min)",
    "rbo_ext": "rank-biased overlap, extrapolated",
}


@dataclass
class RankingOverlap:
    """What :func:`overlap` found.

    ``per_query``: ``query_id, length_a, length_b`` and every measure of OVERLAPS, for each query
    both runs rank documents for. ``aggregate``: ``measure, mean, ci_low, ci_high, queries`` (the
    mean over those queries, its percentile bootstrap interval). ``one_sided``: the queries only
    one run ranks documents for (``query_id, length_a, length_b, side``), left out of the means.
    Each frame's ``attrs`` names the two runs, ``run_a`` and ``run_b``.
    """

    aggregate: pd.DataFrame
    per_query: pd.DataFrame
    one_sided: pd.DataFrame


def overlap(run_a, run_b, *, p: float = 0.9, k: int = 10, depth: int | None = None, ties: str = "trec",
            ci: float = 0.95, seed: int | None = 0, resamples: int = 10000,
            con: duckdb.DuckDBPyConnection | None = None, columns=None) -> RankingOverlap:
    """How alike two rankings of the same queries are: rank-biased overlap (min, max, residual,
    extrapolated; Webber, Moffat and Zobel 2010; with ties as Corsi and Urbano 2024), overlap@k and
    Jaccard@k, per query and averaged, computed by SQL's ``rankkit.overlap``.

    Parameters
    ----------
    run_a, run_b:
        Two runs of one system each, as :func:`rankkit.evaluate` takes a run.
    p:
        RBO's persistence, between 0 and 1: the chance of reading on after each rank.
    k:
        The cutoff of overlap@k and Jaccard@k.
    depth, ties:
        Documents kept per query, and what equal scores are: ordered by a tie rule (``trec`` or
        ``rank``, as for :func:`rankkit.evaluate`), or tied, RBO then taking them as Corsi and
        Urbano (SIGIR 2024) do: ``w`` (a tie is equality), ``a`` (uncertainty: the mean over the
        orderings of each tie) or ``b`` (``a`` corrected for what the ties hide). The top k of
        overlap@k and Jaccard@k follow the trec rule then.
    ci, seed, resamples:
        The bootstrap interval of each mean over queries.
    """
    _check_level(ci)
    if ties not in ("trec", "rank", "w", "a", "b"):
        raise RankkitError(f"ties must be trec, rank (equal scores ordered by that rule) or w, a, b (left tied: "
                           f"Corsi and Urbano's variants of RBO), got {ties!r}")
    con = connect(con) if con is not None else default_connection()
    with _loaded_pair(con, run_a, run_b, "run", columns, ("run_a", "run_b")) as (a, b):
        arguments = [a.engine, b.engine, ties, depth]
        per_query = run_query(con, "FROM rankkit.overlap(?, ?, ties := ?, depth := ?, p := ?, k := ?)",
                              [*arguments, p, k])
        one_sided = run_query(con, "FROM rankkit.overlap_queries(?, ?, ties := ?, depth := ?) WHERE side <> 'both'",
                              arguments)
    rows = []
    for measure in OVERLAPS:
        values = per_query[measure].dropna().to_numpy(dtype=float)
        low, high = stats.bootstrap_ci(values, np.mean, level=ci, seed=seed, resamples=resamples)
        rows.append({"measure": measure, "mean": stats.mean(values), "ci_low": low, "ci_high": high,
                     "queries": len(values)})
    aggregate = pd.DataFrame(rows)
    aggregate.attrs.update(p=p, k=k, ci=ci, seed=seed, interval=stats.AGGREGATE_INTERVAL)
    _record({"run_a": source_name(run_a), "run_b": source_name(run_b)}, aggregate, per_query, one_sided)
    return RankingOverlap(aggregate=aggregate, per_query=per_query, one_sided=one_sided)


def merge_judgments(qrels, precedence, *, con: duckdb.DuckDBPyConnection | None = None) -> pd.DataFrame:
    """One judgment table from a mixed one: ``qrels`` (a DataFrame, relation, table name, CSV or
    Parquet file) has a ``source`` column saying who gave each label; per query and document the
    label of the source first in ``precedence`` is kept (``["human", "llm"]``: a human label wins
    where both exist), by SQL's ``rankkit.merged_qrels``.

    Returns ``query_id, doc_id, relevance, source, labels`` (how many sources labelled the
    document) and ``disagree`` (whether another source gave another grade). A source missing from
    ``precedence``, or a document one source labels twice, is refused by name.
    """
    if isinstance(precedence, str) or not precedence:
        raise RankkitError(f"precedence: the sources in the order their labels win, e.g. ['human', 'llm'], got {precedence!r}")
    con = connect(con) if con is not None else default_connection()
    with _raw_table(con, qrels, None, "source") as (table, label):
        return run_query(con, "FROM rankkit.merged_qrels(?, ?::VARCHAR[], label := ?)", [table, list(precedence), label])


def source_shares(qrels, run, precedence, *, k: int = 10, con: duckdb.DuckDBPyConnection | None = None,
                  conventions=None) -> pd.DataFrame:
    """Per system, query and source of a mixed judgment table (see :func:`merge_judgments`): the
    share of the top ``k`` judged by that source (``judged_at_k``, rankkit's Judged@k against that
    source's labels) and how much of the query's DCG@k came from its labels (``gain``, DCG@k
    against that source's labels alone, and ``gain_share``, over DCG@k against the merged table;
    NaN where that is 0). DCG adds up document by document, so the sources' gains sum to the
    whole. Every number is :func:`rankkit.evaluate`'s.

    Returns ``system, query_id, source, judged_at_k, gain, gain_share``, the queries those of the
    merged table that the run ranks documents for.
    """
    import warnings

    from rankkit.errors import RankkitWarning
    from rankkit.evaluate import evaluate

    con = connect(con) if con is not None else default_connection()
    merged = merge_judgments(qrels, precedence, con=con)
    plain = merged[["query_id", "doc_id", "relevance"]]
    total = evaluate(plain, run, f"DCG@{k}", per_query=True, con=con, conventions=conventions)
    keys = total[["system", "query_id"]].assign(total=total.value.to_numpy())
    parts = []
    for source in precedence:
        part = plain[merged.source.to_numpy() == source]
        shares = keys.assign(source=source, judged_at_k=0.0, gain=0.0)
        if len(part):
            with warnings.catch_warnings():
                # one source's labels cover some queries only: the queries they miss score 0 below
                warnings.simplefilter("ignore", RankkitWarning)
                found = evaluate(part, run, [f"Judged@{k}", f"DCG@{k}"], per_query=True, con=con,
                                 conventions=conventions)
            shares = keys.assign(source=source)
            for measure, name in ((f"Judged@{k}", "judged_at_k"), (f"DCG@{k}", "gain")):
                values = found[found.measure == measure][["system", "query_id", "value"]].rename(columns={"value": name})
                shares = shares.merge(values, on=["system", "query_id"], how="left")  # a run without systems: None keys match
            shares = shares.fillna({"judged_at_k": 0.0, "gain": 0.0})
        parts.append(shares)
    frame = pd.concat(parts, ignore_index=True)
    frame["gain_share"] = np.where(frame.total != 0, frame.gain / frame.total.where(frame.total != 0), np.nan)
    return frame[["system", "query_id", "source", "judged_at_k", "gain", "gain_share"]].sort_values(
        ["system", "query_id", "source"], kind="stable", key=lambda column: column if column.name != "source" else
        column.map({name: i for i, name in enumerate(precedence)})).reset_index(drop=True)
