"""Writing a Report: one table model (cells with best and significance marks) rendered by the Jinja2
templates in ``templates/`` as HTML, Markdown and LaTeX; CSV and Parquet from the frames."""

from __future__ import annotations

import base64
import io
import re
from functools import cache
from pathlib import Path

import pandas as pd

from rankkit.compare import format_p
from rankkit.conventions import DESCRIPTIONS
from rankkit.report.model import in_system_order
from rankkit.report.sweep import figure as sweep_figure, section as sweep_section
from rankkit.errors import InputError
from rankkit.safe.terminal import visible
from rankkit.stats import AGGREGATE_INTERVAL, CORRECTIONS, INTERVALS, TESTS, difference_interval
from rankkit.safe.html import visible as html_visible
from rankkit.safe.latex import DEFINITIONS as LATEX_DEFINITIONS, breakable as latex_breakable, cell as latex_cell
from rankkit.table import (DIGITS, FORMATS, Table, best_note, latex as latex_table, latex_escape, latex_long, letters,
                           make_table, markdown as markdown_table, markdown_escape, means_note, number)

__all__ = ["html", "markdown", "table", "latex_document", "summary"]

# Systems whose means and intervals a page holds in one float; more go in a longtable.
FLOAT_SYSTEMS = 20
TEMPLATES = Path(__file__).resolve().parent / "templates"


def summary(report, digits: int = DIGITS) -> Table:
    """Means with intervals, the best per measure and the significance marks, from the report's frames."""
    record = report.record
    measures = [m["name"] for m in record["measures"]]
    systems = record["systems"]
    letter, better = letters(systems), directions(record)
    beats: dict[tuple[str, str], list[str]] = {}
    for row in report.comparison.itertuples(index=False) if not report.comparison.empty else ():
        if row.significant and row.diff != 0 and better[row.measure] != "none":
            # a win where lower is better is a significantly lower value
            ahead = row.diff > 0 if better[row.measure] == "higher" else row.diff < 0
            winner, loser = (row.system, row.baseline) if ahead else (row.baseline, row.system)
            beats.setdefault((row.measure, winner), []).append(letter[loser])
    values = {(row["measure"], row["system"]): {"value": float(row["value"]), "queries": int(row["queries"]),
                                                "low": _get(row, "ci_low"), "high": _get(row, "ci_high")}
              for row in report.aggregate.to_dict("records")}
    notes = _notes(record, bool(beats))
    # a system-level measure's interval is said by its own note: none is a mean over queries
    interval = _interval_note(record) if len(system_level(record)) < len(record["measures"]) else ""
    notes = notes[:1] + [interval] * bool(interval) + [_system_level_note(record)] * bool(system_level(record)) \
        + notes[1:]
    return make_table(measures, [labels(record)[name] for name in measures], systems, values,
                      {m["name"]: m["aggregate"] for m in record["measures"]}, beats, notes, interval, digits, better)


def directions(record: dict) -> dict[str, str]:
    """Which way each measure (by its name as given) is better: higher, lower or none, as the record keeps
    it from the measure's file (a report made before the record kept it: higher, as it was read then)."""
    return {m["name"]: m.get("better", "higher") for m in record["measures"]}


def labels(record: dict) -> dict[str, str]:
    """Each measure's name as given, to its canonical name from the registry (nDCG@10 for ndcg_cut_10)."""
    return {m["name"]: m.get("label", m["name"]) for m in record["measures"]}


def counts(record: dict) -> dict[str, bool]:
    """Whether each measure (by its name as given and by its label) is a count, printed as an integer: its
    spec's aggregation, as the record keeps it, is a sum."""
    return {name: m["aggregate"] == "sum" for m in record["measures"] for name in (m["name"], m.get("label", m["name"]))}


def _get(row: dict, column: str) -> float | None:
    return float(row[column]) if column in row and not pd.isna(row[column]) else None


def _interval_note(record: dict) -> str:
    stats = record["statistics"]
    return f"In brackets: the {_interval(stats)}." if stats.get("ci") is not None else ""


def _interval(stats: dict) -> str:
    """The aggregate's interval, named as evaluate's docstring, the documentation and the CLI's help name it."""
    name = INTERVALS.get(stats.get("interval") or AGGREGATE_INTERVAL, stats.get("interval"))
    return (f"{_percent(stats['ci'])} {name} of the mean over queries (of the sum for counts; "
            f"{stats['resamples']} resamples, seed {stats['seed']})")


