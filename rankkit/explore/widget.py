"""The explorer widget: the model (rankkit/explore/model.py) with its views, ipywidgets controls and
images that follow its traits and set them."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
import pandas as pd
import traitlets
from matplotlib.figure import Figure

from rankkit import plot
from rankkit.trace_fields import CONTRIBUTION, traced
from rankkit.explore.data import ExplorerData, Setting
from rankkit.explore.model import CONTROL_TIPS, PAGE_SIZE, ExplorerModel, measure_tip, unused_controls
from rankkit.explore.render import KeptAxes, Rendered, canvas, layout_key
from rankkit.measures import params, registry
from rankkit.safe.html import text as html_text

__all__ = ["Explorer", "PAGE_SIZE"]

TRACE_ROWS = 50       # drill-down rows shown per system (the trace trait holds them all)
MISSED_SHOWN = 10     # judged documents no system retrieved, listed before the rest is folded
HELPS, HURTS, NEUTRAL = "#2ca02c", "#d62728", "#777"  # a document's move: for this system's score, against it, unknown
CUTOFFS = (1, 3, 5, 10, 20, 50, 100, 1000)
WHOLE_LIST = 0  # the cutoff control's value for k None: a Dropdown given the value None selects no option


class Explorer(ExplorerModel, widgets.VBox):
    """Per-query distributions, system against system, and one query's trace, as one widget.

    Build it with :func:`rankkit.explore`. The traits are the API (:class:`ExplorerModel`): set
    them from Python and the views and controls follow; use a control and the trait changes.
    """

    def __init__(self, data: ExplorerData, measures: list[str] | None = None, **kwargs):
        self.figures: dict[str, Figure] = {}
        self._rendered: dict[str, Rendered] = {}  # the three plots, drawn once per setting
        self._kept_axes: dict[str, KeptAxes] = {}  # per view, the axes (ticks and tick labels) it drew
        self._layouts: dict[tuple, list] = {}  # axes positions the constrained layout found, by layout_key
        self._row_buttons: list[widgets.Button] = []  # the query table's buttons on this page
        self._syncing = False  # a control set from its trait does not set the trait again
        super().__init__(data, measures, **kwargs)

    # ---- building the views -------------------------------------------------------------------

    def _build(self) -> None:
        self._progress = widgets.IntProgress(min=0, max=100, description="", layout=widgets.Layout(display="none"))
        self.data.progress = self._progress_bar
        style = {"description_width": "initial"}
        self.controls = {
            "measure": widgets.Dropdown(options=self._offered, description="measure", style=style,
                                        layout=widgets.Layout(width="220px")),
            "k": widgets.Dropdown(options=[("whole list", WHOLE_LIST)] + [(str(c), c) for c in CUTOFFS], description="k",
                                  style=style, layout=widgets.Layout(width="140px")),
            # a flex row with the other controls' margin, so that it lines up with them: ipywidgets 8
            # lays ToggleButtons out as a block, its buttons on a line below the label, with no margin
            "gain": widgets.ToggleButtons(options=list(params()["gain"].values), description="gain",
                                          style={"button_width": "60px", "description_width": "initial"},
                                          layout=widgets.Layout(display="flex", align_items="center",
                                                                margin="var(--jp-widgets-margin)")),
            "rel": widgets.Dropdown(options=[(f"{g:g}", float(g)) for g in self.data.grades] or [("1", 1.0)],
                                    description="relevant from grade", style=style, layout=widgets.Layout(width="190px")),
            "systems": widgets.SelectMultiple(options=self.data.systems, description="systems", style=style,
                                              rows=min(4, len(self.data.systems)), layout=widgets.Layout(width="260px")),
            "baseline": widgets.Dropdown(options=self.data.systems, description="baseline", style=style,
                                         layout=widgets.Layout(width="220px")),
            "by": widgets.Dropdown(options=[("none", None)] + [(a, a) for a in self.attributes], description="split by",
                                   style=style, layout=widgets.Layout(width="200px",
                                                                      display="" if self.attributes else "none")),
            "search": widgets.Text(placeholder="query id or words", description="query",
                                   style=style, layout=widgets.Layout(width="300px"), continuous_update=True),
            "open": widgets.Button(description="open", tooltip="open the query typed, or the first match",
                                   layout=widgets.Layout(width="70px")),
        }
        for name in ("k", "gain", "rel"):
            self.controls[name].tooltip = CONTROL_TIPS[name]
        self._control_note = widgets.HTML(layout=widgets.Layout(margin="var(--jp-widgets-margin)", max_width="520px"))
        for name in ("measure", "k", "gain", "rel", "systems", "baseline", "by"):
            self.controls[name].observe(self._control_changed(name), names="value")
        self.controls["search"].observe(lambda change: self.search(change["new"]), names="value")
        self.controls["open"].on_click(lambda _: self.open_match())
        self._views = {
            "title": widgets.HTML(),
            "summary": widgets.HTML(),
            "distribution": widgets.Image(format="png"),
            "differences": widgets.Image(format="png"),
            "scatter": widgets.Image(format="png"),
            "table": widgets.VBox(),
            "drilldown": widgets.VBox(),
        }
        # the drill-down's parts, made once: a query selection changes their contents (new widgets for
        # each were never closed: 19 more per selection, each a new view for the page to make)
        self._drill = {"head": widgets.HTML(), "tables": widgets.HBox(layout=_wrapping(overflow="auto")),
                       "legend": widgets.HTML(), "missed": widgets.HTML(), "curve": widgets.Image(format="png")}
        self._drill_tables: list[widgets.HTML] = []  # one per system shown, grown as needed
        self._table_tools = self._build_table_tools()
        # rows wrap: where the output is narrower than the explorer (JupyterLab beside its sidebar,
        # Notebook 7's centred page), the scatter and the query table go below instead of being cut off
        plots = widgets.VBox([
            widgets.HBox([self._views["distribution"], self._views["scatter"]], layout=_wrapping()),
            widgets.HBox([self._views["differences"], widgets.VBox([self._table_tools, self._views["table"]])],
                         layout=_wrapping()),
        ])
        self.children = [
            self._views["title"],
            widgets.HBox([self.controls[n] for n in ("measure", "k", "gain", "rel")] + [self._control_note],
                         layout=_wrapping()),
            widgets.HBox([self.controls[n] for n in ("systems", "baseline", "by", "search", "open")], layout=_wrapping()),
            self._progress,
            self._views["summary"],
            plots,
            self._views["drilldown"],
        ]
        self.add_class("rankkit-explorer")

    def _build_table_tools(self) -> widgets.Widget:
        self._sort_control = widgets.Dropdown(description="sort", layout=widgets.Layout(width="230px"))
        self._sort_control.observe(self._unless_syncing(lambda change: self.sort(change["new"], self._ascending)),
                                   names="value")
        self._order_control = widgets.ToggleButton(value=True, description="ascending", layout=widgets.Layout(width="100px"))
        self._order_control.observe(self._unless_syncing(lambda change: self.sort(self._sort, change["new"])),
                                    names="value")
        buttons = {"worst": widgets.Button(description="worst", tooltip="open the query with the lowest value"),
                   "best": widgets.Button(description="best", tooltip="open the query with the highest value"),
                   "moved": widgets.Button(description="moved most", tooltip="queries whose value changed most first")}
        for name, button in buttons.items():
            button.layout = widgets.Layout(width="110px" if name == "moved" else "70px")
            button.on_click(lambda _, name=name: self.show(name))
        self._buttons = buttons
        self._pager = {"previous": widgets.Button(description="◀", layout=widgets.Layout(width="40px")),
                       "next": widgets.Button(description="▶", layout=widgets.Layout(width="40px")),
                       "label": widgets.HTML()}
        self._pager["previous"].on_click(lambda _: self.turn(-1))
        self._pager["next"].on_click(lambda _: self.turn(1))
        return widgets.VBox([widgets.HBox([self._sort_control, self._order_control]),
                             widgets.HBox(list(buttons.values()) + [self._pager["previous"], self._pager["label"],
                                                                    self._pager["next"]])])

    # ---- controls -> traits -------------------------------------------------------------------

    def _unless_syncing(self, handler):
        """A control's handler that does nothing while the control is set from the model."""
        def handle(change):
            if not self._syncing:
                handler(change)
        return handle

    def _control_changed(self, name: str):
        def changed(change):
            value = change["new"]
            if name == "systems":
                value = [s for s in self.data.systems if s in value] or list(self.systems)
            if name == "k" and value == WHOLE_LIST:
                value = None
            try:
                setattr(self, name, value)
            except traitlets.TraitError as error:
                self._views["summary"].value = f"<b>{html_text(str(error))}</b>"
        return self._unless_syncing(changed)

    # ---- traits -> views ------------------------------------------------------------------------

    def _show_settings(self) -> None:
        """Traits -> controls (a trait set from Python shows in its control)."""
        self._syncing = True
        try:
            measure = self.controls["measure"]
            if self.measure not in measure.options:
                measure.options = list(measure.options) + [self.measure]
            measure.value = self.measure
            measure.tooltip = measure_tip(self.setting)
            k = self.controls["k"]
            if self.k is not None and self.k not in [v for _, v in k.options]:
                k.options = sorted(list(k.options) + [(str(self.k), self.k)], key=lambda o: o[1])
            k.value = WHOLE_LIST if self.k is None else self.k
            self.controls["gain"].value = self.gain
            rel = self.controls["rel"]
            if self.rel not in [v for _, v in rel.options]:
                rel.options = sorted(list(rel.options) + [(f"{self.rel:g}", self.rel)], key=lambda o: o[1])
            rel.value = self.rel
            # a control the measure does not take is greyed out, and says why (its tooltip and a note)
            unused = unused_controls(self.setting.measure)
            for name in ("k", "gain", "rel"):
                control = self.controls[name]
                control.disabled = name in unused
                control.tooltip = unused.get(name, CONTROL_TIPS[name])
            self._control_note.value = (f"<span style='color:#666;font-size:12px'>{html_text(' '.join(unused.values()))}"
                                        "</span>")
            self.controls["systems"].value = tuple(self.systems)
            if self.baseline is not None:
                self.controls["baseline"].value = self.baseline
            self.controls["by"].value = self.by
            self._buttons["moved"].disabled = not self.compared
        finally:
            self._syncing = False

    def _draw_plots(self) -> None:
        label = self.measure_label
        frame, by = self.per_query.assign(measure=label), self.by
        if self.second_per_query is not None and by is None:
            # each system's values under both judgment tables, side by side (split by an attribute,
            # the distribution shows the first table's; the query table has both)
            frame = pd.concat([frame.assign(qrels="A"), self.second_per_query.assign(measure=label, qrels="B")],
                              ignore_index=True)
            by = "qrels"
        self._rendered["distribution"] = self._render(
            "distribution", plot.distribution(frame, by=by, reuse=self._drawn("distribution")))
        self._show_comparisons()
        self._views["title"].value = (f"<h3 style='margin:4px 0'>rankkit explorer: {html_text(label)}, "
                                      f"{len(self._query_ids)} queries, {len(self.systems)} "
                                      f"system{'s' if len(self.systems) != 1 else ''}</h3>")

    def _show_summary(self, setting: Setting) -> None:
        """evaluate's number: the measure's own aggregate, in SQL (a sum for counts, gm_map's geometric mean)."""
        word = {"sum": "total", "gmean": "geometric mean"}.get(setting.measure.aggregate, "mean")
        line = f"{word} " + html_text(setting.name) + ": " + ", ".join(
            f"<b>{html_text(s)}</b> {value:.4f}" for s, value in self.overall.items())
        if self.data.second is not None:
            line = (f"{_judgments_legend(self.data)}<br>under A, {line}<br>under B, {word} {html_text(setting.name)}: "
                    + ", ".join(f"<b>{html_text(s)}</b> {value:.4f}" for s, value in self.second_overall.items()))
        self._views["summary"].value = line

    def _show_comparisons(self) -> None:
        frame = self.per_query.assign(measure=self.measure_label)
        before = {name: self._drawn(name) for name in ("differences", "scatter")}
        for name in ("differences", "scatter"):
            self._rendered.pop(name, None)
            self.figures.pop(name, None)
        if self.compared and self.baseline in self.systems:
            self._rendered["differences"] = self._render(
                "differences", plot.differences(frame, self.baseline, systems=self.compared, reuse=before["differences"]))
            self._rendered["scatter"] = self._render(
                "scatter", plot.scatter(frame, self.baseline, self.compared[0], reuse=before["scatter"]))
        for name in ("differences", "scatter"):
            if name not in self._rendered:
                self._views[name].value, self._views[name].layout.display = b"", "none"
        self._show_marks()

    def _drawn(self, name: str) -> Figure | None:
        """The figure last drawn for a view, for the plot function to draw into again."""
        return self.figures.get(name)

    def _render(self, name: str, fig: Figure) -> Rendered:
        """Draw a plot; a figure laid out as an earlier one (same size, panels, lines of titles and
        labels, width of tick labels) takes that one's axes positions instead of the constrained
        layout, which took about half of each drawing: a change of measure draws all three."""
        canvas(fig)  # the layout measures text at the explorer's resolution
        key = (name, *layout_key(fig))
        if key not in self._layouts:
            for ax in fig.axes:  # set_position (below, for an earlier key) took them out of the layout
                ax.set_in_layout(True)
            fig.set_layout_engine("constrained")
            fig.get_layout_engine().execute(fig)
            self._layouts[key] = [ax.get_position() for ax in fig.axes]
        fig.set_layout_engine("none")
        for ax, position in zip(fig.axes, self._layouts[key]):
            ax.set_position(position)
        return Rendered(fig, self._kept_axes.setdefault(name, KeptAxes()))

    def _show_query(self) -> None:
        for button in self._row_buttons:  # the chosen query's row is marked
            button.button_style = "info" if button.description == self.query else ""
        self._show_marks()

    def _show_marks(self) -> None:
        """The plots with the chosen query marked: only the mark is drawn, over each plot's first drawing."""
        for name, rendered in self._rendered.items():
            self.figures[name] = rendered.fig
            _show(self._views[name], rendered, self.query)

    def _show_table(self) -> None:
        self._syncing = True
        try:
            if list(self._sort_control.options) != self.sort_keys:
                self._sort_control.options = self.sort_keys
            self._sort_control.value = self._sort
            self._order_control.value = self._ascending
            self._order_control.description = "ascending" if self._ascending else "descending"
        finally:
            self._syncing = False
        first = self._page * PAGE_SIZE
        self._pager["label"].value = (f"<span style='padding:0 6px;white-space:nowrap'>"
                                      f"{first + min(1, self.matching)}–{first + len(self.table)} of {self.matching}"
                                      f"</span>")
        self._views["table"].children = [self._table_grid(self.table)]

    def _table_grid(self, rows: pd.DataFrame) -> widgets.Widget:
        """The page of the query table as a grid: a button per query (click: open it), a cell per value.
        A page of the same columns and length as the last one reuses its widgets, changing only their
        text: making a hundred widgets cost more than drawing a plot."""
        columns = [c for c in rows.columns if c != "query_id"]
        shape = (tuple(columns), len(rows))
        if getattr(self, "_grid_shape", None) != shape:
            self._grid_shape = shape
            self._grid_header = [widgets.HTML() for _ in range(len(columns) + 1)]
            self._row_buttons = [widgets.Button(tooltip="open this query", layout=widgets.Layout(width="auto", height="26px"))
                                 for _ in range(len(rows))]
            for button in self._row_buttons:
                button.on_click(lambda b: setattr(self, "query", b.description))
            self._grid_cells = [[widgets.HTML() for _ in columns] for _ in range(len(rows))]
            template = "minmax(70px, auto) " + ("minmax(160px, 2fr) " if "text" in columns else "") + " ".join(
                "90px" for c in columns if c != "text")
            cells = list(self._grid_header)
            for button, row_cells in zip(self._row_buttons, self._grid_cells):
                cells += [button, *row_cells]
            self._grid = widgets.GridBox(cells, layout=widgets.Layout(grid_template_columns=template,
                                                                      grid_gap="1px 8px", align_items="center"))
        for cell, name in zip(self._grid_header, ["query", *columns]):
            cell.value = f"<b>{html_text(str(name))}</b>"
        for button, row_cells, (_, row) in zip(self._row_buttons, self._grid_cells, rows.iterrows()):
            button.description = str(row["query_id"])
            button.button_style = "info" if row["query_id"] == self.query else ""
            for cell, c in zip(row_cells, columns):
                cell.value = _cell(c, row[c])
        return self._grid

    def _show_trace(self, ranks: pd.DataFrame | None) -> None:
        view = self._views["drilldown"]
        if self.trace is None:
            view.children = []
            self.figures.pop("trace_curve", None)
            return
        trace = self.trace
        query_text = ""
        if self.data.queries is not None and "text" in self.data.queries.columns and self.query in self.data.queries.index:
            query_text = f": {html_text(str(self.data.queries.loc[self.query, 'text']))}"
        texts = self.data.doc_texts([d for d in trace["doc_id"].dropna().unique()])
        tables = []
        for system in self.systems:
            rows = trace[trace["system"] == system]
            if rows.empty:
                tables.append((f"<b>{html_text(system)}</b>: retrieved nothing for this query", None))
                continue
            if self.second_trace is not None:
                # one run under the two judgment tables; two systems' tables (about 470 pixels each
                # without document texts) side by side from a 1000-pixel output, a wider one scrolls
                second = self.second_trace[self.second_trace["system"] == system]
                tables.append((_two_tables(rows, second, system, texts, self.setting), "480px"))
                continue
            other = self.baseline if system != self.baseline else (self.compared[0] if self.compared else None)
            theirs = ranks[ranks["system"] == other]
            other_ranks = dict(zip(theirs["doc_id"], theirs["rank"])) if other else {}
            tables.append((_trace_table(rows, system, other, other_ranks, texts, self.setting), "600px"))
        missed_html = _missed_html(_missed_by_all(trace, self.systems))
        curve = plot.trace_curve(trace[trace["rank"].notna()], systems=self.systems, reuse=self._drawn("trace_curve"))
        # one panel: fixed margins instead of the constrained layout, which took half of its drawing
        curve.set_layout_engine("none")
        curve.axes[0].set_position([0.08, 0.15, 0.9, 0.75])
        self.figures["trace_curve"] = curve
        value_line = ", ".join(
            f"<b>{html_text(s)}</b> {v:.4f}" for s, v in
            self.per_query[self.per_query["query_id"] == self.query].set_index("system")["value"].items())
        if self.second_per_query is not None:
            second = self.second_per_query[self.second_per_query["query_id"] == self.query].set_index("system")["value"]
            value_line = "under A " + value_line + "; under B " + ", ".join(
                f"<b>{html_text(s)}</b> {_number(v)}" for s, v in second.items())
        legend = (_labels_html(self.labels, trace) if self.labels is not None
                  else _MOVES_LEGEND if len(self.systems) > 1 else "")
        drill = self._drill
        drill["head"].value = (f"<h3 style='margin:6px 0'>query {html_text(self.query)}{query_text}</h3>"
                               f"<p>{html_text(self.measure_label)}: {value_line}</p>")
        drill["tables"].children = self._fill_tables(tables)
        drill["legend"].value, drill["missed"].value = legend, missed_html
        _show(drill["curve"], Rendered(curve, self._kept_axes.setdefault("trace_curve", KeptAxes())))
        view.children = [drill[part] for part in ("head", "tables", "legend", "missed", "curve")]

    def _fill_tables(self, tables: list[tuple[str, str | None]]) -> list[widgets.HTML]:
        """The drill-down's per-system views, each given its HTML and, for a table, a minimum width:
        side by side where two fit (Voila's page), one under the other where not (a notebook's
        output); a table wider than its half scrolls inside it rather than run over the other one."""
        while len(self._drill_tables) < len(tables):
            self._drill_tables.append(widgets.HTML())
        shown = self._drill_tables[:len(tables)]
        for view, (text, width) in zip(shown, tables):
            view.value = text
            view.layout.flex, view.layout.min_width, view.layout.overflow = (
                ("1 1 0", width, "auto") if width else (None, None, None))
        return shown

    def _progress_bar(self, label: str):
        return _WidgetBar(self._progress, label)


