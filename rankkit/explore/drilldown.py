"""The explorer's tables as HTML: the query table's cells, and a query's drill-down (each system's
ranks with their grades, gains and contributions, the moves against the other system, the judged
documents no system retrieved, the two judgment tables side by side)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rankkit.explore.data import ExplorerData, Setting
from rankkit.measures import registry
from rankkit.safe.html import text as html_text
from rankkit.trace_fields import CONTRIBUTION, traced

TRACE_ROWS = 50       # drill-down rows shown per system (the trace trait holds them all)
MISSED_SHOWN = 10     # judged documents no system retrieved, listed before the rest is folded
HELPS, HURTS, NEUTRAL = "#2ca02c", "#d62728", "#777"  # a document's move: for this system's score, against it, unknown


def _cell(column, value) -> str:
    """One value of the query table as HTML: text cut short, a difference in colour, a dash for none."""
    if column == "text":
        return html_text(str(value)[:60])
    if isinstance(value, (float, np.floating)) and np.isnan(value):
        return "–"
    if str(column).startswith("Δ "):
        color = "#2ca02c" if value > 0 else "#d62728" if value < 0 else "#555"
        return f"<span style='color:{color}'>{value:+.4f}</span>"
    return f"{value:.4f}"


def _missed_by_all(trace: pd.DataFrame, systems: list[str]) -> list[tuple[str, float]]:
    """The judged documents that no shown system retrieved (of those that retrieved anything), with
    their grades, best first. A loop over the missed rows: a pandas filter per system cost more."""
    present = set(trace["system"].to_numpy())
    missed_by = {system: set() for system in systems if system in present}
    missed = trace[trace["rank"].isna()]
    grades: dict[str, float] = {}
    for system, doc, grade in zip(missed["system"].to_numpy(), missed["doc_id"].to_numpy(), missed["grade"].to_numpy()):
        if system in missed_by:
            missed_by[system].add(doc)
        grades.setdefault(doc, grade)
    common = set.intersection(*missed_by.values()) if missed_by else set()
    return sorted(((d, float(grades[d])) for d in common), key=lambda item: (-item[1], item[0]))


def _trace_table(rows: pd.DataFrame, system: str, other: str | None, other_ranks: dict, texts: dict,
                 setting: Setting) -> str:
    """One system's trace as an HTML table: the columns the measure's header (trace:) names, its value at
    each rank's cutoff last, and the rank in the other system."""
    ranked = rows[rows["rank"].notna()]
    shown = ranked.head(TRACE_ROWS)
    graded = _graded(setting.measure)
    at_end = ranked.iloc[-1]
    columns = _shown_columns(setting)
    head = [("rank", ""), ("doc", ""), ("grade", ""), *(_column_head(c) for c in columns)]
    if other:
        # on one line (it wrapped onto four), the legend of the arrows in its tooltip; the short
        # headers may take two lines, so that two tables fit side by side on a wide page
        head.append((f"rank in {other}", f"the document's rank in {other}: ▲ n, n places higher here; "
                                         f"▼ n, n places lower here; absent, {other} did not retrieve it. "
                                         f"{_MOVES_COLOURS}"))
    if texts:
        head.append(("text", ""))
    cells = "".join(_header(h, tip, nowrap=bool(tip)) for h, tip in head)
    body = []
    for _, row in shown.iterrows():
        rank = int(row["rank"])
        doc = row["doc_id"]
        if pd.isna(doc):
            grade = "<i style='color:#888'>nothing retrieved</i>"
            doc_text = "–"
        else:
            doc_text = html_text(str(doc))
            grade = "<i style='color:#b15928' title='not in the qrels'>unjudged</i>" if pd.isna(row["grade"]) else f"{row['grade']:g}"
        values = [str(rank), doc_text, grade] + [_column_cell(c, row[c]) for c in columns]
        if other:
            values.append(_moved(rank, other_ranks.get(doc), _counts(row, graded)) if not pd.isna(doc) else "")
        if texts:
            values.append(html_text(str(texts.get(doc, ""))[:80]))
        tint = " style='background:#eef6ee'" if row["relevant"] else ""
        body.append(f"<tr{tint}>" + "".join(f"<td style='padding:1px 6px;text-align:right'>{v}</td>" for v in values)
                    + "</tr>")
    more = (f"<p style='color:#666'>first {TRACE_ROWS} of {len(ranked)} ranks shown; "
            f"<code>ex.trace</code> holds them all</p>" if len(ranked) > TRACE_ROWS else "")
    cutoff = f"@{int(at_end['rank'])}"
    names = _value_names()
    summary = ", ".join(f"{html_text(names[c])}{cutoff} = {at_end[c]:.4f}" for c in columns if c in names)
    return (f"<div style='margin-right:18px'><b>{html_text(system)}</b>: {summary}"
            f"<table style='border-collapse:collapse;font-size:12px;font-variant-numeric:tabular-nums'>"
            f"<tr>{cells}</tr>{''.join(body)}</table>{more}</div>")


