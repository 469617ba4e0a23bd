"""The explorer's model: its traits (the API), their checks, and what is shown for a setting and a query.

Headless: no ipywidgets here, so a model is driven and tested without a notebook
(``ExplorerModel(data).measure = "AP"``). The widget (rankkit/explore/widget.py) is this model with
views: each ``_show_*`` method below is where a view draws what the model just computed, and does
nothing here.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, TypeVar

import numpy as np
import pandas as pd
import traitlets
from traitlets import Enum, Float, Instance, Int, List, Unicode, observe, validate

from rankkit.explore.data import CONTROLS, ExplorerData, Setting, parse_measure
from rankkit.measures import default, needs_subtopics, params, registry, written
from rankkit.stats import differences as paired_differences

__all__ = ["ExplorerModel", "PAGE_SIZE", "CONTROL_TIPS", "unused_controls", "measure_tip"]

PAGE_SIZE = 15  # query table rows per page: 10,000 queries stay one click from any page

# the cutoff, gain and level controls say what their parameter's declaration says
CONTROL_TIPS = {name: params()[name].description for name in CONTROLS}

T = TypeVar("T")
SECOND = "under B"  # what the query table's and the plots' columns of the second judgment table say


class ExplorerModel(traitlets.HasTraits):
    """Per-query values of the chosen setting, the query table's page and one query's trace, as traits."""

    measure = Unicode("nDCG", help="the measure, with its own parameters (nDCG(ideal=run)); setting a name sets "
                                   "k, gain and rel as evaluate() reads it: 'AP' is AP over the whole list")
    k = Int(10, allow_none=True, help="the cutoff; None: the whole ranked list")
    gain = Enum(params()["gain"].values, default_value=default("gain"), help="gain of a grade, for the measures that take one")
    rel = Float(1.0, help="relevance level, for the measures that take one")
    systems = List(Unicode(), help="the systems shown, in order")
    baseline = Unicode(None, allow_none=True, help="the system the others are measured against")
    query = Unicode(None, allow_none=True, help="the query in the drill-down")
    by = Unicode(None, allow_none=True, help="a query attribute splitting the distribution")
    per_query = Instance(pd.DataFrame, allow_none=True, read_only=True,
                         help="system, query_id, value [, by]: the values behind the current view")
    trace = Instance(pd.DataFrame, allow_none=True, read_only=True, help="rankkit.trace of the chosen query")
    second_per_query = Instance(pd.DataFrame, allow_none=True, read_only=True,
                                help="with a second judgment table: per_query's values under it (system, query_id, value)")
    second_trace = Instance(pd.DataFrame, allow_none=True, read_only=True,
                            help="with a second judgment table: rankkit.trace of the chosen query under it")
    labels = Instance(pd.DataFrame, allow_none=True, read_only=True,
                      help="with a second judgment table: the chosen query's documents judged in either table, "
                           "doc_id, grade_a, grade_b, side")

    def __init__(self, data: ExplorerData, measures: list[str] | None = None, **kwargs):
        self.data = data
        self._ready = False  # the views follow the traits once the first values are shown
        self._quiet = False  # set by _set_quietly: a measure name sets its controls, drawn once
        self._parsed: dict[str, Setting] = {}  # measure names read: a change asks for its setting often
        self.overall: dict[str, float] = {}  # each shown system's aggregate of the setting, as evaluate gives it
        self.second_overall: dict[str, float] = {}  # the same under the second judgment table, if one is given
        self.table = pd.DataFrame()  # the query table's rows on the current page
        self.matching = 0  # the query table's rows matching the search, over every page
        self._sort, self._ascending, self._search, self._page = "query id", True, "", 0
        self._offered = offered_measures(data, measures)
        super().__init__(**kwargs)
        with self.hold_trait_notifications():
            self.systems = list(data.systems)
            self.baseline = data.systems[0]
            self.measure = measures[0] if measures else "nDCG@10"
        self._build()
        self._ready = True
        self._refresh_values()

    # ---- traits -------------------------------------------------------------------------------

    @validate("measure")
    def _check_measure(self, proposal):
        setting = parse_measure(self.data.con, proposal["value"])
        if not numeric(setting.measure):
            raise traitlets.TraitError(f"{setting.measure.name} is text, not a number: the explorer draws numbers "
                                       f"(rankkit eval prints it)")
        name = setting.base
        # a name means what evaluate() takes it to mean: "AP" is AP over the whole list, whatever the
        # cutoff before, so its cutoff, gain and level (evaluate's defaults where it names none) go
        # to their controls; the views are drawn once, for the new measure and its setting together
        moved = self._set_quietly(k=setting.k, gain=setting.gain, rel=setting.rel)
        if moved and name == self.measure and self._ready:
            self._refresh_values()  # the measure trait does not change: nothing else draws it
        return name

    def _set_quietly(self, **values) -> bool:
        """Set traits without drawing the views for each; whether any changed."""
        changed = any(getattr(self, name) != value for name, value in values.items())
        self._quiet = True
        try:
            for name, value in values.items():
                setattr(self, name, value)
        finally:
            self._quiet = False
        return changed

    @validate("k")
    def _check_k(self, proposal):
        k = proposal["value"]
        if k is not None and k < 1:
            raise traitlets.TraitError(f"k must be a positive integer or None (the whole list), got {k}")
        return k

    @validate("systems")
    def _check_systems(self, proposal):
        chosen = list(dict.fromkeys(proposal["value"]))
        unknown = [s for s in chosen if s not in self.data.systems]
        if unknown:
            raise traitlets.TraitError(f"system {unknown[0]!r} is not in the runs; they are {', '.join(self.data.systems)}")
        if not chosen:
            raise traitlets.TraitError("choose at least one system")
        return chosen

    @validate("baseline")
    def _check_baseline(self, proposal):
        value = proposal["value"]
        if value is not None and value not in self.data.systems:
            raise traitlets.TraitError(f"baseline {value!r} is not in the runs; they are {', '.join(self.data.systems)}")
        return value

    @validate("query")
    def _check_query(self, proposal):
        value = proposal["value"]
        if value is not None and self.per_query is not None and value not in self._query_ids:
            raise traitlets.TraitError(f"query {value!r} is not among the evaluated queries (the run's and the qrels')")
        return value

    @validate("by")
    def _check_by(self, proposal):
        value = proposal["value"]
        if value is not None and value not in self.attributes:
            raise traitlets.TraitError(f"by={value!r} is not a query attribute; the queries table gives "
                                       f"{', '.join(self.attributes) or 'none'}")
        return value

    @observe("measure", "k", "gain", "rel", "systems", "by")
    def _on_setting(self, change):
        if self._ready and not self._quiet:
            self._refresh_values()

    @observe("baseline")
    def _on_baseline(self, change):
        if self._ready:
            self._show_settings()
            self._show_comparisons()
            self._refresh_table()

    @observe("query")
    def _on_query(self, change):
        if self._ready:
            # the trace's SQL runs while the views mark the query
            rows = self._beside(self._trace_rows if self.query is not None else lambda: None, self._show_query)
            self._refresh_trace(rows)
            self._show_settings()

    # ---- what is shown -----------------------------------------------------------------------

    @property
    def setting(self) -> Setting:
        if self.measure not in self._parsed:
            self._parsed[self.measure] = parse_measure(self.data.con, self.measure)
        return self._parsed[self.measure].controlled(self.k, self.gain, self.rel)

    @property
    def measure_label(self) -> str:
        """The current measure as evaluate names it (``nDCG(gain=exp)@10``)."""
        return self.setting.name

    @property
    def attributes(self) -> list[str]:
        queries = self.data.queries
        return [] if queries is None else [c for c in queries.columns if c not in ("text", "title")]

    @property
    def compared(self) -> list[str]:
        """The chosen systems other than the baseline."""
        return [s for s in self.systems if s != self.baseline]

    @property
    def sort_keys(self) -> list[str]:
        """The orders the query table offers for the chosen systems and baseline."""
        second = [f"value: {s} {SECOND}" for s in self.systems] if self.data.second is not None else []
        return (["query id"] + [f"value: {s}" for s in self.systems] + second
                + ([f"difference: {s}" for s in self.compared] + ["moved most"] if self.compared else []))

    def _refresh_values(self) -> None:
        setting = self.setting
        values = self.data.values(setting, batch=False)  # sorted by system and query id
        values = values[values["system"].isin(self.systems)]
        # the chosen systems in their order: a stable sort of the system's place keeps query id order
        place = values["system"].map({name: i for i, name in enumerate(self.systems)}).to_numpy()
        values = values.iloc[np.argsort(place, kind="stable")].reset_index(drop=True)
        if self.by is not None:
            values = values.assign(**{self.by: values["query_id"].map(self.data.queries[self.by])})
        if self.data.second is not None:
            # the same rows (system, query) under the second table: a query it does not judge is NaN
            second = self.data.second_values(setting)
            self.set_trait("second_per_query", values[["system", "query_id"]].merge(
                second, on=["system", "query_id"], how="left"))
        self._query_ids = set(values["query_id"].to_numpy())  # iterating an Arrow-backed column is slower
        self.set_trait("per_query", values)
        self._show_settings()
        # the summary's aggregate, the chosen query's trace and the batch's other measures at this
        # setting are computed while the plots and the table are drawn
        overall, rows = self._beside(lambda: self._computed_beside(setting), self._show_values)
        self.overall = {s: overall[s] for s in self.systems if s in overall}
        if self.data.second is not None:
            second = self.data.second_overall(setting)
            self.second_overall = {s: second[s] for s in self.systems if s in second}
        self._show_summary(setting)
        if self.query is not None:
            self._refresh_trace(rows)

    def _show_values(self) -> None:
        """The views of a new per_query: plots, then the query table."""
        self._draw_plots()
        self._refresh_table()

    @staticmethod
    def _beside(work: Callable[[], T], show: Callable[[], None]) -> T:
        """work (SQL: DuckDB lets go of the GIL) in a thread while show() draws, which asks nothing of
        DuckDB meanwhile; work's result."""
        with ThreadPoolExecutor(max_workers=1) as pool:
            found = pool.submit(work)
            show()
            return found.result()

    def _computed_beside(self, setting: Setting) -> tuple[dict[str, float], tuple | None]:
        """Each system's aggregate of the setting and, with a query chosen, its trace rows at the
        setting (drawn after the plots: the trace's SQL no longer waits for them); the batch's other
        measures at its cutoff, gain and level are computed last (the next change of measure finds them)."""
        overall = self.data.overall(setting)
        rows = self._trace_rows() if self.query is not None else None
        self.data.values(setting)
        return overall, rows

    def _trace_rows(self) -> tuple:
        """The chosen query's trace in every system, every system's ranks of its documents and, with a
        second judgment table, the trace under it and the query's labels in both tables."""
        rows = (self.data.trace(self.query, self.setting), self.data.ranks(self.query))
        if self.data.second is None:
            return rows + (None, None)
        return rows + (self.data.second_trace(self.query, self.setting), self.data.labels(self.query))

    def _refresh_trace(self, rows: tuple[pd.DataFrame, pd.DataFrame] | None = None) -> None:
        """The trace trait and the drill-down, from the chosen query's rows (fetched here if not given)."""
        if self.query is None:
            for name in ("trace", "second_trace", "labels"):
                self.set_trait(name, None)
            self._show_trace(None)
            return
        frame, ranks, second, labels = rows if rows is not None else self._trace_rows()
        if second is not None:
            self.set_trait("second_trace", second[second["system"].isin(self.systems)].reset_index(drop=True))
            self.set_trait("labels", labels)
        self.set_trait("trace", frame[frame["system"].isin(self.systems)].reset_index(drop=True))
        self._show_trace(ranks)

    # ---- the query table -----------------------------------------------------------------------

    def table_frame(self) -> pd.DataFrame:
        """Every query's row: its value in each chosen system, each difference to the baseline, its text."""
        wide = self.per_query.pivot(index="query_id", columns="system", values="value")
        wide = wide[[s for s in self.systems if s in wide.columns]]
        for system in self.compared:
            if self.baseline in wide.columns:
                wide[f"Δ {system}"] = paired_differences(wide[system], wide[self.baseline])
        if self.second_per_query is not None:
            second = self.second_per_query.pivot(index="query_id", columns="system", values="value")
            for system in [s for s in self.systems if s in second.columns]:
                wide[f"{system} {SECOND}"] = second[system]
        wide = wide.reset_index()
        if self.data.queries is not None and "text" in self.data.queries.columns:
            wide.insert(1, "text", wide["query_id"].map(self.data.queries["text"]).fillna(""))
        return wide

    def _refresh_table(self) -> None:
        """The table's page: the rows matching the search, in the chosen order."""
        if self._sort not in self.sort_keys:
            self._sort = "query id"
        wide = self.table_frame()
        if self._search:
            needle = self._search.lower()
            hit = wide["query_id"].str.lower().str.contains(needle, regex=False)
            if "text" in wide.columns:
                hit |= wide["text"].astype(str).str.lower().str.contains(needle, regex=False)
            wide = wide[hit]
        key = self._sort
        if key.startswith("value: ") and key[7:] in wide.columns:
            wide = wide.sort_values([key[7:], "query_id"], ascending=[self._ascending, True], na_position="last")
        elif key.startswith("difference: ") and f"Δ {key[12:]}" in wide.columns:
            wide = wide.sort_values([f"Δ {key[12:]}", "query_id"], ascending=[self._ascending, True], na_position="last")
        elif key == "moved most" and self.compared:
            moved = wide[f"Δ {self.compared[0]}"].abs()
            wide = wide.assign(_moved=moved).sort_values(["_moved", "query_id"], ascending=[self._ascending, True],
                                                         na_position="last").drop(columns="_moved")
        else:
            wide = wide.sort_values("query_id", ascending=self._ascending)
        self.matching = len(wide)
        pages = max(1, -(-len(wide) // PAGE_SIZE))
        self._page = min(self._page, pages - 1)
        self.table = wide.iloc[self._page * PAGE_SIZE:(self._page + 1) * PAGE_SIZE].reset_index(drop=True)
        self._show_table()

    def search(self, text: str) -> None:
        """Filter the table by query id or words; a whole query id opens that query."""
        self._search, self._page = text.strip(), 0
        self._refresh_table()
        if self._search in self._query_ids and self._search != self.query:
            self.query = self._search

    def open_match(self) -> None:
        """The query whose id is the search text, else the first row of the table."""
        if self._search in self._query_ids:
            self.query = self._search
        elif len(self.table):
            self.query = str(self.table["query_id"].iloc[0])

    def show(self, what: str) -> None:
        """One click: ``"worst"`` or ``"best"`` sorts by the focus system's value and opens the first
        query (the best the highest value, the lowest where lower is better: FallOut's ``better:``);
        ``"moved"`` sorts the queries whose difference to the baseline is largest first."""
        focus = self.compared[0] if self.compared else self.systems[0]
        if what == "moved":
            if not self.compared:
                return
            self.sort("moved most", False)
        else:
            self.sort(f"value: {focus}", (what == "worst") != (self.setting.measure.better == "lower"))
            if len(self.table):
                self.query = str(self.table["query_id"].iloc[0])

    def sort(self, key: str | None, ascending: bool) -> None:
        """Order the table by one of sort_keys, from its first page."""
        if key is None:
            return
        self._sort, self._ascending, self._page = key, ascending, 0
        self._refresh_table()

    def turn(self, step: int) -> None:
        """Move the table ``step`` pages on (back where negative), within its pages."""
        pages = max(1, -(-self.matching // PAGE_SIZE))
        self._page = min(max(self._page + step, 0), pages - 1)
        self._refresh_table()

    # ---- where views draw (nothing, headless) ---------------------------------------------------

    def _build(self) -> None:
        """Make the views, before the first values are shown."""

    def _show_settings(self) -> None:
        """Show the traits' values (in the controls)."""

    def _draw_plots(self) -> None:
        """Draw the plots of per_query."""

    def _show_comparisons(self) -> None:
        """Draw the plots that compare the systems with the baseline."""

    def _show_summary(self, setting: Setting) -> None:
        """Show each system's aggregate (``overall``)."""

    def _show_table(self) -> None:
        """Show the table's page (``table``)."""

    def _show_query(self) -> None:
        """Mark the chosen query in the plots and the table."""

    def _show_trace(self, ranks: pd.DataFrame | None) -> None:
        """Show the trace of the chosen query; ``ranks``: every system's ranks of its documents."""


def offered_measures(data: ExplorerData, measures: list[str] | None) -> list[str]:
    """The measure control's choices: every registered measure, or the measures given (as the
    measure trait holds them: parameters of their own, no cutoff, gain or level)."""
    if not measures:  # the diversity measures read subtopic judgments, which the explorer is not given
        return [m.name for m in registry().values() if numeric(m) and not needs_subtopics(m.metric)]
    return list(dict.fromkeys(parse_measure(data.con, name).base for name in measures))


def unused_controls(measure) -> dict[str, str]:
    """The cutoff, gain and level controls a measure does not take, each with the reason, read from
    the parameters its SQL file declares."""
    takes, name = set(measure.params), measure.name
    unused = {}
    if "k" not in takes:
        unused["k"] = f"{name} takes no cutoff."
    if "gain" not in takes:
        unused["gain"] = (f"{name} takes no gain: a document is relevant (grade at least the level) or not."
                          if "rel" in takes else f"{name} takes no gain.")
    if "rel" not in takes:
        unused["rel"] = (f"{name} takes no relevance level: it weighs every grade by its gain." if takes & {"gain", "gains"}
                         else f"{name} takes no relevance level: it reads a grade as a chance of stopping (grade / max)."
                         if "max" in takes else f"{name} takes no relevance level.")
    return unused


def measure_tip(setting: Setting) -> str:
    """The measure control's tooltip: what the measure is, and each parameter of its own (those no
    other control sets, given in its name: nDCG(ideal=run)) with its value and its declaration's words."""
    measure = setting.measure
    own = [f"{name}={'none' if setting.spec_value(name) is None else written(setting.spec_value(name))}: "
           f"{params()[name].description}" for name in measure.params if name not in CONTROLS]
    return "\n".join([f"{measure.name}: {measure.summary}", *own])


def numeric(measure) -> bool:
    """Whether a measure's values are numbers (trec_eval's runid and relstring are text)."""
    return measure.aggregate != "text"
