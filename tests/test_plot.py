"""rankkit.plot: the figures show the data they are given, counted as compare() counts, with no global state."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

import rankkit
from rankkit import plot
from rankkit.errors import RankkitError


def _frame(values: dict[str, list[float]], measure: str = "nDCG@10") -> pd.DataFrame:
    """A per-query frame in evaluate's shape: ``measure, system, query_id, value``."""
    rows = [(measure, system, f"q{i}", value) for system, column in values.items() for i, value in enumerate(column)]
    return pd.DataFrame(rows, columns=["measure", "system", "query_id", "value"])


def _sample(seed: int = 3, queries: int = 40):
    """Generated qrels and a run table of two systems, the second ranking relevant documents higher."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(queries):
        grades = rng.integers(0, 3, 10)
        qrels += [(f"q{q:02d}", f"d{d}", int(grades[d])) for d in range(10)]
        for skill, system in enumerate(("bm25", "dense")):
            for d in range(10):
                run.append((system, f"q{q:02d}", f"d{d}", rng.integers(0, 16) / 8.0 + skill * grades[d] / 2.0))
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score"]))


def _by_gid(ax, gid: str) -> list:
    return [artist for artist in ax.get_children() if artist.get_gid() == gid]


def _vline_x(ax, gid: str) -> float:
    (line,) = [artist for artist in _by_gid(ax, gid) if isinstance(artist, Line2D)]
    return float(line.get_xdata()[0])


def _heights(ax) -> list[float]:
    return [patch.get_height() for patch in ax.patches]


# distribution

def test_distribution_draws_each_systems_histogram_with_mean_and_median():
    values = {"bm25": [0.0, 0.0, 0.2, 0.5, 1.0], "dense": [0.1, 0.3, 0.3, 1.0, 1.0]}
    fig = plot.distribution(_frame(values), bins=10)
    assert isinstance(fig, Figure)
    assert len(fig.axes) == 2
    for ax, (name, column) in zip(fig.axes, values.items()):
        expected, _ = np.histogram(column, bins=np.linspace(0, 1, 11))
        assert _heights(ax) == expected.tolist()
        assert _vline_x(ax, "mean") == pytest.approx(np.mean(column))
        assert _vline_x(ax, "median") == pytest.approx(np.median(column))
        assert ax.get_title().startswith(f"{name}: 5 queries")
    assert fig.axes[0].get_title().endswith("40% at 0, 20% at 1")
    assert fig.axes[1].get_title().endswith("0% at 0, 40% at 1")
    assert fig.axes[-1].get_xlabel() == "nDCG@10"


def test_distribution_takes_evaluates_frame_as_it_is():
    qrels, run = _sample()
    per_query = rankkit.evaluate(qrels, run, ["nDCG@10", "AP"], per_query=True)
    fig = plot.distribution(per_query, measure="AP")
    for ax, name in zip(fig.axes, ["bm25", "dense"]):
        ap = per_query[(per_query["measure"] == "AP") & (per_query["system"] == name)]["value"]
        assert sum(_heights(ax)) == len(ap) == 40
        assert _vline_x(ax, "mean") == pytest.approx(ap.mean(), abs=1e-12)
    assert fig.axes[-1].get_xlabel() == "AP"


def test_distribution_of_one_system_without_a_system_column():
    qrels, run = _sample()
    per_query = rankkit.evaluate(qrels, run[run["system"] == "bm25"].drop(columns="system"), "RR", per_query=True)
    assert per_query["system"].isna().all()  # as SQL names a table without a system column
    fig = plot.distribution(per_query)
    (ax,) = fig.axes
    assert ax.get_title().startswith("run: 40 queries")
    assert sum(_heights(ax)) == 40


def test_distribution_highlights_a_query_in_every_panel():
    fig = plot.distribution(_frame({"a": [0.1, 0.9, 0.5], "b": [0.2, 0.4, 0.6]}), highlight="q1")
    assert [_vline_x(ax, "highlight") for ax in fig.axes] == [0.9, 0.4]
    fig = plot.distribution(_frame({"a": [0.1, 0.9, 0.5]}), highlight="no such query")
    assert _by_gid(fig.axes[0], "highlight") == []


def test_distribution_chooses_and_orders_systems():
    frame = _frame({"a": [0.1, 0.2], "b": [0.3, 0.4], "c": [0.5, 0.6]})
    fig = plot.distribution(frame, systems=["c", "a"])
    assert [ax.get_title().split(":")[0] for ax in fig.axes] == ["c", "a"]
    # a system keeps its colour whichever subset is drawn
    full = plot.distribution(frame)
    assert fig.axes[0].patches[0].get_facecolor() == full.axes[2].patches[0].get_facecolor()


def test_distribution_split_by_a_slice_column():
    frame = _frame({"a": [0.0, 1.0, 0.5, 0.25], "b": [1.0, 1.0, 0.0, 0.75]})
    frame["topic"] = frame["query_id"].map({"q0": "news", "q1": "news", "q2": "web", "q3": None})
    fig = plot.distribution(frame, by="topic")
    assert len(fig.axes) == 6  # 2 systems x (news, web, no value)
    titles = [ax.get_title() for ax in fig.axes]
    # a narrow panel's title breaks between its statements
    assert titles[0] == "a, topic = news\n2 queries, mean 0.5,\nmedian 0.5\n50% at 0, 50% at 1"
    assert titles[1].startswith("a, topic = web\n1 queries, mean 0.5")
    assert titles[2].startswith("a, topic = nan\n1 queries, mean 0.25")
    assert titles[3].startswith("b, topic = news\n2 queries, mean 1")
    assert sum(sum(_heights(ax)) for ax in fig.axes) == 8


def test_distribution_counts_missing_values_and_bins_unbounded_measures():
    frame = _frame({"a": [3.0, 7.5, np.nan, 12.0]}, measure="DCG@10")
    fig = plot.distribution(frame, bins=3)
    (ax,) = fig.axes
    assert ax.get_title() == "a: 3 queries (1 without a value), mean 7.5, median 7.5\n0% at 0"
    assert _heights(ax) == [1, 1, 1]
    assert [patch.get_x() for patch in ax.patches] == pytest.approx([3.0, 6.0, 9.0])


def test_distribution_keeps_values_a_rounding_step_beyond_one():
    # sums of discounted gains can land an nDCG of 1 at 1.0000000000000002
    frame = _frame({"a": [1 + 2.2e-16, 1.0, 0.5, -1e-17]})
    ax = plot.distribution(frame, bins=4).axes[0]
    assert _heights(ax) == [1, 0, 1, 2]
    assert ax.get_xlim()[0] < 0 and ax.get_xlim()[1] > 1
    assert ax.get_title().endswith("25% at 0, 50% at 1")


# differences

def test_differences_are_sorted_and_counted_as_compare_counts():
    qrels, run = _sample()
    per_query = rankkit.evaluate(qrels, run, "nDCG@10", per_query=True)
    fig = plot.differences(per_query, "bm25")
    (ax,) = fig.axes
    wide = per_query.pivot(index="query_id", columns="system", values="value")
    expected = np.sort((wide["dense"] - wide["bm25"]).to_numpy())
    assert ax.lines[0].get_ydata() == pytest.approx(expected, abs=1e-12)
    counted = rankkit.compare(qrels, run, "nDCG@10", baseline="bm25").iloc[0]
    assert ax.get_title() == (f"dense - bm25: {counted['wins']} wins, {counted['ties']} ties, "
                              f"{counted['losses']} losses of 40 queries, mean {counted['diff']:+.4g}")
    assert ax.get_ylabel() == "difference in nDCG@10"


def test_differences_where_lower_is_better_fill_a_lower_value_as_a_win():
    """FallOut's better: lower: a query where the system's FallOut is below the baseline's is its win (before:
    counted and filled green as a loss)."""
    frame = _frame({"base": [0.5, 0.5, 0.5], "other": [0.25, 0.5, 1.0]}, "FallOut@10")
    ax = plot.differences(frame, "base", better="lower").axes[0]
    assert ax.get_title().startswith("other - base: 1 win, 1 tie, 1 loss of 3 queries")
    won, lost = (fill.get_paths()[0].vertices[:, 1] for fill in ax.collections[:2])
    assert won.min() == -0.25 and lost.max() == 0.5


def test_differences_treat_float_noise_as_a_tie():
    frame = _frame({"base": [0.3, 0.5], "other": [0.1 + 0.2, 0.75]})  # 0.1 + 0.2 != 0.3 in floats
    ax = plot.differences(frame, "base").axes[0]
    assert ax.get_title().startswith("other - base: 1 win, 1 tie, 0 losses of 2 queries")
    assert ax.lines[0].get_ydata().tolist() == [0.0, 0.25]


def test_differences_one_panel_per_other_system_over_common_queries():
    frame = _frame({"a": [0.5, 0.5, 0.5], "b": [1.0, 0.0, 0.5], "c": [0.0, 0.25]})
    fig = plot.differences(frame, "a")
    assert [ax.get_title().split(":")[0] for ax in fig.axes] == ["b - a", "c - a"]
    assert fig.axes[0].lines[0].get_ydata().tolist() == [-0.5, 0.0, 0.5]
    assert fig.axes[1].lines[0].get_ydata().tolist() == [-0.5, -0.25]  # c has no q2
    assert fig.axes[1].get_title().endswith("0 wins, 0 ties, 2 losses of 2 queries, mean -0.375")
    only_c = plot.differences(frame, "a", systems=["c"])
    assert len(only_c.axes) == 1


def test_differences_highlight_marks_the_query_where_it_sorts():
    frame = _frame({"a": [0.5, 0.5, 0.5], "b": [1.0, 0.0, 0.75]})
    ax = plot.differences(frame, "a", highlight="q2").axes[0]
    marker, label = _by_gid(ax, "highlight")
    assert marker.get_offsets().tolist() == [[1, 0.25]]
    assert label.get_text() == "q2"


def test_differences_need_a_known_baseline_and_another_system():
    frame = _frame({"a": [0.5], "b": [1.0]})
    with pytest.raises(RankkitError, match="baseline 'x' is not a system of per_query; its systems: a, b"):
        plot.differences(frame, "x")
    with pytest.raises(RankkitError, match="needs a system besides the baseline 'a'"):
        plot.differences(_frame({"a": [0.5]}), "a")
    with pytest.raises(RankkitError, match="system 'z' is not in the frame"):
        plot.differences(frame, "a", systems=["z"])


# scatter

def test_scatter_plots_each_common_query_with_the_diagonal():
    frame = _frame({"a": [0.0, 0.5, 1.0, 0.25], "b": [0.5, 0.5, 0.0]})
    fig = plot.scatter(frame, "a", "b", highlight="q0")
    (ax,) = fig.axes
    (points,) = _by_gid(ax, "values")
    assert points.get_offsets().tolist() == [[0.0, 0.5], [0.5, 0.5], [1.0, 0.0]]
    (diagonal,) = _by_gid(ax, "diagonal")
    assert diagonal.get_xdata() == pytest.approx(diagonal.get_ydata())
    assert ax.get_xlim() == ax.get_ylim()
    assert ax.get_title() == "nDCG@10 of 3 queries: b above the diagonal on 1,\nbelow it on 1, on it on 1"
    ring, label = _by_gid(ax, "highlight")
    assert ring.get_offsets().tolist() == [[0.0, 0.5]] and label.get_text() == "q0"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("a nDCG@10", "b nDCG@10")


def test_scatter_limits_hold_values_beyond_one():
    ax = plot.scatter(_frame({"a": [2.0, 14.0], "b": [9.5, 1.0]}, "DCG@10"), "a", "b").axes[0]
    low, high = ax.get_xlim()
    assert low < 0 and high > 14


def test_scatter_rejects_an_unknown_system():
    with pytest.raises(RankkitError, match="'c' is not a system of per_query; its systems: a, b"):
        plot.scatter(_frame({"a": [0.5], "b": [1.0]}), "a", "c")


# trace_curve

def _trace(system: str, query_id: str, dcg: list[float], idcg: list[float], missed: int = 0) -> pd.DataFrame:
    ranks = list(range(1, len(dcg) + 1)) + [None] * missed
    frame = pd.DataFrame({"system": system, "query_id": query_id, "rank": pd.array(ranks, dtype="Int64"),
                          "dcg": dcg + [None] * missed, "idcg": idcg + [None] * missed})
    frame["ndcg"] = frame["dcg"] / frame["idcg"]
    return frame


def test_trace_curve_draws_dcg_per_system_and_one_shared_ideal():
    trace = pd.concat([_trace("bm25", "q1", [1.0, 2.0, 2.5], [3.0, 4.5, 5.0], missed=2),
                       _trace("dense", "q1", [3.0, 3.0, 4.0], [3.0, 4.5, 5.0])])
    (ax,) = plot.trace_curve(trace).axes
    dcg = _by_gid(ax, "dcg")
    assert [line.get_label() for line in dcg] == ["bm25 DCG", "dense DCG"]
    assert [line.get_ydata().tolist() for line in dcg] == [[1.0, 2.0, 2.5], [3.0, 3.0, 4.0]]
    assert dcg[0].get_xdata().tolist() == [1, 2, 3]  # the missed documents (rank NULL) are not drawn
    (ideal,) = _by_gid(ax, "idcg")
    assert ideal.get_ydata().tolist() == [3.0, 4.5, 5.0]
    assert ax.get_title() == "query q1, nDCG@3: bm25 0.5000, dense 0.8000"


def test_trace_curve_draws_each_ideal_when_they_differ():
    trace = pd.concat([_trace("a", "q1", [1.0, 2.0], [3.0, 4.0]), _trace("b", "q1", [1.0, 1.5], [1.0, 1.5])])
    ax = plot.trace_curve(trace).axes[0]
    assert [line.get_label() for line in _by_gid(ax, "idcg")] == ["a IDCG", "b IDCG"]


def test_trace_curve_one_panel_per_query_and_a_chosen_system():
    trace = pd.concat([_trace("a", "q1", [1.0], [1.0]), _trace("b", "q1", [0.0], [1.0]),
                       _trace("a", "q2", [0.5, 1.0], [2.0, 3.0])])
    fig = plot.trace_curve(trace, systems=["a"])
    assert [ax.get_title() for ax in fig.axes] == ["query q1, nDCG@1: a 1.0000", "query q2, nDCG@2: a 0.3333"]


def test_trace_curve_explains_a_wrong_frame():
    with pytest.raises(RankkitError, match="trace has no 'idcg' column"):
        plot.trace_curve(pd.DataFrame({"query_id": ["q"], "rank": [1], "dcg": [1.0], "ndcg": [1.0]}))
    with pytest.raises(RankkitError, match="no ranked rows"):
        plot.trace_curve(_trace("a", "q1", [], [], missed=2))


def test_mark_moves_the_query_mark_and_clears_it():
    frame = _frame({"a": [0.1, 0.9, 0.5], "b": [0.2, 0.4, 0.6]})
    fig = plot.distribution(frame, highlight="q1")
    drawn = plot.mark(fig, "q2")
    assert [_vline_x(ax, "highlight") for ax in fig.axes] == [0.5, 0.6]
    assert len(drawn) == 4 and all(artist.get_gid() == "highlight" for artist in drawn)
    assert plot.mark(fig, None) == [] and not any(_by_gid(ax, "highlight") for ax in fig.axes)
    differences = plot.differences(_frame({"a": [0.25, 0.75, 0.5], "b": [0.5, 0.25, 1.0]}), "a")
    plot.mark(differences, "q0")
    (ring, _) = _by_gid(differences.axes[0], "highlight")
    assert ring.get_offsets().tolist() == [[1, 0.25]]  # b - a sorted: -0.5 (q1), 0.25 (q0), 0.5 (q2)
    assert plot.mark(differences, "unknown") == []


# shared rules

def test_a_frame_of_several_measures_needs_measure():
    frame = pd.concat([_frame({"a": [0.5]}, "AP"), _frame({"a": [1.0]}, "RR")])
    with pytest.raises(RankkitError, match=r"per_query holds 2 measures \(AP, RR\): choose one with measure="):
        plot.distribution(frame)
    with pytest.raises(RankkitError, match="measure 'P@5' is not in per_query; it holds AP, RR"):
        plot.scatter(frame, "a", "a", measure="P@5")
    assert plot.distribution(frame, measure="RR").axes[-1].get_xlabel() == "RR"


def test_a_frame_without_query_id_or_with_repeated_rows_is_explained():
    with pytest.raises(RankkitError, match="per_query has no 'query_id' column.*it has measure, system, value"):
        plot.distribution(_frame({"a": [0.5]}).drop(columns="query_id"))
    repeated = pd.concat([_frame({"a": [0.5]}), _frame({"a": [0.7]})])
    with pytest.raises(RankkitError, match="more than one nDCG@10 value for query 'q0' of system 'a'"):
        plot.differences(repeated, "a")


def test_bad_bins_are_refused():
    with pytest.raises(RankkitError, match="bins must be a positive integer, got 0"):
        plot.distribution(_frame({"a": [0.5]}), bins=0)


def test_no_pyplot_and_figures_save_without_it(tmp_path):
    code = ("import sys, pandas as pd; from rankkit import plot; "
            "f = plot.distribution(pd.DataFrame({'query_id': ['q'], 'value': [0.5]})); "
            f"f.savefig({str(tmp_path / 'd.png')!r}); "
            "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot was imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
    assert (tmp_path / "d.png").read_bytes()[:4] == b"\x89PNG"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, 0.25, 0.5, 1.0, 0.1 + 0.2, 0.3]),
                          st.sampled_from([0.0, 0.25, 0.5, 1.0, 0.3])), min_size=1, max_size=25))
def test_every_query_is_counted_once(pairs):
    frame = _frame({"x": [p[0] for p in pairs], "y": [p[1] for p in pairs]})
    hist = plot.distribution(frame)
    assert [sum(_heights(ax)) for ax in hist.axes] == [len(pairs), len(pairs)]
    title = plot.differences(frame, "x").axes[0].get_title()
    wins, ties, losses = (int(title.split(": ")[1].split(", ")[i].split()[0]) for i in range(3))
    d = np.array([y - x for x, y in pairs])
    d[np.abs(d) <= 1e-12] = 0
    assert (wins, ties, losses) == (np.sum(d > 0), np.sum(d == 0), np.sum(d < 0))


# titles and labels fit their figure, whatever the systems are called

LONG, OTHER = "dl19.SPLADE_P_P_ENSEMBLE_DISTIL.trec_results", "dl19.BM25.trec_results"


def _texts_outside(fig: Figure) -> list[str]:
    """The titles and axis labels whose drawn extent leaves the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    bounds = fig.bbox
    outside = []
    for ax in fig.axes:
        for text in (ax.title, ax.xaxis.label, ax.yaxis.label):
            if not text.get_text():
                continue
            box = text.get_window_extent(renderer)
            if box.x0 < bounds.x0 - 0.5 or box.x1 > bounds.x1 + 0.5 or box.y0 < bounds.y0 - 0.5 or box.y1 > bounds.y1 + 0.5:
                outside.append(text.get_text())
    return outside