class _WidgetBar:
    """rankkit.progress's bar interface (n, update, refresh, close) on an IntProgress widget."""

    def __init__(self, widget: widgets.IntProgress, label: str):
        self.widget, self.n = widget, 0
        widget.description, widget.value, widget.layout.display = label, 0, ""

    def update(self, step: int) -> None:
        self.n += step
        self.widget.value = min(self.n, 100)

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        self.widget.layout.display = "none"


def _wrapping(**more) -> widgets.Layout:
    """A row of views that wraps onto the next line rather than overflow its output area."""
    return widgets.Layout(flex_flow="row wrap", align_items="flex-start", **more)


def _show(view: widgets.Image, rendered: Rendered, query_id: str | None = None) -> widgets.Image:
    """The figure in an Image widget at its own size: a flex box would otherwise stretch it."""
    view.value = rendered.png(query_id)
    width, height = rendered.canvas.get_width_height()
    view.layout.width, view.layout.height = f"{width}px", f"{height}px"
    view.layout.display = ""
    view.layout.flex = "0 0 auto"
    return view


def _cell(column, value) -> str:
    """One value of the query table as HTML: text cut short, a difference in colour, a dash for none."""
    if column == "text":
        return html_text(str(value)[:60])
    if isinstance(value, (float, np.floating)) and np.isnan(value):
        return "–"
    if str(column).startswith("Δ "):
        color = "#2ca02c" if value > 0 else "#d62728" if value < 0 else "#555"
        return f"<span style='color:{color}'>{value:+.4f}</span>"
    return f"{value:.4f}"


