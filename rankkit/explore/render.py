"""Drawing the explorer's figures with Agg, fast enough to follow its controls.

A control change draws three figures again. Much of a drawing was text: matplotlib 3.11's Agg
lays out and renders each tick label glyph by glyph, and an axis' ticks
seldom change when the values do (a distribution's or a scatter's value axis, the differences'
query axis). So each view keeps the axes it drew, each x and y axis drawn alone on a clear canvas
(ticks and tick labels, not the axis label, which names the measure), keyed by what it shows. A
figure is drawn as: its background, each axis from a kept piece or a new one laid over it, then
the rest (bars, points, lines, titles, legends, axis labels) in matplotlib's own order. The
pixels are those of a full drawing (a test compares them). A query's mark is then drawn over that
drawing alone (matplotlib's blitting).
"""

from __future__ import annotations

import io
from contextlib import contextmanager
from typing import Iterator

import numpy as np
import PIL.Image
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import PlaceHolderLayoutEngine

from rankkit import plot

DPI = 80
PIECES_KEPT = 16  # per view at least: a few settings' axes, so that going back to one draws no tick label


def canvas(fig: Figure) -> FigureCanvasAgg:
    """The figure's Agg canvas at the explorer's resolution. A figure drawn again keeps its canvas,
    and with it the text sizes matplotlib measured."""
    fig.set_dpi(DPI)
    return fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)


class KeptAxes:
    """The axes one view drew: each x and y axis (ticks and tick labels, on a clear background), by
    what it shows (see the module's text)."""

    def __init__(self) -> None:
        self._pieces: dict[tuple, tuple] = {}  # axis key: (left, top, RGBA pixels, the axis label's position)
        self.reused = 0  # axes laid from a kept piece

    def draw(self, fig: Figure) -> None:
        """Draw the figure on its canvas: its axes from pieces (kept ones where they show the same),
        then the rest, in matplotlib's order."""
        renderer = canvas(fig).get_renderer()
        engine = fig.get_layout_engine()
        if engine is not None and not isinstance(engine, PlaceHolderLayoutEngine):
            engine.execute(fig)  # now, with every artist shown: the passes below hide some
            fig.set_layout_engine("none")
        for ax in fig.axes:
            ax.apply_aspect()  # as Axes.draw would: a square scatter moves its axes
        axes = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
        wanted = {axis: axis_key(fig, axis) for ax in axes for axis in (ax.xaxis, ax.yaxis)}
        self.reused += sum(key in self._pieces for key in wanted.values())
        for axis, key in wanted.items():
            self._pieces[key] = self._pieces.pop(key, None) or _cut(axis, renderer)  # the newest last
        # the oldest go beyond PIECES_KEPT, but never one this figure lays: a figure of nine systems or
        # more has more axes than PIECES_KEPT (18 for 9 panels), and each is laid below
        for old in list(self._pieces)[:-max(PIECES_KEPT, len(set(wanted.values())))]:
            del self._pieces[old]
        renderer.clear()
        fig.patch.draw(renderer)
        for ax in axes:
            if ax.get_frame_on():
                ax.patch.draw(renderer)
        pixels = np.asarray(renderer.buffer_rgba())
        for axis, key in wanted.items():
            left, top, piece, position = self._pieces[key]
            _over(pixels[top:top + piece.shape[0], left:left + piece.shape[1]], piece)
            axis.label.set_position(position)  # where the axis put it, by its tick labels
        with _hidden([fig.patch, *(artist for ax in fig.axes for artist in (ax.patch, ax.xaxis, ax.yaxis))]):
            fig.draw(renderer)
        for axis in wanted:
            if axis.get_visible():
                axis.label.draw(renderer)