@pytest.mark.parametrize("names", [(OTHER, LONG), ("bm25", "x" * 150), ("a system with a long name " * 4, "b")])
def test_titles_and_labels_of_long_system_names_fit_in_the_figure(names):
    frame = _frame({names[0]: [0.0, 0.5, 1.0, 0.25], names[1]: [0.5, 0.5, 0.75, 0.0]})
    figures = {"distribution": plot.distribution(frame),
               "distribution by": plot.distribution(frame.assign(kind=["x", "y", "z", "w"] * 2), by="kind"),
               "differences": plot.differences(frame, names[0]),
               "scatter": plot.scatter(frame, names[0], names[1])}
    for name, fig in figures.items():
        assert _texts_outside(fig) == [], name
        # every character of both names is still there (in a title or an axis label), only line breaks added
        texts = "".join(text.get_text() for ax in fig.axes for text in (ax.title, ax.xaxis.label, ax.yaxis.label))
        for system in names:
            assert system.replace(" ", "") in texts.replace("\n", "").replace(" ", ""), (name, system)


def test_long_titles_break_between_their_parts():
    fig = plot.differences(_frame({OTHER: [0.0, 0.5], LONG: [0.5, 0.25]}), OTHER)
    assert fig.axes[0].get_title() == f"{LONG} - {OTHER}:\n1 win, 0 ties, 1 loss of 2 queries, mean +0.125"