def _difference_interval(stats: dict) -> str:
    """The comparison's interval: of the paired difference, following the test (as compare's)."""
    method = stats.get("difference_interval") or difference_interval(stats["test"])
    return f"{_percent(1 - stats['alpha'])} {INTERVALS.get(method, method)} of the difference"


def _notes(record: dict, marked: bool) -> list[str]:
    stats = record["statistics"]
    counts = [m.get("label", m["name"]) for m in record["measures"] if m["aggregate"] == "sum"]
    gmeans = [m.get("label", m["name"]) for m in record["measures"] if m["aggregate"] == "gmean"]
    # a report of system-level measures alone has no mean over queries to announce
    notes = [means_note(counts, gmeans)] if len(system_level(record)) < len(record["measures"]) else []
    if len(record["systems"]) > 1:
        better = directions(record)
        notes.append(best_note({m.get("label", m["name"]): better[m["name"]] for m in record["measures"]},
                               {m.get("label", m["name"]): m["aggregate"] for m in record["measures"]}))
        if _tested(record):
            against = (f"against the baseline {stats['baseline']}" if stats.get("baseline") is not None
                       else "between every pair of systems")
            notes.append(f"A superscript letter: significantly better than the system of that letter "
                         f"({TESTS.get(stats['test'], stats['test'])}, two-sided, {against}, "
                         f"{CORRECTIONS.get(stats['correction'], stats['correction'])} correction over each "
                         f"measure's comparisons, adjusted p < {stats['alpha']:g})."
                         + ("" if marked else " No difference is significant."))
    return notes


def _tested(record: dict) -> bool:
    """Whether a measure of the report can carry a superscript: one with per-query values (a paired test
    was run) where a way is better."""
    better = directions(record)
    return any(m["aggregate"] != "system" and better[m["name"]] != "none" for m in record["measures"])


def system_level(record: dict) -> list[str]:
    """The labels of the report's system-level measures (Coverage@k, Entropy@k, Gini@k): one value per
    system, with no per-query values."""
    return [m.get("label", m["name"]) for m in record["measures"] if m["aggregate"] == "system"]


def _system_level_note(record: dict) -> str:
    stats = record["statistics"]
    interval = (f"; in brackets, the {_percent(stats['ci'])} percentile bootstrap interval over users, moved by "
                f"the bootstrap's bias "
                f"({stats['resamples']} resamples, seed {stats['seed']})" if stats.get("ci") is not None else "")
    return (f"{', '.join(system_level(record))}: one value per system, of all its users' lists together{interval}. "
            f"No per-query values, so no paired test, per-query table or plot.")


def _percent(level: float) -> str:
    return f"{round(100 * level, 6):g}%"


def comparison_rows(report) -> list[dict]:
    if report.comparison.empty:
        return []
    rows = []
    slice_columns = [c for c in report.comparison.columns if c not in _COMPARE_COLUMNS]
    named = labels(report.record)
    letter = letters(report.record["systems"])
    for row in report.comparison.to_dict("records"):
        rows.append({
            "measure": named.get(row["measure"], row["measure"]), "system": row["system"], "baseline": row["baseline"],
            "system_letter": letter.get(row["system"], "?"), "baseline_letter": letter.get(row["baseline"], "?"),
            "slice": " ".join(str(row[c]) for c in slice_columns),
            "diff": f"{row['diff']:+.{DIGITS}f}" if not pd.isna(row["diff"]) else "–",
            "interval": (f"[{row['ci_low']:+.{DIGITS}f}, {row['ci_high']:+.{DIGITS}f}]"
                         if not pd.isna(row["ci_low"]) else "–"),
            "effect": f"{row['effect']:.2f}" if not pd.isna(row["effect"]) else "–",
            "p": format_p(row["p_value"]), "p_adjusted": format_p(row["p_adjusted"]),
            "significant": bool(row["significant"]),
            "wtl": f"{row['wins']}/{row['ties']}/{row['losses']}", "queries": row["queries"],
        })
    return rows


_COMPARE_COLUMNS = {"measure", "system", "baseline", "mean", "baseline_mean", "diff", "ci_low", "ci_high",
                    "effect", "p_value", "p_adjusted", "significant", "wins", "ties", "losses", "queries"}


def coverage_rows(report) -> tuple[list[str], list[dict]]:
    """Judged@k across, systems down."""
    names = list(report.record.get("coverage") or [])
    if report.coverage.empty or not names:
        return names, []
    table = report.coverage.set_index(["measure", "system"])["value"]
    return names, [{"name": system, "values": [number(table.get((name, system))) for name in names]}
                   for system in report.record["systems"]]


