"""The systems x measures table a paper prints: each system's mean (the sum for counts) per measure,
optionally its interval, the best per measure in bold (the lowest where lower is better, none where
neither way is) and a superscript letter for each system it beats significantly. One model and one
renderer per format (Markdown, LaTeX with booktabs): the Report's tables and ``rankkit eval --format
latex|markdown-table`` all print through here.

No pandas and no scipy: the command line prints this table without importing them."""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass, field
from typing import Mapping

from rankkit.safe.markdown import text as markdown_escape  # (one escape for every Markdown writer)
from rankkit.safe.latex import cell as latex_cell, comment as latex_comment, escape as latex_escape, with_definitions

__all__ = ["Cell", "Table", "make_table", "letters", "number", "markdown", "latex", "latex_long", "markdown_escape",
           "latex_escape", "means_note", "best_note", "FORMATS", "DIGITS"]

DIGITS = 4
FORMATS = ("latex", "markdown")
# Values this close are the same value summed in another order: both are best.
BEST_TOLERANCE = 1e-12


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def number(value, count: bool = False, digits: int = DIGITS) -> str:
    """A value as the tables print it: a count (NumRet ..., its spec's aggregation a sum) as an integer, others
    with ``digits`` decimals."""
    if _missing(value):
        return "–"
    if count:
        return str(int(round(value)))
    return f"{value:.{digits}f}"


@dataclass
class Cell:
    value: float
    low: float | None = None
    high: float | None = None
    queries: int | None = None
    best: bool = False
    beats: list[str] = field(default_factory=list)  # letters of the systems it is significantly better than
    digits: int = DIGITS
    count: bool = False  # printed as an integer: the measure's spec sums it over queries

    def number(self) -> str:
        return number(self.value, self.count, self.digits)

    def interval(self) -> str:
        if _missing(self.low):
            return ""
        return f"[{number(self.low, self.count, self.digits)}, {number(self.high, self.count, self.digits)}]"


@dataclass
class Table:
    """Systems down, measures across, and the notes that say what the numbers and marks mean."""

    measures: list[str]  # as the caller named them: the keys of the values
    labels: list[str]  # as shown in the header
    systems: list[dict]  # {"letter", "name", "cells": [Cell], "queries": str}
    notes: list[str]  # what the value is, its interval, bold and the superscripts
    interval_note: str = ""  # the interval's: left out where the intervals are not shown

    @property
    def notes_without_interval(self) -> list[str]:
        return [note for note in self.notes if note != self.interval_note]

    def shown_notes(self, intervals: bool) -> list[str]:
        return self.notes if intervals else self.notes_without_interval

    @property
    def has_intervals(self) -> bool:
        return any(cell.interval() for row in self.systems for cell in row["cells"])


def best_note(better: Mapping[str, str] | None = None, aggregates: Mapping[str, str] | None = None) -> str:
    """What the bold says, naming the measures (as the table heads them) where lower is better and those
    where neither way is: ``better`` each one's way (its file's ``better:``), ``aggregates`` its
    aggregation (a count, summed, has no best to name)."""
    bolded = {name: way for name, way in (better or {}).items() if (aggregates or {}).get(name) != "sum"}
    lower = [name for name, way in bolded.items() if way == "lower"]
    neither = [name for name, way in bolded.items() if way == "none"]
    ways = [f"the lowest for {', '.join(lower)}, where lower is better"] * bool(lower) + \
        [f"none for {', '.join(neither)}, where neither higher nor lower is better"] * bool(neither)
    return "Bold: the best system for the measure" + (f" ({'; '.join(ways)})." if ways else ".")


def means_note(sums: list[str], gmeans: list[str] = ()) -> str:
    """What a value is: a mean over queries, a sum for the counts, a geometric mean for gm_map ..."""
    others = [f"sum for {', '.join(sums)}"] * bool(sums) + [f"geometric mean for {', '.join(gmeans)}"] * bool(gmeans)
    return "Mean over queries" + (f" ({'; '.join(others)})." if others else ".")


