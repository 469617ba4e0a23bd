"""What every figure is drawn on: a figure of panels (made anew or drawn into again), titles broken
into lines that fit, and the mark of one query over a drawn figure."""

from __future__ import annotations

import functools
import io
import os
import textwrap

import numpy as np
import pandas as pd
from matplotlib import rcParams
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties

from rankkit._files import replacing
from rankkit.safe.plot import dollars, visible

WIN, LOSS, MARK = "#2ca02c", "#d62728", "#000000"
# A title given its height skips matplotlib's placement of it, which measures the tick labels at every
# drawing (a sixth of the explorer's redraw); no panel here has ticks on top, so it sits where it would.
TITLE_Y = 1.0
WIDTH = 7.0          # inches: fits a notebook cell and an A4 text column
PANEL_HEIGHT = 2.3   # inches per row of panels
MARGIN = 0.75        # inches of a panel's width taken by its tick labels and axis label


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
