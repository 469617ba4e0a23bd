"""Figures of per-query values and traces: pure functions, a DataFrame in, a matplotlib Figure out.

Nothing here computes a measure: the values come from :func:`rankkit.evaluate` (``per_query=True``)
and :func:`rankkit.trace`, and are drawn as they are. Each function builds a
:class:`matplotlib.figure.Figure` directly, never through pyplot, so no global figure state is
touched and a figure drawn in a loop is freed with its last reference. Titles and axis labels break
into lines that fit their panel (long system names included, every character kept). Every name,
query id and label is drawn as the characters it holds (:mod:`rankkit.safe.plot`): a control
character, a character the font has no glyph for or a ``$`` is escaped visibly, never read as
mathtext nor a reason to fail. The explorer and the reports
draw with these functions; they work as well on their own, in a notebook (a Figure displays as a
cell's value) or in a script (``fig.savefig("plot.png")``).

The per-query frame is the one ``evaluate(..., per_query=True)`` returns: ``measure, system,
query_id, value`` (a frame of your own may leave ``system`` out, or missing, for one unnamed run; a
frame without ``measure`` is taken as one measure). Artists that carry data have a ``gid`` (``"values"``, ``"mean"``, ``"median"``,
``"highlight"``, ``"diagonal"``, ``"dcg"``, ``"idcg"``) so that a caller or a test can find them.
"""

from __future__ import annotations

import functools
import io
import os
import textwrap
from typing import Iterable

import numpy as np
import pandas as pd
from matplotlib import rcParams
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties

from rankkit._files import replacing
from rankkit.errors import RankkitError
from rankkit.safe.plot import dollars, visible
from rankkit.stats import TIE_TOLERANCE, differences as paired_differences

__all__ = ["distribution", "differences", "scatter", "trace_curve", "sweep", "mark", "system_colors"]

# matplotlib's tab10, in order: a system keeps its colour in every figure drawn from the same frame
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
# beyond the palette's ten systems, the next ten get its colours with another marker, and so on
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
WIN, LOSS, MARK = "#2ca02c", "#d62728", "#000000"
# A title given its height skips matplotlib's placement of it, which measures the tick labels at every
# drawing (a sixth of the explorer's redraw); no panel here has ticks on top, so it sits where it would.
TITLE_Y = 1.0
# name of the one system of a frame without a system column (or with a NULL system)
ONE_SYSTEM = "run"
LEGEND_INSIDE = 6    # legend entries a trace panel holds inside; beyond, in LEGEND_COLUMNS columns below it
LEGEND_COLUMNS = 3
WIDTH = 7.0          # inches: fits a notebook cell and an A4 text column
PANEL_HEIGHT = 2.3   # inches per row of panels
MARGIN = 0.75        # inches of a panel's width taken by its tick labels and axis label


def distribution(per_query: pd.DataFrame, *, measure: str | None = None, highlight: str | None = None,
                 by: str | None = None, systems: Iterable[str] | None = None, bins: int = 20,
                 figsize: tuple[float, float] | None = None, reuse: Figure | None = None) -> Figure:
    """Histogram of per-query values, one panel per system, mean and median marked.

    Parameters
    ----------
    per_query : pandas.DataFrame
        ``measure, system, query_id, value``, as ``evaluate(..., per_query=True)`` returns it.
    measure : str, optional
        The measure to draw when the frame holds several (as spelled in its ``measure`` column).
    highlight : str, optional
        A query id: its value is marked in every panel.
    by : str, optional
        A column of ``per_query`` (such as ``evaluate(..., by="category")`` adds): one column of
        panels per value, queries without a value in the slice ``nan``. The figure widens with
        the number of slices (2.6 inches each): split by an attribute of a few values.
    systems : iterable of str, optional
        The systems to draw, in this order; default all, in the frame's order.
    bins : int
        Number of bins. Values within [0, 1] get equal bins over [0, 1], so that systems compare.
    figsize : (float, float), optional
        Inches; default 7 wide and 2.3 per system.
    reuse : matplotlib.figure.Figure, optional
        A figure this function drew before: drawn into again when its size and panels are the same
        (a new figure otherwise). Its axes, ticks and measured text are kept, and a panel whose
        data has the same shape (the same bins, a mean and median) has its bars and lines moved
        rather than made anew, so drawing it again costs about half of drawing a new one; the
        explorer redraws its plots this way. The result equals a new figure's.

    Returns
    -------
    matplotlib.figure.Figure
        Each panel's title names the system (and slice) and states the number of queries, mean,
        median and the share of queries at 0 (and at 1 when every value lies within [0, 1]; both
        up to rounding, 1e-12). Queries whose value is missing (NaN) are left out and counted in
        the title.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit import plot
    >>> per_query = pd.DataFrame({"measure": "nDCG@10", "system": ["bm25"] * 4 + ["dense"] * 4,
    ...                           "query_id": ["q1", "q2", "q3", "q4"] * 2,
    ...                           "value": [0.0, 0.5, 1.0, 0.25, 0.0, 1.0, 1.0, 0.75]})
    >>> fig = plot.distribution(per_query, highlight="q2")
    >>> print(fig.axes[1].get_title())
    dense: 4 queries, mean 0.6875, median 0.875
    25% at 0, 50% at 1
    >>> fig.axes[0].get_xlabel(), fig.axes[1].get_xlabel()
    ('', 'nDCG@10')
    """
    frame, label = _one_measure(per_query, measure, by)
    names = _system_names(frame, systems)
    colors = _colors(frame)
    slices = _slices(frame, by)
    edges = _bin_edges(frame["value"], bins)
    compact = by is not None
    width, height = figsize or (max(WIDTH, 2.6 * len(slices)), (PANEL_HEIGHT + 0.3 * compact) * len(names) + 0.4)
    fig, axes = _panels("distribution", (width, height), len(names), len(slices), reuse, shared=True)
    for row, name in enumerate(names):
        for col, (slice_value, rows) in enumerate(slices):
            system = rows[rows["system"] == name]
            title = name if by is None else f"{name}, {by} = {slice_value}"
            _histogram(axes[row][col], system, edges, colors[name], title, compact)
            _remember(axes[row][col], "vline", system.dropna(subset=["value"]).set_index("query_id")["value"])
    for ax in axes[-1]:
        ax.set_xlabel(_fit([label], _panel_width(ax), 10))
    for row in axes:
        row[0].set_ylabel("queries")
    axes[0][0].legend(loc="best", fontsize=8, frameon=False)
    if highlight is not None:
        mark(fig, highlight)
    return fig