def _missed_by_all(trace: pd.DataFrame, systems: list[str]) -> list[tuple[str, float]]:
    """The judged documents that no shown system retrieved (of those that retrieved anything), with
    their grades, best first. A loop over the missed rows: a pandas filter per system cost more."""
    present = set(trace["system"].to_numpy())
    missed_by = {system: set() for system in systems if system in present}
    missed = trace[trace["rank"].isna()]
    grades: dict[str, float] = {}
    for system, doc, grade in zip(missed["system"].to_numpy(), missed["doc_id"].to_numpy(), missed["grade"].to_numpy()):
        if system in missed_by:
            missed_by[system].add(doc)
        grades.setdefault(doc, grade)
    common = set.intersection(*missed_by.values()) if missed_by else set()
    return sorted(((d, float(grades[d])) for d in common), key=lambda item: (-item[1], item[0]))


def _trace_table(rows: pd.DataFrame, system: str, other: str | None, other_ranks: dict, texts: dict,
                 setting: Setting) -> str:
    """One system's trace as an HTML table: the columns the measure's header (trace:) names, its value at
    each rank's cutoff last, and the rank in the other system."""
    ranked = rows[rows["rank"].notna()]
    shown = ranked.head(TRACE_ROWS)
    graded = _graded(setting.measure)
    at_end = ranked.iloc[-1]
    columns = _shown_columns(setting)
    head = [("rank", ""), ("doc", ""), ("grade", ""), *(_column_head(c) for c in columns)]
    if other:
        # on one line (it wrapped onto four), the legend of the arrows in its tooltip; the short
        # headers may take two lines, so that two tables fit side by side on a wide page
        head.append((f"rank in {other}", f"the document's rank in {other}: ▲ n, n places higher here; "
                                         f"▼ n, n places lower here; absent, {other} did not retrieve it. "
                                         f"{_MOVES_COLOURS}"))
    if texts:
        head.append(("text", ""))
    cells = "".join(_header(h, tip, nowrap=bool(tip)) for h, tip in head)
    body = []
    for _, row in shown.iterrows():
        rank = int(row["rank"])
        doc = row["doc_id"]
        if pd.isna(doc):
            grade = "<i style='color:#888'>nothing retrieved</i>"
            doc_text = "–"
        else:
            doc_text = html_text(str(doc))
            grade = "<i style='color:#b15928' title='not in the qrels'>unjudged</i>" if pd.isna(row["grade"]) else f"{row['grade']:g}"
        values = [str(rank), doc_text, grade] + [_column_cell(c, row[c]) for c in columns]
        if other:
            values.append(_moved(rank, other_ranks.get(doc), _counts(row, graded)) if not pd.isna(doc) else "")
        if texts:
            values.append(html_text(str(texts.get(doc, ""))[:80]))
        tint = " style='background:#eef6ee'" if row["relevant"] else ""
        body.append(f"<tr{tint}>" + "".join(f"<td style='padding:1px 6px;text-align:right'>{v}</td>" for v in values)
                    + "</tr>")
    more = (f"<p style='color:#666'>first {TRACE_ROWS} of {len(ranked)} ranks shown; "
            f"<code>ex.trace</code> holds them all</p>" if len(ranked) > TRACE_ROWS else "")
    cutoff = f"@{int(at_end['rank'])}"
    names = _value_names()
    summary = ", ".join(f"{html_text(names[c])}{cutoff} = {at_end[c]:.4f}" for c in columns if c in names)
    return (f"<div style='margin-right:18px'><b>{html_text(system)}</b>: {summary}"
            f"<table style='border-collapse:collapse;font-size:12px;font-variant-numeric:tabular-nums'>"
            f"<tr>{cells}</tr>{''.join(body)}</table>{more}</div>")


