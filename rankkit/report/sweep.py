"""A report's fusion sweep: rankkit.fusion_sweep run on the report's inputs with its statistics, its
table and the record of how (method, norm, grid, step, measure, holdout; the seed and the tests are
the report's), and the section the HTML, Markdown and LaTeX show of it."""

from __future__ import annotations

from typing import Mapping

import pandas as pd

from rankkit.compare import format_p
from rankkit.errors import RankkitError
from rankkit.fusion import point_label
from rankkit.stats import CORRECTIONS, TESTS
from rankkit.table import number

__all__ = ["sweep_options", "swept", "section", "figure"]

# What a report's sweep= takes (rankkit.fusion_sweep's options; measure: the report's first by default)
DEFAULTS = {"method": "wsum", "measure": None, "norm": None, "step": 0.1, "grid": None, "holdout": None}
SHOWN = 12  # grid points a section lists: the best first, then by mean; the data files hold them all
COLUMNS = ["point", "mean", "ci_low", "ci_high", "queries", "diff_best", "p_best", "significant_best",
           "diff_single", "p_single", "significant_single"]


def sweep_options(sweep, names: list[str]) -> dict | None:
    """report()'s ``sweep=`` (a method's name, or a dict of fusion_sweep's options) with every option
    said: what the record keeps and verify passes back."""
    if sweep is None:
        return None
    if isinstance(sweep, str):
        sweep = {"method": sweep}
    if not isinstance(sweep, Mapping):
        raise RankkitError(f"sweep: a fusion method (wsum, wmnz, rrf) or a dict of fusion_sweep's options "
                           f"({', '.join(DEFAULTS)}), got {type(sweep).__name__}")
    unknown = sorted(set(map(str, sweep)) - set(DEFAULTS))
    if unknown:
        raise RankkitError(f"sweep: no option {unknown[0]!r}; it takes {', '.join(DEFAULTS)}")
    options = {**DEFAULTS, **sweep}
    if options["measure"] is None:
        options["measure"] = names[0]
    return options


def swept(con, qrels, runs, options: dict, statistics: dict, columns) -> tuple[pd.DataFrame, dict]:
    """The sweep's table and its record: the options, the interval's level, and what the table's rows
    do not say (the best point and single run, each point's coordinates, the held-out figure)."""
    import inspect

    from rankkit.fusion import fusion_sweep

    # a report without intervals (ci None) still gives each point one: fusion_sweep's default level
    level = statistics["ci"]
    if level is None:
        level = inspect.signature(fusion_sweep).parameters["ci"].default
    table = fusion_sweep(qrels, runs, options["measure"], method=options["method"], grid=options["grid"],
                         step=options["step"], norm=options["norm"], test=statistics["test"],
                         correction=statistics["correction"], alpha=statistics["alpha"], ci=level,
                         seed=statistics["seed"], resamples=statistics["resamples"], holdout=options["holdout"],
                         con=con, columns=columns)
    attrs = table.attrs
    record = {**options, "ci": level, "best": attrs["best"], "best_single": attrs["best_single"],
              "best_single_mean": attrs["best_single_mean"], "points": attrs["grid"],
              "held_out": attrs.get("holdout")}
    return table[COLUMNS].reset_index(drop=True), record


def drawable(report) -> pd.DataFrame:
    """The report's sweep table as rankkit.plot.sweep draws it: the attrs its record holds."""
    record = report.record["sweep"]
    table = report.sweep.copy()
    table.attrs.update(measure=record["measure"], best=record["best"], best_single_mean=record["best_single_mean"],
                       grid=record["points"])
    return table


def figure(report) -> dict | None:
    """The grid drawn (a line over one free coordinate, a heat map over two), or None for a grid of more."""
    from rankkit import plot

    try:
        drawn = plot.sweep(drawable(report))
    except RankkitError:  # three free weights and more: the table says it
        return None
    return {"figure": drawn, "alt": f"{report.record['sweep']['measure']} at each point of the fusion grid",
            "caption": "Each point's mean with its interval (a line) or as a colour (a heat map); the star is the "
                       "best point, circles the points not shown worse than it; the dashed line, the best single run."}