def slice_rows(report) -> tuple[str | None, list[str], list[dict]]:
    by = report.record.get("by")
    if report.slices.empty or by is None:
        return by, [], []
    measures = [m["name"] for m in report.record["measures"]]
    rows = []
    frame = report.slices.copy()
    frame["_slice"] = frame[by].astype(object).where(frame[by].notna(), "(none)").astype(str)
    # slices by value, each slice's systems in the report's order (the frame's: in_system_order)
    frame = frame.sort_values("_slice", kind="stable")
    for (value, system), group in frame.groupby(["_slice", "system"], sort=False):
        values = group.set_index("measure")
        rows.append({"slice": value, "system": system, "letter": letters(report.record["systems"]).get(system, "?"),
                     "values": [number(values["value"].get(m), counts(report.record)[m]) for m in measures],
                     "queries": int(values["queries"].max())})
    return by, [labels(report.record)[m] for m in measures], rows


def per_query_wide(report) -> pd.DataFrame:
    """query_id down; system and measure across."""
    frame = report.per_query
    if frame.empty:
        return pd.DataFrame()
    wide = frame.pivot_table(index="query_id", columns=["system", "measure"], values="value", aggfunc="first",
                             dropna=False)
    order = [(s, m["name"]) for s in report.record["systems"] for m in report.record["measures"]]
    wide = wide.reindex(columns=[c for c in order if c in wide.columns])
    named = labels(report.record)
    return wide.rename(columns=named, level="measure")


def record_items(record: dict) -> dict:
    """The record, said in words, for the templates."""
    conventions = [(name, _shown(value), DESCRIPTIONS.get(name, "")) for name, value in record["conventions"].items()]
    measures = []
    for m in record["measures"]:
        used = ", ".join(f"{key}={_shown(value)}" for key, value in m["params"].items())
        measures.append((m["name"], m.get("label", m["name"]), used, m["aggregate"], m["summary"]))
    stats = record["statistics"]
    compared = len(record["systems"]) > 1
    statistics = [("test", TESTS.get(stats["test"], stats["test"]) if compared else "none (one system)"),
                  ("correction", CORRECTIONS.get(stats["correction"], stats["correction"])),
                  ("alpha", _shown(stats["alpha"])),
                  ("interval", _interval(stats) if stats["ci"] is not None else "none"),
                  ("interval of a difference", _difference_interval(stats) if compared else "none (one system)"),
                  ("seed", _shown(stats["seed"])), ("resamples", _shown(stats["resamples"])),
                  ("baseline", _shown(stats["baseline"]) if stats["baseline"] is not None else "none: every pair")]
    return {"versions": f"rankkit {record['rankkit']}, DuckDB {record['duckdb']}, Python {record['python']}",
            "date": record["date"], "call": record["call"], "conventions": conventions, "measures": measures,
            "statistics": statistics, "inputs": [_input_row(item) for item in record["inputs"]],
            "warnings": record["warnings"]}


def _input_row(item: dict) -> dict:
    """An input as the record's table shows it: a side table (items, interactions) has rows, no queries."""
    return {**item, "queries": "–" if item.get("queries") is None else item["queries"]}


def _shown(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# ---- templates ------------------------------------------------------------------------------------

@cache
def _environment(kind: str):
    import jinja2

    if kind == "latex":  # LaTeX is made of braces: other delimiters keep the template readable
        return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), block_start_string="<%",
                                  block_end_string="%>", variable_start_string="<<", variable_end_string=">>",
                                  comment_start_string="<#", comment_end_string="#>", trim_blocks=True,
                                  lstrip_blocks=True, keep_trailing_newline=True, autoescape=False,
                                  undefined=jinja2.StrictUndefined)
    # HTML: autoescape keeps markup out, and finalize writes what a browser hides or reorders visibly
    # (control and bidirectional characters: rankkit.safe.html)
    return jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), trim_blocks=True, lstrip_blocks=True,
                              keep_trailing_newline=True, autoescape=kind == "html",
                              finalize=html_visible if kind == "html" else None, undefined=jinja2.StrictUndefined)