def _own_column(setting: Setting) -> str | None:
    """The trace's column of the measure shown, where its header has one (trace:); else None."""
    return traced().get(setting.measure.metric)


def _shown_columns(setting: Setting) -> list[str]:
    """The trace columns the drill-down shows for a measure: those its header names, its own last; for a
    measure the trace does not show, nDCG's (the worked examples')."""
    measure = setting.measure if setting.measure.trace is not None else registry()["ndcg"]
    column, explaining = measure.trace
    return [c for c in explaining if c != column] + [column]


def _value_names() -> dict[str, str]:
    """A measure's trace column -> the measure's name (precision -> P)."""
    return {column: registry()[metric].name for metric, column in traced().items()}


# How the drill-down heads a trace column that is not a measure's value (those are headed by the
# measure's name, and what a rank adds to one by "+" and its name): header, tooltip, and how a value is written
_HEADS = {
    "gain": ("gain", "", "{:g}"),
    "discount": ("log2(r+1)", "the rank's discount, DCG divides its gain by it (discount=original: log2(max(r, 2)))", "{:.3f}"),
    "discounted_gain": ("disc. gain", "gain / log2(r+1): what the rank adds to DCG", "{:.3f}"),
    "ideal_grade": ("ideal grade", "the grade at this rank of the ideal ordering (best gain first)", "{:g}"),
    "ideal_gain": ("ideal gain", "its gain: IDCG adds it up as DCG adds the gains", "{:g}"),
    "relevant": ("relevant", "whether the grade is at or above the relevance level", "{}"),
}


