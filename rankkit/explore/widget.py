"""The explorer widget: the model (rankkit/explore/model.py) with its views, ipywidgets controls and
images that follow its traits and set them."""

from __future__ import annotations

import ipywidgets as widgets
import pandas as pd
import traitlets
from matplotlib.figure import Figure

from rankkit import plot
from rankkit.explore.data import ExplorerData, Setting
from rankkit.explore.drilldown import (_MOVES_LEGEND, _cell, _judgments_legend, _labels_html, _missed_by_all,
                                       _missed_html, _number, _trace_table, _two_tables)
from rankkit.explore.model import CONTROL_TIPS, PAGE_SIZE, ExplorerModel, measure_tip, unused_controls
from rankkit.explore.render import KeptAxes, Rendered, canvas, layout_key
from rankkit.measures import params
from rankkit.safe.html import text as html_text

__all__ = ["Explorer", "PAGE_SIZE"]

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
        buttons = {"worst": widgets.Button(description="worst", tooltip="open the query with the lowest value "
                                                                        "(the highest where lower is better)"),
                   "best": widgets.Button(description="best", tooltip="open the query with the highest value "
                                                                      "(the lowest where lower is better)"),
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
                "differences", plot.differences(frame, self.baseline, systems=self.compared,
                                                reuse=before["differences"], better=self.setting.measure.better))
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