def _own_column(setting: Setting) -> str | None:
    """The trace's column of the measure shown, where its header has one (trace:); else None."""
    return traced().get(setting.measure.metric)


def _shown_columns(setting: Setting) -> list[str]:
    """The trace columns the drill-down shows for a measure: those its header names, its own last; for a
    measure the trace does not show, nDCG's (the worked examples')."""
    measure = setting.measure if setting.measure.trace is not None else registry()["ndcg"]
    column, explaining = measure.trace
    return [c for c in explaining if c != column] + [column]


def _value_names() -> dict[str, str]:
    """A measure's trace column -> the measure's name (precision -> P)."""
    return {column: registry()[metric].name for metric, column in traced().items()}


# How the drill-down heads a trace column that is not a measure's value (those are headed by the
# measure's name, and what a rank adds to one by "+" and its name): header, tooltip, and how a value is written
_HEADS = {
    "gain": ("gain", "", "{:g}"),
    "discount": ("log2(r+1)", "the rank's discount, DCG divides its gain by it (discount=original: log2(max(r, 2)))", "{:.3f}"),
    "discounted_gain": ("disc. gain", "gain / log2(r+1): what the rank adds to DCG", "{:.3f}"),
    "ideal_grade": ("ideal grade", "the grade at this rank of the ideal ordering (best gain first)", "{:g}"),
    "ideal_gain": ("ideal gain", "its gain: IDCG adds it up as DCG adds the gains", "{:g}"),
    "relevant": ("relevant", "whether the grade is at or above the relevance level", "{}"),
}


def _column_head(column: str) -> tuple[str, str]:
    names = _value_names()
    if column in names:
        return names[column], f"{names[column]} at the cutoff of each rank, as evaluate computes it"
    if column.endswith(CONTRIBUTION) and column[:-len(CONTRIBUTION)] in names:
        name = names[column[:-len(CONTRIBUTION)]]
        return f"+{name}", f"what the rank adds to {name}: its value here less its value at the rank above"
    head, tip, _ = _HEADS.get(column, (column, "", "{}"))
    return head, tip


def _column_cell(column: str, value) -> str:
    if value is None or pd.isna(value):
        return "–"
    if column == "relevant":
        return "yes" if value else ""
    if column in _HEADS:
        return html_text(_HEADS[column][2].format(value))
    return f"{value:.4f}"


def _header(text: str, tip: str, nowrap: bool) -> str:
    title = f" title='{html_text(tip)}'" if tip else ""
    wrap = ";white-space:nowrap" if nowrap else ""
    return f"<th style='padding:2px 6px;text-align:right{wrap}'{title}>{html_text(text)}</th>"


# What a move's colour says, once: coloured in the legend under the tables, plain in the column's tooltip.
_MOVES_MEANING = ("{green}: the move helps this system's score (a relevant document higher, a non-relevant one "
                  "lower); {red}: it hurts; {grey}: an unjudged document, whose worth is unknown.")
