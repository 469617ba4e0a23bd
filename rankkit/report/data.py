"""A Report's data files: CSV and Parquet of its values (the record in a Parquet file's metadata), and
the tables written beside them (the label agreement's, a fusion sweep's)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from rankkit._files import replacing
from rankkit.report.render import summary
from rankkit.safe import csv as safe_csv

__all__ = ["csv_text", "parquet", "agreement_tables", "agreement_paths", "agreement_csv", "agreement_parquet",
           "AGREEMENT_FILES"]


# ---- data files -----------------------------------------------------------------------------------

def csv_text(report) -> str:
    """One row per measure and system: value, interval, queries, best, and whom it significantly beats."""
    table = summary(report)
    names = {row["letter"]: row["name"] for row in table.systems}
    lines = []
    for row in table.systems:
        for measure, cell in zip(table.measures, row["cells"]):
            lines.append({"measure": measure, "system": row["name"], "value": cell.value, "ci_low": cell.low,
                          "ci_high": cell.high, "queries": cell.queries, "best": cell.best,
                          "better_than": ";".join(names[letter] for letter in cell.beats)})
    frame = pd.DataFrame(lines, columns=["measure", "system", "value", "ci_low", "ci_high", "queries", "best",
                                         "better_than"])
    # repr precision: the CSV reads back to the same floats
    return safe_csv.frame(frame).to_csv(index=False, lineterminator="\n", float_format=None)


def parquet(report, path: Path) -> Path:
    """Long per-query values written by DuckDB (no pyarrow needed), the record in the metadata; the
    system-level measures' values (no per-query values) in the metadata too, under rankkit_system_level."""
    long = report.per_query[["system", "query_id", "measure", "value"]]
    _parquet_file(report, long, path, "SELECT system::VARCHAR AS system, query_id::VARCHAR AS query_id, "
                                      "measure::VARCHAR AS measure, value::DOUBLE AS value FROM rankkit_report_values",
                  _system_level_rows(report))
    return path


def _system_level_rows(report) -> dict:
    """The system-level measures' aggregate rows, as the metadata of a Parquet report holds them."""
    from rankkit.report.model import _records

    names = [m["name"] for m in report.record["measures"] if m["aggregate"] == "system"]
    if not names:
        return {}
    return {"rankkit_system_level": _records(report.aggregate[report.aggregate["measure"].isin(names)])}


def _parquet_file(report, frame: pd.DataFrame, path: Path, select: str = "FROM rankkit_report_values",
                  more: dict | None = None) -> None:
    """One table written by DuckDB as Parquet, the report's title and record in its metadata (and
    ``more``: key, JSON value)."""
    import duckdb

    from rankkit.io.catalog import quote

    con = duckdb.connect()
    try:
        con.register("rankkit_report_values", frame)
        fields = {"rankkit_report": {"title": report.title, "record": report.record}, **(more or {})}
        metadata = ", ".join(f"{key}: {quote(json.dumps(value))}" for key, value in fields.items())
        with replacing(path) as partial:
            target = str(partial).replace("'", "''")
            con.execute(f"COPY ({select}) TO '{target}' (FORMAT parquet, KV_METADATA {{{metadata}}})")
    finally:
        con.close()


# ---- the agreement section as data files ------------------------------------------------------------

# The agreement tables of a report, each written beside its CSV or Parquet file as
# <stem>.<name><suffix> (report.csv: report.label-agreement.csv ...): a CSV or Parquet file holds one table.
AGREEMENT_FILES = {"agreement": "label-agreement", "agreement_per_query": "label-agreement-per-query",
                   "leaderboards": "leaderboards", "correlations": "leaderboard-correlations", "swaps": "swaps",
                   "sweep": "fusion-sweep"}


def agreement_paths(report, path: Path) -> list[Path]:
    """The files the agreement tables are written to beside ``path`` (none without a second table)."""
    path = Path(path)
    return [path.with_name(f"{path.stem}.{AGREEMENT_FILES[name]}{path.suffix}")
            for name in _beside(report)]


