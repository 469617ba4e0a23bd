"""Fusion: several runs made one (RRF, CombSUM and friends). Every score comes from the SQL macro
``rankkit.fuse`` of ``sql/80_fusion.sql``; this module reads the runs with rankkit's checked readers,
pairs the weights with them, and writes the fused run (TREC text, or a typed format by suffix)."""

from __future__ import annotations

import itertools
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Mapping, Sequence

from rankkit import _engine as duckdb

from rankkit._files import named_inputs, refuse_inputs, replacing
from rankkit._sql import connect
from rankkit.errors import InputError, RankkitError
from rankkit.inputs import load_runs, run_files
from rankkit.io import default_connection, release, temp_name
from rankkit.io.files import file_format
from rankkit.running import run_query, run_rows

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["fuse", "fusion_sweep"]

FUSE = ("FROM rankkit.fuse(?, method := ?, k := ?, norm := ?, weights := ?::MAP(VARCHAR, DOUBLE), depth := ?, "
        "label := ?)")


def fuse(runs, method: str = "rrf", k: float = 60, norm: str | None = None,
         weights: Sequence[float] | Mapping[str, float] | None = None, *, depth: int | None = None,
         output: str | Path | None = None, con: duckdb.DuckDBPyConnection | None = None,
         columns: Mapping[str, str | None] | None = None, split_by_tag: bool = False,
         engine: str = "duckdb", master: str = "local[2]"):
    """Fuse several runs into one, by SQL's ``rankkit.fuse`` (methods, normalisations and their
    sources: ``sql/80_fusion.sql``).

    Parameters
    ----------
    runs:
        Two or more runs as :func:`rankkit.evaluate` takes them: a list or dict of runs (paths,
        globs of TREC files, DataFrames, relations, table names), or one table whose ``system``
        column names several. Each is read and checked as ``evaluate`` reads it (a document listed
        twice for a query is refused).
    method:
        ``rrf`` (default), ``isr``, ``combsum``, ``combmnz``, ``combmax``, ``combmin``, ``combmed``,
        ``combanz``, ``wsum``, ``wmnz``, ``borda`` or ``condorcet`` (ranx's names too: ``sum``,
        ``mnz`` ... ``bordafuse``).
    k:
        RRF's constant: each system adds ``w / (k + rank)``, ranks from 1 by trec_eval's tie rule.
    norm:
        How each system's scores are normalised per query before a score method fuses them:
        ``none``, ``min-max`` (the default for the score methods, as ranx's), ``max``, ``sum``,
        ``zmuv``, ``rank``, ``borda`` or ``dbsf``. The rank methods take none.
    weights:
        One weight per run, in the order the runs are given (a list), or ``{system: weight}``
        (a dict, also for one table's systems): wsum and wmnz need them, rrf takes them.
    depth:
        Keep each system's top ``depth`` documents per query before fusing.
    output:
        Write the fused run there instead of returning it: TREC text (``qid Q0 docid rank score
        tag``), or Parquet, CSV, TSV or JSON by the suffix. Never one of the inputs.
    columns, split_by_tag:
        As for :func:`rankkit.evaluate`: your column names, and each tag of a TREC file a system.
    engine, master:
        ``"spark"``: the runs (files or Spark DataFrames) read and fused by Spark, on the active Spark
        session (or one started on ``master``), by the same definitions translated
        (rankkit.spark_fusion); ``borda`` and ``condorcet`` (and the ``borda`` norm) are refused there.

    Returns
    -------
    DataFrame
        ``system, query_id, doc_id, score``, each query's documents best first; ``system`` names
        the method and its arguments (``rrf(k=60)``). Or the path written. With ``engine="spark"``,
        a lazy Spark DataFrame of these columns, in no order (write it to a table, or ``toPandas()``).

    Examples
    --------
    >>> import pandas as pd, rankkit
    >>> bm25 = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b", "c"], "score": [9.0, 7.0, 5.0]})
    >>> dense = pd.DataFrame({"query_id": "q1", "doc_id": ["c", "a"], "score": [0.9, 0.8]})
    >>> fused = rankkit.fuse({"bm25": bm25, "dense": dense})
    >>> [(row.doc_id, round(row.score, 5)) for row in fused.itertuples()]
    [('a', 0.03252), ('c', 0.03227), ('b', 0.01613)]
    """
    if output is not None:
        refuse_inputs([("output", output)], named_inputs(runs=runs))
    con = connect(con) if con is not None else default_connection()
    if engine == "spark":
        return _spark_fuse(con, runs, method, k, norm, weights, depth, output, columns, split_by_tag, master)
    if engine != "duckdb":
        raise RankkitError(f"engine must be duckdb or spark, got {engine!r}")
    with fusion_source(con, runs, columns, split_by_tag) as source:
        arguments = [source.engine, method, _whole(k), norm, paired_weights(weights, runs, source.systems), depth,
                     source.label]
        if output is None:
            return run_query(con, FUSE, arguments)
        return write_run(con, FUSE, arguments, Path(output))


