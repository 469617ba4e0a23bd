"""The trace's figure: running DCG against running IDCG by rank, per system and query."""

from __future__ import annotations

from typing import Iterable

import pandas as pd
from matplotlib.figure import Figure

from rankkit.errors import RankkitError
from rankkit.plot.frames import _colors, _in_order, _markers, _named, _system_names
from rankkit.plot.panels import MARK, TITLE_Y, WIDTH, _drawn_as, _fit, _panel_width, _panels

LEGEND_INSIDE = 6    # legend entries a trace panel holds inside; beyond, in LEGEND_COLUMNS columns below it
LEGEND_COLUMNS = 3


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