def differences(per_query: pd.DataFrame, baseline: str, *, measure: str | None = None,
                highlight: str | None = None, systems: Iterable[str] | None = None,
                figsize: tuple[float, float] | None = None, reuse: Figure | None = None) -> Figure:
    """Per-query differences of each system against a baseline, sorted, wins and losses counted.

    Parameters
    ----------
    per_query : pandas.DataFrame
        ``measure, system, query_id, value``, as ``evaluate(..., per_query=True)`` returns it for
        two or more systems.
    baseline : str
        The system the others are measured against.
    measure : str, optional
        The measure to draw when the frame holds several.
    highlight : str, optional
        A query id: its difference is marked and labelled.
    systems : iterable of str, optional
        The systems to compare with the baseline, in this order; default every other system.
    figsize : (float, float), optional
        Inches; default 7 wide and 2.3 per compared system.
    reuse : matplotlib.figure.Figure, optional
        A figure this function drew before, to draw into again, as in :func:`distribution`.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per system: ``system - baseline`` over the queries both have, sorted ascending
        (a line with ``gid="values"``, wins filled green, losses red). The title states wins,
        ties and losses (differences within 1e-12 are ties, as in :func:`rankkit.compare`) and the
        mean difference.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit import plot
    >>> per_query = pd.DataFrame({"measure": "AP", "system": ["bm25"] * 3 + ["dense"] * 3,
    ...                           "query_id": ["q1", "q2", "q3"] * 2,
    ...                           "value": [0.5, 0.25, 0.5, 0.75, 0.25, 0.0]})
    >>> fig = plot.differences(per_query, "bm25")
    >>> fig.axes[0].get_title()
    'dense - bm25: 1 win, 1 tie, 1 loss of 3 queries, mean -0.08333'
    >>> [float(v) for v in fig.axes[0].lines[0].get_ydata()]
    [-0.5, 0.0, 0.25]
    """
    frame, label = _one_measure(per_query, measure)
    names = _system_names(frame, None)
    if baseline not in names:
        raise RankkitError(f"baseline {baseline!r} is not a system of per_query; its systems: {', '.join(names)}")
    others = [name for name in _system_names(frame, systems) if name != baseline]
    if not others:
        raise RankkitError(f"differences needs a system besides the baseline {baseline!r}; "
                           f"per_query holds {', '.join(names)}")
    colors = _colors(frame)
    values = _by_system(frame)
    width, height = figsize or (WIDTH, PANEL_HEIGHT * len(others) + 0.4)
    fig, axes = _panels("differences", (width, height), len(others), 1, reuse)
    axes = axes[:, 0]
    for ax, name in zip(axes, others):
        _difference_panel(ax, values[name], values[baseline], f"{name} - {baseline}", colors[name])
        ax.set_ylabel(_fit(["difference in", label], fig.get_size_inches()[1] / len(others) - 0.3, 10))
    axes[-1].set_xlabel("queries, sorted by difference")
    # a long name's title takes lines: the figure grows by them, so the panels keep their height
    extra = sum(ax.get_title().count("\n") for ax in axes)
    if figsize is None and reuse is None and extra:
        fig.set_size_inches(width, height + extra * 9 * 1.3 / 72)
    if highlight is not None:
        mark(fig, highlight)
    return fig


