"""Figures of per-query values: their distribution per system, each system's differences against a
baseline, and one system against another."""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rankkit.errors import RankkitError
from rankkit.plot.frames import _by_system, _colors, _one_measure, _pair, _system_names
from rankkit.plot.panels import (LOSS, MARGIN, MARK, PANEL_HEIGHT, TITLE_Y, WIDTH, WIN, _clauses, _drawn_as, _fit, _gid,
                                 _panel_width, _panels, _remember, mark)
from rankkit.stats import TIE_TOLERANCE, differences as paired_differences


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
                figsize: tuple[float, float] | None = None, reuse: Figure | None = None,
                better: str = "higher") -> Figure:
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
    better : str, optional
        Which way the measure is better, its file's ``better:`` (rankkit.specs.better_of): ``"lower"``
        (FallOut, Gini) makes a query below the baseline a win; ``"higher"`` (default) or ``"none"`` one above it.

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
        _difference_panel(ax, values[name], values[baseline], f"{name} - {baseline}", colors[name], better == "lower")
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


def _difference_panel(ax, values: pd.Series, base: pd.Series, title: str, color: str, lower: bool = False) -> None:
    pairs = _pair(values, base)
    d = paired_differences(pairs["value"], pairs["base"])
    order = np.argsort(d, kind="stable")
    d, ids = d[order], pairs.index.to_numpy()[order]
    positions = np.arange(len(d))
    won, lost = (d < 0, d > 0) if lower else (d > 0, d < 0)  # where lower is better, a win is below
    if _drawn_as(ax, ("differences",)):
        line = _gid(ax.lines, "values")[0]
        line.set_data(positions, d)
        line.set_color(color)
        for fill, where in zip(ax.collections, (won, lost)):
            fill.set_data(positions, 0, d, where=where)
        ax.relim()  # the line and the zero line span what the fills span
        ax.autoscale_view()
    else:
        ax.plot(positions, d, color=color, linewidth=1, drawstyle="steps-mid", gid="values")
        ax.fill_between(positions, 0, d, where=won, step="mid", color=WIN, alpha=0.6)
        ax.fill_between(positions, 0, d, where=lost, step="mid", color=LOSS, alpha=0.6)
        ax.axhline(0, color="#555555", linewidth=0.8)
    # room beyond the first and last query for a marked query's circle (2% of the width a side)
    pad = 0.02 * max(len(d), 1)
    ax.set_xlim(-0.5 - pad, max(len(d) - 0.5, 0.5) + pad)
    _remember(ax, "point", pd.Series(list(zip(positions, d)), index=ids, dtype=object))
    wins, ties, losses = int(np.sum(won)), int(np.sum(d == 0)), int(np.sum(lost))
    mean = f", mean {float(np.mean(d)):+.4g}" if len(d) else ""
    counts = f"{_count(wins, 'win')}, {_count(ties, 'tie')}, {_count(losses, 'loss')} of {len(d)} queries{mean}"
    ax.set_title(_fit([f"{title}:", counts], _panel_width(ax), 9), fontsize=9, y=TITLE_Y)


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
