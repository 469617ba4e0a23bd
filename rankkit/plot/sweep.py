"""A fusion sweep's figure: the grid's means as a line over one free coordinate or a heat map over two."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rankkit.errors import RankkitError
from rankkit.plot.frames import PALETTE
from rankkit.plot.panels import LOSS, MARGIN, MARK, TITLE_Y, WIDTH, _fit, _panel_width, _panels, _remember
from rankkit.safe.plot import visible


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
        be worse than it (``gid="tied"``). :func:`mark` circles a point, by its name (``point``).

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
    _remember(ax, "point", pd.Series(list(zip(x, means)), index=table["point"].to_numpy(), dtype=object))


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
    _remember(ax, "point", pd.Series(list(zip(x, y)), index=table["point"].to_numpy(), dtype=object))
    ax.set_ylabel(_fit([visible(coordinates.columns[1])], fig.get_size_inches()[1] - MARGIN, 10))


def _cell_edges(centres: np.ndarray) -> np.ndarray:
    """Edges of cells centred on sorted values: halfway between neighbours, as far out at the ends."""
    if len(centres) == 1:
        return np.array([centres[0] - 0.5, centres[0] + 0.5])
    middle = (centres[:-1] + centres[1:]) / 2
    return np.concatenate([[2 * centres[0] - middle[0]], middle, [2 * centres[-1] - middle[-1]]])
