"""compare(): two or more systems, measure by measure, with paired tests over queries.

The per-query values come from the SQL macros (``rankkit.per_query``, ``rankkit.per_query_by`` for
slices) in one query over every system; ``rankkit.stats`` does the statistics on the paired vectors.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
from dataclasses import asdict, fields
from typing import IO, Iterable, Mapping

import duckdb
import numpy as np
import pandas as pd

from rankkit import stats
from rankkit._sql import connect
from rankkit.beyond import spec, split
from rankkit.conventions import Conventions, asked_conventions, resolve_conventions
from rankkit.errors import InputError, RankkitError, warn
from rankkit.input_checks import compare_inputs
from rankkit.inputs import checked_sources
from rankkit.io import default_connection
from rankkit.running import run_query
from rankkit.safe import csv as safe_csv
from rankkit.safe.terminal import visible
from rankkit.slices import slice_source
from rankkit.spark_values import per_query_values
from rankkit.specs import directions, measure_specs, packed
from rankkit.statement import evaluation_query

__all__ = ["compare", "compare_values", "format_comparison", "format_p", "write_comparison", "OUTPUTS"]

COLUMNS = ["measure", "system", "baseline", "mean", "baseline_mean", "diff", "ci_low", "ci_high", "effect",
           "p_value", "p_adjusted", "significant", "wins", "ties", "losses", "queries"]
# What the numbers depend on besides the inputs (the frame's attrs), as write_comparison names them;
# the conventions follow, in CSV as conventions.<name> (pandas.json_normalize's name for the JSON's)
SETTINGS = ["test", "correction", "alpha", "interval", "seed", "resamples"]
CONVENTIONS = [f"conventions.{field.name}" for field in fields(Conventions)]
# write_comparison's formats, by the suffix of the file they are written to
OUTPUTS = {".txt": "text", ".csv": "csv", ".tsv": "tsv", ".json": "json"}


def compare(qrels=None, runs=None, measures: str | Iterable[str] | None = None, baseline: str | None = None, *,
            test: str = "t", correction: str = "holm", alpha: float = 0.05, seed: int | None = 0,
            resamples: int = 10000, by: str | None = None, query_table=None,
            con: duckdb.DuckDBPyConnection | None = None, rel: float = 1, ties: str = "trec",
            scores: str = "double", depth: int | None = None, queries: str = "both", columns=None,
            split_by_tag: bool = False, conventions: Conventions | str | None = None, values=None, items=None,
            interactions=None) -> pd.DataFrame:
    """Compare systems measure by measure: means, paired differences, intervals and p-values.

    Parameters
    ----------
    qrels:
        As for :func:`rankkit.evaluate`.
    runs:
        A dict ``{name: run}`` (each a path, DataFrame, relation or table name), a list of runs
        (files named by their stem, made unique when stems collide), or one run table whose
        ``system`` column holds two or more systems: the systems are what :func:`rankkit.evaluate`
        makes of the same input (a TREC run file is one run unless ``split_by_tag=True``).
    measures:
        Measure names, as for :func:`rankkit.evaluate`.
    baseline:
        The system every other one is compared with; ``None`` compares every pair (the earlier
        system, in the order given or by name for one table, is the baseline of its pair).
    test:
        ``"t"`` (paired t-test), ``"wilcoxon"`` (signed-rank), ``"permutation"`` (paired
        randomisation: signs of the differences flipped; exact when ``2**queries <= resamples``)
        or ``"bootstrap"`` (paired bootstrap, shifted to the null).
    correction:
        ``"holm"``, ``"bonferroni"``, ``"bh"`` (Benjamini-Hochberg) or ``"none"``. The family is
        every comparison of one measure (every pair, and every slice with ``by``).
    alpha:
        Significance level; intervals are at confidence ``1 - alpha``.
    seed, resamples:
        The randomised tests and bootstrap intervals draw ``resamples`` times from
        ``numpy.random.default_rng(seed)``: one seed, the same numbers to the bit.
    by, query_table:
        Compare within slices: ``query_table`` (path, DataFrame, relation or table name) has
        ``query_id`` and an attribute column named by ``by``; the result gets a column ``by``.
    rel, ties, scores, depth, queries, columns, split_by_tag, conventions:
        As for :func:`rankkit.evaluate`.
    values:
        Per-query values computed elsewhere, in place of ``qrels`` and ``runs``: a Spark DataFrame
        from ``rankkit.spark.evaluate(..., per_query=True)`` (or a list of them), compared as they
        are (``measures``, if given, picks some); the conventions they carry must be the call's.
    items, interactions:
        The side tables of the per-user beyond-accuracy measures (``Novelty@k``, ``ARP@k``,
        ``TailShare@k``, ``ILD@k``), as for :func:`rankkit.evaluate`: compared user by user like any
        measure. The system-level ones (Coverage, Entropy, Gini) have one value per system, no pairs:
        refused.

    Returns
    -------
    pandas.DataFrame
        One row per measure (per slice) and pair: ``measure, [by,] system, baseline, mean,
        baseline_mean, diff`` (mean of system minus baseline per query), ``ci_low, ci_high``
        (interval of ``diff``: Student's t for the t-test, percentile bootstrap otherwise),
        ``effect`` (Cohen's d_z), ``p_value, p_adjusted, significant`` (``p_adjusted < alpha``),
        ``wins, ties, losses`` (queries where system is better than, equal to, worse than the baseline:
        above it, or below where lower is better, FallOut's or Gini's ``better: lower``; above it where
        neither way is, ``better: none``; ``attrs["better"]`` names both kinds) and
        ``queries`` (paired queries). ``frame.attrs`` names the test, correction, alpha, seed and
        ``interval`` (``"t"`` or ``"bootstrap"``: the difference's, unlike evaluate's ``ci``, which is
        always the percentile bootstrap of the aggregate) and the ``conventions``
        (:meth:`rankkit.Conventions.as_dict`); :func:`write_comparison` writes it all as text, CSV or JSON.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit.compare import compare
    >>> qrels = pd.DataFrame({"query_id": ["1", "2", "3"], "doc_id": ["a", "a", "a"], "relevance": [1, 1, 1]})
    >>> run = pd.DataFrame({"system": ["x"] * 6 + ["y"] * 6, "query_id": ["1", "1", "2", "2", "3", "3"] * 2,
    ...                     "doc_id": ["a", "b"] * 6, "score": [2.0, 1.0] * 3 + [1.0, 2.0] * 3})
    >>> result = compare(qrels, run, "RR", baseline="y")
    >>> result[["system", "baseline", "mean", "baseline_mean", "diff", "wins", "losses"]].to_dict("records")
    [{'system': 'x', 'baseline': 'y', 'mean': 1.0, 'baseline_mean': 0.5, 'diff': 0.5, 'wins': 3, 'losses': 0}]
    """
    check_options(test, correction, alpha)
    if values is not None:
        if qrels is not None or runs is not None or by is not None:
            raise RankkitError("compare: give qrels and runs, or values= (per-query values already computed), "
                               "not both; slices (by=) need the inputs")
        return _compare_given(values, measures, baseline, asked_conventions(
            conventions, rel=rel, ties=ties, scores=scores, depth=depth, queries=queries), test=test,
            correction=correction, alpha=alpha, seed=seed, resamples=resamples)
    if qrels is None or runs is None or measures is None:
        raise RankkitError("compare needs qrels, runs and measures (or values=, per-query values already computed)")
    if by in COLUMNS + SETTINGS + CONVENTIONS:  # the result's and its CSV's columns
        raise InputError(f"by: the attribute column cannot be called {by!r}; rename it in the query table")
    conventions = resolve_conventions(conventions, rel=rel, ties=ties, scores=scores, depth=depth, queries=queries)
    con = connect(con) if con is not None else default_connection()
    measures, beyond = split(measures, rel=conventions.rel, pack=conventions.pack)  # parsed once, for the composer too
    if beyond:
        return _with_beyond(qrels, runs, measures, beyond, baseline, con=con, items=items, interactions=interactions,
                            conventions=conventions, columns=columns, split_by_tag=split_by_tag, by=by,
                            query_table=query_table, test=test, correction=correction, alpha=alpha, seed=seed,
                            resamples=resamples)
    specs = packed(measure_specs(con, measures, rel=conventions.rel), conventions.pack)
    with checked_sources(con, qrels, runs, columns, conventions.duplicates, None, split_by_tag) as (qrels_source,
                                                                                                   run_source):
        compare_inputs(con, qrels_source, run_source, specs, queries=conventions.queries, ties=conventions.ties)
        slices = slice_source(con, query_table, by, columns) if by is not None or query_table is not None else None
        query, inputs = evaluation_query(qrels_source, run_source, specs, True, slices, conventions)
        values = run_query(con, query, inputs)
    systems = [system for system in run_source.systems if system is not None]
    frame = compare_values(values, systems, baseline, test=test, correction=correction, alpha=alpha, seed=seed,
                           resamples=resamples, by=by if slices else None, better=directions(specs))
    frame.attrs["conventions"] = conventions.as_dict()
    return frame


def _with_beyond(qrels, runs, others: list[str], beyond: list[str], baseline, *, con, items, interactions,
                 conventions: Conventions, columns, split_by_tag, by, query_table, **options) -> pd.DataFrame:
    """compare() with per-user beyond-accuracy measures: the per-query values of evaluate() (which
    computes both kinds on one reading of the runs), compared as any."""
    from rankkit.evaluate import evaluate

    system_level = [name for name in beyond if spec(name)["level"] == "system"]
    if system_level:
        raise RankkitError(f"{system_level[0]} is one value per system: there are no per-user pairs to compare "
                           f"(the per-user ones are Novelty, ARP, TailShare and ILD)")
    if by is not None or query_table is not None:
        raise RankkitError(f"{beyond[0]}: the beyond-accuracy measures are not compared by slice (by=) yet")
    values = evaluate(qrels, runs, others + beyond, per_query=True, con=con, conventions=conventions,
                      columns=columns, split_by_tag=split_by_tag, items=items, interactions=interactions)
    values["i"] = values.groupby("measure", sort=False).ngroup()
    systems = [system for system in dict.fromkeys(values["system"]) if system is not None and system == system]
    frame = compare_values(values, systems, baseline, better=directions(
        measure_specs(con, others, rel=conventions.rel) if others else [], beyond), **options)
    frame.attrs["conventions"] = conventions.as_dict()
    return frame


def _compare_given(values, measures, baseline: str | None, conventions: Conventions | None, **options) -> pd.DataFrame:
    """compare() of per-query values computed by Spark: the measures asked (default: every one given)."""
    found, conventions = per_query_values(values, conventions)
    if measures is not None:
        found = picked(found, [spec["measure"] for spec in measure_specs(default_connection(), measures,
                                                                         rel=conventions.rel)])
    systems = list(dict.fromkeys(found["system"].dropna()))
    frame = compare_values(found, systems, baseline, better=directions([], list(dict.fromkeys(found["measure"]))),
                           **options)
    frame.attrs["conventions"] = conventions.as_dict()
    return frame


def picked(values: pd.DataFrame, names: list[str]) -> pd.DataFrame:
    """The per-query values of the measures named, in that order; a measure absent is an error."""
    missing = [name for name in names if name not in set(values["measure"])]
    if missing:
        raise RankkitError(f"values: no per-query values of {', '.join(missing)} (they hold "
                           f"{', '.join(dict.fromkeys(values['measure']))}); evaluate them too")
    order = {name: i for i, name in enumerate(names, 1)}
    kept = values[values["measure"].isin(order)]
    return kept.assign(i=kept["measure"].map(order)).sort_values("i", kind="stable").reset_index(drop=True)


def check_options(test: str, correction: str, alpha: float) -> None:
    """Refuse a bad test, correction or alpha before any input is read."""
    stats.paired_test([0.0, 0.0], [0.0, 0.0], test, alpha=alpha)
    stats.correct([], correction)


def compare_values(values: pd.DataFrame, systems: list[str], baseline: str | None, *, test: str, correction: str,
                   alpha: float, seed: int | None, resamples: int, by: str | None = None,
                   better: Mapping[str, str] | None = None) -> pd.DataFrame:
    """compare() on per-query values already computed (``i, measure, system, query_id, value`` and
    ``slice`` with ``by``), as ``rankkit.per_query`` returns them; ``better``: which way each measure is
    better (rankkit.measures.directions; higher when not given): where lower is, a query the system
    is below the baseline is a win."""
    slices, better = by is not None, better or {}
    pairs = _pairs(systems, baseline)
    rows = []
    group_keys = ["i", "measure"] + (["slice"] if slices else [])
    for key, group in values.groupby(group_keys, sort=True, dropna=False):
        table = group.pivot(index="query_id", columns="system", values="value")
        for base, other in pairs:
            row = _compare_pair(dict(zip(group_keys, key)), table, other, base, test, alpha, seed, resamples)
            if better.get(row["measure"]) == "lower":
                row["wins"], row["losses"] = row["losses"], row["wins"]
            rows.append(row)
    frame = pd.DataFrame(rows)
    frame["p_adjusted"] = np.nan
    for _, index in frame.groupby("i").groups.items():
        frame.loc[index, "p_adjusted"] = stats.correct(frame.loc[index, "p_value"], correction)
    frame["significant"] = frame["p_adjusted"] < alpha
    frame = frame.sort_values(["i"], kind="stable")
    if slices:
        frame = frame.rename(columns={"slice": by})
    frame = frame[COLUMNS[:1] + ([by] if slices else []) + COLUMNS[1:]].reset_index(drop=True)
    # ci_low, ci_high are the difference's interval, which follows the test: attrs names it
    frame.attrs.update(test=test, correction=correction, alpha=alpha, seed=seed, resamples=resamples,
                       interval=stats.difference_interval(test),
                       better={name: way for name, way in better.items() if name in set(frame["measure"])})
    return frame


def _compare_pair(key: dict, table: pd.DataFrame, system: str, baseline: str, test: str, alpha: float,
                  seed: int | None, resamples: int) -> dict:
    for name in (system, baseline):
        if name not in table.columns:
            table[name] = np.nan
    paired = table[[system, baseline]].dropna()
    missing = int(table[[system, baseline]].isna().any(axis=1).sum() - table[[system, baseline]].isna().all(axis=1).sum())
    if missing:
        warn(f"{key['measure']}: {missing} queries are evaluated for only one of {system} and {baseline} "
             f"and are left out of their comparison; queries='qrels' scores missing queries 0")
    result = stats.paired_test(paired[system], paired[baseline], test, alpha=alpha, seed=seed, resamples=resamples)
    return {**key, "system": system, "baseline": baseline,
            "mean": stats.mean(paired[system]), "baseline_mean": stats.mean(paired[baseline]),
            **asdict(result)}


def _pairs(systems: list[str], baseline: str | None) -> list[tuple[str, str]]:
    if len(systems) < 2:
        raise InputError(f"compare needs two or more systems, got {len(systems)}: {', '.join(map(str, systems))}")
    if baseline is None:
        return list(itertools.combinations(systems, 2))
    if baseline not in systems:
        raise InputError(f"baseline {baseline!r} is not one of the systems: {', '.join(systems)}")
    return [(baseline, other) for other in systems if other != baseline]


def format_comparison(frame: pd.DataFrame, digits: int = 4) -> str:
    """A plain-text table of a compare() result, significance marks and the test named under it.

    ``*``: significant after the correction (p_adjusted < alpha); ``†``: p_value < alpha before
    the correction only.
    """
    if frame.empty:
        raise RankkitError("nothing to show: the comparison is empty")
    alpha = frame.attrs.get("alpha", 0.05)
    level = round(100 * (1 - alpha), 6)
    slice_column = [c for c in frame.columns if c not in COLUMNS]
    header = ["measure", *map(visible, slice_column), "system", "mean", "baseline", "base mean", "diff", f"diff {level:g}% CI",
              "p", "p adj", "W/T/L"]
    lines = []
    for row in frame.itertuples(index=False):
        record = row._asdict()
        mark = "*" if record["p_adjusted"] < alpha else ("†" if record["p_value"] < alpha else "")
        # names and slice values written visibly (rankkit.safe.terminal): each row stays one line
        lines.append([visible(record["measure"]), *[visible(record[c]) for c in slice_column], visible(record["system"]),
                      _num(record["mean"], digits), visible(record["baseline"]), _num(record["baseline_mean"], digits),
                      f"{record['diff']:+.{digits}f}{mark}",
                      f"[{_num(record['ci_low'], digits)}, {_num(record['ci_high'], digits)}]",
                      format_p(record["p_value"]), format_p(record["p_adjusted"]),
                      f"{record['wins']}/{record['ties']}/{record['losses']}"])
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *lines)]
    text = ["  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip()
            for line in [header, *lines]]
    test = stats.TESTS.get(frame.attrs.get("test"), frame.attrs.get("test"))
    correction = stats.CORRECTIONS.get(frame.attrs.get("correction"), frame.attrs.get("correction"))
    randomised = frame.attrs.get("test") in ("permutation", "bootstrap")
    seed = f", seed {frame.attrs.get('seed')}, {frame.attrs.get('resamples')} resamples" if randomised else ""
    text.append("")
    text.append(f"test: {test}, two-sided{seed}; correction: {correction} over the comparisons of each measure")
    method = stats.INTERVALS[frame.attrs.get("interval") or stats.difference_interval(frame.attrs.get("test"))]
    text.append(f"diff {level:g}% CI: the {method} of the mean difference (it follows the test)")
    text.append(f"* p adj < {alpha:g} (significant after correction); † p < {alpha:g} before correction only; "
                f"W/T/L: queries where system beats/ties/loses to baseline{wins_note(frame.attrs.get('better') or {})}")
    return "\n".join(text) + "\n"


def wins_note(better: Mapping[str, str]) -> str:
    """What a win is where higher is not better (the compare frame's ``attrs["better"]``), after the W/T/L
    legend: empty where it is better everywhere."""
    lower = [name for name, way in better.items() if way == "lower"]
    neither = [name for name, way in better.items() if way == "none"]
    return ((f" (lower beats higher for {', '.join(lower)})" if lower else "")
            + (f"; for {', '.join(neither)}, where neither way is better: above/equal/below" if neither else ""))


def _num(value: float, digits: int) -> str:
    return "nan" if pd.isna(value) else f"{value:.{digits}f}"


# Below this a p-value is printed as only that: a smaller one is no more significant, and a t-test's
# tail that far out says more about the normal approximation than about the systems.
P_FLOOR = 0.001


def format_p(value: float) -> str:
    """A p-value as every table prints it (compare's text; the report's HTML, Markdown and LaTeX):
    three significant digits (``0.0114``, ``0.500``), and ``< 0.001`` below P_FLOOR; one rule, so
    that a p-value and its adjusted value read alike."""
    if pd.isna(value):
        return "nan"
    return f"< {P_FLOOR:g}" if value < P_FLOOR else f"{value:#.3g}"


def write_comparison(out: IO[str], frame: pd.DataFrame, fmt: str = "text", digits: int | None = None) -> None:
    """A compare() result as ``rankkit compare`` writes it: ``text`` (:func:`format_comparison`, four
    decimals unless ``digits``), or every number at full precision (rounded when ``digits`` is given):

    - ``csv``, ``tsv``: one row per comparison, the frame's columns and ``better`` (higher, lower or none:
      which way its W/T/L count), then :data:`SETTINGS` and the
      conventions as ``conventions.rel`` ...; text cells quoted against spreadsheet formulas
      (rankkit.safe.csv), NaN empty;
    - ``json``: an object of the settings, ``conventions`` (an object) and ``comparisons`` (one
      object per row, the frame's columns and ``better``); numbers are numbers, NaN is null.
    """
    if fmt == "text":
        out.write(format_comparison(frame, 4 if digits is None else digits))
        return
    if fmt not in OUTPUTS.values():
        raise RankkitError(f"format must be one of {', '.join(OUTPUTS.values())}, got {fmt!r}")
    settings = {name: _plain(frame.attrs.get(name), None) for name in SETTINGS}
    conventions = frame.attrs.get("conventions") or {}
    conventions = {name.partition(".")[2]: _plain(conventions.get(name.partition(".")[2]), None) for name in CONVENTIONS}
    # which way each row's W/T/L count (a win under FallOut is a lower value), as the text's note says
    better = frame.attrs.get("better") or {}
    rows = [{**{str(key): _plain(value, digits) for key, value in row.items()},
             "better": better.get(row["measure"], "higher")} for row in frame.to_dict("records")]
    if fmt == "json":
        json.dump({**settings, "conventions": conventions, "comparisons": rows}, out, indent=1, allow_nan=False)
        out.write("\n")
        return
    writer = csv.writer(out, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n")
    writer.writerow(safe_csv.row([*map(str, frame.columns), "better", *SETTINGS, *CONVENTIONS]))
    for row in rows:
        writer.writerow(safe_csv.row([*row.values(), *settings.values(), *conventions.values()]))


def _plain(value, digits: int | None):
    """A value as JSON and CSV carry it: a plain Python number (rounded to ``digits`` if given), a
    missing or non-finite number None (JSON has no NaN or infinity)."""
    if hasattr(value, "item"):  # a numpy scalar
        value = value.item()
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return value if digits is None else round(value, digits)
    return value