_MOVES_COLOURS = _MOVES_MEANING.format(green="Green", red="red", grey="grey")
_MOVES_LEGEND = ("<p style='font-size:12px;color:#444;margin:2px 0'><b>rank in the other system</b>: "
                 "▲ n, n places higher here; ▼ n, lower here. "
                 + _MOVES_MEANING.format(green=f"<span style='color:{HELPS}'>Green</span>",
                                         red=f"<span style='color:{HURTS}'>red</span>",
                                         grey=f"<span style='color:{NEUTRAL}'>grey</span>") + "</p>")


def _graded(measure) -> bool:
    """Whether a measure weighs each grade (nDCG's gain, ERR's scale) rather than asking grade >= level."""
    return bool({"gain", "gains", "max"} & set(measure.params))


def _counts(row, graded: bool) -> bool | None:
    """Whether a document adds to the shown measure: a positive gain where the measure weighs grades,
    a grade at or above the level where it asks that; None where it is unjudged (unknown)."""
    if pd.isna(row["grade"]):
        return None
    return bool(row["gain"] > 0) if graded else bool(row["relevant"])


def _moved(rank: int, other_rank, counts: bool | None) -> str:
    """The document's rank in the other system, its move coloured by whether it helps this system."""
    if other_rank is None or pd.isna(other_rank):
        return "<span style='color:#1f77b4'>absent</span>"
    shift = int(other_rank) - rank
    if shift == 0:
        return f"{int(other_rank)} ="
    colour = NEUTRAL if counts is None else HELPS if (shift > 0) == counts else HURTS
    arrow = f"▲{shift}" if shift > 0 else f"▼{-shift}"
    return f"{int(other_rank)} <span style='color:{colour}'>{arrow}</span>"


def _missed_html(missed: list[tuple[str, float]]) -> str:
    """The judged documents no system retrieved: how many of each grade, the first few by grade, the
    rest folded (a query can have hundreds)."""
    title = "<b>judged documents no system retrieved</b> (IDCG counts them)"
    if not missed:
        return f"<p>{title}: none</p>"
    grades = pd.Series([g for _, g in missed]).value_counts().sort_index(ascending=False)
    counts = ", ".join(f"{n} of grade {g:g}" for g, n in grades.items())
    listed = [f"{html_text(d)} (grade {g:g})" for d, g in missed]
    text = f"<p style='margin:2px 0'>{title}: {len(missed)} ({counts}): {', '.join(listed[:MISSED_SHOWN])}"
    if len(listed) <= MISSED_SHOWN:
        return text + "</p>"
    return (text + f" and {len(listed) - MISSED_SHOWN} more</p><details><summary style='cursor:pointer'>"
            f"the other {len(listed) - MISSED_SHOWN}</summary><p style='margin:2px 0'>"
            f"{', '.join(listed[MISSED_SHOWN:])}</p></details>")


# ---- one run under two judgment tables ---------------------------------------------------------

DIFFERS = "#fde2b8"  # a rank whose document the two judgment tables label differently


def _judgments_legend(data: ExplorerData) -> str:
    """What A and B are: the files (or tables) the two judgment tables were read from."""
    return (f"<span style='color:#444'>judgments A: <code>{html_text(data.qrels.label)}</code>, "
            f"B: <code>{html_text(data.second.label)}</code></span>")


def _number(value) -> str:
    return "–" if value is None or pd.isna(value) else f"{value:.4f}"


def _grade(value) -> str:
    return "<i style='color:#b15928' title='not in this table'>unjudged</i>" if pd.isna(value) else f"{value:g}"


