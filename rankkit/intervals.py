"""The aggregate's interval over queries: the percentile bootstrap, computed in Python over the values."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rankkit import _engine as duckdb

from rankkit.errors import RankkitError
from rankkit.measures import AGGREGATIONS

if TYPE_CHECKING:
    import pandas as pd


def with_ci(con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, values: pd.DataFrame, level: float, seed: int | None,
            resamples: int, by: str | None) -> pd.DataFrame:
    """The aggregate with its interval over queries (the sum's for counts): the percentile bootstrap
    (rankkit.stats.AGGREGATE_INTERVAL), the one interval every surface shows for an aggregate. It
    stays inside the values' range, so inside a bounded measure's bounds, where Student's t does not."""
    import pandas as pd

    from rankkit.stats import bootstrap_ci

    if not 0 < level < 1:
        raise RankkitError(f"ci must be a confidence level between 0 and 1, such as 0.95, got {level!r}")
    keys = ["measure", "system"] + (["slice"] if "slice" in values.columns else [])
    # queries in a fixed order: the same seed must draw the same queries whatever order SQL returned
    values = values.drop_duplicates(keys + ["query_id"]).sort_values(keys + ["query_id"], kind="stable")
    rows = []
    for key, group in values.groupby(keys, sort=False, dropna=False):
        agg, found = group["agg"].iloc[0], group["value"].dropna()
        combined = AGGREGATIONS[agg]  # a geometric mean's terms are the logs of the values, from SQL
        terms = geometric_terms(con, found) if combined.log else found
        low, high = bootstrap_ci(terms, combined.of_terms, level, seed, resamples)
        rows.append({**dict(zip(keys, key)), "ci_low": low, "ci_high": high})
    intervals = pd.DataFrame(rows, columns=keys + ["ci_low", "ci_high"]).rename(columns={"slice": by})
    shared = list(intervals.columns[:-2])
    # the frame's types for the keys: a system column of None (a table naming none) reads back as NaN
    intervals = intervals.astype({key: frame[key].dtype for key in shared})
    return frame.merge(intervals, on=shared, how="left")


def geometric_terms(con: duckdb.DuckDBPyConnection, values) -> list[float]:
    """Each value's term in a geometric mean (gm_map, gm_bpref), as rankkit.over_queries takes it:
    rankkit.geometric_term, the log of the value floored at trec_eval's 0.00001."""
    return con.execute("SELECT list_transform($values::DOUBLE[], lambda v: rankkit.geometric_term(v))",
                       {"values": [float(v) for v in values]}).fetchall()[0][0]