def scatter(per_query: pd.DataFrame, x: str, y: str, *, measure: str | None = None,
            highlight: str | None = None, figsize: tuple[float, float] | None = None,
            reuse: Figure | None = None) -> Figure:
    """One system's per-query values against another's, with the diagonal where they are equal.

    Parameters
    ----------
    per_query : pandas.DataFrame
        ``measure, system, query_id, value``, as ``evaluate(..., per_query=True)`` returns it.
    x, y : str
        The systems on the horizontal and the vertical axis.
    measure : str, optional
        The measure to draw when the frame holds several.
    highlight : str, optional
        A query id: its point is circled and labelled.
    figsize : (float, float), optional
        Inches; default 5 by 5.
    reuse : matplotlib.figure.Figure, optional
        A figure this function drew before, to draw into again, as in :func:`distribution`.

    Returns
    -------
    matplotlib.figure.Figure
        One point per query both systems have (``gid="values"``); the title counts the queries
        above the diagonal (``y`` better), below it and on it.

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit import plot
    >>> per_query = pd.DataFrame({"measure": "RR@10", "system": ["bm25"] * 3 + ["dense"] * 3,
    ...                           "query_id": ["q1", "q2", "q3"] * 2,
    ...                           "value": [1.0, 0.5, 0.0, 1.0, 1.0, 0.25]})
    >>> fig = plot.scatter(per_query, "bm25", "dense", highlight="q3")
    >>> print(fig.axes[0].get_title())
    RR@10 of 3 queries: dense above the diagonal on 2,
    below it on 0, on it on 1
    >>> fig.axes[0].collections[0].get_offsets().tolist()
    [[1.0, 1.0], [0.5, 1.0], [0.0, 0.25]]
    """
    frame, label = _one_measure(per_query, measure)
    names = _system_names(frame, None)
    for name in (x, y):
        if name not in names:
            raise RankkitError(f"{name!r} is not a system of per_query; its systems: {', '.join(names)}")
    values = _by_system(frame)
    pairs = _pair(values[y], values[x])
    fig, axes = _panels("scatter", figsize or (5.0, 5.0), 1, 1, reuse)
    ax = axes[0][0]
    low, high = _limits(pairs[["base", "value"]].to_numpy())
    if _drawn_as(ax, ("scatter",)):
        points = _gid(ax.collections, "values")[0]
        points.set_offsets(pairs[["base", "value"]].to_numpy(dtype=float).reshape(-1, 2))
        points.set_sizes([_marker_size(len(pairs))])
        points.set_facecolor(_colors(frame)[y])
        _gid(ax.lines, "diagonal")[0].set_data([low, high], [low, high])
    else:
        ax.scatter(pairs["base"], pairs["value"], s=_marker_size(len(pairs)), alpha=0.5, color=_colors(frame)[y],
                   linewidths=0, gid="values")
        ax.plot([low, high], [low, high], color="#555555", linestyle="--", linewidth=1, gid="diagonal")
    ax.set_xlim(low, high)
    ax.set_ylim(low, high)
    ax.set_aspect("equal")
    _remember(ax, "point", pd.Series(list(zip(pairs["base"], pairs["value"])), index=pairs.index, dtype=object))
    d = paired_differences(pairs["value"], pairs["base"])
    width = _panel_width(ax)
    ax.set_title("\n".join([_fit([f"{label} of {len(d)} queries:", f"{y} above the diagonal on {int(np.sum(d > 0))},"],
                                  width, 9),
                            f"below it on {int(np.sum(d < 0))}, on it on {int(np.sum(d == 0))}"]), fontsize=9, y=TITLE_Y)
    ax.set_xlabel(_fit([x, label], width, 10))
    ax.set_ylabel(_fit([y, label], fig.get_size_inches()[1] - MARGIN, 10))
    if highlight is not None:
        mark(fig, highlight)
    return fig


def trace_curve(trace: pd.DataFrame, *, systems: Iterable[str] | None = None,
                figsize: tuple[float, float] | None = None, reuse: Figure | None = None) -> Figure:
    """Running DCG against running IDCG by rank: how far each system's ranking falls short of the ideal.

    Parameters
    ----------
    trace : pandas.DataFrame
        ``system, query_id, rank, dcg, idcg, ndcg``, as :func:`rankkit.trace` returns it (other
        columns are ignored). Rows with no rank (judged documents the run missed) are left out;
        several query ids give one panel each.
    systems : iterable of str, optional
        The systems to draw, in this order; default all, in the frame's order.
    figsize : (float, float), optional
        Inches; default 7 wide and 3.2 per query.
    reuse : matplotlib.figure.Figure, optional
        A figure this function drew before, to draw into again, as in :func:`distribution`.

    Returns
    -------
    matplotlib.figure.Figure
        Per system a solid DCG line (``gid="dcg"``) and a dashed IDCG line (``gid="idcg"``) in the
        same colour; when every system has the same ideal (the default ``ideal=qrels``) one black
        dashed IDCG line. The title states each system's nDCG at its last rank.

    Examples
    --------
    DESIGN's first worked example: grades ``[3, 2, 3, 0, 1, 2]`` and two more judged documents
    of grades 3 and 2.

    >>> import pandas as pd
    >>> from rankkit import plot
    >>> trace = pd.DataFrame({"system": "run", "query_id": "q1", "rank": [1, 2, 3, 4, 5, 6],
    ...                       "dcg": [3.0, 4.26186, 5.76186, 5.76186, 6.14871, 6.86113],
    ...                       "idcg": [3.0, 4.89279, 6.39279, 7.25414, 8.02785, 8.74026]})
    >>> trace["ndcg"] = trace["dcg"] / trace["idcg"]
    >>> fig = plot.trace_curve(trace)
    >>> fig.axes[0].get_title()
    'query q1, nDCG@6: run 0.7850'
    >>> [line.get_gid() for line in fig.axes[0].lines]
    ['dcg', 'idcg']
    """
    for column in ("query_id", "rank", "dcg", "idcg", "ndcg"):
        if column not in trace.columns:
            raise RankkitError(f"trace has no {column!r} column: expected the frame rankkit.trace returns "
                               f"(system, query_id, rank, ..., dcg, idcg, ndcg); it has {', '.join(map(str, trace.columns))}")
    ranked = _named(trace[trace["rank"].notna()])
    queries = _in_order(ranked["query_id"])
    if not queries:
        raise RankkitError("trace has no ranked rows: the run retrieved nothing for its queries")
    colors = _colors(ranked)
    markers = _markers(ranked)
    names = _system_names(ranked, systems)
    width, height = figsize or (WIDTH, _curve_height(len(names)) * len(queries))
    fig, axes = _panels("trace_curve", (width, height), len(queries), 1, reuse)
    axes = axes[:, 0]
    for ax, query_id in zip(axes, queries):
        rows = ranked[ranked["query_id"] == query_id]
        _curve_panel(ax, rows, names, colors, markers, query_id)
    fullest = max(axes, key=lambda ax: len(ax.lines))
    if len(fullest.lines) > LEGEND_INSIDE:  # the systems' styles are the same in every panel: one legend
        fig.legend(fullest.lines, [line.get_label() for line in fullest.lines], fontsize=8, frameon=False,
                   loc="outside lower center", ncols=LEGEND_COLUMNS)
    return fig