def _spark_fuse(con, runs, method, k, norm, weights, depth, output, columns, split_by_tag, master):
    """fuse on Spark: the arguments checked, the untranslated methods refused, before Spark starts; the
    runs read by Spark, their systems and the weights checked and the fused run named by SQL's own
    rankkit.fuse over one row per system (the same words as on DuckDB), the scores by Spark."""
    import pandas as pd

    from rankkit import spark
    from rankkit import spark_fusion

    k = _whole(k)
    named = run_rows(con, "SELECT rankkit.checked_fusion(?, ?, ?) AS ok, rankkit.fusion_method(?) AS method, "
                          "rankkit.fusion_norm(?, ?) AS norm", [method, k, norm, method, method, norm])[0]
    spark_fusion.refuse_untranslated(named["method"], named["norm"])
    for _, path in named_inputs(runs=runs):  # a missing file said at once, not after Spark's start (seconds)
        file_format(con, path, None, "run")
    session = spark.session(master)
    read = spark_fusion.read(session, runs, columns, split_by_tag)
    paired = paired_weights(weights, runs, read.systems)
    systems = temp_name("fused_systems")
    con.register(systems, pd.DataFrame({"system": pd.Series(read.systems, dtype=object), "query_id": "q",
                                        "doc_id": "d", "score": 0.0}))
    try:
        fused = FUSE.replace("?", f"'{systems}'", 1)
        system = run_rows(con, f"SELECT DISTINCT system FROM ({fused})",
                          [method, k, norm, paired, depth, read.label])[0]["system"]
    finally:
        con.unregister(systems)
    view = temp_name("spark_runs")
    read.frame.createOrReplaceTempView(view)
    frame = session.sql(spark_fusion.statement(view, method=named["method"], k=k, norm=named["norm"], weights=paired,
                                               depth=depth, system=system, label=read.label))
    if output is None:
        return frame
    rows = pd.DataFrame([row.asDict() for row in spark.collected(frame)], columns=["system", "query_id", "doc_id",
                                                                                   "score"])
    fused = temp_name("spark_fused")
    con.register(fused, rows)
    try:
        return write_run(con, f"SELECT system, query_id, doc_id, score FROM {fused} "
                              "ORDER BY query_id, score DESC, doc_id DESC", [], Path(output))
    finally:
        con.unregister(fused)


@contextmanager
def fusion_source(con, runs, columns, split_by_tag: bool = False) -> Iterator:
    """The runs read and checked as one source whose ``system`` names each; dropped at the end."""
    source = load_runs(con, runs, columns=columns, split_by_tag=split_by_tag)
    try:
        yield source
    finally:
        release(con, source)


def _whole(k):
    """k as a whole number where it is one: the fused run is named rrf(k=60) for k=60.0 too."""
    if isinstance(k, bool) or not isinstance(k, (int, float)):
        raise RankkitError(f"k must be a number, 0 or more, got {k!r}")
    return int(k) if float(k).is_integer() else k