def agreement_section(report) -> dict | None:
    """The agreement with a second judgment table, as the templates show it (None without one)."""
    if report.agreement.empty:
        return None
    second = next((item.get("given") or item.get("kind") for item in report.record["inputs"]
                   if item["role"] == "second_qrels"), "the second judgment table")
    # each interval beside the statistic it is of, the mean over queries: the value over all pairs has none
    # (and may lie outside it: it pools every query's pairs, where the mean weighs each query alike)
    section = {"second": second, "labels": [
        {"measure": row["measure"], "value": number(row["value"]), "mean": number(row["mean"]),
         "interval": f"[{number(row['ci_low'])}, {number(row['ci_high'])}]" if not pd.isna(row["ci_low"]) else "",
         "queries": row["queries"]} for row in report.agreement.to_dict("records")],
        "note": _agreement_note(report.record["statistics"])}
    if not report.leaderboards.empty:
        section["measure"] = report.leaderboards["measure"].iloc[0]
        section["boards"] = [{"system": row["system"], "value_a": number(row["value_a"]),
                              "value_b": number(row["value_b"]), "rank_a": row["rank_a"], "rank_b": row["rank_b"],
                              "moved": row["rank_a"] != row["rank_b"]}
                             for row in report.leaderboards.to_dict("records")]
        # two systems have no rank correlation (any of two is 1 or -1): their places say it all
        section["correlations"] = [] if len(report.leaderboards) < 3 else [{"scope": "all" if pd.isna(row["top"]) else f"top {int(row['top'])}",
                                    **{name: number(row[name]) for name in ("kendall_tau_b", "tau_ap", "spearman",
                                                                            "pearson")},
                                    "systems": row["systems"], "swaps": row["swaps"]}
                                   for row in report.correlations.to_dict("records")]
        section["swaps"] = [{"above": row["above_a"], "below": row["below_a"], "p_adjusted": format_p(row["p_adjusted"]),
                             "significant": bool(row["significant"])} for row in report.swaps.to_dict("records")]
        if not section["correlations"]:
            section["pair_note"] = ("Two systems: " + ("they swap places between the two tables" if report.swaps.size
                                                       else "the same order under both tables")
                                    + "; rank correlations need three systems or more.")
    return section


def _agreement_note(stats: dict) -> str:
    from rankkit.agreement import LEVEL

    return (f"Over all pairs: the measure over every pair both tables judge, without an interval. Mean over "
            f"queries: the mean of each query's value; in brackets, its {_percent(LEVEL)} "
            f"{INTERVALS[AGGREGATE_INTERVAL]} over queries ({stats['resamples']} resamples, seed {stats['seed']}).")


def _context(report) -> dict:
    by, slice_measures, slices = slice_rows(report)
    judged, coverage = coverage_rows(report)
    return {"title": report.title, "summary": summary(report), "comparison": comparison_rows(report),
            "agreement": agreement_section(report),
            "judged": judged, "coverage": coverage, "by": by, "slice_measures": slice_measures, "slices": slices,
            "record": record_items(report.record), "per_query": per_query_wide(report),
            "alpha": report.record["statistics"]["alpha"], "sweep": sweep_section(report),
            "difference_interval": _difference_interval(report.record["statistics"]),
            "wins_note": _wins_note(report.record)}


def _wins_note(record: dict) -> str:
    """What a win is in the comparison where higher is not better (the measures' better:); empty otherwise."""
    better = directions(record)
    named = [(m.get("label", m["name"]), better[m["name"]]) for m in record["measures"] if m["aggregate"] != "system"]
    lower = [name for name, way in named if way == "lower"]
    neither = [name for name, way in named if way == "none"]
    return " ".join([f"A win under {', '.join(lower)} is a lower value: lower is better."] * bool(lower)
                    + [f"Under {', '.join(neither)}, where neither way is better, a win is a higher value."]
                    * bool(neither))


def html(report, fragment: bool = False) -> str:
    context = _context(report)
    wide = context.pop("per_query")
    context["per_query_count"] = len(wide.index)
    context["per_query_tables"] = _per_query_tables(wide, counts(report.record))
    context["comparison_pairs"] = _pairs(context["comparison"])
    context["figures"] = figures(report)
    swept = sweep_figure(report) if context["sweep"] else None
    context["sweep_figure"] = {**swept, "src": _png(swept.pop("figure"))} if swept else None
    context["colors"] = _system_colors(report) if context["figures"] else {}
    context["fragment"] = fragment
    environment = _environment("html")
    environment.filters["label"] = _breakable_label
    return environment.get_template("report.html.j2").render(context)