def test_titles_without_a_fit_would_leave_the_figure():
    # the check above can fail: the same title unwrapped runs past both edges
    fig = plot.differences(_frame({OTHER: [0.0, 0.5], LONG: [0.5, 0.25]}), OTHER)
    fig.axes[0].set_title(fig.axes[0].get_title().replace("\n", " ") + " " + LONG, fontsize=9)
    assert _texts_outside(fig) != []


@pytest.mark.parametrize("kind", ["differences", "scatter"])
def test_a_marked_point_at_a_corner_is_whole_and_labelled_inside_its_panel(kind):
    """The query with the largest difference is the last point, in the top right corner: its circle
    was cut by the frame and its label, up and right of it, left the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    frame = _frame({"a": [0.5, 0.5, 0.5, 0.0, 0.0], "b": [0.25, 0.5, 0.75, 0.0, 1.0]})
    draw = {"differences": lambda q: plot.differences(frame, "a", highlight=q),
            "scatter": lambda q: plot.scatter(frame, "a", "b", highlight=q)}[kind]
    for query in ("q4", "q3", "q0"):  # the top right (differences: q4 = +1), then points inside
        fig = draw(query)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        ax = fig.axes[-1]
        circle, label = _by_gid(ax, "highlight")
        assert label.get_text() == query and not circle.get_clip_on()
        box, panel = label.get_window_extent(canvas.get_renderer()), ax.get_window_extent()
        assert panel.x0 <= box.x0 and box.x1 <= panel.x1 and panel.y0 <= box.y0 and box.y1 <= panel.y1, query
        # the circle stays inside the figure (its 120 points² centre within the panel)
        (x, y), = ax.transData.transform(circle.get_offsets())
        radius = (120 ** 0.5) / 2 * fig.dpi / 72
        assert radius <= x <= fig.bbox.x1 - radius and radius <= y <= fig.bbox.y1 - radius, query


def test_a_marked_query_near_the_right_edge_is_labelled_inside_the_figure():
    fig = plot.distribution(_frame({"a": [0.0, 0.5, 1.0]}), highlight="q2")
    assert _texts_outside(fig) == []
    (label,) = [a for a in _by_gid(fig.axes[0], "highlight") if hasattr(a, "get_text")]
    assert label.get_text() == "q2" and label.get_horizontalalignment() == "right"


# drawing into a figure again (reuse=)

def _drawn_state(fig: Figure) -> list:
    """What a figure shows, panel by panel: titles, labels, limits, bars, lines, points, legend."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    state = []
    for ax in fig.axes:
        state.append((ax.get_title(), ax.get_xlabel(), ax.get_ylabel(),
                      tuple(np.round(ax.get_xlim(), 9)), tuple(np.round(ax.get_ylim(), 9)),
                      _heights(ax),
                      [(line.get_gid(), np.round(np.asarray(line.get_xydata(), dtype=float), 9).tolist())
                       for line in ax.lines],
                      [np.round(c.get_offsets(), 9).tolist() for c in ax.collections if c.get_gid() == "values"],
                      len(ax.collections),
                      [t.get_text() for t in ax.get_legend().get_texts()] if ax.get_legend() else None))
    return state