class _Figure(Figure):
    """A matplotlib Figure that a notebook shows as a picture. These figures are made without
    pyplot, so nothing registers IPython's display of them unless the notebook imported pyplot or
    ran %matplotlib; the last expression of a cell would otherwise print ``<Figure size ...>``."""

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png")
        return buffer.getvalue()

    def savefig(self, fname, **kwargs) -> None:
        """matplotlib's savefig, but a file is written whole (see rankkit._files): a figure killed
        while saving leaves no part of an image under the name."""
        if not isinstance(fname, (str, os.PathLike)):  # a buffer or open file: the caller's to manage
            return super().savefig(fname, **kwargs)
        target = os.fspath(fname)
        if kwargs.get("format") is None and not os.path.splitext(target)[1]:
            # matplotlib adds the default format's suffix to a name without one: write that name
            kwargs["format"] = rcParams["savefig.format"]
            target = f"{target.rstrip('.')}.{kwargs['format']}"
        with replacing(target) as partial:
            super().savefig(partial, **kwargs)


def sweep(table: pd.DataFrame, *, figsize: tuple[float, float] | None = None) -> Figure:
    """A fusion sweep's grid (:func:`rankkit.fusion_sweep`'s table): a line over the one coordinate
    that varies (a weight, or rrf's k), or a heat map over two (three runs' weights on the simplex:
    the first two, the third being the rest).

    Returns
    -------
    matplotlib.figure.Figure
        Line: each point's mean (``gid="values"``) with its interval (``gid="interval"``), the best
        single run's mean (``gid="single"``). Heat map: each point's mean as a cell
        (``gid="values"``). Both mark the best point (``gid="best"``) and the points not shown to
        be worse than it (``gid="tied"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit import plot
    >>> table = pd.DataFrame({"point": ["a", "b", "c"], "mean": [0.3, 0.5, 0.4], "ci_low": [0.2, 0.4, 0.3],
    ...                       "ci_high": [0.4, 0.6, 0.5], "significant_best": [True, False, False]})
    >>> table.attrs.update(measure="nDCG@10", best="b", best_single_mean=0.35, grid=[
    ...     {"weights": {"bm25": w, "dense": 1 - w}, "k": 60.0} for w in (0.0, 0.5, 1.0)])
    >>> plot.sweep(table).axes[0].get_xlabel()
    'weight of bm25'
    """
    grid = table.attrs.get("grid")
    if not grid or len(grid) != len(table):
        raise RankkitError("sweep draws rankkit.fusion_sweep's table: it needs its attrs['grid'] (one entry per row)")
    coordinates = _sweep_coordinates(grid)
    if not 1 <= coordinates.shape[1] <= 2:
        raise RankkitError(f"sweep draws a grid of one or two free coordinates (a line, a heat map); this one has "
                           f"{coordinates.shape[1]}: {', '.join(coordinates.columns) or 'none'}")
    label = str(table.attrs.get("measure", "mean"))
    best = table["point"].to_numpy() == table.attrs.get("best")
    tied = ~table["significant_best"].to_numpy(dtype=bool) & ~best
    fig, axes = _panels("sweep", figsize or (WIDTH, 3.2 if coordinates.shape[1] == 1 else 4.5), 1, 1, None)
    ax = axes[0][0]
    if coordinates.shape[1] == 1:
        _sweep_line(ax, coordinates.iloc[:, 0].to_numpy(dtype=float), table, best, tied, label)
    else:
        _sweep_map(fig, ax, coordinates, table, best, tied, label)
    ax.set_xlabel(_fit([visible(coordinates.columns[0])], _panel_width(ax), 10))
    ax.set_title(_fit([f"{label} at each point of the grid;", f"best {visible(str(table.attrs.get('best')))}"],
                      _panel_width(ax), 9),
                 fontsize=9, y=TITLE_Y)
    return fig