def _pairs(rows: list[dict]) -> list[dict]:
    """The comparison's rows by pair (system and baseline, in the comparison's order), each pair's
    measures under it: the HTML names a pair once, in a row of its own, so that a long name takes
    the table's width rather than a column's and no number is pushed out of view."""
    pairs: dict[tuple, dict] = {}
    for row in rows:
        key = (row["system"], row["baseline"])
        pairs.setdefault(key, {field: row[field] for field in ("system", "baseline", "system_letter", "baseline_letter")}
                         | {"rows": []})["rows"].append(row)
    return list(pairs.values())


def _breakable_label(text):
    """A measure's label as HTML that may break only between its parts (before @ and parentheses,
    after commas: ``nDCG`` / ``@10``), never inside a number or a name: each part an unbreakable
    box (a ``<wbr>`` would do, but Chromium breaks at one even where the cell says nowrap)."""
    from markupsafe import Markup, escape

    parts = re.split(r"(?=[@(])|(?<=,)", html_visible(str(text)))
    return Markup("").join(Markup('<span class="part">%s</span>') % escape(part) for part in parts if part)


def _system_colors(report) -> dict[str, str]:
    """Each system's colour in the plots (they colour the systems in the report's order)."""
    from rankkit.plot import system_colors

    return system_colors(report.record["systems"])


# Value columns in one per-query table of the HTML: at 7pt, fifteen numbers and the query id fit the
# width A4 and Letter print in portrait (the browser test prints both); wider, the table is split.
PRINTED_COLUMNS = 15


def _per_query_tables(wide: pd.DataFrame, count: dict[str, bool]) -> list[dict]:
    """The per-query table cut into tables of at most PRINTED_COLUMNS values, whole systems together
    where a system's measures fit: one table on screen for a few systems, and nothing cut off on paper."""
    rows = _per_query_cells(wide, count)[1]
    tables = []
    for start, stop in _column_groups([system for system, _ in wide.columns]):
        columns = list(wide.columns[start:stop])
        tables.append({"systems": [(system, sum(1 for s, _ in columns if s == system))
                                   for system in dict.fromkeys(s for s, _ in columns)],
                       "measures": [measure for _, measure in columns],
                       "rows": [[row[0]] + row[1 + start:1 + stop] for row in rows]})
    return tables


def _column_groups(systems: list[str], most: int = PRINTED_COLUMNS) -> list[tuple[int, int]]:
    """(start, stop) of each table's columns, given each column's system in order."""
    groups: list[tuple[int, int]] = []
    start = at = 0
    for system in dict.fromkeys(systems):
        span = systems.count(system)
        if at > start and at + span - start > most:  # this system starts the next table
            groups.append((start, at))
            start = at
        at += span
        while at - start > most:  # one system wider than a table: its measures split
            groups.append((start, start + most))
            start += most
    if at > start:
        groups.append((start, at))
    return groups


def _per_query_cells(wide: pd.DataFrame, count: dict[str, bool]) -> tuple[list[str], list[list[str]]]:
    """The per-query table's header (system and measure) and rows, formatted: Markdown and HTML
    print the same cells (a Styler takes seconds over thousands of queries; this, milliseconds). ``count``:
    whether a measure's label names a count (counts())."""
    header = [f"{system} {measure}" for system, measure in wide.columns]
    counts = [count[measure] for _, measure in wide.columns]  # once per column, not per cell
    rows = [[str(query)] + ["–" if value != value else str(int(round(value))) if count else f"{value:.{DIGITS}f}"
                            for value, count in zip(values, counts)]
            for query, values in zip(wide.index, wide.to_numpy(dtype=float))]
    return header, rows


def markdown(report) -> str:
    context = _context(report)
    header, rows = _per_query_cells(context.pop("per_query"), counts(report.record))
    context["per_query_header"] = ["query"] + header
    context["per_query_rows"] = rows
    context["aggregate"] = markdown_table(context["summary"], intervals=True)
    environment = _environment("markdown")
    environment.filters["md"] = markdown_escape
    environment.filters["visible"] = visible  # inside a code span, where no backslash escapes
    return environment.get_template("report.md.j2").render(context)


def table(report, format: str = "latex", intervals: bool = False, caption: str | None = None,
          label: str | None = None, digits: int = DIGITS) -> str:
    """The systems x measures table of :meth:`Report.table`."""
    if format not in FORMATS:
        raise InputError(f"format {format!r}: expected one of {', '.join(map(repr, FORMATS))}")
    made = summary(report, digits)
    if format == "markdown":
        return markdown_table(made, intervals, caption, label)
    return latex_table(made, intervals, report.title if caption is None else caption,
                       default_label(report.title) if label is None else label,
                       comment=_provenance(report))


