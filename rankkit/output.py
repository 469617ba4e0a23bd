"""Writing evaluation results as trec_eval text, CSV, JSON or Markdown rows, or as the systems x
measures table a paper prints (Markdown or LaTeX, drawn by ``rankkit.table`` as the Report's is).

Results come as rows (dicts with ``measure``, ``value`` and, per query, ``query_id``), the way
``rankkit.evaluate.evaluate_rows`` fetches them: the command line never imports pandas.
"""

from __future__ import annotations

import csv
import json
import math
from typing import IO, Mapping, Sequence

from rankkit.errors import InputError
from rankkit.safe import csv as safe_csv
from rankkit.safe.markdown import text as markdown_text
from rankkit.safe.terminal import visible
from rankkit.trec import family_of, printed_in_summary, printed_per_query, trec_sorted

__all__ = ["write_eval", "TABLES"]

# the formats that print the aggregate as systems x measures, and the renderer each uses
TABLES = {"markdown-table": "markdown", "latex": "latex"}
NO_TEST_NOTE = ("No significance marks: with --baseline NAME, rankkit eval marks the systems each beats "
                "significantly (paired t-test, Holm correction).")
EVAL_CAPTION = "Each system's value per measure."


# The table formats' fields, the same as ``-o FILE`` writes (rankkit.statement.long_query).
COLUMNS = ["measure", "system", "query_id", "value", "queries"]
# Decimals the human formats (trec, markdown) print unless --digits says otherwise; csv and json
# carry full precision unless it does.
HUMAN_DIGITS = 4
# the query id every format gives a system's aggregate row (trec_eval's), which no query may have
AGGREGATE = "all"


def _long(frames) -> list[dict]:
    """One table of every run: per-query rows, then the aggregate as query 'all' with the number of
    queries it averages (None on per-query rows)."""
    rows = []
    for run, aggregate, per_query in frames:
        for row in per_query or ():
            rows.append({"system": run, "measure": row["measure"], "query_id": row["query_id"],
                         "value": row["value"], "queries": None})
        rows += [{"system": run, "measure": row["measure"], "query_id": AGGREGATE, "value": row["value"],
                  "queries": row["queries"]} for row in aggregate]
    return rows


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _format_value(name: str, value: float | str | None, digits: int, aggregates: Mapping[str, str]) -> str:
    if isinstance(value, str):  # runid (a run file's tag), relstring
        return visible(value)
    if _missing(value):
        return "NaN"
    if aggregates.get(name) == "sum":  # a count
        return str(int(round(value)))
    return f"{value:.{digits}f}"


def write_eval(out: IO[str], frames, fmt: str, digits: int | None = None, summary: bool = True,
               where: str = "the per-query values", aggregates: Mapping[str, str] | None = None,
               better: Mapping[str, str] | None = None) -> None:
    """``frames``: (run name, aggregate rows, per-query rows or None) per run; ``aggregates``: how each
    measure combines over queries, by the label its rows print (the specs' agg: a count, summed, is
    printed as an integer; none given: a mean); ``better``: which way each is better, for the tables'
    bold (higher, lower or none, its file's ``better:``; none given: higher). ``summary=False``
    leaves the aggregate out (trec_eval -n). ``digits=None``: four decimals in trec and markdown,
    full precision in csv and json (the values ``-o`` writes). Every id is written safely for the
    format (rankkit.safe); a query named ``all`` among per-query rows is refused (``where`` names
    its source in the message): every format names the aggregate so."""
    refuse_aggregate_name(frames, where)
    aggregates = aggregates or {}
    if not summary:
        frames = [(run, [], per_query) for run, _, per_query in frames]
    if fmt == "trec":
        _write_trec(out, frames, len(frames) > 1, HUMAN_DIGITS if digits is None else digits, aggregates)
        return
    if fmt in TABLES:
        out.write(_table(frames, TABLES[fmt], HUMAN_DIGITS if digits is None else digits, aggregates, better))
        return
    table = _long(frames)
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        for row in table:  # a missing value is empty, as DuckDB's COPY writes it
            writer.writerow(safe_csv.row(row[c] for c in COLUMNS[:-2]) + [safe_csv.cell(_machine_value(row["value"], digits, "", repr)),
                                                              "" if row["queries"] is None else row["queries"]])
    elif fmt == "json":
        records = [{**{c: row[c] for c in COLUMNS}, "value": _machine_value(row["value"], digits, None, float)}
                   for row in table]
        json.dump(records, out, indent=1)
        out.write("\n")
    elif fmt == "markdown":
        shown_digits = HUMAN_DIGITS if digits is None else digits
        out.write("| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n")
        for row in table:
            shown = {**row, "value": _format_value(row["measure"], row["value"], shown_digits, aggregates),
                     "queries": "" if row["queries"] is None else row["queries"]}
            out.write("| " + " | ".join(_markdown_cell(shown[c]) for c in COLUMNS) + " |\n")


