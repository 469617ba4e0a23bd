"""What ``rankkit agree`` prints: the label agreement and, given runs, the leaderboard agreement, as
trec_eval-like text (``name <tab> scope <tab> value``) or as rows for csv and json.

Every line is one row ``section, name, scope, value``, the summary first, then what asks for detail:

- ``labels``: each measure of :data:`rankkit.agreement.LABEL_MEASURES` and the pair counts
  (``pairs``, ``only_a``, ``only_b``: judged by both, by a only, by b only), scope ``all``;
- ``leaderboard``: ``value_a, value_b, rank_a, rank_b`` per system (the scope);
- ``correlation``: each of :data:`rankkit.agreement.CORRELATIONS`, ``systems`` and ``swaps``, scope
  ``all`` or ``top K`` (with ``--ci``, each correlation's interval too: ``kendall_tau_b_low`` ...);
  only ``systems`` and ``swaps`` for two systems, which have no rank correlation;
- ``swap``: each pair ordered oppositely, scope ``above_a > below_a``, names ``p_adjusted`` and
  ``significant`` (under judgment table a);
- with ``-q``, ``labels`` again per query (scope the query id): the pair counts and each measure;
- with ``--one-sided``, ``one_sided``: each pair judged on one side only, name ``only_a`` or
  ``only_b``, scope ``query_id doc_id``, value the grade given.

csv and json rows also carry ``qrels_a`` and ``qrels_b``, the two judgment tables as given, as the
agreement tables a report writes name them: a file read later says what was compared.
"""

from __future__ import annotations

import csv
import json
import math
from typing import IO

from rankkit.agreement import CORRELATIONS, LABEL_MEASURES
from rankkit.errors import InputError
from rankkit.output import AGGREGATE, names_aggregate
from rankkit.safe import csv as safe_csv
from rankkit.safe.terminal import visible

__all__ = ["agreement_rows", "write_agreement", "FORMATS"]

FORMATS = ("trec", "csv", "json")
COLUMNS = ("section", "name", "scope", "value", "qrels_a", "qrels_b")
COUNTS = {"pairs", "only_a", "only_b", "systems", "swaps", "rank_a", "rank_b"}


def agreement_rows(labels, boards=None, per_query: bool = False, one_sided: bool = False) -> list[dict]:
    """The rows printed for a LabelAgreement and, if given, a LeaderboardAgreement, each naming the
    two judgment tables (the frames' attrs): the summary, then each query's label agreement
    (``per_query``) and each pair judged on one side only (``one_sided``)."""
    sides = {side: labels.aggregate.attrs.get(side) for side in ("qrels_a", "qrels_b")}
    rows = _label_rows(labels)
    if boards is not None:
        rows += _board_rows(boards)
    if per_query:
        rows += _query_rows(labels)
    if one_sided:
        rows += _one_sided_rows(labels)
    return [{**row, **sides} for row in rows]


def _label_rows(labels) -> list[dict]:
    rows = [_row("labels", name, "all", value) for name, value in
            (("pairs", labels.pairs), ("only_a", labels.only_a), ("only_b", labels.only_b))]
    return rows + [_row("labels", r.measure, "all", r.value) for r in labels.aggregate.itertuples()]


def _query_rows(labels) -> list[dict]:
    rows = []
    for r in labels.per_query.itertuples():
        if names_aggregate(r.query_id):  # the scope of every aggregate row: it would read as one
            where = labels.aggregate.attrs.get("qrels_a") or "the judgments"
            raise InputError(f"{where}: the query '{r.query_id}' is compared, and every aggregate row's scope is "
                             f"'{AGGREGATE}': rename the query")
        rows += [_row("labels", name, r.query_id, getattr(r, name))
                 for name in ("pairs", "only_a", "only_b", *LABEL_MEASURES)]
    return rows


def _one_sided_rows(labels) -> list[dict]:
    return [_row("one_sided", "only_a" if r.side == "a" else "only_b", f"{r.query_id} {r.doc_id}",
                 r.grade_a if r.side == "a" else r.grade_b) for r in labels.one_sided.itertuples()]


def _board_rows(boards) -> list[dict]:
    measure = boards.measure
    rows = []
    for r in boards.leaderboards.itertuples():
        rows += [_row("leaderboard", f"{name}({measure})", r.system, getattr(r, name))
                 for name in ("value_a", "value_b", "rank_a", "rank_b")]
    for r in boards.correlations.itertuples():
        scope = "all" if _missing(r.top) else f"top {int(r.top)}"
        if r.systems < 3:  # two systems have no rank correlation (NaN, a warning said why): nothing to print
            rows += [_row("correlation", f"{name}({measure})", scope, getattr(r, name)) for name in ("systems", "swaps")]
            continue
        shown = [name for name in ("systems", *CORRELATIONS, "swaps")]
        shown += [f"{name}_{end}" for name in CORRELATIONS for end in ("low", "high")
                  if f"{name}_{end}" in boards.correlations.columns]  # with an interval (ci)
        rows += [_row("correlation", f"{name}({measure})", scope, getattr(r, name)) for name in shown]
    for r in boards.swaps.itertuples():
        scope = f"{r.above_a} > {r.below_a}"
        rows += [_row("swap", f"p_adjusted({measure})", scope, r.p_adjusted),
                 _row("swap", f"significant({measure})", scope, bool(r.significant))]
    return rows


def _row(section: str, name: str, scope, value) -> dict:
    return {"section": section, "name": name, "scope": str(scope), "value": value}


def write_agreement(out: IO[str], rows: list[dict], fmt: str, digits: int | None = None) -> None:
    """trec: aligned text, four decimals unless ``digits``; csv and json: full precision unless
    ``digits``, a missing value empty (csv) or null (json)."""
    if fmt == "trec":  # ids (a scope names queries, documents and systems) written visibly: one line per row
        shown = [(visible(row["name"]), visible(row["scope"]), _text(row, 4 if digits is None else digits))
                 for row in rows]
        width = max([len(name) for name, _, _ in shown] + [22])
        scope_width = max(len(scope) for _, scope, _ in shown)
        for name, scope, value in shown:
            out.write(f"{name:<{width}}\t{scope:<{scope_width}}\t{value}\n")
    elif fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(COLUMNS)
        for row in rows:
            writer.writerow(safe_csv.row([row["section"], row["name"], row["scope"], _machine(row["value"], digits, ""),
                                          row.get("qrels_a"), row.get("qrels_b")]))
    elif fmt == "json":
        json.dump([{**row, "value": _machine(row["value"], digits, None)} for row in rows], out, indent=1)
        out.write("\n")
    else:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")


def _text(row: dict, digits: int) -> str:
    value = row["value"]
    if isinstance(value, bool):
        return "yes" if value else "no"
    if _missing(value):
        return "NaN"
    if row["name"].split("(")[0] in COUNTS or row["section"] == "one_sided":
        return str(int(value)) if float(value).is_integer() else f"{value:.{digits}f}"
    return f"{value:.{digits}f}"


def _machine(value, digits: int | None, missing):
    if isinstance(value, bool):
        return value
    if _missing(value):
        return missing
    value = float(value)
    if value.is_integer():
        return int(value)
    return value if digits is None else round(value, digits)


def _missing(value) -> bool:
    """None, NaN or pandas' NA (a nullable column's missing value)."""
    if value is None or type(value).__name__ == "NAType":
        return True
    try:
        return math.isnan(float(value))
    except (TypeError, ValueError):
        return False