def paired_weights(weights, runs, systems: list) -> dict | None:
    """The weights as ``{system: weight}``: a dict as given, a list paired with the runs in the order
    given (refused for one table's systems, whose order is its own)."""
    if weights is None or isinstance(weights, Mapping):
        return None if weights is None else {str(name): weight for name, weight in weights.items()}
    if isinstance(weights, str) or not isinstance(weights, Sequence):
        raise RankkitError(f"weights: one number per run (a list) or {{system: weight}} (a dict), got {weights!r}")
    if not isinstance(run_files(runs), (list, tuple, dict)):
        raise RankkitError("weights: a list pairs with runs given as a list; for the systems of one table give "
                           f"{{system: weight}} for each of {', '.join(map(str, systems))}")
    if len(weights) != len(systems):
        raise RankkitError(f"weights: {len(weights)} given for {len(systems)} runs ({', '.join(map(str, systems))}): "
                           "give one per run")
    return dict(zip(systems, weights))


def write_run(con, select: str, params: list, path: Path) -> Path:
    """The fused run written to ``path``: a typed format by its suffix, else TREC text, whose ids
    must be fields of a line (rankkit.safe.trec)."""
    from rankkit.copying import OUTPUT_FORMATS, copy_result

    if path.suffix.lower() in OUTPUT_FORMATS:
        return copy_result(con, select, params, path, False, text=["system", "query_id", "doc_id"])
    from rankkit.safe.trec import sql_unwritable

    table = temp_name("fused")
    run_query(con, f"CREATE TEMP TABLE {table} AS {select}", params, fetch=False)
    try:
        bad = run_rows(con, f"SELECT query_id, doc_id FROM {table} WHERE {sql_unwritable('query_id')} "
                            f"OR {sql_unwritable('doc_id')} LIMIT 1", [])
        if bad:
            raise InputError(f"{path}: query {bad[0]['query_id']!r}, document {bad[0]['doc_id']!r}: an id with "
                             "whitespace or a control character cannot be a field of TREC text; write a .parquet file")
        lines = (f"SELECT query_id, 'Q0', doc_id, row_number() OVER (PARTITION BY query_id ORDER BY score DESC, "
                 f"doc_id DESC), score, system FROM {table} ORDER BY query_id, score DESC, doc_id DESC")
        with replacing(path) as partial:
            target = str(partial).replace("'", "''")
            run_query(con, f"COPY ({lines}) TO '{target}' (FORMAT csv, DELIMITER ' ', HEADER false, QUOTE '')", [],
                      fetch=False)
    finally:
        con.execute(f"DROP TABLE IF EXISTS {table}")
    return path


