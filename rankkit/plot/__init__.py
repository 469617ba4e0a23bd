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

from rankkit.plot.frames import system_colors
from rankkit.plot.panels import mark
from rankkit.plot.queries import differences, distribution, scatter
from rankkit.plot.sweep import sweep
from rankkit.plot.trace import trace_curve

__all__ = ["distribution", "differences", "scatter", "trace_curve", "sweep", "mark", "system_colors"]