def default_label(title: str) -> str:
    """tab: and the title's words, as a LaTeX label takes them."""
    return "tab:" + (re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40].strip("-") or "results")


def _provenance(report) -> str:
    record = report.record
    return (f"{latex_escape(report.title)}: made by rankkit {record['rankkit']}, {record['date']}; "
            r"needs \usepackage{booktabs}")


def latex_document(report) -> str:
    environment = _environment("latex")
    environment.filters["tex"] = latex_escape
    environment.filters["texttt"] = latex_breakable
    environment.filters["texbreak"] = lambda text: latex_breakable(text, typewriter=False)
    environment.filters["texcell"] = latex_cell
    context = _context(report)
    made = context["summary"]
    # the intervals the HTML shows; a float's table wider than the page (long run names) is scaled to
    # its width, and more systems than a page holds go on in a longtable
    options = dict(intervals=True, caption="Each system's value per measure.", label="tab:aggregate",
                   comment=_provenance(report))
    aggregate = (latex_long(made, **options) if len(made.systems) > FLOAT_SYSTEMS
                 else latex_table(made, fit=True, placement="!htbp", **options))
    return environment.get_template("report.tex.j2").render({**context, "table": aggregate,
                                                              "definitions": LATEX_DEFINITIONS})


# ---- figures --------------------------------------------------------------------------------------

def figures(report) -> list[dict]:
    """Per measure, the distribution of per-query values and (with two systems or more) the sorted
    per-query differences against the baseline, drawn by rankkit.plot, as PNG data URIs."""
    from rankkit import plot

    if report.per_query.empty:
        return []
    systems = report.record["systems"]
    baseline = report.record["statistics"].get("baseline") or systems[0]
    # the plots name the measure as the registry does, as the tables do
    per_query = in_system_order(report.per_query, systems)  # the colours follow the order: _system_colors
    per_query = per_query.assign(measure=per_query["measure"].map(labels(report.record)))
    better = {labels(report.record)[name]: way for name, way in directions(report.record).items()}
    drawn = []
    for measure in (m.get("label", m["name"]) for m in report.record["measures"] if m["aggregate"] != "system"):
        drawn.append({"src": _png(plot.distribution(per_query, measure=measure, systems=systems)),
                      "alt": f"distribution of {measure} over queries, one panel per system",
                      "caption": f"{measure}: per-query values of each system, mean and median marked."})
        if len(systems) > 1:
            drawn.append({"src": _png(plot.differences(per_query, baseline, measure=measure, better=better[measure])),
                          "alt": f"per-query differences in {measure} against {baseline}",
                          "caption": f"{measure}: each system minus {baseline} per query, sorted; "
                                     f"wins{' (lower values)' if better[measure] == 'lower' else ''} green, "
                                     f"losses red."})
    if not report.agreement_per_query.empty:
        drawn += _kappa_figure(report.agreement_per_query)
    return drawn


# The per-query kappa drawn as plot.distribution draws a system's values: the panel's title names
# what is drawn where a system's name stands, the x axis says how to read a kappa.
KAPPA_PANEL = "Cohen's kappa of the two tables"
KAPPA_AXIS = "Cohen's kappa per query, relevant or not (1: the same labels, 0: as by chance)"


def kappa_distribution(per_query: pd.DataFrame):
    """The distribution of the per-query kappa (a report's ``agreement_per_query``), None when no query
    has one; a query whose kappa is undefined (one class on both sides) is counted in the title, not
    dropped unsaid."""
    from rankkit import plot

    if per_query["kappa"].notna().sum() == 0:
        return None
    frame = pd.DataFrame({"measure": KAPPA_AXIS, "system": KAPPA_PANEL, "query_id": per_query["query_id"],
                          "value": per_query["kappa"].astype(float)})
    return plot.distribution(frame)


def _kappa_figure(per_query: pd.DataFrame) -> list[dict]:
    figure = kappa_distribution(per_query)
    if figure is None:
        return []
    return [{"src": _png(figure),
             "alt": "distribution of Cohen's kappa over queries between the two judgment tables",
             "caption": "Cohen's kappa (relevant or not) of the two judgment tables, per query, mean and median "
                        "marked; a query both tables judge all relevant (or both all not relevant) has none."}]


def _png(figure) -> str:
    buffer = io.BytesIO()  # rankkit.plot's figures are not pyplot's: nothing to close
    figure.savefig(buffer, format="png", dpi=100)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
