"""The per-query and trace frames as the figures read them: one measure's rows, the systems named
and ordered, each system's colour and marker, values paired by query."""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from rankkit.errors import RankkitError

# matplotlib's tab10, in order: a system keeps its colour in every figure drawn from the same frame
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
# beyond the palette's ten systems, the next ten get its colours with another marker, and so on
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
# name of the one system of a frame without a system column (or with a NULL system)
ONE_SYSTEM = "run"


def _one_measure(per_query: pd.DataFrame, measure: str | None, by: str | None = None) -> tuple[pd.DataFrame, str]:
    """The rows of one measure, and its name for axis labels: one per system and query (and slice,
    where the slices are columns of panels: a query may stand in two, as under two judgment tables)."""
    for column in ("query_id", "value"):
        if column not in per_query.columns:
            raise RankkitError(f"per_query has no {column!r} column: expected evaluate(..., per_query=True)'s "
                               f"frame (measure, [system,] query_id, value); it has "
                               f"{', '.join(map(str, per_query.columns))}")
    if "measure" not in per_query.columns:
        return _named(per_query), measure or "value"
    present = _in_order(per_query["measure"])
    if measure is None:
        if len(present) != 1:
            raise RankkitError(f"per_query holds {len(present)} measures ({', '.join(map(str, present))}): "
                               f"choose one with measure=")
        measure = present[0]
    elif measure not in present:
        raise RankkitError(f"measure {measure!r} is not in per_query; it holds {', '.join(map(str, present))}")
    frame = per_query[per_query["measure"] == measure]
    keys = [column for column in ("system", "query_id", by) if column is not None and column in frame.columns]
    repeated = frame[frame.duplicated(keys)]
    if len(repeated):
        row = repeated.iloc[0]
        raise RankkitError(f"per_query has more than one {measure} value for query {row['query_id']!r}"
                           + (f" of system {row['system']!r}" if "system" in keys else "")
                           + ": one row per system and query expected")
    return _named(frame), str(measure)


def _named(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with each row's system name as a string in ``system``; a frame of one unnamed system
    calls it ``run``. Done once per plot: the helpers below read the column as it is."""
    if "system" not in frame.columns:
        return frame.assign(system=ONE_SYSTEM)
    return frame.assign(system=frame["system"].where(frame["system"].notna(), ONE_SYSTEM).astype(str))


def _in_order(column: pd.Series) -> list:
    """A column's distinct values in the order they first appear (pandas' unique, not a Python loop
    over thousands of rows)."""
    return list(pd.unique(column))


def _system_names(frame: pd.DataFrame, chosen: Iterable[str] | None) -> list[str]:
    present = _in_order(frame["system"])
    if chosen is None:
        return present
    chosen = [chosen] if isinstance(chosen, str) else list(chosen)
    unknown = [name for name in chosen if name not in present]
    if unknown:
        raise RankkitError(f"system {unknown[0]!r} is not in the frame; its systems: {', '.join(present)}")
    if not chosen:
        raise RankkitError("systems is empty: choose at least one system to draw")
    return chosen


def _colors(frame: pd.DataFrame) -> dict[str, str]:
    """A colour per system by its place in the whole frame, so a subset keeps the colours."""
    return system_colors(_in_order(frame["system"]))


def system_colors(names: Iterable[str]) -> dict[str, str]:
    """The colour of each system, by its place among ``names``: the plots' colours (a report shows
    them beside the names in its tables)."""
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}


def _markers(frame: pd.DataFrame) -> dict[str, str]:
    """A marker per system, as _colors: the eleventh system has the first one's colour and the next
    marker, so that no two systems of a panel look alike up to 80."""
    names = _in_order(frame["system"])
    return {name: MARKERS[i // len(PALETTE) % len(MARKERS)] for i, name in enumerate(names)}


def _by_system(frame: pd.DataFrame) -> dict[str, pd.Series]:
    """Per system, its values indexed by query id."""
    return {name: rows.set_index("query_id")["value"].astype(float) for name, rows in frame.groupby("system", sort=False)}


def _pair(values: pd.Series, base: pd.Series) -> pd.DataFrame:
    """The queries both sides have a value for, in the order of ``values``; columns ``value, base``."""
    return values.rename("value").to_frame().join(base.rename("base"), how="inner").dropna()