def _sweep_coordinates(grid: list[dict]) -> pd.DataFrame:
    """The grid's free coordinates: each weight that varies (less the last one when the weights
    always sum to the same total: it is the rest), and k when it varies."""
    weights = pd.DataFrame([point["weights"] for point in grid]).astype(float)
    varying = [name for name in weights.columns if weights[name].nunique() > 1]
    if len(varying) > 1 and weights[varying].sum(axis=1).round(9).nunique() == 1:
        varying = varying[:-1]
    frame = weights[varying].rename(columns=lambda name: f"weight of {name}")
    k = pd.Series([point["k"] for point in grid], dtype=float)
    if k.nunique() > 1:
        frame["k"] = k
    return frame


def _sweep_line(ax, x: np.ndarray, table: pd.DataFrame, best: np.ndarray, tied: np.ndarray, label: str) -> None:
    order = np.argsort(x, kind="stable")
    means = table["mean"].to_numpy(dtype=float)
    ax.fill_between(x[order], table["ci_low"].to_numpy(dtype=float)[order], table["ci_high"].to_numpy(dtype=float)[order],
                    color=PALETTE[0], alpha=0.2, linewidth=0, gid="interval")
    ax.plot(x[order], means[order], color=PALETTE[0], marker="o", markersize=3, linewidth=1.2, gid="values")
    if "best_single_mean" in table.attrs:
        ax.axhline(table.attrs["best_single_mean"], color="#555555", linestyle="--", linewidth=1, gid="single")
    ax.plot(x[tied], means[tied], linestyle="none", marker="o", markersize=6, markerfacecolor="none",
            color=MARK, gid="tied")
    ax.plot(x[best], means[best], linestyle="none", marker="*", markersize=12, color=LOSS, gid="best")
    ax.set_ylabel(label, fontsize=10)


def _sweep_map(fig, ax, coordinates: pd.DataFrame, table: pd.DataFrame, best: np.ndarray, tied: np.ndarray,
               label: str) -> None:
    x, y = (coordinates.iloc[:, i].to_numpy(dtype=float) for i in (0, 1))
    xs, ys = np.unique(x), np.unique(y)
    cells = np.full((len(ys), len(xs)), np.nan)  # a point the grid does not have stays blank
    cells[np.searchsorted(ys, y), np.searchsorted(xs, x)] = table["mean"].to_numpy(dtype=float)
    image = ax.pcolormesh(_cell_edges(xs), _cell_edges(ys), np.ma.masked_invalid(cells), cmap="viridis",
                          gid="values")
    fig.colorbar(image, ax=ax, label=label)
    ax.plot(x[tied], y[tied], linestyle="none", marker="o", markersize=5, markerfacecolor="none", color="white",
            gid="tied")
    ax.plot(x[best], y[best], linestyle="none", marker="*", markersize=12, color=LOSS, gid="best")
    ax.set_ylabel(_fit([visible(coordinates.columns[1])], fig.get_size_inches()[1] - MARGIN, 10))


def _cell_edges(centres: np.ndarray) -> np.ndarray:
    """Edges of cells centred on sorted values: halfway between neighbours, as far out at the ends."""
    if len(centres) == 1:
        return np.array([centres[0] - 0.5, centres[0] + 0.5])
    middle = (centres[:-1] + centres[1:]) / 2
    return np.concatenate([[2 * centres[0] - middle[0]], middle, [2 * centres[-1] - middle[-1]]])


def _panels(kind: str, size: tuple[float, float], rows: int, cols: int, reuse: Figure | None,
            shared: bool = False) -> tuple[Figure, np.ndarray]:
    """A figure of rows x cols panels (shared axes if asked), or ``reuse`` when the same function made
    it with the same size and panels: its marks, legends, titles and labels go, its limits follow the
    new data, and its axes, ticks, canvas and data artists stay for the panel functions to update in
    place (:func:`_drawn_as`) or replace."""
    shape = (kind, tuple(float(x) for x in size), rows, cols, shared)
    if reuse is not None and getattr(reuse, "_rankkit_shape", None) == shape:
        mark(reuse, None)
        for legend in list(reuse.legends):
            legend.remove()
        for ax in reuse.axes:
            if ax.get_legend() is not None:
                ax.get_legend().remove()
            ax.set_title("")
            ax.set_xlabel("")
            ax.set_ylabel("")
            ax.set_autoscale_on(True)
        return reuse, np.array(reuse.axes, dtype=object).reshape(rows, cols)
    fig = _Figure(figsize=size, layout="constrained")
    axes = fig.subplots(rows, cols, sharex=shared, sharey=shared, squeeze=False)
    fig._rankkit_shape = shape
    return fig, axes