def fusion_sweep(qrels, runs, measure: str, method: str = "wsum", grid=None, *, step: float = 0.1,
                 norm: str | None = None, depth: int | None = None, test: str = "t", correction: str = "holm",
                 alpha: float = 0.05, ci: float = 0.95, seed: int | None = 0, resamples: int = 10000,
                 holdout: float | None = None, con: duckdb.DuckDBPyConnection | None = None,
                 columns=None) -> pd.DataFrame:
    """Fuse at every point of a grid and judge the points: is the best one better than its
    neighbours and than the best single run, or just the luckiest?

    Every point is fused by SQL's ``rankkit.fuse_grid`` in one statement (the runs ranked and
    normalised once) and evaluated with the single runs by :func:`rankkit.evaluate` in one more. For
    a measure at a cutoff k that reads only the top k ranks (nDCG@10, P@5, AP@100 ...), each point
    keeps only its top k documents of each query: the same values, from far fewer rows.

    Parameters
    ----------
    qrels, runs:
        As for :func:`rankkit.evaluate` and :func:`fuse` (two or more runs).
    measure:
        One measure name, such as ``"nDCG@10"``.
    method:
        ``wsum`` (default), ``wmnz`` or ``rrf``: the methods a grid has something to vary in.
    grid:
        The points: a list of ``{"weights": [...] or {system: weight}, "k": k}`` (``k`` for rrf),
        or for rrf a list of k values. Default: for wsum and wmnz every weighting on the simplex
        with ``step`` (weights of ``step``'s multiples summing to 1), for rrf k in 1, 5, 10, 20, 60.
    norm, depth:
        As for :func:`fuse`.
    test, correction, alpha, ci, seed, resamples:
        Each point is compared with the best point and with the best single run by
        :func:`rankkit.compare`'s paired test, the p-values corrected over the grid; ``ci`` is the
        level of each mean's percentile bootstrap interval.
    holdout:
        A fraction of the queries (0.5: half) held out: the grid is judged and its best point chosen
        on the others, and the best point is then measured on the held-out queries, where its number
        is not the luckiest of many tries (``attrs["holdout"]``). The queries are drawn with ``seed``.

    Returns
    -------
    DataFrame
        One row per point: ``point`` (its fused run's name), ``mean, ci_low, ci_high, queries``,
        ``diff_best, p_best, significant_best`` (against the best point: corrected p-value) and
        ``diff_single, p_single, significant_single`` (against the best single run). ``attrs``
        names the ``best`` point, the ``best_single`` run, the settings and the ``grid``: each
        point's ``{"weights": {system: weight}, "k": k}``, in the rows' order. With ``holdout``, the
        rows are the tuning queries' and ``attrs["holdout"]`` holds the best point on the held-out
        ones: ``queries, mean, ci_low, ci_high`` and, against the best single run (chosen on the
        tuning queries), ``single_mean, diff_single, p_single, significant_single``.
    """
    from rankkit.compare import check_options
    from rankkit.evaluate import evaluate

    check_options(test, correction, alpha)
    if holdout is not None and (isinstance(holdout, bool) or not isinstance(holdout, (int, float))
                                or not 0 < holdout < 1):
        raise RankkitError(f"holdout: the fraction of queries held out, between 0 and 1 (0.5: half), got {holdout!r}")
    con = connect(con) if con is not None else default_connection()
    judged_by_mean(con, measure)
    named = run_rows(con, "SELECT rankkit.fusion_method(?::VARCHAR) AS method", [str(method)])[0]["method"]
    if named not in ("wsum", "wmnz", "rrf"):
        raise RankkitError(f"fusion_sweep varies the weights of wsum, wmnz or rrf, or rrf's k; got method {method!r}")
    with fusion_source(con, runs, columns) as source:
        grid_frame = sweep_grid(con, named, grid, step, norm, runs, source.systems)
        names = list(dict.fromkeys(grid_frame.point))
        clash = set(names) & set(source.systems)
        if clash:
            raise RankkitError(f"runs: {', '.join(sorted(clash))} is the name of a grid point; rename the run")
        fused, grid_view, both = temp_name("swept"), temp_name("grid"), temp_name("swept_runs")
        con.register(grid_view, grid_frame)
        try:
            run_query(con, f"CREATE TEMP TABLE {fused} AS FROM rankkit.fuse_grid(?, ?, method := ?, norm := ?, "
                           "depth := ?, label := ?, top := ?)",
                      [source.engine, grid_view, method, norm, depth, source.label, ranks_read(con, measure)],
                      fetch=False)
            con.execute(f"CREATE TEMP VIEW {both} AS SELECT system, query_id, doc_id, score FROM {fused} UNION ALL "
                        f"SELECT system, query_id, doc_id, score FROM {source.engine}")
            values = evaluate(qrels, both, measure, per_query=True, con=con, columns=columns).assign(i=1)
        finally:
            con.execute(f"DROP VIEW IF EXISTS {both}")
            con.execute(f"DROP TABLE IF EXISTS {fused}")
            con.unregister(grid_view)
    options = dict(test=test, correction=correction, alpha=alpha, ci=ci, seed=seed, resamples=resamples)
    tuning, held = split_queries(values, holdout, seed) if holdout is not None else (values, None)
    table = judged_points(tuning, names, list(source.systems), **options)
    if held is not None:
        table.attrs["holdout"] = held_out(held, table.attrs["best"], table.attrs["best_single"], **options)
    # each point's coordinates, for drawing the grid (rankkit.plot.sweep)
    table.attrs["grid"] = [{"weights": {str(s): float(w) for s, w in zip(rows.system, rows.weight)},
                            "k": float(rows.k.iloc[0])}
                           for _, rows in grid_frame.groupby("point", sort=False)]
    return table


def point_label(point: dict, method: str) -> str:
    """A grid point (``attrs["grid"]``'s) in words: each run's weight, and rrf's k."""
    weights = ", ".join(f"{name} {weight:g}" for name, weight in point["weights"].items())
    return f"k {point['k']:g}; {weights}" if method == "rrf" else weights