def axis_key(fig: Figure, axis) -> tuple:
    """What an axis of a figure draws: where its axes stand on the canvas, its limits and its ticks."""
    locations = axis.get_majorticklocs()
    labels = axis.get_major_formatter().format_ticks(locations)  # as the axis will draw them, offset too
    return (axis.axis_name, fig.canvas.get_width_height(), fig.dpi, tuple(axis.axes.get_position().bounds),
            tuple(axis.get_view_interval()), axis.get_visible(), tuple(locations), tuple(labels),
            axis.get_major_formatter().get_offset(), repr(sorted(axis.get_tick_params().items())))


def _cut(axis, renderer) -> tuple:
    """An axis drawn alone on a clear canvas, without its label (it names the measure, which the
    ticks outlive): the pixels it drew, and where it placed its label."""
    renderer.clear()
    with _hidden([axis.label]):
        axis.draw(renderer)
    drawn = np.asarray(renderer.buffer_rgba())
    rows, columns = np.nonzero(drawn[..., 3].any(axis=1))[0], np.nonzero(drawn[..., 3].any(axis=0))[0]
    if not len(rows):
        return 0, 0, drawn[:0, :0].copy(), axis.label.get_position()
    piece = drawn[rows[0]:rows[-1] + 1, columns[0]:columns[-1] + 1].copy()
    return int(columns[0]), int(rows[0]), piece, axis.label.get_position()


def _over(below: np.ndarray, piece: np.ndarray) -> None:
    """Lay an RGBA piece (straight alpha, as Agg draws on a clear canvas) over opaque pixels."""
    alpha = piece[..., 3:4].astype(np.uint16)
    below[..., :3] = (piece[..., :3] * alpha + below[..., :3] * (255 - alpha) + 127) // 255


@contextmanager
def _hidden(artists: list) -> Iterator[None]:
    shown = [artist.get_visible() for artist in artists]
    for artist in artists:
        artist.set_visible(False)
    try:
        yield
    finally:
        for artist, visible in zip(artists, shown):
            artist.set_visible(visible)


class Rendered:
    """A figure drawn once by Agg, its axes laid from ``kept`` where it has them; marking a query
    restores that drawing and draws only the mark, so choosing a query does not draw thousands of
    points again."""

    def __init__(self, fig: Figure, kept: KeptAxes):
        self.fig = fig
        self.canvas = canvas(fig)
        kept.draw(fig)
        self.background = self.canvas.copy_from_bbox(fig.bbox)

    def png(self, query_id: str | None = None) -> bytes:
        artists = plot.mark(self.fig, query_id) if query_id is not None or _marked(self.fig) else []
        self.canvas.restore_region(self.background)
        for artist in artists:
            self.fig.draw_artist(artist)
        width, height = self.canvas.get_width_height()
        image = PIL.Image.frombuffer("RGBA", (width, height), self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        buffer = io.BytesIO()
        # speed over bytes (the page is local); the figures are opaque, and RGB encodes faster
        image.convert("RGB").save(buffer, format="png", compress_level=1)
        return buffer.getvalue()


def layout_key(fig: Figure) -> tuple:
    """What the constrained layout of a figure depends on: its size, and per panel the lines of its
    title and labels and the longest tick label of each axis."""
    def lines(text) -> int:
        return text.get_text().count("\n") + 1 if text.get_text() else 0

    def longest(axis) -> int:  # of the tick labels drawn: those within the axis' limits
        low, high = sorted(axis.get_view_interval())
        locations = axis.get_majorticklocs()
        labels = axis.get_major_formatter().format_ticks(locations)
        return max((len(label) for loc, label in zip(locations, labels) if low <= loc <= high), default=0)

    return (tuple(fig.get_size_inches()),
            tuple((lines(ax.title), lines(ax.xaxis.label), lines(ax.yaxis.label), longest(ax.xaxis), longest(ax.yaxis),
                   ax.xaxis.get_tick_params().get("labelbottom", True), ax.yaxis.get_tick_params().get("labelleft", True))
                  for ax in fig.axes))


def _marked(fig: Figure) -> bool:
    return any(a.get_gid() == "highlight" for ax in fig.axes for a in ax.get_children())
