"""Writing evaluation results as trec_eval text, CSV, JSON or Markdown."""

from __future__ import annotations

import json
from typing import IO, Sequence

import pandas as pd

from rankkit import measures

__all__ = ["write_eval", "is_count"]


def is_count(name: str) -> bool:
    """Counts (num_ret, NumRel ...) print as integers, as trec_eval prints them."""
    try:
        return measures.get(_base(name)).aggregate == "sum"
    except KeyError:
        return False


def _base(name: str) -> str:
    return name.split("(")[0].split("@")[0]


def _long(frames: Sequence[tuple[str, pd.DataFrame, pd.DataFrame | None]]) -> pd.DataFrame:
    rows = []
    for run, aggregate, per_query in frames:
        if per_query is not None:
            rows.append(per_query.assign(run=run)[["run", "measure", "query_id", "value"]])
        rows.append(aggregate.assign(run=run, query_id="all")[["run", "measure", "query_id", "value"]])
    return pd.concat(rows, ignore_index=True)


def _format_value(name: str, value: float, digits: int) -> str:
    if pd.isna(value):
        return "NaN"
    if is_count(name):
        return str(int(round(value)))
    return f"{value:.{digits}f}"


def write_eval(out: IO[str], frames, fmt: str, digits: int) -> None:
    table = _long(frames)
    several = len(frames) > 1
    if fmt == "trec":
        _write_trec(out, frames, several, digits)
        return
    if not several:
        table = table.drop(columns=["run"])
    if fmt == "csv":
        table.to_csv(out, index=False, float_format=f"%.{digits}f", lineterminator="\n")
    elif fmt == "json":
        records = table.to_dict("records")
        for record in records:
            record["value"] = None if pd.isna(record["value"]) else round(float(record["value"]), digits)
        json.dump(records, out, indent=1)
        out.write("\n")
    elif fmt == "markdown":
        shown = table.assign(value=[_format_value(m, v, digits) for m, v in zip(table["measure"], table["value"])])
        header = "| " + " | ".join(shown.columns) + " |"
        out.write(header + "\n|" + "---|" * len(shown.columns) + "\n")
        for row in shown.itertuples(index=False):
            out.write("| " + " | ".join(str(v) for v in row) + " |\n")


# trec_eval prints measures in the order of its measure table, whatever the order of -m.
TREC_ORDER = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
              "P", "recall", "ndcg", "ndcg_cut", "map_cut", "success", "set_P", "set_recall")


def trec_order(names: Sequence[str]) -> list[str]:
    """``names`` sorted as trec_eval prints them; names trec_eval lacks keep their order, last."""
    def key(item: tuple[int, str]) -> tuple[int, int]:
        position, name = item
        family = name.rsplit("_", 1)[0] if name.rsplit("_", 1)[-1].isdigit() else name
        rank = TREC_ORDER.index(family) if family in TREC_ORDER else len(TREC_ORDER)
        return rank, position
    return [name for _, name in sorted(enumerate(names), key=key)]


def _write_trec(out: IO[str], frames, several: bool, digits: int) -> None:
    # trec_eval prints every measure of one query together, queries in string order, then 'all'.
    for run, aggregate, per_query in frames:
        prefix = f"{run}\t" if several else ""
        ordered = trec_order(list(aggregate["measure"]))
        aggregate = aggregate.set_index("measure").loc[ordered].reset_index()
        if per_query is not None:
            order = {m: i for i, m in enumerate(ordered)}
            rows = per_query.assign(order=per_query["measure"].map(order))
            for row in rows.sort_values(["query_id", "order"], kind="stable").itertuples(index=False):
                out.write(f"{prefix}{row.measure:<22}\t{row.query_id}\t{_format_value(row.measure, row.value, digits)}\n")
        for row in aggregate.itertuples(index=False):
            out.write(f"{prefix}{row.measure:<22}\tall\t{_format_value(row.measure, row.value, digits)}\n")