def section(report) -> dict | None:
    """The sweep said for the templates: its settings, the best point with its interval against the
    best single run, the tests with their correction named, the first points, the held-out figure."""
    record = report.record.get("sweep")
    if not record:
        return None
    stats = report.record["statistics"]
    table = report.sweep
    measure = record["measure"]  # a mean (fusion_sweep refuses the others): printed with its decimals
    points = dict(zip(table["point"], record["points"]))
    order = table.assign(first=table["point"] != record["best"]).sort_values(["first", "mean"],
                                                                             ascending=[True, False], kind="stable")
    rows = [_row(row, points[row.point], record["method"]) for row in order.head(SHOWN).itertuples()]
    best = rows[0]
    tied = int((~table["significant_best"].astype(bool) & (table["point"] != record["best"])).sum())
    held = record["held_out"]
    return {"measure": measure, "method": record["method"], "count": len(table), "rows": rows,
            "more": len(table) - len(rows), "best": best, "tied": tied,
            "single": record["best_single"], "single_mean": number(record["best_single_mean"]),
            "test": TESTS.get(stats["test"], stats["test"]),
            "correction": CORRECTIONS.get(stats["correction"], stats["correction"]), "alpha": stats["alpha"],
            "level": f"{record['ci'] * 100:g}%",
            "settings": [(name, _said(record[name], name)) for name in ("method", "norm", "step", "grid", "holdout")]
            + [("seed", _said(stats["seed"], "seed"))],
            "held_out": _held_out(held) if held else None}


def _row(row, point: dict, method: str) -> dict:
    return {"point": row.point, "coordinates": point_label(point, method), "mean": number(row.mean),
            "interval": f"[{number(row.ci_low)}, {number(row.ci_high)}]",
            "diff_best": f"{row.diff_best:+.4f}", "p_best": "–" if pd.isna(row.p_best) else format_p(row.p_best),
            "worse": bool(row.significant_best), "diff_single": f"{row.diff_single:+.4f}",
            "p_single": format_p(row.p_single), "beats": bool(row.significant_single) and row.diff_single > 0}


def _held_out(held: dict) -> dict:
    return {"queries": held["queries"], "mean": number(held["mean"]),
            "interval": f"[{number(held['ci_low'])}, {number(held['ci_high'])}]",
            "single": held["single"], "single_mean": number(held["single_mean"]),
            "diff_single": f"{held['diff_single']:+.4f}", "p_single": format_p(held["p_single"]),
            "significant": bool(held["significant_single"])}


def _said(value, name: str) -> str:
    if value is None:  # no holdout, no seed; the norm and grid fusion_sweep chooses (the points' names say them)
        return "none" if name in ("holdout", "seed") else "fusion_sweep's default"
    return str(value)


def data_table(report) -> pd.DataFrame:
    """The sweep as the CSV and Parquet files beside a report hold it: each point's row, its weights
    (``weight_<run>``, and rrf's ``k``), and the settings and tests that made it, in every row."""
    record, stats = report.record["sweep"], report.record["statistics"]
    weights = pd.DataFrame([point["weights"] for point in record["points"]]).add_prefix("weight_")
    coordinates = weights.assign(k=[point["k"] for point in record["points"]])
    settings = {"measure": record["measure"], "method": record["method"], "norm": record["norm"],
                "best_single": record["best_single"], "best_single_mean": record["best_single_mean"],
                "level": record["ci"], "test": stats["test"], "correction": stats["correction"],
                "alpha": stats["alpha"], "seed": stats["seed"]}
    return pd.concat([report.sweep.reset_index(drop=True), coordinates], axis=1).assign(**settings)