def judged_by_mean(con, measure) -> None:
    """A sweep judges one measure by its mean over queries (the paired tests' and the intervals'), its
    best point the highest: two measures, one that sums (counts) or takes the geometric mean (gm_map),
    and one where higher is not better (FallOut, unj: its file's ``better:``) are refused by name."""
    from rankkit.measures import registry
    from rankkit.specs import measure_specs

    specs = measure_specs(con, measure)
    if len(specs) != 1:
        raise RankkitError(f"fusion_sweep judges the grid by one measure; {measure!r} names {len(specs)}")
    aggregate = registry()[specs[0]["metric"]].aggregate
    if aggregate != "mean":
        raise RankkitError(f"fusion_sweep judges the grid by a measure's mean over queries; {specs[0]['measure']} "
                           f"combines queries by its {'sum' if aggregate == 'sum' else 'geometric mean'}: "
                           "take one averaged (AP for gm_map)")
    better = registry()[specs[0]["metric"]].better
    if better != "higher":
        why = "lower is better" if better == "lower" else "neither higher nor lower is better (it describes the runs)"
        raise RankkitError(f"fusion_sweep picks the point of the highest mean, and under {specs[0]['measure']} {why}: "
                           "judge the grid by a measure where higher is better (nDCG@10, AP ...)")


def split_queries(values, holdout: float, seed: int | None) -> tuple:
    """The per-query values split by query: the tuning ones and ``holdout`` of the queries, drawn
    with ``seed``; each part needs two queries for its tests."""
    import numpy as np

    queries = np.array(sorted(values.query_id.unique()), dtype=object)
    held = set(np.random.default_rng(seed).permutation(queries)[:int(round(len(queries) * holdout))])
    if not 2 <= len(held) <= len(queries) - 2:
        raise RankkitError(f"holdout={holdout}: {len(held)} of {len(queries)} queries held out; each part needs "
                           "two or more")
    out = values.query_id.isin(held)
    return values[~out], values[out]


def held_out(values, best: str, best_single: str, **options) -> dict:
    """The best point on the held-out queries: its mean and interval, and its paired test against the
    best single run (one comparison: nothing to correct)."""
    import numpy as np

    from rankkit import stats
    from rankkit.compare import compare_values

    level = options.pop("ci")
    per_query = values.loc[values.system == best, "value"].to_numpy(dtype=float)
    low, high = stats.bootstrap_ci(per_query, np.mean, level=level, seed=options["seed"],
                                   resamples=options["resamples"])
    against = compare_values(values[values.system.isin([best_single, best])], [best_single, best], best_single,
                             **options).set_index("system").loc[best]
    return {"point": best, "queries": len(per_query), "mean": stats.mean(per_query), "ci_low": low, "ci_high": high,
            "single": best_single,
            "single_mean": stats.mean(values.loc[values.system == best_single, "value"].to_numpy(dtype=float)),
            "diff_single": float(against["diff"]), "p_single": float(against["p_adjusted"]),
            "significant_single": bool(against["significant"])}


def ranks_read(con, measure: str) -> int | None:
    """The cutoff k when ``measure`` reads only a run's top k ranks (its header's ``top_k:``), else None
    (the whole run): a sweep keeps only each point's top k, the same ranks by the same tie rule, so the
    same values, from a fraction of the rows (nDCG@10 over 1,000 documents a query: 1%)."""
    from rankkit.measures import top_k_read
    from rankkit.specs import measure_specs

    specs = measure_specs(con, measure)
    return top_k_read(specs[0]) if len(specs) == 1 else None