def _column_head(column: str) -> tuple[str, str]:
    names = _value_names()
    if column in names:
        return names[column], f"{names[column]} at the cutoff of each rank, as evaluate computes it"
    if column.endswith(CONTRIBUTION) and column[:-len(CONTRIBUTION)] in names:
        name = names[column[:-len(CONTRIBUTION)]]
        return f"+{name}", f"what the rank adds to {name}: its value here less its value at the rank above"
    head, tip, _ = _HEADS.get(column, (column, "", "{}"))
    return head, tip


def _column_cell(column: str, value) -> str:
    if value is None or pd.isna(value):
        return "–"
    if column == "relevant":
        return "yes" if value else ""
    if column in _HEADS:
        return html_text(_HEADS[column][2].format(value))
    return f"{value:.4f}"


def _header(text: str, tip: str, nowrap: bool) -> str:
    title = f" title='{html_text(tip)}'" if tip else ""
    wrap = ";white-space:nowrap" if nowrap else ""
    return f"<th style='padding:2px 6px;text-align:right{wrap}'{title}>{html_text(text)}</th>"


# What a move's colour says, once: coloured in the legend under the tables, plain in the column's tooltip.
_MOVES_MEANING = ("{green}: the move helps this system's score (a relevant document higher, a non-relevant one "
                  "lower); {red}: it hurts; {grey}: an unjudged document, whose worth is unknown.")
