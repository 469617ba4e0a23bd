"""The Report: tables and record in memory, written to any format, read back from its JSON."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from rankkit._files import refuse_inputs, write_text
from rankkit.errors import InputError

__all__ = ["Report", "FORMAT_VERSION", "SUFFIXES", "in_system_order"]

FORMAT_VERSION = 1
SUFFIXES = (".html", ".htm", ".md", ".tex", ".csv", ".json", ".parquet")
TABLES = ("aggregate", "comparison", "per_query", "coverage", "slices", "agreement", "agreement_per_query",
          "leaderboards", "correlations", "swaps", "sweep")


@dataclass(repr=False)
class Report:
    """What :func:`rankkit.report` made: tables, and the record of how their numbers were made.

    ``aggregate``: ``measure, system, value, queries[, ci_low, ci_high]``; ``comparison``:
    :func:`rankkit.compare`'s table (empty with one system); ``per_query``: ``measure, system,
    query_id, value``; ``coverage``: ``Judged@k`` per system; ``slices``: the aggregate per value
    of the ``by`` column; ``record``: versions, date, call, conventions, measures, statistics,
    inputs (path, sha256, rows, queries) and warnings. With a second judgment table
    (``second_qrels``): ``agreement`` and ``agreement_per_query`` (:func:`rankkit.agreement`'s
    ``aggregate`` and ``per_query``), and for two systems or more ``leaderboards``,
    ``correlations`` and ``swaps`` (:func:`rankkit.leaderboard_agreement`'s, for the first measure).
    With ``sweep=``: ``sweep``, :func:`rankkit.fusion_sweep`'s table (a row per grid point), its
    settings, best point, coordinates and held-out figure in ``record["sweep"]``.
    """

    title: str
    record: dict
    aggregate: pd.DataFrame
    comparison: pd.DataFrame = field(default_factory=pd.DataFrame)
    per_query: pd.DataFrame = field(default_factory=pd.DataFrame)
    coverage: pd.DataFrame = field(default_factory=pd.DataFrame)
    slices: pd.DataFrame = field(default_factory=pd.DataFrame)
    agreement: pd.DataFrame = field(default_factory=pd.DataFrame)
    agreement_per_query: pd.DataFrame = field(default_factory=pd.DataFrame)
    leaderboards: pd.DataFrame = field(default_factory=pd.DataFrame)
    correlations: pd.DataFrame = field(default_factory=pd.DataFrame)
    swaps: pd.DataFrame = field(default_factory=pd.DataFrame)
    sweep: pd.DataFrame = field(default_factory=pd.DataFrame)

    def __repr__(self) -> str:
        queries = self.per_query["query_id"].nunique() if "query_id" in self.per_query.columns else 0
        return (f"<rankkit Report {self.title!r}: {len(self.record['systems'])} systems, "
                f"{len(self.record['measures'])} measures, {queries} queries>")

    # ---- exports ----------------------------------------------------------------------------------

    def to_html(self) -> str:
        """One self-contained HTML page: styles inline, plots embedded as images, no network request."""
        from rankkit.report.render import html

        return html(self)

    def _repr_html_(self) -> str:
        from rankkit.report.render import html

        return html(self, fragment=True)

    def to_markdown(self) -> str:
        """GitHub-flavoured Markdown, to paste into a pull request."""
        from rankkit.report.render import markdown

        return markdown(self)

    def table(self, format: str = "latex", *, intervals: bool = False, caption: str | None = None,
              label: str | None = None) -> str:
        """The systems x measures table, to paste into a paper as is.

        Rows are the systems (lettered a, b, c ...), columns the measures: each system's mean (the
        sum for counts) and its query count, the best per measure in bold (the lowest where lower is
        better, FallOut's; none where neither way is, unj's: the measure file's ``better:``), and a
        superscript letter for each system it beats significantly after correction; a note under the
        table says so.

        Parameters
        ----------
        format:
            ``"latex"``: a ``table`` float with ``\\caption`` and ``\\label`` around a booktabs
            ``tabular`` (the paper's preamble needs ``\\usepackage{booktabs}``). ``"markdown"``:
            a GitHub-flavoured table, then the notes.
        intervals:
            Also show each mean's interval (in LaTeX on a smaller line under the means).
        caption:
            Plain text, escaped for the format. LaTeX's default is the report's title; Markdown
            writes one, when given, under the table as pandoc's ``Table:`` line.
        label:
            LaTeX's ``\\label`` (default ``tab:`` and the title's words); Markdown writes one, when
            given, after the caption as pandoc-crossref's ``{#label}``.

        Examples
        --------
        :func:`rankkit.report`'s example ends with one.
        """
        from rankkit.report.render import table

        return table(self, format, intervals, caption, label)

    def to_latex(self, *, intervals: bool = False, caption: str | None = None, label: str | None = None) -> str:
        """``table("latex", ...)``: a booktabs table float with caption and label, best values bold,
        significance as superscript letters, a note on the marks."""
        return self.table("latex", intervals=intervals, caption=caption, label=label)

    def to_csv(self) -> str:
        """The aggregate table, one row per measure and system, with interval, best and significance.
        (With a second judgment table, :meth:`save` writes the agreement tables beside it.)"""
        from rankkit.report.data import csv_text

        return csv_text(self)

    def agreement_tables(self) -> dict[str, pd.DataFrame]:
        """With a second judgment table, the agreement section as the CSV and Parquet files beside the
        report hold it: ``agreement`` (label agreement, each measure described), ``agreement_per_query``
        and, for two systems or more, ``leaderboards``, ``correlations`` (NaN for two) and ``swaps``, columns
        named for what they hold (``value_under_a``, ``p_adjusted_under_a``, the two judgment tables in
        ``qrels_a`` and ``qrels_b``). Empty without a second table."""
        from rankkit.report.data import agreement_tables

        return agreement_tables(self)

    def written(self, path: str | Path) -> list[Path]:
        """The files :meth:`save` writes for ``path``: it, and for a CSV or Parquet report with an
        agreement section one file per agreement table beside it (``report.csv``:
        ``report.label-agreement.csv``, ``report.leaderboards.csv`` ...)."""
        from rankkit.report.data import agreement_paths

        path = Path(path)
        beside = agreement_paths(self, path) if path.suffix.lower() in (".csv", ".parquet") else []
        return [path, *beside]

    def to_json(self) -> str:
        """Every table and the whole record; :meth:`load` reads it back. With a second judgment table,
        also ``agreement_tables``: :meth:`agreement_tables`, as the CSV and Parquet exports write them."""
        document = {"rankkit_report": FORMAT_VERSION, "title": self.title, "record": self.record}
        document.update({name: _records(getattr(self, name)) for name in TABLES})
        exported = self.agreement_tables()
        if exported:
            # the agreement section as the CSV and Parquet files beside a report hold it, columns named for
            # what they hold; the tables above are the report's own, which load() reads back
            document["agreement_tables"] = {name: _records(frame) for name, frame in exported.items()}
        return json.dumps(document, indent=1, allow_nan=False) + "\n"

    def to_parquet(self, path: str | Path) -> Path:
        """Per-query values in long form (``system, query_id, measure, value``), the record in the
        file's key-value metadata under ``rankkit_report``."""
        from rankkit.report.data import parquet

        self._refuse_inputs(Path(path))
        return parquet(self, Path(path))

    def save(self, path: str | Path) -> Path:
        """Write the report in the format its suffix names; ``.tex`` is a document pdflatex compiles.
        A CSV or Parquet file holds one table: with an agreement section, its tables are written
        beside it (:meth:`written` lists the files, :meth:`agreement_tables` their contents)."""
        from rankkit.report.render import latex_document

        from rankkit.report.data import agreement_csv, agreement_parquet

        path = Path(path)
        suffix = path.suffix.lower()
        self._refuse_inputs(path)
        if suffix == ".parquet":
            agreement_parquet(self, path)
            return self.to_parquet(path)
        writers = {".html": self.to_html, ".htm": self.to_html, ".md": self.to_markdown,
                   ".tex": lambda: latex_document(self), ".csv": self.to_csv, ".json": self.to_json}
        if suffix not in writers:
            raise InputError(f"{path}: a report is saved as {', '.join(SUFFIXES)}; the suffix says which")
        if suffix == ".csv":
            agreement_csv(self, path)
        return write_text(path, writers[suffix]())

    def _refuse_inputs(self, path: Path) -> None:
        """No file written over one the report was made from (as its record names them). Only the
        files the record names, not a folder's or a glob's: a record loaded from JSON is not trusted
        to name a folder worth walking (the command line checks its own arguments in full)."""
        files = [(item.get("role", "input"), item["path"]) for item in self.record.get("inputs") or []
                 if isinstance(item, dict) and isinstance(item.get("path"), str) and os.path.isfile(item["path"])]
        refuse_inputs([("the report's file", written) for written in self.written(path)], files)

    @classmethod
    def load(cls, path: str | Path) -> Report:
        """A report saved with ``save("report.json")``, to export again without the inputs."""
        path = Path(path)
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise InputError(f"{path}: not a rankkit report saved as JSON ({error})") from None
        if not isinstance(document, dict) or document.get("rankkit_report") != FORMAT_VERSION:
            raise InputError(f"{path}: not a rankkit report (expected a JSON object with \"rankkit_report\": "
                             f"{FORMAT_VERSION})")
        if not isinstance(document.get("title"), str) or not isinstance(document.get("record"), dict):
            raise InputError(f"{path}: not a rankkit report (its title is not text or its record not an object)")
        try:  # a file from someone else: a table that is not rows of values is refused, not a traceback
            tables = {name: _frame(document.get(name) or [], name) for name in TABLES}
        except (ValueError, TypeError) as error:
            raise InputError(f"{path}: not a rankkit report: a table does not hold rows of values ({error})") from None
        return cls(title=document["title"], record=document["record"], **tables)


def _records(frame: pd.DataFrame) -> list[dict]:
    """Rows as JSON values: NaN is null, numpy scalars plain numbers (floats keep every bit)."""
    rows = []
    for row in frame.to_dict("records"):
        rows.append({str(key): _plain(value) for key, value in row.items()})
    return rows


def _plain(value):
    if value is None:
        return None
    if hasattr(value, "item"):  # numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def _frame(rows: list[dict], name: str) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    if "query_id" in frame.columns:
        frame["query_id"] = frame["query_id"].astype(str)  # ids are strings: "007" stays "007"
    for column in ("value", "ci_low", "ci_high", "mean", "baseline_mean", "diff", "effect", "p_value",
                   "p_adjusted"):
        if column in frame.columns:
            frame[column] = frame[column].astype(float)
    return frame


def in_system_order(frame: pd.DataFrame, systems: list[str]) -> pd.DataFrame:
    """The rows measure by measure as they come, each measure's systems in the report's order (the
    order the runs were given; a table's systems by name): every table, plot and colour of a report
    follows it. A stable sort: a system's queries and slices keep their order."""
    measure = pd.Categorical(frame["measure"], categories=pd.unique(frame["measure"])).codes
    place = frame["system"].map({name: i for i, name in enumerate(systems)}).to_numpy()
    order = pd.DataFrame({"measure": measure, "system": place}).sort_values(["measure", "system"], kind="stable")
    return frame.iloc[order.index].reset_index(drop=True)