def refuse_aggregate_name(frames, where: str) -> None:
    """A per-query row of a query named ``all`` (spaces aside) would read as a system's aggregate,
    which trec_eval's text, csv, json and markdown all name ``all``: refused rather than printed."""
    for run, _, per_query in frames:
        for row in per_query or ():
            if names_aggregate(row["query_id"]):
                raise InputError(
                    f"{where}: the query '{row['query_id']}' is evaluated, and every output names each system's "
                    f"aggregate over queries '{AGGREGATE}' (trec_eval's text does): rename the query")


def names_aggregate(query_id) -> bool:
    """Whether a query id reads as the aggregate's (``all``, spaces aside)."""
    return str(query_id).strip() == AGGREGATE


def _markdown_cell(value) -> str:
    return "" if value is None else markdown_text(value)


def _shown_system(run) -> str:
    """A system's name in text: a table that names no system has one named NULL (None)."""
    return "(unnamed)" if run is None else visible(run)


def _machine_value(value, digits: int | None, missing, full):
    """A value as csv and json carry it, and as -o writes it: full precision, or rounded when --digits
    was given (a number still: 0.5, not 0.5000); text as it is."""
    if _missing(value):
        return missing
    if isinstance(value, str):
        return value
    return full(float(value) if digits is None else round(float(value), digits))


def _table(frames, fmt: str, digits: int, aggregates: Mapping[str, str],
           better: Mapping[str, str] | None = None) -> str:
    """Systems down, measures across: each system's aggregate, the best per mean in bold (the lowest
    where lower is better); text measures (runid) have no value to show."""
    from rankkit import table

    systems = [run for run, _, _ in frames]
    values = {(row["measure"], run): {"value": row["value"], "queries": row["queries"]}
              for run, aggregate, _ in frames for row in aggregate if not isinstance(row["value"], str)}
    measures = list(dict.fromkeys(measure for measure, _ in values))
    combined = {name: aggregates.get(name, "mean") for name in measures}
    notes = [table.means_note([name for name in measures if combined[name] == "sum"],
                              [name for name in measures if combined[name] == "gmean"])]
    better = better or {}
    best = table.best_note({name: better.get(name, "higher") for name in measures}, combined)
    notes += [best, NO_TEST_NOTE] if len(systems) > 1 else []  # one system: nothing to compare
    made = table.make_table(measures, measures, systems, values, combined, {}, notes, digits=digits, better=better)
    if fmt == "markdown":
        return table.markdown(made)
    return table.latex(made, caption=EVAL_CAPTION, label="tab:results")


def _write_trec(out: IO[str], frames, several: bool, digits: int, aggregates: Mapping[str, str]) -> None:
    # trec_eval prints every measure of one query together, queries in string order, then 'all'.
    # with several runs the run comes first, padded to the longest name: the columns after it line up
    width = max(len(_shown_system(run)) for run, _, _ in frames) if several else 0
    for run, aggregate, per_query in frames:
        prefix = f"{_shown_system(run):<{width}}\t" if several else ""
        names = [row["measure"] for row in aggregate] + [row["measure"] for row in per_query or ()]
        ordered = trec_sorted(dict.fromkeys(names))
        if per_query is not None:
            order = {m: i for i, m in enumerate(ordered)}
            for row in sorted(per_query, key=lambda row: (row["query_id"], order.get(row["measure"]))):
                if printed_per_query(row["measure"]):
                    out.write(f"{prefix}{visible(row['measure']):<22}\t{visible(row['query_id'])}\t"
                              f"{_format_value(row['measure'], row['value'], digits, aggregates)}\n")
        # trec_eval's layout when its names are asked for (num_q printed where it asks for it, as
        # trec_eval); otherwise the query count line before the summary
        if not all(family_of(name) is not None for name in ordered):
            for name, count in _num_q(aggregate):
                out.write(f"{prefix}{visible(name):<22}\t{AGGREGATE}\t{count}\n")
        for name in ordered:
            for row in (row for row in aggregate if row["measure"] == name and printed_in_summary(name)):
                out.write(f"{prefix}{visible(name):<22}\t{AGGREGATE}\t{_format_value(name, row['value'], digits, aggregates)}\n")


def _num_q(aggregate) -> list[tuple[str, int]]:
    """trec_eval's num_q line: the queries averaged. A measure averaging fewer (empty=skip leaves
    queries out) gets its own line, num_q(measure)."""
    counts = [(row["measure"], row["queries"]) for row in aggregate if row.get("queries") is not None]
    if not counts:
        return []
    most = max(count for _, count in counts)
    return [("num_q", most)] + [(f"num_q({name})", count) for name, count in counts if count != most]