_MOVES_COLOURS = _MOVES_MEANING.format(green="Green", red="red", grey="grey")
_MOVES_LEGEND = ("<p style='font-size:12px;color:#444;margin:2px 0'><b>rank in the other system</b>: "
                 "▲ n, n places higher here; ▼ n, lower here. "
                 + _MOVES_MEANING.format(green=f"<span style='color:{HELPS}'>Green</span>",
                                         red=f"<span style='color:{HURTS}'>red</span>",
                                         grey=f"<span style='color:{NEUTRAL}'>grey</span>") + "</p>")


def _graded(measure) -> bool:
    """Whether a measure weighs each grade (nDCG's gain, ERR's scale) rather than asking grade >= level."""
    return bool({"gain", "gains", "max"} & set(measure.params))


def _counts(row, graded: bool) -> bool | None:
    """Whether a document adds to the shown measure: a positive gain where the measure weighs grades,
    a grade at or above the level where it asks that; None where it is unjudged (unknown)."""
    if pd.isna(row["grade"]):
        return None
    return bool(row["gain"] > 0) if graded else bool(row["relevant"])


def _moved(rank: int, other_rank, counts: bool | None) -> str:
    """The document's rank in the other system, its move coloured by whether it helps this system."""
    if other_rank is None or pd.isna(other_rank):
        return "<span style='color:#1f77b4'>absent</span>"
    shift = int(other_rank) - rank
    if shift == 0:
        return f"{int(other_rank)} ="
    colour = NEUTRAL if counts is None else HELPS if (shift > 0) == counts else HURTS
    arrow = f"▲{shift}" if shift > 0 else f"▼{-shift}"
    return f"{int(other_rank)} <span style='color:{colour}'>{arrow}</span>"


