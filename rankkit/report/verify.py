"""verify(): recompute a saved report from the inputs and options its record names, and say whether
every number holds or which input changed and which numbers moved."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from rankkit.agreement import LABEL_MEASURES
from rankkit.conventions import Conventions
from rankkit.errors import InputError

__all__ = ["verify", "Verification"]

# Recomputing on another machine may sum in another order: the last bits may differ.
TOLERANCE = 1e-9
# Numbers that come from the inputs; the intervals and p-values follow from them and the seed.
CHECKED = {"aggregate": (("measure", "system"), ("value", "queries", "ci_low", "ci_high")),
           "per_query": (("measure", "system", "query_id"), ("value",)),
           "comparison": (("measure", "system", "baseline"), ("diff", "ci_low", "ci_high", "effect", "p_value",
                                                              "p_adjusted", "wins", "ties", "losses", "queries")),
           "coverage": (("measure", "system"), ("value", "queries")),
           "agreement": (("measure",), ("value", "mean", "ci_low", "ci_high", "queries")),
           "agreement_per_query": (("query_id",), ("pairs", "only_a", "only_b", *LABEL_MEASURES)),
           "swaps": (("above_a", "below_a"), ("above_value_a", "below_value_a", "above_value_b", "below_value_b",
                                              "p_value", "p_adjusted")),
           "leaderboards": (("system",), ("value_a", "value_b")),
           "correlations": (("top",), ("kendall_tau_b", "tau_ap", "spearman", "pearson", "swaps"))}
SHOWN = 10  # moved numbers named in the message; the rest are counted


@dataclass
class Verification:
    """The outcome of :func:`verify`: ``holds``, the inputs whose sha256 changed, the numbers that moved."""

    path: str
    holds: bool
    changed: list[dict] = field(default_factory=list)  # role, name, path, recorded, now
    moved: list[dict] = field(default_factory=list)  # table, key, column, recorded, now
    checked: int = 0

    def __bool__(self) -> bool:
        return self.holds

    def __str__(self) -> str:
        if self.holds:
            return f"{self.path}: holds: all {self.checked} numbers recomputed from the recorded inputs agree"
        lines = [f"{self.path}: does not hold"]
        for item in self.changed:
            lines.append(f"  input changed: {_input(item)}: sha256 {item['recorded']} in the record, "
                         f"{item['now'] or 'file missing'} now")
        for item in self.moved[:SHOWN]:
            lines.append(f"  moved: {item['table']} {', '.join(map(str, item['key']))} {item['column']}: "
                         f"{_shown(item['recorded'])} -> {_shown(item['now'])}")
        if len(self.moved) > SHOWN:
            lines.append(f"  ... and {len(self.moved) - SHOWN} more numbers moved")
        if not self.moved and self.changed:
            lines.append(f"  the {self.checked} numbers still agree")
        else:
            lines.append(f"  {len(self.moved)} of {self.checked} numbers moved")
        return "\n".join(lines)


def _input(item: dict) -> str:
    name = f" {item['name']}" if item.get("name") else ""
    path = f" ({item['path']})" if item.get("path") else ""
    return f"{item['role']}{name}{path}"


def _shown(value) -> str:
    if value is None:
        return "none"
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def verify(path: str | Path, *, con=None) -> Verification:
    """Recompute the report saved at ``path`` (JSON) from the files its record names.

    Returns a :class:`Verification`, true when every number holds; ``str()`` of it says what moved.
    A report made from DataFrames or tables (not files) cannot be recomputed: that is an error.
    """
    from rankkit.report.build import build, fingerprint
    from rankkit.report.model import Report

    saved = Report.load(path)
    record = saved.record
    inputs = record["inputs"]
    not_files = [item for item in inputs if item["kind"] != "file"]
    if not_files:
        raise InputError(f"{path}: cannot be recomputed: {_input(not_files[0])} was a "
                         f"{not_files[0]['kind']}, not a file")
    changed = []
    for item in inputs:
        now, _ = fingerprint(item["path"]) if Path(item["path"]).exists() or _glob(item["path"]) else (None, None)
        if now != item["sha256"]:
            changed.append({**item, "recorded": item["sha256"], "now": now})
    missing = [item for item in changed if item["now"] is None]
    if missing:
        return Verification(str(path), False, changed, [], 0)
    runs_items = [item for item in inputs if item["role"] == "run"]
    runs = ({item["name"]: item["path"] for item in runs_items} if runs_items[0]["name"] is not None
            else runs_items[0]["path"])
    queries = next((item["path"] for item in inputs if item["role"] == "queries"), None)
    second_qrels = next((item["path"] for item in inputs if item["role"] == "second_qrels"), None)
    stats = record["statistics"]
    again = build(inputs[0]["path"], runs, [m["name"] for m in record["measures"]], baseline=stats["baseline"],
                  test=stats["test"], correction=stats["correction"], alpha=stats["alpha"], ci=stats["ci"],
                  seed=stats["seed"], resamples=stats["resamples"], by=record["by"], queries=queries,
                  title=saved.title, con=con, columns=record.get("columns") or None,
                  conventions=Conventions.from_dict(record["conventions"]), call=record["call"],
                  second_qrels=second_qrels)
    moved, checked = _compare(saved, again)
    return Verification(str(path), not changed and not moved, changed, moved, checked)


def _glob(text: str) -> bool:
    return any(c in text for c in "*?[")


def _compare(saved, again) -> tuple[list[dict], int]:
    moved, checked = [], 0
    for table, (keys, columns) in CHECKED.items():
        before, after = getattr(saved, table), getattr(again, table)
        if before.empty and after.empty:
            continue
        old = _index(before, keys, columns)
        new = _index(after, keys, columns)
        for key in sorted(old.keys() | new.keys(), key=str):
            for column in columns:
                checked += 1
                a, b = old.get(key, {}).get(column), new.get(key, {}).get(column)
                if not _same(a, b):
                    moved.append({"table": table, "key": key, "column": column, "recorded": a, "now": b})
    return moved, checked


def _index(frame, keys, columns) -> dict:
    present = [c for c in columns if c in frame.columns]
    if frame.empty:
        return {}
    return {tuple(str(row[k]) for k in keys): {c: _number(row[c]) for c in present}
            for row in frame.to_dict("records")}


def _number(value):
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))