def _drawn_as(ax, shape: tuple) -> bool:
    """Whether a panel holds artists drawn for data of this shape (a histogram's bin edges, the
    systems of a trace...), which the panel function then updates in place: new bars and points
    cost more than moving the old ones. Otherwise the panel is emptied for a new drawing."""
    if getattr(ax, "_rankkit_drawn", None) == shape:
        return True
    for artist in [*ax.lines, *ax.patches, *ax.collections, *ax.texts]:
        artist.remove()
    ax.ignore_existing_data_limits = True
    ax._rankkit_drawn = shape
    return False


def _gid(artists, gid: str) -> list:
    return [artist for artist in artists if artist.get_gid() == gid]


def mark(fig: Figure, query_id: str | None) -> list:
    """Mark one query on a figure drawn by :func:`distribution`, :func:`differences` or
    :func:`scatter`, replacing the mark of an earlier query (``None`` clears it).

    This is what ``highlight=`` draws. The explorer marks the chosen query this way over a figure
    it rendered once, redrawing only the returned artists (all with ``gid="highlight"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from rankkit import plot
    >>> per_query = pd.DataFrame({"system": ["a", "a", "b", "b"], "query_id": ["q1", "q2"] * 2,
    ...                           "value": [0.5, 1.0, 0.25, 1.0]})
    >>> fig = plot.scatter(per_query, "a", "b")
    >>> [artist.get_offsets().tolist() for artist in plot.mark(fig, "q1")[:1]]
    [[[0.5, 0.25]]]
    >>> len(plot.mark(fig, None))
    0
    """
    for ax in fig.axes:
        for artist in [a for a in ax.get_children() if a.get_gid() == "highlight"]:
            artist.remove()
    drawn = []
    if query_id is None:
        return drawn
    for ax in fig.axes:
        kind, where = getattr(ax, "_rankkit_marks", (None, None))
        if kind is None or query_id not in where.index:
            continue
        if kind == "vline":
            value = float(where[query_id])
            drawn.append(ax.axvline(value, color=LOSS, linewidth=1.5, linestyle="--", gid="highlight"))
            # right of the line, or left of it in the right half, where the label would leave the panel
            left = value > sum(ax.get_xlim()) / 2
            drawn.append(ax.annotate(_fit([str(query_id)], _panel_width(ax) / 2, 8), (value, 1.0),
                                     xycoords=("data", "axes fraction"),
                                     xytext=(-3 if left else 3, -2), textcoords="offset points", fontsize=8, va="top",
                                     color=LOSS, ha="right" if left else "left", gid="highlight",
                                     # readable where it crosses the mean or median line
                                     bbox=dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none",
                                               alpha=0.85)))
        else:
            x, y = where[query_id]
            # the circle is not cut by the frame (the first or last query sits on it), and the label
            # stands towards the middle: up and right of a point near an edge, it left the figure
            right, high = x > sum(ax.get_xlim()) / 2, y > sum(ax.get_ylim()) / 2
            drawn.append(ax.scatter([x], [y], s=120, facecolors="none", edgecolors=MARK, linewidths=1.5,
                                    gid="highlight", zorder=5, clip_on=False))
            drawn.append(ax.annotate(_fit([str(query_id)], _panel_width(ax) / 2, 9), (x, y),
                                     xytext=(-7 if right else 7, -7 if high else 7),
                                     textcoords="offset points", fontsize=9, ha="right" if right else "left",
                                     va="top" if high else "bottom", gid="highlight"))
    return drawn


def _fit(parts: list[str], width: float, fontsize: float) -> str:
    """Parts of a title joined by spaces into lines that fit ``width`` inches at ``fontsize``: a part
    starts a new line where it would run past the edge, and a part longer than a line (a long system
    name) is broken inside. Every character is kept, so the full name stays readable, and shown as
    it is: each part is made safe to draw (rankkit.safe.plot), its ``$`` escaped once the lines are
    made (a break between ``\\`` and ``$`` would undo the escape)."""
    room = width * 72  # points
    parts = [visible(part) for part in parts]

    def points(text: str) -> float:
        # the characters' advances as Agg draws them (its hinting widens small text), with 5% to spare
        # for kerning; laying out each candidate line, a dozen times a redraw, was slow
        return sum(_advance(char, fontsize) for char in text) * 1.05

    lines: list[str] = []
    for part in parts:
        if lines and points(lines[-1] + " " + part) <= room:
            lines[-1] += " " + part
        elif points(part) <= room:
            lines.append(part)
        else:  # as many characters a line as the part's own average width allows
            chars = max(8, int(len(part) * room / points(part)))
            lines += textwrap.wrap(part, chars, break_long_words=True, break_on_hyphens=False)
    return "\n".join(dollars(line) for line in lines)


def _clauses(line: str) -> list[str]:
    """A title line's comma-separated statements, each keeping its comma: where _fit may break it."""
    parts = line.split(", ")
    return [part + "," for part in parts[:-1]] + parts[-1:]


@functools.lru_cache(maxsize=2048)
def _advance(char: str, fontsize: float) -> float:
    """How far a character moves the pen, in points, at matplotlib's default 100 dpi with Agg's hinting."""
    from matplotlib.backends.backend_agg import get_hinting_flag
    from matplotlib.font_manager import findfont, get_font

    font = get_font(findfont(FontProperties(size=fontsize)))
    font.set_size(fontsize, 100)
    return font.load_char(ord(char), flags=get_hinting_flag()).horiAdvance / 64 * 0.72