@pytest.mark.parametrize("draw", [
    lambda frame, reuse: plot.distribution(frame, reuse=reuse),
    lambda frame, reuse: plot.differences(frame, "bm25", reuse=reuse),
    lambda frame, reuse: plot.scatter(frame, "bm25", "dense", reuse=reuse),
], ids=["distribution", "differences", "scatter"])
def test_a_figure_drawn_into_again_shows_what_a_new_one_shows(draw):
    first = _frame({"bm25": [0.0, 0.5, 1.0, 0.25], "dense": [0.0, 1.0, 1.0, 0.75]}, "AP")
    second = _frame({"bm25": [2.0, 4.5, 0.0, 3.0], "dense": [1.0, 0.5, 7.0, 3.0]}, "DCG@10")
    old = draw(first, None)
    plot.mark(old, "q1")
    again = draw(second, old)
    assert again is old  # the same figure, emptied and drawn anew
    assert _drawn_state(again) == _drawn_state(draw(second, None))
    assert not any(a.get_gid() == "highlight" for ax in again.axes for a in ax.get_children())


@pytest.mark.parametrize("draw", [
    lambda frame, reuse: plot.distribution(frame, reuse=reuse),
    lambda frame, reuse: plot.distribution(frame.assign(kind=["a", "b"] * 4), by="kind", reuse=reuse),
    lambda frame, reuse: plot.differences(frame, "bm25", reuse=reuse),
    lambda frame, reuse: plot.scatter(frame, "bm25", "dense", reuse=reuse),
], ids=["distribution", "distribution-by", "differences", "scatter"])
def test_data_of_the_same_shape_moves_the_drawn_artists_and_shows_what_a_new_figure_shows(draw):
    """Values of the same kind (the same bins, every panel with values): the bars, lines and points
    drawn before are updated in place, not made anew, and the figure equals a new one."""
    first = _frame({"bm25": [0.0, 0.5, 1.0, 0.25], "dense": [0.0, 1.0, 1.0, 0.75]}, "AP")
    second = _frame({"bm25": [0.1, 0.1, 0.1, 0.9], "dense": [1.0, 0.6, 0.2, 0.2]}, "nDCG@10")  # taller bins
    old = draw(first, None)
    artists = [set(map(id, [*ax.patches, *ax.lines, *ax.collections])) for ax in old.axes]
    plot.mark(old, "q2")
    again = draw(second, old)
    assert again is old
    assert [set(map(id, [*ax.patches, *ax.lines, *ax.collections])) for ax in again.axes] == artists
    assert _drawn_state(again) == _drawn_state(draw(second, None))
    assert not any(a.get_gid() == "highlight" for ax in again.axes for a in ax.get_children())