def _missed_html(missed: list[tuple[str, float]]) -> str:
    """The judged documents no system retrieved: how many of each grade, the first few by grade, the
    rest folded (a query can have hundreds)."""
    title = "<b>judged documents no system retrieved</b> (IDCG counts them)"
    if not missed:
        return f"<p>{title}: none</p>"
    grades = pd.Series([g for _, g in missed]).value_counts().sort_index(ascending=False)
    counts = ", ".join(f"{n} of grade {g:g}" for g, n in grades.items())
    listed = [f"{html_text(d)} (grade {g:g})" for d, g in missed]
    text = f"<p style='margin:2px 0'>{title}: {len(missed)} ({counts}): {', '.join(listed[:MISSED_SHOWN])}"
    if len(listed) <= MISSED_SHOWN:
        return text + "</p>"
    return (text + f" and {len(listed) - MISSED_SHOWN} more</p><details><summary style='cursor:pointer'>"
            f"the other {len(listed) - MISSED_SHOWN}</summary><p style='margin:2px 0'>"
            f"{', '.join(listed[MISSED_SHOWN:])}</p></details>")


# ---- one run under two judgment tables ---------------------------------------------------------

DIFFERS = "#fde2b8"  # a rank whose document the two judgment tables label differently


def _judgments_legend(data: ExplorerData) -> str:
    """What A and B are: the files (or tables) the two judgment tables were read from."""
    return (f"<span style='color:#444'>judgments A: <code>{html_text(data.qrels.label)}</code>, "
            f"B: <code>{html_text(data.second.label)}</code></span>")


def _number(value) -> str:
    return "–" if value is None or pd.isna(value) else f"{value:.4f}"


def _grade(value) -> str:
    return "<i style='color:#b15928' title='not in this table'>unjudged</i>" if pd.isna(value) else f"{value:g}"