def sweep_grid(con, method: str, grid, step: float, norm, runs, systems: list) -> pd.DataFrame:
    """The grid as rows ``point, system, weight, k`` (a row per point and system), each point named by
    SQL's rankkit.fusion_name as rankkit.fuse names the run it fuses."""
    import pandas as pd

    if grid is None:
        grid = default_grid(method, step, len(systems))
    rows, weighted = [], method != "rrf"
    for i, point in enumerate(grid):
        point = {"k": point} if isinstance(point, (int, float)) and method == "rrf" else point
        if not isinstance(point, Mapping) or set(point) - {"k", "weights"}:
            raise RankkitError(f"grid: each point is {{'weights': ..., 'k': ...}}, got {point!r}")
        if method != "rrf" and "k" in point:
            raise RankkitError(f"grid: k is rrf's; {method} has none (point {point!r})")
        weighted = weighted or "weights" in point
        weights = paired_weights(point.get("weights"), runs, systems) or {system: 1.0 for system in systems}
        if set(weights) != set(systems):
            raise RankkitError(f"grid: point {point!r} weighs {', '.join(map(str, weights))}; the systems are "
                               f"{', '.join(map(str, systems))}")
        if not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in weights.values()):
            raise RankkitError(f"grid: point {point!r}: its weights are numbers")
        rows += [(i, system, float(weights[system]), _whole(point.get("k", 60))) for system in systems]
    frame = pd.DataFrame(rows, columns=["i", "system", "weight", "k"])
    view = temp_name("grid_points")
    con.register(view, frame)
    try:
        named = run_query(con, "SELECT i, rankkit.fusion_name(?, any_value(k), ?, CASE WHEN ? THEN string_agg("
                               f"weight::VARCHAR, '/' ORDER BY system) END) AS point FROM {view} GROUP BY i",
                          [method, norm, weighted])
    finally:
        con.unregister(view)
    frame = frame.merge(named, on="i").sort_values(["i", "system"], kind="stable")
    if frame.groupby("point").i.nunique().max() > 1:
        raise RankkitError("grid: two points are the same; give each once")
    return frame[["point", "system", "weight", "k"]]


def default_grid(method: str, step: float, systems: int) -> list[dict]:
    """rrf: k in 1, 5, 10, 20, 60 (OpenSearch's hybrid optimizer's); wsum, wmnz: every weighting on
    the simplex in steps of ``step``."""
    if method == "rrf":
        return [{"k": k} for k in (1, 5, 10, 20, 60)]
    if not 0 < step <= 1 or not round(1 / step, 9).is_integer():
        raise RankkitError(f"step must divide 1 into whole parts (0.1, 0.05, 0.25 ...), got {step!r}")
    parts = int(round(1 / step))
    return [{"weights": [round(c / parts, 12) for c in combo]}
            for combo in itertools.product(range(parts + 1), repeat=systems) if sum(combo) == parts]


def judged_points(values, names: list[str], singles: list[str], **options) -> pd.DataFrame:
    """Each point's mean and interval, and its paired test against the best point and the best single
    run (rankkit.compare's), corrected over the grid."""
    import numpy as np
    import pandas as pd

    from rankkit import stats
    from rankkit.compare import compare_values

    level, test = options.pop("ci"), options["test"]
    means = values.groupby("system")["value"].mean()
    best = max(names, key=lambda name: means[name])  # the first of equal means, in the grid's order
    best_single = max(singles, key=lambda name: means[name])
    against_best = compare_values(values[values.system.isin(names)], names, best, **options).set_index("system")
    against_single = compare_values(values[values.system.isin([*names, best_single])], [best_single, *names],
                                    best_single, **options).set_index("system")
    rows = []
    for name in names:
        per_query = values.loc[values.system == name, "value"].to_numpy(dtype=float)
        low, high = stats.bootstrap_ci(per_query, np.mean, level=level, seed=options["seed"],
                                       resamples=options["resamples"])
        vs_best = against_best.loc[name] if name in against_best.index else None
        vs_single = against_single.loc[name]
        rows.append({"point": name, "mean": stats.mean(per_query), "ci_low": low, "ci_high": high,
                     "queries": len(per_query),
                     "diff_best": vs_best["diff"] if vs_best is not None else 0.0,
                     "p_best": vs_best["p_adjusted"] if vs_best is not None else np.nan,
                     "significant_best": bool(vs_best["significant"]) if vs_best is not None else False,
                     "diff_single": vs_single["diff"], "p_single": vs_single["p_adjusted"],
                     "significant_single": bool(vs_single["significant"])})
    frame = pd.DataFrame(rows)
    frame.attrs.update(best=best, best_single=best_single, best_single_mean=float(means[best_single]),
                       measure=str(values.measure.iloc[0]), ci=level, interval=stats.AGGREGATE_INTERVAL,
                       **{key: options[key] for key in ("test", "correction", "alpha", "seed", "resamples")},
                       difference_interval=stats.difference_interval(test))
    return frame