def test_a_panel_whose_data_changed_shape_is_drawn_anew():
    """A panel left without values loses its mean and median; other bins make other bars; a query
    more or less moves the points: each equals a new figure."""
    first = _frame({"bm25": [0.0, 0.5, 1.0, 0.25], "dense": [0.0, 1.0, 1.0, 0.75]}, "AP")
    empty = first.assign(value=np.where(first["system"] == "dense", np.nan, first["value"]))
    fewer = first[first["query_id"] != "q4"]
    cases = [(empty, lambda f, r: plot.distribution(f, reuse=r)),
             (first, lambda f, r: plot.distribution(f, bins=5 if r is not None else 20, reuse=r)),
             (fewer, lambda f, r: plot.differences(f, "bm25", reuse=r)),
             (fewer, lambda f, r: plot.scatter(f, "bm25", "dense", reuse=r))]
    for second, draw in cases:
        old = draw(first, None)
        again = draw(second, old)
        assert again is old
        fresh = draw(second, None) if draw is not cases[1][1] else plot.distribution(first, bins=5)
        assert _drawn_state(again) == _drawn_state(fresh)


def test_trace_curve_drawn_into_again_shows_what_a_new_one_shows():
    def trace(query_id, dcg):
        frame = pd.DataFrame({"system": "run", "query_id": query_id, "rank": [1, 2, 3], "dcg": dcg,
                              "idcg": [3.0, 4.9, 6.4]})
        return frame.assign(ndcg=frame["dcg"] / frame["idcg"])
    old = plot.trace_curve(trace("q1", [3.0, 4.2, 5.7]))
    lines = list(old.axes[0].lines)
    again = plot.trace_curve(trace("q2", [0.0, 1.2, 1.5]), reuse=old)
    assert again is old and list(again.axes[0].lines) == lines  # the same systems: the lines are moved
    assert _drawn_state(again) == _drawn_state(plot.trace_curve(trace("q2", [0.0, 1.2, 1.5])))