def _two_tables(rows_a: pd.DataFrame, rows_b: pd.DataFrame, system: str, texts: dict, setting: Setting) -> str:
    """One system's ranks under judgment tables A and B: per rank the document, both grades, both
    gains and the shown measure at that rank's cutoff under each (from the two traces), the ranks
    whose labels differ tinted and marked."""
    column = _own_column(setting) or "ndcg"  # the trace's column of the measure shown
    name = setting.measure.name if _own_column(setting) else "nDCG"
    every_a = rows_a[rows_a["rank"].notna()]
    ranked_a = every_a.head(TRACE_ROWS)
    # the same run ranked the same way under both tables: rank r holds the same document in each trace
    ranked_b = rows_b[rows_b["rank"].notna()].set_index("rank")
    head = [("rank", ""), ("doc", ""), ("grade A", "its grade in judgment table A"),
            ("grade B", "its grade in judgment table B"), ("gain A", ""), ("gain B", ""),
            (f"{name} A", f"{name} at the cutoff of this rank under A, as evaluate computes it"),
            (f"{name} B", f"{name} at the cutoff of this rank under B")]
    if texts:
        head.append(("text", ""))
    body = []
    for _, row in ranked_a.iterrows():
        rank, doc = int(row["rank"]), row["doc_id"]
        other = ranked_b.loc[row["rank"]] if row["rank"] in ranked_b.index else None
        grade_b = other["grade"] if other is not None else float("nan")
        differs = not pd.isna(doc) and not (pd.isna(row["grade"]) and pd.isna(grade_b)) and not (
            row["grade"] == grade_b)
        # the mark in B's grade cell: a column of its own made two tables too wide to sit side by side
        mark = "<b title='the two tables label it differently'>≠</b> " if differs else ""
        values = [str(rank), "–" if pd.isna(doc) else html_text(str(doc)),
                  _grade(row["grade"]) if not pd.isna(doc) else "", mark + _grade(grade_b) if not pd.isna(doc) else "",
                  f"{row['gain']:g}", "–" if other is None else f"{other['gain']:g}",
                  f"{row[column]:.4f}", "–" if other is None else f"{other[column]:.4f}"]
        if texts:
            values.append(html_text(str(texts.get(doc, ""))[:80]))
        tint = f" style='background:{DIFFERS}'" if differs else ""
        body.append(f"<tr{tint}>" + "".join(f"<td style='padding:1px 6px;text-align:right'>{v}</td>" for v in values)
                    + "</tr>")
    end_a = every_a.iloc[-1]  # the value at the last rank, shown or not
    cutoff = f"@{int(end_a['rank'])}"
    end_b = ranked_b.loc[end_a["rank"]] if end_a["rank"] in ranked_b.index else None
    more = (f"<p style='color:#666'>first {TRACE_ROWS} ranks shown; <code>ex.trace</code> and "
            f"<code>ex.second_trace</code> hold them all</p>" if len(every_a) > TRACE_ROWS else "")
    cells = "".join(_header(h, tip, nowrap=True) for h, tip in head)
    return (f"<div style='margin-right:18px'><b>{html_text(system)}</b>: {html_text(name)}{cutoff} = "
            f"{end_a[column]:.4f} under A, {_number(None if end_b is None else end_b[column])} under B"
            f"<table style='border-collapse:collapse;font-size:12px;font-variant-numeric:tabular-nums'>"
            f"<tr>{cells}</tr>{''.join(body)}</table>{more}</div>")


def _labels_html(labels: pd.DataFrame, trace: pd.DataFrame) -> str:
    """The query's documents the two tables label differently, those no shown system retrieved named:
    a different label there still moves recall and the ideal ranking."""
    differ = labels[(labels["side"] != "both") | (labels["grade_a"] != labels["grade_b"])]
    retrieved = set(trace.loc[trace["rank"].notna(), "doc_id"])
    unseen = differ[~differ["doc_id"].isin(retrieved)]
    one_sided = int((labels["side"] != "both").sum())
    text = (f"<p style='font-size:12px;color:#444;margin:2px 0'><span style='background:{DIFFERS};padding:0 4px'>"
            f"tinted, ≠</span>: the two judgment tables label the document differently. This query: "
            f"{len(labels)} documents judged, {len(differ)} labelled differently ({one_sided} judged in one table only)")
    if len(unseen):
        listed = [f"{html_text(str(r.doc_id))} ({_grade(r.grade_a)} in A, {_grade(r.grade_b)} in B)"
                  for r in unseen.head(MISSED_SHOWN).itertuples()]
        rest = f" and {len(unseen) - MISSED_SHOWN} more" if len(unseen) > MISSED_SHOWN else ""
        text += f"; not retrieved by the systems shown: {', '.join(listed)}{rest}"
    return text + ".</p>"