def _panel_width(ax) -> float:
    """The inches of figure width one column of panels has for its title, tick labels aside."""
    spec = ax.get_subplotspec()
    columns = spec.get_gridspec().ncols if spec else 1
    # panels side by side share the first one's y axis: only the first has tick labels and a label
    return ax.figure.get_size_inches()[0] / columns - (MARGIN if not spec or spec.colspan.start == 0 else 0.2)


def _remember(ax, kind: str, where: pd.Series) -> None:
    """Where each query sits on this axes, for mark(): a value (a vertical line) or an (x, y) point."""
    ax._rankkit_marks = (kind, where[~where.index.duplicated()])


def _histogram(ax, rows: pd.DataFrame, edges: np.ndarray, color: str, title: str, compact: bool) -> None:
    values = rows["value"].to_numpy(dtype=float)
    missing = int(np.isnan(values).sum())
    values = values[~np.isnan(values)]
    # a value a rounding step beyond [0, 1] (an nDCG of 1.0000000000000002) belongs in the end bins
    clipped = np.clip(values, edges[0], edges[-1])
    stats = (float(np.mean(values)), float(np.median(values))) if len(values) else None
    if _drawn_as(ax, ("histogram", tuple(edges), stats is not None)):
        counts, _ = np.histogram(clipped, bins=edges)  # as ax.hist counts
        for bar, count in zip(_gid(ax.patches, "values"), counts):
            bar.set_height(count)
            bar.set_facecolor(color)
        if stats is not None:
            for line, value in zip((_gid(ax.lines, "mean")[0], _gid(ax.lines, "median")[0]), stats):
                line.set_xdata([value, value])
        # the bars' extent, as drawing them adds it (relim would measure every bar again)
        ax.ignore_existing_data_limits = True
        ax.update_datalim([(edges[0], 0.0), (edges[-1], float(counts.max()))])
        ax.autoscale_view()
    else:
        ax.hist(clipped, bins=edges, color=color, alpha=0.75, gid="values")
        if stats is not None:
            ax.axvline(stats[0], color=MARK, linewidth=1.5, label="mean", gid="mean")
            ax.axvline(stats[1], color=MARK, linewidth=1.5, linestyle=":", label="median", gid="median")
    ax.set_xlim(edges[0] - (edges[-1] - edges[0]) * 0.02, edges[-1] + (edges[-1] - edges[0]) * 0.02)
    lines = [title, f"{len(values)} queries" + (f" ({missing} without a value)" if missing else "")]
    if stats is not None:
        lines[1] += f", mean {stats[0]:.4g}, median {stats[1]:.4g}"
        shares = f"{_share(_near(values, 0))} at 0"
        if _bounded(values):
            shares += f", {_share(_near(values, 1))} at 1"
        lines.append(shares)
    # side by side panels (by=) are narrow: one statement a line
    size = 8 if compact else 9
    if compact:
        title = "\n".join(_fit(_clauses(line), _panel_width(ax), size) for line in lines)
    else:
        title = "\n".join([_fit([f"{lines[0]}:", *lines[1:2]], _panel_width(ax), size), *lines[2:]])
    ax.set_title(title, fontsize=size, y=TITLE_Y)


def _difference_panel(ax, values: pd.Series, base: pd.Series, title: str, color: str) -> None:
    pairs = _pair(values, base)
    d = paired_differences(pairs["value"], pairs["base"])
    order = np.argsort(d, kind="stable")
    d, ids = d[order], pairs.index.to_numpy()[order]
    positions = np.arange(len(d))
    if _drawn_as(ax, ("differences",)):
        line = _gid(ax.lines, "values")[0]
        line.set_data(positions, d)
        line.set_color(color)
        for fill, where in zip(ax.collections, (d > 0, d < 0)):
            fill.set_data(positions, 0, d, where=where)
        ax.relim()  # the line and the zero line span what the fills span
        ax.autoscale_view()
    else:
        ax.plot(positions, d, color=color, linewidth=1, drawstyle="steps-mid", gid="values")
        ax.fill_between(positions, 0, d, where=d > 0, step="mid", color=WIN, alpha=0.6)
        ax.fill_between(positions, 0, d, where=d < 0, step="mid", color=LOSS, alpha=0.6)
        ax.axhline(0, color="#555555", linewidth=0.8)
    # room beyond the first and last query for a marked query's circle (2% of the width a side)
    pad = 0.02 * max(len(d), 1)
    ax.set_xlim(-0.5 - pad, max(len(d) - 0.5, 0.5) + pad)
    _remember(ax, "point", pd.Series(list(zip(positions, d)), index=ids, dtype=object))
    wins, ties, losses = int(np.sum(d > 0)), int(np.sum(d == 0)), int(np.sum(d < 0))
    mean = f", mean {float(np.mean(d)):+.4g}" if len(d) else ""
    counts = f"{_count(wins, 'win')}, {_count(ties, 'tie')}, {_count(losses, 'loss')} of {len(d)} queries{mean}"
    ax.set_title(_fit([f"{title}:", counts], _panel_width(ax), 9), fontsize=9, y=TITLE_Y)