def test_a_figure_of_another_shape_or_function_is_not_drawn_into():
    two = _frame({"bm25": [0.0, 0.5], "dense": [1.0, 0.5]})
    three = _frame({"bm25": [0.0, 0.5], "dense": [1.0, 0.5], "splade": [0.2, 0.1]})
    old = plot.distribution(two)
    assert plot.distribution(three, reuse=old) is not old      # three panels, not two
    assert plot.scatter(two, "bm25", "dense", reuse=old) is not old  # another function's figure
    assert plot.distribution(two, reuse=Figure()) is not None  # a figure made elsewhere is left alone


def test_a_figure_shows_as_a_picture_in_a_notebook_without_pyplot():
    """IPython shows an object by its _repr_png_: the last line of a cell draws the plot, with no
    pyplot import or %matplotlib first (run in a fresh interpreter, where pyplot is not loaded)."""
    code = ("import sys, pandas as pd\nfrom rankkit import plot\n"
            "frame = pd.DataFrame({'measure': 'AP', 'system': ['a', 'a', 'b', 'b'], 'query_id': ['q1', 'q2'] * 2,"
            " 'value': [0.1, 0.5, 0.2, 0.4]})\n"
            "png = plot.scatter(frame, 'a', 'b')._repr_png_()\n"
            "assert 'matplotlib.pyplot' not in sys.modules\n"
            "print(png[:8] == b'\\x89PNG\\r\\n\\x1a\\n', len(png) > 1000)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["True", "True"], done.stderr