def letters(systems: list[str]) -> dict[str, str]:
    """a, b, c ... for the systems in order (a1, b1 ... beyond 26)."""
    found = {}
    for i, system in enumerate(systems):
        found[system] = string.ascii_lowercase[i % 26] + (str(i // 26) if i >= 26 else "")
    return found


def make_table(measures: list[str], labels: list[str], systems: list[str], values: Mapping[tuple[str, str], dict],
               aggregates: Mapping[str, str], beats: Mapping[tuple[str, str], list[str]], notes: list[str],
               interval_note: str = "", digits: int = DIGITS, better: Mapping[str, str] | None = None) -> Table:
    """The table from each (measure, system)'s ``{"value", "queries"[, "low", "high"]}``; ``aggregates``
    how each measure combines over queries, its spec's ``agg`` (mean, gmean: a best is marked; sum, a count:
    printed as an integer, and no best, as a sum over more queries is no better); ``beats`` the letters of
    the systems each (measure, system) is significantly better than; ``better`` which way each measure is
    better, its file's ``better:`` (higher when not given; lower: the lowest is best; none: no best and no
    letters)."""
    letter, better = letters(systems), better or {}
    top = {name: _best_value([values[(name, s)]["value"] for s in systems if (name, s) in values],
                             better.get(name, "higher")) for name in measures}
    rows = []
    for system in systems:
        cells, counts = [], set()
        for name in measures:
            found = values.get((name, system))
            if found is None:
                cells.append(Cell(math.nan, digits=digits, count=aggregates.get(name) == "sum"))
                continue
            value = found["value"]
            best = aggregates.get(name, "sum") != "sum" and len(systems) > 1 and not _missing(value) \
                and abs(value - top[name]) <= BEST_TOLERANCE
            marked = better.get(name) != "none"
            cells.append(Cell(value, found.get("low"), found.get("high"), found.get("queries"), best=best,
                              beats=sorted(beats.get((name, system), [])) if marked else [], digits=digits,
                              count=aggregates.get(name) == "sum"))
            if found.get("queries") is not None:
                counts.add(int(found["queries"]))
        rows.append({"letter": letter[system], "name": system, "cells": cells,
                     "queries": " / ".join(str(c) for c in sorted(counts))})
    return Table(measures, labels, rows, notes, interval_note)


def _best_value(found: list, better: str) -> float:
    """The best of a measure's values: the largest, the smallest where lower is better, none (nan) where
    neither way is better."""
    shown = [value for value in found if not _missing(value)]
    if better == "none" or not shown:
        return math.nan
    return min(shown) if better == "lower" else max(shown)


# ---- Markdown -------------------------------------------------------------------------------------

def markdown(table: Table, intervals: bool = False, caption: str | None = None, label: str | None = None) -> str:
    """GitHub-flavoured Markdown: the table, then each note as a paragraph. A caption follows the
    table as pandoc's ``Table:`` line (with ``{#label}`` for pandoc-crossref)."""
    lines = ["| system | " + "".join(f"{markdown_escape(label_)} | " for label_ in table.labels) + "queries |",
             "|:---|" + "---:|" * len(table.measures) + "---:|"]
    for row in table.systems:
        cells = "".join(_markdown_cell(cell, intervals) + " | " for cell in row["cells"])
        lines.append(f"| ({row['letter']}) {markdown_escape(row['name'])} | {cells}{row['queries']} |")
    text = "\n".join(lines) + "\n"
    if caption is not None:
        text += f"\nTable: {markdown_escape(caption)}" + (f" {{#{_checked_label(label)}}}" if label else "") + "\n"
    notes = table.shown_notes(intervals)
    if notes:
        text += "\n" + "\n\n".join(markdown_escape(note) for note in notes) + "\n"
    return text


def _markdown_cell(cell: Cell, intervals: bool) -> str:
    shown = f"**{cell.number()}**" if cell.best else cell.number()
    if cell.beats:
        shown += f"<sup>{''.join(cell.beats)}</sup>"
    if intervals and cell.interval():  # rankkit's numbers: as they are ([low, high] is no link)
        shown += " " + cell.interval()
    return shown


# ---- LaTeX ----------------------------------------------------------------------------------------

# what \label takes safely in any document (babel shorthands aside)
_LABEL = re.compile(r"[A-Za-z0-9:._/+-]+")


def _checked_label(label: str) -> str:
    if not _LABEL.fullmatch(label):
        from rankkit.errors import InputError

        raise InputError(f"label {label!r}: expected letters, digits and : . _ / + - only (such as tab:results), "
                         f"as LaTeX's \\label and pandoc-crossref take them")
    return label


# small type and narrower gaps, as papers set their tables: five measures fit a 10pt article's text;
# booktabs' space above the top rule keeps it off a caption above it
_LATEX_SETTINGS = [r"\small", r"\setlength{\tabcolsep}{4pt}", r"\setlength{\abovetopsep}{4pt}"]


def latex(table: Table, intervals: bool = False, caption: str | None = None, label: str | None = None,
          fit: bool = False, placement: str = "tbp", comment: str | None = None) -> str:
    """A ``table`` float to paste into a paper (the preamble needs ``\\usepackage{booktabs}``): caption
    and label above a booktabs ``tabular``, each system's intervals on a smaller line under its
    means, the notes under it. ``fit`` scales a table wider than the text down to its width."""
    lines = [f"% {latex_comment(comment)}" if comment else None, rf"\begin{{table}}[{placement}]", r"\centering", *_LATEX_SETTINGS]
    if caption is not None:
        lines.append(rf"\caption{{{latex_escape(caption)}}}")
    if label is not None:
        lines.append(rf"\label{{{_checked_label(label)}}}")
    if fit:
        lines.append(r"\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%")
    lines += [rf"\begin{{tabular}}{{{_latex_columns(table)}}}", *_latex_head(table), *_latex_rows(table, intervals),
              r"\bottomrule", r"\end{tabular}" + ("}" if fit else ""), r"\par\smallskip",
              _latex_notes(table, intervals), r"\end{table}"]
    # the macros a hostile name needs (rankkit.safe.latex), first: the paper's preamble is the user's
    return with_definitions("\n".join(line for line in lines if line is not None) + "\n")


def latex_long(table: Table, intervals: bool = False, caption: str | None = None, label: str | None = None,
               comment: str | None = None) -> str:
    """The same table as a ``longtable``, for more systems than a page holds: it breaks across pages,
    its head repeated, each system's intervals kept with its means."""
    title = (rf"\caption{{{latex_escape(caption)}}}" if caption is not None else "") + \
        (rf"\label{{{_checked_label(label)}}}" if label is not None else "")
    lines = [f"% {latex_comment(comment)}" if comment else None, "{" + "".join(_LATEX_SETTINGS),
             rf"\begin{{longtable}}{{{_latex_columns(table)}}}", (title + r"\\") if title else None,
             *_latex_head(table), r"\endfirsthead", *_latex_head(table), r"\endhead", r"\bottomrule", r"\endlastfoot",
             *_latex_rows(table, intervals, keep=r"\\*"), r"\end{longtable}", "}", _latex_notes(table, intervals)]
    return with_definitions("\n".join(line for line in lines if line is not None) + "\n")


def _latex_columns(table: Table) -> str:
    return "@{}l" + "r" * len(table.measures) + "r@{}"


def _latex_head(table: Table) -> list[str]:
    return [r"\toprule", "System" + "".join(f" & {latex_escape(label_)}" for label_ in table.labels) + r" & Queries \\",
            r"\midrule"]


def _latex_rows(table: Table, intervals: bool, keep: str = r"\\") -> list[str]:
    """A row of means per system and, with intervals, a smaller row under it (``keep`` ends the
    means' row: in a longtable, ``\\*`` forbids a page break between the two)."""
    shown = intervals and table.has_intervals
    lines = []
    for i, row in enumerate(table.systems):
        if shown and i:
            lines.append(r"\addlinespace[2pt]")
        cells = "".join(" & " + _latex_cell(cell) for cell in row["cells"])
        lines.append(f"({row['letter']}) {latex_cell(row['name'])}{cells} & {latex_escape(row['queries'])} "
                     + (keep if shown else r"\\"))
        if shown:
            under = "".join(" & " + (rf"{{\scriptsize {latex_escape(cell.interval())}}}" if cell.interval()
                                     else "") for cell in row["cells"])
            lines.append(f"{under} & \\\\")
    return lines


def _latex_notes(table: Table, intervals: bool) -> str:
    return r"{\footnotesize " + " ".join(latex_escape(note) for note in table.shown_notes(intervals)) + r"\par}"


def _latex_cell(cell: Cell) -> str:
    shown = latex_escape(cell.number())
    if cell.best:
        shown = rf"\textbf{{{shown}}}"
    if cell.beats:
        shown += rf"\textsuperscript{{{''.join(cell.beats)}}}"
    return shown