def _curve_panel(ax, rows: pd.DataFrame, names: list[str], colors: dict[str, str], markers: dict[str, str],
                 query_id) -> None:
    systems = rows["system"]
    ideals = {name: rows.loc[systems == name, ["rank", "idcg"]].to_numpy(dtype=float) for name in names}
    ideal_shared = len({arr.tobytes() for arr in ideals.values()}) <= 1
    finals, curves = [], []  # curves: (x, y, plot's keywords) of each line
    # a long name's label breaks into lines rather than cover the panel; many go in columns below it
    legend_width = _panel_width(ax) / LEGEND_COLUMNS - 0.3
    for name in names:
        own = rows[systems == name].sort_values("rank")
        if own.empty:
            continue
        # not clipped: a marker at DCG 0 (nothing relevant yet) sits on the frame, half hidden
        curves.append((own["rank"], own["dcg"], dict(color=colors[name], marker=markers[name], markersize=3,
                                                     label=_fit([name, "DCG"], legend_width, 8), gid="dcg",
                                                     clip_on=False)))
        if not ideal_shared:
            curves.append((own["rank"], own["idcg"], dict(color=colors[name], linestyle="--",
                                                          label=_fit([name, "IDCG"], legend_width, 8), gid="idcg")))
        finals.append(f"{name} {float(own['ndcg'].iloc[-1]):.4f}")
    if ideal_shared:
        own = rows[systems == names[0]].sort_values("rank")
        curves.append((own["rank"], own["idcg"], dict(color=MARK, linestyle="--", label="IDCG (ideal ordering)",
                                                      gid="idcg")))
    if _drawn_as(ax, ("curves", *[tuple(sorted(style.items())) for _, _, style in curves])):
        for line, (x, y, _) in zip(ax.lines, curves):
            line.set_data(x, y)
        ax.relim()
        ax.autoscale_view()
    else:
        for x, y, style in curves:
            ax.plot(x, y, **style)
    depth = int(rows["rank"].max())
    ax.set_title(_fit([f"query {query_id}, nDCG@{depth}:", *[f"{final}," for final in finals[:-1]], *finals[-1:]],
                      _panel_width(ax), 9), fontsize=9, y=TITLE_Y)
    ax.set_xlabel("rank")
    ax.set_ylabel("running DCG")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set_ylim(bottom=0)
    # the lines and their labels given: matplotlib leaves out a label that starts with "_" (a system
    # named _nolegend_ or _baseline) when it collects them itself
    if len(ax.lines) <= LEGEND_INSIDE:  # more go in one legend under the figure (trace_curve)
        ax.legend(ax.lines, [line.get_label() for line in ax.lines], fontsize=8, frameon=False, loc="best")


def _curve_height(systems: int) -> float:
    """Inches of a trace_curve panel: more systems take more title lines and a legend below the panel
    (up to six lines sit inside it, as for a few systems)."""
    if 2 * systems <= LEGEND_INSIDE:
        return 3.2
    rows = -(-(2 * systems) // LEGEND_COLUMNS)  # a DCG and an IDCG line each, at most
    return 3.2 + 0.17 * rows + 0.06 * systems


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


def _slices(frame: pd.DataFrame, by: str | None) -> list[tuple[object, pd.DataFrame]]:
    if by is None:
        return [(None, frame)]
    if by not in frame.columns:
        raise RankkitError(f"by={by!r} is not a column of per_query; its columns: {', '.join(map(str, frame.columns))}")
    return list(frame.groupby(by, sort=True, dropna=False))


def _bin_edges(values: pd.Series, bins: int) -> np.ndarray:
    if not isinstance(bins, (int, np.integer)) or bins < 1:
        raise RankkitError(f"bins must be a positive integer, got {bins!r}")
    finite = values.to_numpy(dtype=float)
    finite = finite[np.isfinite(finite)]
    if len(finite) == 0 or _bounded(finite):
        return np.linspace(0.0, 1.0, bins + 1)
    low, high = float(finite.min()), float(finite.max())
    if low == high:
        low, high = low - 0.5, high + 0.5
    return np.linspace(low, high, bins + 1)


def _near(values: np.ndarray, target: float) -> np.ndarray:
    return np.abs(values - target) <= TIE_TOLERANCE


def _bounded(values: np.ndarray) -> bool:
    """Whether every value lies within [0, 1], up to rounding (a share "at 1" then means the best)."""
    return bool(values.min() >= -TIE_TOLERANCE and values.max() <= 1 + TIE_TOLERANCE)


def _limits(values: np.ndarray) -> tuple[float, float]:
    """Axis limits holding every value, [0, 1] for values within it, with a small margin."""
    finite = values[np.isfinite(values)]
    low, high = (0.0, 1.0) if len(finite) == 0 else (min(0.0, float(finite.min())), max(1.0, float(finite.max())))
    margin = (high - low) * 0.03
    return low - margin, high + margin


def _marker_size(points: int) -> float:
    return 24.0 if points <= 500 else 8.0


def _share(mask: np.ndarray) -> str:
    return f"{100 * float(np.mean(mask)):.0f}%"


def _count(n: int, noun: str) -> str:
    plural = {"loss": "losses"}.get(noun, noun + "s")
    return f"{n} {noun if n == 1 else plural}"