def agreement_tables(report) -> dict[str, pd.DataFrame]:
    """The agreement section as the CSV and Parquet exports write it, by the report's table name:
    columns that say what they are (every table names the two judgment tables in each row,
    ``qrels_a`` the report's qrels and the reference, ``qrels_b`` the second)."""
    from rankkit.agreement import CORRELATIONS, LABEL_MEASURES

    if report.agreement.empty:
        return {}
    given = {item["role"]: item.get("given") or item.get("path") or item.get("kind") for item in report.record["inputs"]}
    judged = {"qrels_a": given.get("qrels"), "qrels_b": given.get("second_qrels")}
    labels = report.agreement.rename(columns={"value": "over_all_pairs", "mean": "mean_over_queries",
                                              "ci_low": "mean_ci_low", "ci_high": "mean_ci_high"})
    labels.insert(1, "description", labels["measure"].map(LABEL_MEASURES))
    tables = {
        "agreement": labels.assign(**judged),
        "agreement_per_query": report.agreement_per_query.rename(columns={
            "pairs": "pairs_judged_by_both", "only_a": "judged_by_a_only", "only_b": "judged_by_b_only"}
        ).assign(**judged),
    }
    if report.leaderboards.empty:
        return tables
    measure = report.leaderboards["measure"].iloc[0]
    boards = report.leaderboards.drop(columns="measure").rename(columns={
        "value_a": "value_under_a", "value_b": "value_under_b", "rank_a": "rank_under_a", "rank_b": "rank_under_b"})
    correlations = report.correlations.rename(columns={"swaps": "swapped_pairs", "systems": "systems_compared"})
    correlations.insert(0, "among", [("every system" if pd.isna(top) else f"the top {int(top)} under A")
                                     for top in report.correlations["top"]])
    correlations = correlations.drop(columns="top")
    swaps = report.swaps.rename(columns={
        "above_a": "higher_under_a", "below_a": "lower_under_a",
        "above_value_a": "higher_value_under_a", "below_value_a": "lower_value_under_a",
        "above_value_b": "higher_value_under_b", "below_value_b": "lower_value_under_b",
        "p_value": "p_value_under_a", "p_adjusted": "p_adjusted_under_a", "significant": "significant_under_a"})
    statistics = report.record["statistics"]
    tables.update(
        leaderboards=boards.assign(measure=measure, **judged)[["measure", *boards.columns, *judged]],
        correlations=correlations.assign(measure=measure)[["measure", *correlations.columns]].assign(**judged),
        swaps=swaps.assign(measure=measure, test=statistics["test"], correction=statistics["correction"],
                           alpha=statistics["alpha"], **judged)[["measure", *swaps.columns, "test", "correction",
                                                                  "alpha", *judged]])
    missing = set(CORRELATIONS) - set(tables["correlations"].columns)
    if missing:
        raise AssertionError(f"the correlations table lacks {', '.join(sorted(missing))}")
    return tables


def _beside(report) -> dict[str, pd.DataFrame]:
    """The tables a CSV or Parquet report writes beside its file: the agreement's, the sweep's."""
    from rankkit.report.sweep import data_table

    return {**agreement_tables(report), **({"sweep": data_table(report)} if not report.sweep.empty else {})}


def agreement_csv(report, path: Path) -> list[Path]:
    """Each agreement table as a CSV file beside ``path`` (repr precision: read back to the same floats)."""
    paths = agreement_paths(report, path)
    for target, frame in zip(paths, _beside(report).values()):
        with replacing(target) as partial:
            safe_csv.frame(frame).to_csv(partial, index=False, lineterminator="\n", float_format=None)
    return paths


def agreement_parquet(report, path: Path) -> list[Path]:
    """Each agreement table as a Parquet file beside ``path``, the record in its metadata."""
    paths = agreement_paths(report, path)
    for target, frame in zip(paths, _beside(report).values()):
        _parquet_file(report, frame, target)
    return paths
