"""Drawing the explorer's figures with Agg, fast enough to follow its controls.

A control change draws three figures again. Most of a drawing was text: matplotlib 3.11's Agg
lays out and renders each tick label glyph by glyph (about 1.5 ms a label), and the tick labels
seldom change when the values do (the x axis of a distribution, a scatter's square). So each view
keeps its last few *frames*: the figure's background, axes backgrounds, ticks and tick labels,
keyed by what they show. A figure whose frame is kept restores it and draws only the rest (bars,
points, lines, titles, legends, axis labels), in matplotlib's own order. A query's mark is then
drawn over that drawing alone (matplotlib's blitting).
"""

from __future__ import annotations

import io
from contextlib import contextmanager
from typing import Iterator

import PIL.Image
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import PlaceHolderLayoutEngine

from rankkit import plot

DPI = 80
FRAMES_KEPT = 4  # per view: a few settings' frames, so that going back to one draws no tick label


def canvas(fig: Figure) -> FigureCanvasAgg:
    """The figure's Agg canvas at the explorer's resolution. A figure drawn again keeps its canvas,
    and with it the text sizes matplotlib measured."""
    fig.set_dpi(DPI)
    return fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)


class Frames:
    """The frames one view drew last, by what they show (see the module's text)."""

    def __init__(self) -> None:
        self._kept: dict[tuple, tuple] = {}  # frame key: (the pixels, the axis labels' positions)
        self.reused = 0  # drawings that restored a kept frame

    def draw(self, fig: Figure) -> None:
        """Draw the figure on its canvas: the kept frame if it shows the same, then the rest."""
        renderer = canvas(fig).get_renderer()
        engine = fig.get_layout_engine()
        if engine is not None and not isinstance(engine, PlaceHolderLayoutEngine):
            engine.execute(fig)  # now, with every artist shown: the two passes below hide some
            fig.set_layout_engine("none")
        for ax in fig.axes:
            ax.apply_aspect()  # as Axes.draw would: a square scatter moves its axes
        key = frame_key(fig)
        labels = [axis.label for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)]
        kept = self._kept.pop(key, None)
        if kept is None:
            renderer.clear()
            with _hidden(labels):  # axis labels name the measure, which the frame outlives
                _draw_frame(fig, renderer)
            kept = (fig.canvas.copy_from_bbox(fig.bbox), [label.get_position() for label in labels])
        else:
            self.reused += 1
            fig.canvas.restore_region(kept[0])
            for label, position in zip(labels, kept[1]):  # placed by the ticks' labels, when drawn
                label.set_position(position)
        self._kept[key] = kept
        for old in list(self._kept)[:-FRAMES_KEPT]:
            del self._kept[old]
        with _hidden([fig.patch, *(artist for ax in fig.axes for artist in (ax.patch, ax.xaxis, ax.yaxis))]):
            fig.draw(renderer)
        for label in labels:
            label.draw(renderer)


def frame_key(fig: Figure) -> tuple:
    """What a figure's frame shows: its size, and per axes its place, limits and ticks."""
    def axis(axis) -> tuple:
        labels = axis.get_majorticklabels()  # formats the ticks for the current limits
        return (axis.get_visible(), tuple(axis.get_majorticklocs()), tuple(label.get_text() for label in labels),
                axis.get_offset_text().get_text(), repr(sorted(axis.get_tick_params().items())))

    return (fig.canvas.get_width_height(), fig.dpi, fig.get_facecolor(),
            tuple((ax.get_visible(), ax.axison, ax.get_frame_on(), ax.get_facecolor(), tuple(ax.get_position().bounds),
                   ax.get_xlim(), ax.get_ylim(), axis(ax.xaxis), axis(ax.yaxis)) for ax in fig.axes))


def _draw_frame(fig: Figure, renderer) -> None:
    """The figure's background, and each axes' background, ticks and tick labels, as Figure.draw and
    Axes.draw would draw them."""
    fig.patch.draw(renderer)
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        if ax.axison and ax.get_frame_on():
            ax.patch.draw(renderer)
        if ax.axison:
            ax.xaxis.draw(renderer)
            ax.yaxis.draw(renderer)


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
    """A figure drawn once by Agg (over a kept frame where ``frames`` has one); marking a query
    restores that drawing and draws only the mark, so choosing a query does not draw thousands of
    points again."""

    def __init__(self, fig: Figure, frames: Frames | None = None):
        self.fig = fig
        self.canvas = canvas(fig)
        if frames is None:
            self.canvas.draw()
        else:
            frames.draw(fig)
        self.background = self.canvas.copy_from_bbox(fig.bbox)

    def png(self, query_id: str | None = None) -> bytes:
        artists = plot.mark(self.fig, query_id) if query_id is not None or _marked(self.fig) else []
        self.canvas.restore_region(self.background)
        for artist in artists:
            self.fig.draw_artist(artist)
        width, height = self.canvas.get_width_height()
        image = PIL.Image.frombuffer("RGBA", (width, height), self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        buffer = io.BytesIO()
        # speed over bytes (the page is local); the figures are opaque, and RGB encodes a fifth faster
        image.convert("RGB").save(buffer, format="png", compress_level=1)
        return buffer.getvalue()


def layout_key(fig: Figure) -> tuple:
    """What the constrained layout of a figure depends on: its size, and per panel the lines of its
    title and labels and the longest tick label of each axis."""
    def lines(text) -> int:
        return text.get_text().count("\n") + 1 if text.get_text() else 0

    def longest(axis) -> int:  # of the tick labels drawn: those within the axis' limits
        low, high = sorted(axis.get_view_interval())
        labels = axis.get_major_formatter().format_ticks(axis.get_majorticklocs())
        return max((len(label) for loc, label in zip(axis.get_majorticklocs(), labels) if low <= loc <= high),
                   default=0)

    return (tuple(fig.get_size_inches()),
            tuple((lines(ax.title), lines(ax.xaxis.label), lines(ax.yaxis.label), longest(ax.xaxis), longest(ax.yaxis),
                   ax.xaxis.get_tick_params().get("labelbottom", True), ax.yaxis.get_tick_params().get("labelleft", True))
                  for ax in fig.axes))


def _marked(fig: Figure) -> bool:
    return any(a.get_gid() == "highlight" for ax in fig.axes for a in ax.get_children())
