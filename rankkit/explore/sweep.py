"""The explorer of a fusion sweep: the grid drawn (rankkit.plot.sweep), and for the grid point chosen
its per-query differences against the best single run (rankkit.plot.differences, the explorer's
own view), that point's run fused again by rankkit.fuse and evaluated with the single run."""

from __future__ import annotations

import ipywidgets as widgets
import pandas as pd
import traitlets

from rankkit import plot
from rankkit.compare import format_p
from rankkit.explore.render import KeptAxes, Rendered
from rankkit.fusion import point_label
from rankkit.safe.html import text as html_text
from rankkit.stats import CORRECTIONS

__all__ = ["explore_sweep", "SweepExplorer"]


def explore_sweep(qrels, runs, measure: str, method: str = "wsum", *, norm: str | None = None, con=None,
                  **options) -> SweepExplorer:
    """An ipywidgets view of :func:`rankkit.fusion_sweep`: the grid as a line or a heat map, and the
    chosen point's per-query differences against the best single run.

    Parameters
    ----------
    qrels, runs, measure, method, norm, con:
        As for :func:`rankkit.fusion_sweep`.
    options:
        The rest of :func:`rankkit.fusion_sweep`'s options (``grid, step, test, correction, seed,
        holdout`` ...). With ``holdout``, the grid and the differences are the tuning queries'.

    Returns
    -------
    SweepExplorer
        A widget: display it as a cell's value. Its ``point`` trait (a point's name, as the table's
        ``point`` column holds it) chooses the point, from Python or the drop-down; ``table`` is
        fusion_sweep's table and ``per_query`` the chosen point's and the best single run's values.
    """
    from rankkit._sql import connect
    from rankkit.fusion import fusion_sweep
    from rankkit.io import default_connection

    con = connect(con) if con is not None else default_connection()
    table = fusion_sweep(qrels, runs, measure, method, norm=norm, con=con, **options)
    held = (options["holdout"], options.get("seed", 0)) if options.get("holdout") is not None else None
    return SweepExplorer(qrels, runs, table, method=method, norm=norm, con=con, held=held)


class SweepExplorer(widgets.VBox):
    """The grid, a point chosen on it, and that point against the best single run query by query."""

    point = traitlets.Unicode()

    def __init__(self, qrels, runs, table: pd.DataFrame, *, method: str, norm: str | None, con,
                 held: tuple | None = None):
        self.table, self.per_query, self._single = table, None, None
        self._inputs = dict(qrels=qrels, runs=runs, method=method, norm=norm, con=con, held=held)
        self._coordinates = dict(zip(table["point"], table.attrs["grid"]))
        self._grid = Rendered(plot.sweep(table), KeptAxes())
        self._views = {"grid": widgets.Image(format="png"), "summary": widgets.HTML(),
                       "differences": widgets.Image(format="png")}
        ranked = table.assign(other=table["point"] != table.attrs["best"]).sort_values(
            ["other", "mean"], ascending=[True, False], kind="stable")
        self._choice = widgets.Dropdown(options=[(point_label(self._coordinates[name], method), name)
                                                 for name in ranked["point"]],
                                        description="grid point", layout=widgets.Layout(width="420px"))
        self._choice.observe(lambda change: setattr(self, "point", change["new"]), names="value")
        super().__init__([self._views["grid"], self._choice, self._views["summary"], self._views["differences"]])
        self.point = table.attrs["best"]

    @traitlets.validate("point")
    def _check_point(self, proposal):
        if proposal["value"] not in self._coordinates:
            raise traitlets.TraitError(f"point {proposal['value']!r} is not a point of the grid; the best is "
                                       f"{self.table.attrs['best']!r}")
        return proposal["value"]

    @traitlets.observe("point")
    def _show_point(self, change) -> None:
        name, attrs = change["new"], self.table.attrs
        self._choice.value = name
        self._views["grid"].value = self._grid.png(name)
        self.per_query = self._values(name)
        single = attrs["best_single"]
        drawn = plot.differences(self.per_query, single, systems=[name])
        self._views["differences"].value = Rendered(drawn, KeptAxes()).png()
        row = self.table.set_index("point").loc[name]
        self._views["summary"].value = (
            f"<p><b>{html_text(name)}</b>: {html_text(attrs['measure'])} {row['mean']:.4f} "
            f"[{row['ci_low']:.4f}, {row['ci_high']:.4f}]; against the best point {row['diff_best']:+.4f} "
            f"(adjusted p {_p(row['p_best'])}), against the best single run {html_text(single)} "
            f"{row['diff_single']:+.4f} (adjusted p {_p(row['p_single'])}; "
            f"{html_text(CORRECTIONS.get(attrs['correction'], attrs['correction']))} over the grid).</p>")

    def _values(self, name: str) -> pd.DataFrame:
        """The point's run fused again and evaluated per query, with the best single run's values."""
        from rankkit.evaluate import evaluate
        from rankkit.fusion import fuse, split_queries

        inputs, point, measure = self._inputs, self._coordinates[name], self.table.attrs["measure"]
        if self._single is None:
            singles = evaluate(inputs["qrels"], inputs["runs"], measure, per_query=True, con=inputs["con"])
            self._single = singles[singles["system"] == self.table.attrs["best_single"]]
        fused = fuse(inputs["runs"], method=inputs["method"], k=point["k"], norm=inputs["norm"],
                     weights=point["weights"], con=inputs["con"])
        # named as the grid names it: an rrf grid of k alone names rrf(k=1), the same run fused with its
        # weights of 1 is rrf(k=1;weights=1.0/1.0)
        fused = fused.assign(system=name)
        values = pd.concat([evaluate(inputs["qrels"], fused, measure, per_query=True, con=inputs["con"]),
                            self._single], ignore_index=True)
        # with a holdout, the queries the grid was judged on: fusion_sweep's split, drawn again
        return values if inputs["held"] is None else split_queries(values, *inputs["held"])[0]


def _p(value) -> str:
    return "–" if pd.isna(value) else format_p(value)