def _two_tables(rows_a: pd.DataFrame, rows_b: pd.DataFrame, system: str, texts: dict, setting: Setting) -> str:
    """One system's ranks under judgment tables A and B: per rank the document, both grades, both
    gains and the shown measure at that rank's cutoff under each (from the two traces), the ranks
    whose labels differ tinted and marked."""
    column = _own_column(setting) or "ndcg"  # the trace's column of the measure shown
    name = setting.measure.name if _own_column(setting) else "nDCG"
    every_a = rows_a[rows_a["rank"].notna()]
    ranked_a = every_a.head(TRACE_ROWS)
    # the same run ranked the same way under both tables: rank r holds the same document in each trace
    ranked_b = rows_b[rows_b["rank"].notna()].set_index("rank")
    head = [("rank", ""), ("doc", ""), ("grade A", "its grade in judgment table A"),
            ("grade B", "its grade in judgment table B"), ("gain A", ""), ("gain B", ""),
            (f"{name} A", f"{name} at the cutoff of this rank under A, as evaluate computes it"),
            (f"{name} B", f"{name} at the cutoff of this rank under B")]
    if texts:
        head.append(("text", ""))
    body = []
    for _, row in ranked_a.iterrows():
        rank, doc = int(row["rank"]), row["doc_id"]
        other = ranked_b.loc[row["rank"]] if row["rank"] in ranked_b.index else None
        grade_b = other["grade"] if other is not None else float("nan")
        differs = not pd.isna(doc) and not (pd.isna(row["grade"]) and pd.isna(grade_b)) and not (
            row["grade"] == grade_b)
        # the mark in B's grade cell: a column of its own made two tables too wide to sit side by side
        mark = "<b title='the two tables label it differently'>≠</b> " if differs else ""
        values = [str(rank), "–" if pd.isna(doc) else html_text(str(doc)),
                  _grade(row["grade"]) if not pd.isna(doc) else "", mark + _grade(grade_b) if not pd.isna(doc) else "",
                  f"{row['gain']:g}", "–" if other is None else f"{other['gain']:g}",
                  f"{row[column]:.4f}", "–" if other is None else f"{other[column]:.4f}"]
        if texts:
            values.append(html_text(str(texts.get(doc, ""))[:80]))
        tint = f" style='background:{DIFFERS}'" if differs else ""
        body.append(f"<tr{tint}>" + "".join(f"<td style='padding:1px 6px;text-align:right'>{v}</td>" for v in values)
                    + "</tr>")
    end_a = every_a.iloc[-1]  # the value at the last rank, shown or not
    cutoff = f"@{int(end_a['rank'])}"
    end_b = ranked_b.loc[end_a["rank"]] if end_a["rank"] in ranked_b.index else None
    more = (f"<p style='color:#666'>first {TRACE_ROWS} ranks shown; <code>ex.trace</code> and "
            f"<code>ex.second_trace</code> hold them all</p>" if len(every_a) > TRACE_ROWS else "")
    cells = "".join(_header(h, tip, nowrap=True) for h, tip in head)
    return (f"<div style='margin-right:18px'><b>{html_text(system)}</b>: {html_text(name)}{cutoff} = "
            f"{end_a[column]:.4f} under A, {_number(None if end_b is None else end_b[column])} under B"
            f"<table style='border-collapse:collapse;font-size:12px;font-variant-numeric:tabular-nums'>"
            f"<tr>{cells}</tr>{''.join(body)}</table>{more}</div>")


def _labels_html(labels: pd.DataFrame, trace: pd.DataFrame) -> str:
    """The query's documents the two tables label differently, those no shown system retrieved named:
    a different label there still moves recall and the ideal ranking."""
    differ = labels[(labels["side"] != "both") | (labels["grade_a"] != labels["grade_b"])]
    retrieved = set(trace.loc[trace["rank"].notna(), "doc_id"])
    unseen = differ[~differ["doc_id"].isin(retrieved)]
    one_sided = int((labels["side"] != "both").sum())
    text = (f"<p style='font-size:12px;color:#444;margin:2px 0'><span style='background:{DIFFERS};padding:0 4px'>"
            f"tinted, ≠</span>: the two judgment tables label the document differently. This query: "
            f"{len(labels)} documents judged, {len(differ)} labelled differently ({one_sided} judged in one table only)")
    if len(unseen):
        listed = [f"{html_text(str(r.doc_id))} ({_grade(r.grade_a)} in A, {_grade(r.grade_b)} in B)"
                  for r in unseen.head(MISSED_SHOWN).itertuples()]
        rest = f" and {len(unseen) - MISSED_SHOWN} more" if len(unseen) > MISSED_SHOWN else ""
        text += f"; not retrieved by the systems shown: {', '.join(listed)}{rest}"
    return text + ".</p>"
