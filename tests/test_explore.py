"""rankkit.explore: every control changes the model and what the views show; the traits are the API."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import traitlets

import rankkit
from rankkit.demo import write_sample
from rankkit.errors import MeasureError, RankkitError
from rankkit.measures import params
from rankkit.explore import Explorer
from rankkit.explore.data import ExplorerData
from rankkit.explore.serve import MISSING_VOILA, notebook
from rankkit.measures import needs_subtopics, registry


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> dict[str, Path]:
    return write_sample(tmp_path_factory.mktemp("sample"), queries=60)


@pytest.fixture(scope="module")
def queries() -> pd.DataFrame:
    ids = [f"q{i:03d}" for i in range(1, 61)]
    return pd.DataFrame({"query_id": ids, "text": [f"question {i} about {'cats' if i % 2 else 'dogs'}" for i in range(1, 61)],
                         "length": ["short" if i % 3 else "long" for i in range(1, 61)]})


@pytest.fixture(scope="module")
def data(sample, queries) -> ExplorerData:
    """The inputs read once; each test's explorer starts afresh on them (the value cache is shared)."""
    return ExplorerData(sample["qrels.txt"], [sample["bm25.run"], sample["dense.run"]], queries=queries)


@pytest.fixture()
def ex(data) -> Explorer:
    return Explorer(data)


def test_explore_builds_the_same_explorer(sample, queries, data):
    ex = rankkit.explore(sample["qrels.txt"], [sample["bm25.run"], sample["dense.run"]], queries=queries)
    pd.testing.assert_frame_equal(ex.per_query, Explorer(data).per_query)


def _expected(sample, measure: str) -> pd.DataFrame:
    return rankkit.evaluate(sample["qrels.txt"], [sample["bm25.run"], sample["dense.run"]], measure, per_query=True)


def _hist_total(fig) -> list[float]:
    return [sum(p.get_height() for p in ax.patches) for ax in fig.axes]


def _hist_means(fig) -> list[float]:
    return [next(a for a in ax.get_children() if a.get_gid() == "mean").get_xdata()[0] for ax in fig.axes]


def test_first_view_is_ndcg_at_10_of_every_system(ex, sample):
    assert (ex.measure, ex.k, ex.gain, ex.rel) == ("nDCG", 10, "linear", 1.0)
    assert ex.systems == ["bm25", "dense"] and ex.baseline == "bm25"
    want = _expected(sample, "nDCG@10")
    got = ex.per_query.sort_values(["system", "query_id"]).reset_index(drop=True)
    assert got["value"].to_numpy() == pytest.approx(want.sort_values(["system", "query_id"])["value"].to_numpy(), abs=1e-12)
    assert _hist_means(ex.figures["distribution"]) == pytest.approx(want.groupby("system")["value"].mean().tolist())
    assert set(ex.figures) >= {"distribution", "differences", "scatter"}
    assert "nDCG@10" in ex._views["title"].value


def test_the_measure_control_lists_every_registered_measure(ex):
    # every one whose values are numbers (trec_eval's runid and relstring are text) and that reads no
    # subtopic judgments (the explorer is given none)
    assert list(ex.controls["measure"].options) == [m.name for m in registry().values()
                                                    if m.aggregate != "text" and not needs_subtopics(m.metric)]
    assert "alpha-nDCG" not in ex.controls["measure"].options


@pytest.mark.skipif(not any(m.aggregate == "text" for m in registry().values()), reason="no text measure registered")
def test_a_text_measure_is_not_offered_and_refused_with_a_reason(ex):
    text = [m for m in registry().values() if m.aggregate == "text"]
    assert not {m.name for m in text} & set(ex.controls["measure"].options)
    before = ex.per_query
    with pytest.raises((traitlets.TraitError, MeasureError), match=f"{text[0].name}"):
        ex.measure = text[0].name
    assert ex.per_query is before


def test_measure_control_and_trait_change_the_values_and_the_plots(ex, sample):
    ex.controls["measure"].value = "AP"  # the control sets the trait: AP over the whole list, as evaluate's
    assert ex.measure == "AP" and ex.measure_label == "AP" and ex.k is None
    assert ex.controls["k"].label == "whole list"  # shown as chosen, not an empty control
    want = _expected(sample, "AP").groupby("system")["value"].mean()
    assert _hist_means(ex.figures["distribution"]) == pytest.approx(want.tolist())
    ex.measure = "RR@10"  # the trait sets the controls
    assert ex.controls["measure"].value == "RR" and ex.controls["k"].value == 10
    assert ex.per_query.groupby("system")["value"].mean().tolist() == pytest.approx(
        _expected(sample, "RR@10").groupby("system")["value"].mean().tolist())


def _by_system_and_query(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["system", "query_id", "value"]].sort_values(["system", "query_id"]).reset_index(drop=True)


@pytest.mark.parametrize("name, k, gain, rel, label", [
    ("AP", None, "linear", 1.0, "AP"), ("RR", None, "linear", 1.0, "RR"), ("P", 5, "linear", 1.0, "P@5"),
    ("nDCG", None, "linear", 1.0, "nDCG"), ("ndcg_cut_20", 20, "linear", 1.0, "nDCG@20"),
    ("ERR(max=3)", None, "linear", 1.0, "ERR(max=3)"), ("RBP(p=0.5)", None, "linear", 1.0, "RBP(p=0.5)"),
    ("R(rel=2)@100", 100, "linear", 2.0, "R(rel=2)@100"), ("nDCG(gain=exp)", None, "exp", 1.0, "nDCG(gain=exp)")])
def test_a_measure_name_means_what_evaluate_takes_it_to_mean(ex, sample, name, k, gain, rel, label):
    # set after nDCG(gain=exp,rel=2)@10: the name's cutoff, gain and level replace the controls' (the
    # explorer gave AP@10 for "AP", where evaluate gives AP over the whole list)
    ex.measure = "nDCG(gain=exp)@10"
    ex.rel = 2.0
    ex.measure = name
    assert (ex.k, ex.gain, ex.rel) == (k, gain, rel)
    assert ex.controls["k"].label == ("whole list" if k is None else str(k))
    assert ex.controls["gain"].value == gain and ex.controls["rel"].value == rel
    shown = _by_system_and_query(ex.per_query)
    want = _expected(sample, name)  # trec_eval's family P is P@5, P@10, ...: the explorer shows the first
    want = _by_system_and_query(want[want["measure"] == want["measure"].iloc[0]])
    pd.testing.assert_frame_equal(shown[["system", "query_id"]], want[["system", "query_id"]], check_dtype=False)
    assert np.array_equal(shown["value"].to_numpy(float), want["value"].to_numpy(float), equal_nan=True)  # bitwise
    assert ex.measure_label == label


def test_a_measure_name_draws_the_views_once(ex, monkeypatch):
    drawn = []
    monkeypatch.setattr(ex, "_draw_plots", lambda: drawn.append(ex.measure_label))
    ex.measure = "AP"  # measure and cutoff change together: one drawing, not one for each
    ex.measure = "AP@5"  # the same measure trait, another cutoff: drawn too
    assert drawn == ["AP", "AP@5"]


def test_a_measure_name_with_cutoff_and_parameters_sets_those_controls(ex, sample):
    ex.measure = "nDCG(gain=exp,ideal=run)@5"
    assert (ex.measure, ex.k, ex.gain) == ("nDCG(ideal=run)", 5, "exp")
    assert ex.controls["k"].value == 5 and ex.controls["gain"].value == "exp"
    assert ex.measure_label == "nDCG(gain=exp, ideal=run)@5"  # as the report labels it
    assert ex.per_query["value"].mean() == pytest.approx(_expected(sample, "nDCG(gain=exp,ideal=run)@5")["value"].mean())
    ex.measure = "ndcg_cut_20"  # trec_eval's names too
    assert (ex.measure, ex.k) == ("nDCG", 20)
    with pytest.raises(MeasureError, match="unknown measure 'nDGC'"):
        ex.measure = "nDGC"


# every registered measure that gives a number, with parameters off their defaults where it takes some
NON_DEFAULT = [
    "AP(rel=2)@5", "binG(rel=2)", "bpref(rel=2)", "CG(gain=exp)@5", "DCG(gains=2=5)@5", "ERR(max=3)@20",
    "G_1=3,2=9", "ndcg_1=3,2=9", "gm_bpref", "gm_map", "IDCG(ideal=run)@3", "infAP(rel=2)", "IPrec@0.5",
    "iprec_at_recall_0.30", "IPrec(rel=2)@0.2", "Judged@5", "nDCG(gain=exp)@5", "nDCG(ideal=run,empty=skip)@10",
    "ndcg_rel(gains=2=5)", "num_nonrel_judged_ret(rel=2)", "numq", "NumRel(rel=2)", "NumRelRet(rel=2)@5",
    "NumRet@5", "P(rel=2)@5", "R(rel=2)@100", "RBP(p=0.8)", "rbp_resid(p=0.5)", "relative_P@5",
    "Rndcg(gains=2=5)", "Rprec(rel=2)", "Rprec_mult(mult=2)", "RR(rel=2)@10", "set_F(beta=0.5)", "set_map",
    "Success@3", "unj@5", "utility(coef=[2,-1,0,0],docs=100)", "11pt_avg(levels=[.25,.5])", "Hits(rel=2)@5",
    "FallOut(rel=2)@5", "SDCG(max=2)@5", "INSQ(max=2)", "INST(max=2)", "SetF@5", "HitRate@3",
    "nDCG(discount=original)@5", "P(short=retrieved)@5", "R(denom=min)@5"]


def test_the_explorer_gives_evaluate_s_value_for_every_measure_and_parameter(data, sample):
    """One path per number (issue 21): each name as the explorer keeps it (its measure control, then
    its cutoff, gain and level controls) computes evaluate's per-query values, the same doubles."""
    from rankkit.specs import measure_specs
    from rankkit.explore.data import parse_measure

    covered = {spec["metric"] for spec in measure_specs(data.con, NON_DEFAULT)}
    # the diversity measures read subtopic judgments, which the explorer is not given (it does not offer them)
    numeric = {m.metric for m in registry().values() if m.aggregate != "text" and not needs_subtopics(m.metric)}
    assert numeric <= covered, f"not covered: {sorted(numeric - covered)}"
    expected = _expected(sample, NON_DEFAULT)
    for name in NON_DEFAULT:
        named = parse_measure(data.con, name)
        setting = parse_measure(data.con, named.base).controlled(named.k, named.gain, named.rel)  # as the widget does
        reread = measure_specs(data.con, [setting.name])[0]  # the name the explorer shows means this measure
        assert reread | {"i": 1, "measure": name} == named.spec | {"i": 1, "measure": name}, name
        got = data.values(setting)
        want = _by_system_and_query(expected[expected["measure"] == name])
        assert got[["system", "query_id"]].values.tolist() == want[["system", "query_id"]].values.tolist(), name
        assert np.array_equal(got["value"].to_numpy(float), want["value"].to_numpy(float), equal_nan=True), name


@pytest.mark.parametrize("name, label, parameter, tip", [
    ("RBP(p=0.8)", "RBP(p=0.8)", ("p", 0.8), "\np=0.8: persistence of rank-biased precision"),
    ("IPrec@0.5", "IPrec@0.5", ("levels", [0.5]), "\nrecall=0.5: recall level at which"),
    ("iprec_at_recall_0.50", "IPrec@0.5", ("levels", [0.5]), "\nrecall=0.5: recall level at which")])
def test_a_measure_s_own_parameter_is_kept_by_the_explorer(sample, name, label, parameter, tip):
    # RBP(p=0.8) showed p = 0.9 (the explorer kept three parameters of its own), IPrec@0.5 recall 0
    ex = rankkit.explore(sample["qrels.txt"], [sample["bm25.run"], sample["dense.run"]], measures=[name])
    shown, want = _by_system_and_query(ex.per_query), _by_system_and_query(_expected(sample, name))
    assert np.array_equal(shown["value"].to_numpy(float), want["value"].to_numpy(float), equal_nan=True)  # bitwise
    assert ex.measure == label and ex.measure_label == label and ex.controls["measure"].options == (label,)
    assert ex.setting.spec[parameter[0]] == parameter[1]
    assert tip in ex.controls["measure"].tooltip  # the measure control says its own parameters' values


def test_k_gain_and_rel_controls(ex, sample):
    ex.controls["k"].value = 20
    assert ex.k == 20 and ex.measure_label == "nDCG@20"
    assert ex.per_query["value"].mean() == pytest.approx(_expected(sample, "nDCG@20")["value"].mean())
    ex.controls["k"].label = "whole list"
    assert ex.k is None
    assert ex.measure_label == "nDCG"
    ex.controls["gain"].value = "exp"
    assert ex.gain == "exp" and ex.measure_label == "nDCG(gain=exp)"
    ex.measure = "P"
    ex.k = 10
    assert ex.controls["gain"].disabled  # P takes no gain
    ex.controls["rel"].value = 2.0
    assert ex.rel == 2.0 and ex.measure_label == "P(rel=2)@10"
    assert ex.per_query["value"].mean() == pytest.approx(_expected(sample, "P(rel=2)@10")["value"].mean())
    with pytest.raises(traitlets.TraitError, match="k must be a positive integer"):
        ex.k = 0


def test_systems_and_baseline_controls(ex):
    ex.controls["baseline"].value = "dense"
    assert ex.baseline == "dense"
    assert ex.figures["differences"].axes[0].get_title().startswith("bm25 - dense")
    assert ex.figures["scatter"].axes[0].get_xlabel().startswith("dense")
    ex.controls["systems"].value = ("dense",)
    assert ex.systems == ["dense"]
    assert set(ex.per_query["system"]) == {"dense"}
    assert len(ex.figures["distribution"].axes) == 1
    assert "differences" not in ex.figures and ex._views["differences"].layout.display == "none"
    assert list(ex.table.columns) == ["query_id", "text", "dense"]
    with pytest.raises(traitlets.TraitError, match="system 'x' is not in the runs"):
        ex.systems = ["x"]
    ex.systems = ["dense", "bm25"]  # the values in the systems' order, each system's by query id
    shown = ex.per_query[["system", "query_id"]]
    assert shown.equals(shown.sort_values(["system", "query_id"], ascending=[False, True]).reset_index(drop=True))
    assert [a.get_title().split(":")[0] for a in ex.figures["distribution"].axes] == ["dense", "bm25"]


def test_query_table_sorts_searches_pages_and_finds_worst_best_and_moved(ex):
    assert len(ex.table) == 15 and list(ex.table.columns) == ["query_id", "text", "bm25", "dense", "Δ dense"]
    assert ex.table["query_id"].tolist() == sorted(ex.table["query_id"].tolist())
    ex._pager["next"].click()
    assert ex.table["query_id"].iloc[0] == "q016"
    ex._sort_control.value = "value: dense"
    assert ex.table["dense"].is_monotonic_increasing
    ex.show("best")
    dense = ex.per_query[ex.per_query["system"] == "dense"]
    assert ex.table["dense"].iloc[0] == dense["value"].max()
    assert ex.query == ex.table["query_id"].iloc[0] and ex.trace is not None
    ex._buttons["worst"].click()
    assert ex.per_query[(ex.per_query["system"] == "dense") & (ex.per_query["query_id"] == ex.query)]["value"].iloc[0] \
        == dense["value"].min()
    ex._buttons["moved"].click()
    moved = ex.table["Δ dense"].abs()
    assert moved.is_monotonic_decreasing and moved.iloc[0] == pytest.approx(
        (ex.table_frame()["Δ dense"]).abs().max())
    ex.controls["search"].value = "dogs"
    assert len(ex.table) and all("dogs" in t for t in ex.table["text"])
    assert "of 30" in ex._pager["label"].value


def test_the_best_query_where_lower_is_better_is_the_lowest(ex):
    """FallOut's better: lower: 'best' opened the query of the highest FallOut, the worst."""
    ex.measure = "FallOut@10"
    ex.show("best")
    dense = ex.per_query[ex.per_query["system"] == "dense"]
    assert ex.table["dense"].iloc[0] == dense["value"].min() < dense["value"].max()


def test_choosing_a_query_opens_the_drilldown_and_highlights_it(ex, sample):
    table_button = ex._views["table"].children[0].children[ex.table.shape[1]]  # first row's query button
    table_button.click()
    chosen = table_button.description
    assert ex.query == chosen
    want = rankkit.trace(sample["qrels.txt"], [sample["bm25.run"], sample["dense.run"]], chosen, 10)
    pd.testing.assert_frame_equal(ex.trace.reset_index(drop=True), want.reset_index(drop=True), check_dtype=False)
    at_10 = ex.trace[ex.trace["rank"] == 10].set_index("system")["ndcg"]
    values = ex.per_query[ex.per_query["query_id"] == chosen].set_index("system")["value"]
    assert at_10.to_numpy() == pytest.approx(values[at_10.index].to_numpy(), abs=1e-12)
    drill = ex._views["drilldown"].children
    assert f"query {chosen}" in drill[0].value
    tables = [child.value for child in drill[1].children]
    assert len(tables) == 2 and "in dense" in tables[0] and "in bm25" in tables[1]
    assert "nDCG@10 = " in tables[0]
    for name in ("distribution", "differences", "scatter"):
        assert [a for ax in ex.figures[name].axes for a in ax.get_children() if a.get_gid() == "highlight"], name
    curve = ex.figures["trace_curve"].axes[0]
    assert [line.get_label() for line in curve.lines if line.get_gid() == "dcg"] == ["bm25 DCG", "dense DCG"]


def test_search_box_opens_a_query_by_id_or_first_match(ex):
    ex.controls["search"].value = "q007"
    assert ex.query == "q007" and ex.trace["query_id"].unique().tolist() == ["q007"]
    ex.controls["search"].value = "question 12 "
    ex.controls["open"].click()
    assert ex.query == "q012"
    with pytest.raises(traitlets.TraitError, match="query 'nope' is not among the evaluated queries"):
        ex.query = "nope"


def test_the_trace_follows_the_setting(ex):
    ex.query = "q003"
    ex.k = 5
    assert ex.trace[ex.trace["rank"].notna()]["rank"].max() == 5
    ex.gain = "exp"
    ranked = ex.trace[ex.trace["rank"].notna() & ex.trace["grade"].notna()]
    assert (ranked["gain"] == 2 ** ranked["grade"].clip(lower=0) - 1).all()
    ex.measure = "AP"  # AP takes no gain: its trace shows linear gains, as the greyed control says
    ranked = ex.trace[ex.trace["rank"].notna() & ex.trace["grade"].notna()]
    assert (ranked["gain"] == ranked["grade"].clip(lower=0)).all() and ex.controls["gain"].disabled


@pytest.mark.parametrize("measure, column", [("nDCG(gains=[1=3,2=9])@5", "ndcg"), ("nDCG(gain=exp,ideal=run)@5", "ndcg"),
                                             ("AP(rel=2)@5", "ap"), ("ERR(max=2)@5", "err"), ("P(rel=2)@5", "precision")])
def test_the_traces_row_at_k_is_the_explorers_value_bit_for_bit(ex, measure, column):
    """The drill-down's trace and the distribution's values come from the same definitions, with every
    option of the measure (gains too, which the trace once left out)."""
    ex.measure = measure
    ex.query = "q003"
    values = ex.per_query.set_index(["system", "query_id"])["value"]
    at_k = ex.trace[ex.trace["rank"] == 5].set_index("system")[column]
    for system, value in at_k.items():
        assert float(value).hex() == float(values[(system, "q003")]).hex(), (measure, system)


@pytest.mark.parametrize("measure, column, name", [("AP@10", "ap", "AP"), ("RR@10", "rr", "RR"),
                                                   ("P(rel=2)@10", "precision", "P")])
def test_the_drilldown_shows_the_measure_shown(ex, measure, column, name):
    """Beside the worked example's DCG and nDCG, the drill-down has the shown measure's own column, its
    value at each rank's cutoff, and says its value at the last rank (AP@10 showed nDCG's table alone)."""
    ex.measure = measure
    ex.query = "q003"
    html = ex._views["drilldown"].children[1].children[0].value
    bm25 = ex.trace[(ex.trace["system"] == "bm25") & ex.trace["rank"].notna()]
    assert f">{name}</th>" in html
    assert f"{name}@10 = {bm25[bm25['rank'] == 10][column].iloc[0]:.4f}" in html


@pytest.mark.parametrize("measure", ["AP@6", "nDCG(gains=[1=9,2=1,3=1])@6", "ERR@6", "bpref"])
def test_the_drilldown_takes_its_columns_from_the_measures_header(measure):
    """The drill-down's columns are those the measure's header (trace:) names, its own value last (a
    measure the trace does not show gets nDCG's); each measure's value is headed by its name."""
    from rankkit.explore.data import parse_measure
    from rankkit.explore.drilldown import _trace_table
    from rankkit.io import default_connection

    run = pd.DataFrame({"query_id": "q", "doc_id": list("abcdef"), "score": [6.0, 5, 4, 3, 2, 1]})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": list("abcdefgh"), "relevance": [3, 2, 3, 0, 1, 2, 3, 2]})
    setting = parse_measure(default_connection(), measure)
    html = _trace_table(rankkit.trace(qrels, run, "q", **setting.options()), "s", None, {}, {}, setting)
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", html)
    shown = setting.measure if setting.measure.trace else registry()["ndcg"]
    names = {m.trace[0]: m.name for m in registry().values() if m.trace}
    column, explaining = shown.trace
    assert heads[:3] == ["rank", "doc", "grade"] and heads[-1] == names[column]
    assert len(heads) == 3 + len(explaining) + 1
    assert all(f">{names[c]}</th>" in html for c in explaining if c in names)


def test_drilldown_marks_unjudged_and_moved_documents(ex):
    ex.query = "q001"
    html = ex._views["drilldown"].children[1].children[0].value
    ranks = ex.data.ranks("q001")
    bm25 = ex.trace[(ex.trace["system"] == "bm25") & ex.trace["rank"].notna()]
    if bm25["grade"].isna().any():
        assert "unjudged" in html
    dense = dict(zip(ranks[ranks["system"] == "dense"]["doc_id"], ranks[ranks["system"] == "dense"]["rank"]))
    first = bm25.iloc[0]
    marker = "absent" if first["doc_id"] not in dense else str(int(dense[first["doc_id"]]))
    assert marker in html
    # the other system's column is headed on one line, its arrows explained in the tooltip
    header = re.search(r"<th style='([^']*)' title='([^']*)'>rank in dense</th>", html)
    assert header and "white-space:nowrap" in header.group(1) and "▲ n, n places higher here" in header.group(2)


def test_by_splits_the_distribution(ex, queries):
    ex.controls["by"].value = "length"
    assert ex.by == "length"
    assert list(ex.per_query.columns) == ["system", "query_id", "value", "length"]
    fig = ex.figures["distribution"]
    assert len(fig.axes) == 4  # 2 systems x (long, short)
    long_ids = set(queries[queries["length"] == "long"]["query_id"])
    assert _hist_total(fig)[0] == len(set(ex.per_query["query_id"]) & long_ids)
    with pytest.raises(traitlets.TraitError, match="by='text' is not a query attribute"):
        ex.by = "text"


def test_measures_argument_and_docs(sample, tmp_path):
    docs = pd.DataFrame({"doc_id": ["d001_0000", "d001_0001"], "title": ["first title", "second title"]})
    ex = rankkit.explore(sample["qrels.txt"], {"one": sample["bm25.run"]}, ["RR@10", "AP"], docs=docs)
    assert list(ex.controls["measure"].options) == ["RR", "AP"] and ex.measure_label == "RR@10"
    assert ex.systems == ["one"] and "differences" not in ex.figures
    assert ex.data.doc_texts(["d001_0001"]) == {"d001_0001": "second title"}


def test_one_run_without_a_system_column_is_named_by_its_file(sample):
    ex = rankkit.explore(sample["qrels.txt"], sample["dense.run"])
    assert ex.systems == ["dense"]


def test_bad_tables_are_explained(sample):
    with pytest.raises(RankkitError, match="queries needs a query_id column"):
        rankkit.explore(sample["qrels.txt"], sample["dense.run"], queries=pd.DataFrame({"id": ["q1"]}))
    with pytest.raises(RankkitError, match="queries lists query 'q1' twice"):
        rankkit.explore(sample["qrels.txt"], sample["dense.run"], queries=pd.DataFrame({"query_id": ["q1", "q1"]}))
    with pytest.raises(RankkitError, match="docs needs doc_id and text"):
        rankkit.explore(sample["qrels.txt"], sample["dense.run"], docs=pd.DataFrame({"doc_id": ["d"]}))


def test_queries_and_docs_from_files_keep_ids_as_strings(sample, tmp_path):
    (tmp_path / "queries.csv").write_text("query_id,text,length\nq001,first question,short\n")
    (tmp_path / "docs.tsv").write_text("doc_id\ttitle\n007\tseven\n")
    ex = rankkit.explore(sample["qrels.txt"], sample["dense.run"], queries=tmp_path / "queries.csv",
                         docs=tmp_path / "docs.tsv")
    assert ex.data.queries.loc["q001", "text"] == "first question" and ex.attributes == ["length"]
    assert ex.data.doc_texts(["007", "7"]) == {"007": "seven"}


def test_one_explorer_renders_in_several_cells(ex):
    """One model, displayed twice: both displays are views of the same widget, so both follow it."""
    first, second = ex._repr_mimebundle_(), ex._repr_mimebundle_()
    assert first == second and "application/vnd.jupyter.widget-view+json" in first


def test_cli_serving_notebook_and_missing_voila(sample, tmp_path):
    page = notebook(str(sample["qrels.txt"]), [str(sample["bm25.run"])], ["AP"])
    source = page["cells"][0]["source"]
    assert "rankkit.explore(" in source and str(sample["bm25.run"].resolve()) in source and "['AP']" in source
    # without Voila: one line saying what to install, exit status 2
    code = ("import importlib.util, sys; real = importlib.util.find_spec; "
            "importlib.util.find_spec = lambda name, *a: None if name == 'voila' else real(name, *a); "
            "from rankkit.cli import main; sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", code, "explore", str(sample["qrels.txt"]), str(sample["bm25.run"])],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == f"rankkit explore: {MISSING_VOILA}"


def test_a_long_step_shows_progress_in_the_widget(ex):
    """rankkit.progress feeds the explorer's bar (a step longer than half a second shows it)."""
    from rankkit.progress import Progress

    bar = ex._progress
    assert bar.layout.display == "none"
    with Progress(ex.data.con, "computing", enabled=True, delay=0.0, interval=0.05, bar=ex._progress_bar):
        ex.data.con.execute("SELECT sum(i * i) FROM range(30000000) t(i)").fetchall()
        assert bar.layout.display == "" and bar.description == "computing"
    assert bar.layout.display == "none" and bar.value == 100


def test_a_redrawn_plot_reuses_the_layout_the_constrained_layout_gave(ex):
    """A change of measure draws the plots without the constrained layout where an earlier figure
    had the same shape; the axes must stand where that layout would have put them."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    ex.measure = "AP"
    ex.measure = "P"
    reused = [name for name, fig in ex.figures.items()
              if name != "trace_curve" and not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)]
    assert reused, "no plot took a known layout"
    frame = ex.per_query.assign(measure=ex.measure_label)
    fresh = {"distribution": rankkit.plot.distribution(frame),
             "differences": rankkit.plot.differences(frame, ex.baseline, systems=ex.compared),
             "scatter": rankkit.plot.scatter(frame, ex.baseline, ex.compared[0])}
    for name in reused:
        fresh[name].set_dpi(ex.figures[name].get_dpi())
        FigureCanvasAgg(fresh[name]).draw()
        for mine, theirs in zip(ex.figures[name].axes, fresh[name].axes):
            assert mine.get_position().bounds == pytest.approx(theirs.get_position().bounds, abs=0.01), name


def test_the_summary_states_evaluate_s_aggregate(sample):
    """The line above the plots gives each system's value as evaluate does: the mean, the total of a
    count, gm_map's geometric mean, computed by the same SQL."""
    ex = Explorer(ExplorerData(sample["qrels.txt"], [sample["bm25.run"], sample["dense.run"]]))
    for measure, word in (("AP", "mean"), ("NumRelRet", "total"), ("gm_map", "geometric mean")):
        ex.measure = measure
        expected = rankkit.evaluate(sample["qrels.txt"], [sample["bm25.run"], sample["dense.run"]], ex.measure_label)
        shown = re.findall(r"<b>([^<]+)</b> ([-0-9.]+)", ex._views["summary"].value)
        assert ex._views["summary"].value.startswith(f"{word} ")
        assert shown == [(r.system, f"{r.value:.4f}") for r in expected.itertuples()], measure
    ex.data.close()


def test_the_runs_are_ranked_once_and_every_setting_reads_those_ranks(sample, queries):
    """A change of measure, cutoff, gain or level computes values from the ranks kept at the first
    view (rankkit.ranks), not from the runs: the values equal evaluate's, and no second ranking ran."""
    data = ExplorerData(sample["qrels.txt"], [sample["bm25.run"], sample["dense.run"]], queries=queries)
    ex = Explorer(data)
    kept = data._ranks_table
    for change in ({"k": 5}, {"gain": "exp"}, {"measure": "AP"}, {"measure": "ERR", "k": 20}, {"rel": 2.0}):
        for name, value in change.items():
            setattr(ex, name, value)
        expected = _expected(sample, ex.measure_label).rename(columns={"value": "expected"})
        got = ex.per_query.merge(expected, on=["system", "query_id"], how="outer", validate="one_to_one")
        assert len(got) == len(expected) and got["value"].notna().all()
        assert (got["value"] == got["expected"]).all(), ex.measure_label  # the same doubles
    tables = [name for (name,) in data.con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'rankkit_explore_ranks%'").fetchall()]
    assert tables == [kept]
    data.close()
    assert not data.con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE 'rankkit_explore_ranks%'").fetchall()[0][0]


def _served_explorer(page: dict) -> Explorer:
    """The explorer the served notebook's one cell builds, run here."""
    source = page["cells"][0]["source"]
    namespace: dict = {}
    exec(source.replace("rankkit.explore(", "explorer = rankkit.explore(", 1), namespace)
    return namespace["explorer"]


def test_cli_names_runs_and_splits_by_tag_as_eval_does(sample, tmp_path):
    """rankkit explore takes NAME=PATH and --split-by-tag as rankkit eval does."""
    from rankkit.arguments import run_arguments

    named = run_arguments([f"base={sample['bm25.run']}", f"new={sample['dense.run']}"])
    ex = _served_explorer(notebook(str(sample["qrels.txt"]), named))
    assert ex.data.systems == ["base", "new"] and ex.systems == ["base", "new"]
    both = tmp_path / "both.run"  # one TREC file holding two systems, told apart by their tags
    both.write_text(sample["bm25.run"].read_text() + sample["dense.run"].read_text())
    tags = sorted({line.split()[5] for line in both.read_text().splitlines()})
    split = _served_explorer(notebook(str(sample["qrels.txt"]), run_arguments([str(both)]), split_by_tag=True))
    assert sorted(split.data.systems) == tags and len(tags) == 2
    with pytest.raises(RankkitError, match="duplicate document .* in system both"):  # one file is one run
        _served_explorer(notebook(str(sample["qrels.txt"]), run_arguments([str(both)])))
    done = subprocess.run([sys.executable, "-m", "rankkit.cli", "explore", str(sample["qrels.txt"]), "=x.run"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "a run is PATH or NAME=PATH, got '=x.run'" in done.stderr


def test_a_plot_drawn_over_kept_axes_is_the_plot_drawn_afresh(ex):
    """The views keep each axis they drew (ticks and tick labels) and lay it again where it shows
    the same, then draw the rest; the picture must be the one a full drawing gives, pixel for pixel,
    whatever was drawn before (axis labels name the measure, which the ticks outlive)."""
    import io

    import PIL.Image

    def pixels(png: bytes) -> np.ndarray:
        return np.asarray(PIL.Image.open(io.BytesIO(png)).convert("RGB"))

    for name, value in [("k", 20), ("k", 10), ("measure", "AP"), ("gain", "exp"), ("k", 20), ("by", "length"),
                        ("measure", "nDCG"), ("k", 10), ("query", "q007"), ("measure", "num_rel_ret"),
                        ("measure", "nDCG")]:
        setattr(ex, name, value)
        shown = {view: ex._views[view].value for view in ex._rendered}
        if ex.query is not None:
            shown["trace_curve"] = ex._views["drilldown"].children[-1].value
        for view, png in shown.items():
            fig = ex.figures[view]
            fig.canvas.draw()  # all of it in matplotlib's order, the query's mark included
            fresh = np.asarray(fig.canvas.buffer_rgba())[..., :3]
            assert np.array_equal(pixels(png), fresh), \
                f"{view} after {name}={value}: {int((pixels(png) != fresh).any(axis=2).sum())} pixels differ"
    assert sum(kept.reused for kept in ex._kept_axes.values()) >= 10, "few axes were laid from kept pieces"


def _moves_example() -> Explorer:
    """q1 judges a (3), b (0), c (2) and 25 more documents no system retrieves (5 of grade 3, 10 of 2,
    10 of 1); x is unjudged. A ranks b a x c, B ranks a x b c."""
    missed = [f"m{i:02d}" for i in range(1, 26)]
    qrels = pd.DataFrame({"query_id": "q1", "doc_id": ["a", "b", "c", *missed],
                          "relevance": [3, 0, 2] + [3] * 5 + [2] * 10 + [1] * 10})
    ranked = {"A": ["b", "a", "x", "c"], "B": ["a", "x", "b", "c"]}
    runs = {name: pd.DataFrame({"query_id": "q1", "doc_id": docs, "score": [4.0, 3.0, 2.0, 1.0]})
            for name, docs in ranked.items()}
    ex = Explorer(ExplorerData(qrels, runs), ["AP"])
    ex.query = "q1"
    return ex


def _move_colours(table: str) -> dict[str, tuple[str, str]]:
    """Each document's move in one system's drill-down table: (arrow, colour)."""
    found = {}
    for row in table.split("<tr")[2:]:  # the header row first
        doc = re.findall(r"<td[^>]*>([^<]*)</td>", row)[1]
        if doc == "–":  # ranks past the run's end, where the ideal ordering goes on
            continue
        move = re.search(r"<span style='color:(#\w+)'>([▲▼])\d+</span>", row)
        found[doc] = (move.group(2), move.group(1)) if move else None
    return found


def test_a_move_is_coloured_by_whether_it_helps_and_the_colours_are_explained():
    from rankkit.explore.drilldown import HELPS, HURTS, NEUTRAL

    ex = _moves_example()
    drill = ex._views["drilldown"].children
    first, second = (child.value for child in drill[1].children)
    # A against B: the grade-0 b higher (hurts; it was green), the relevant a lower (hurts), the
    # unjudged x lower (unknown), c where it is in B
    assert _move_colours(first) == {"b": ("▲", HURTS), "a": ("▼", HURTS), "x": ("▼", NEUTRAL), "c": None}
    # B against A: a relevant document higher, a non-relevant one lower: both help
    assert _move_colours(second) == {"a": ("▲", HELPS), "x": ("▲", NEUTRAL), "b": ("▼", HELPS), "c": None}
    legend = drill[2].value
    assert "Green</span>: the move helps this system's score" in legend and "unjudged" in legend
    assert "Green: the move helps" in re.search(r"title='([^']*)'>rank in B<", first).group(1)


def test_judged_documents_no_system_retrieved_are_counted_and_the_rest_folded():
    ex = _moves_example()
    missed = ex._views["drilldown"].children[3].value
    shown, folded = missed.split("<details>")
    assert "judged documents no system retrieved</b> (IDCG counts them): 25 (5 of grade 3, 10 of grade 2, " \
           "10 of grade 1)" in shown
    # the first ten by grade, then the rest behind a summary that opens them
    assert re.findall(r"m\d\d", shown) == [f"m{i:02d}" for i in range(1, 11)] and "and 15 more" in shown
    assert "<summary" in folded and "the other 15" in folded
    assert re.findall(r"m\d\d", folded) == [f"m{i:02d}" for i in range(11, 26)]


def test_a_greyed_out_control_says_why(ex):
    ex.measure = "nDCG@10"
    rel = ex.controls["rel"]
    assert rel.disabled and rel.tooltip == "nDCG takes no relevance level: it weighs every grade by its gain."
    assert rel.tooltip in ex._control_note.value
    ex.measure = "ERR"
    assert "chance of stopping (grade / max)" in ex.controls["rel"].tooltip
    ex.measure = "AP"
    assert not ex.controls["rel"].disabled and ex.controls["rel"].tooltip == params()["rel"].description
    assert ex.controls["gain"].disabled and ex.controls["gain"].tooltip.startswith("AP takes no gain: a document is relevant")
    assert "relevance level" not in ex._control_note.value
    ex.measure = "bpref"
    assert ex.controls["k"].disabled and ex.controls["k"].tooltip == "bpref takes no cutoff."


def test_the_model_runs_headless_without_ipywidgets(sample):
    """The explorer's model (traits, checks, values, table, trace) imports no ipywidgets: a script
    or a test drives it without a notebook, and it shows evaluate's numbers."""
    code = f"""
import json, sys
from rankkit.explore.model import ExplorerModel
from rankkit.explore.data import ExplorerData
model = ExplorerModel(ExplorerData({str(sample['qrels.txt'])!r}, [{str(sample['bm25.run'])!r}, {str(sample['dense.run'])!r}]))
model.measure = "AP@5"
model.show("worst")
print(json.dumps({{"widgets": sorted(m for m in sys.modules if m.split(".")[0] in ("ipywidgets", "comm", "IPython")),
                  "label": model.measure_label, "query": model.query, "rows": len(model.table),
                  "overall": model.overall, "traced": sorted(set(model.trace["system"]))}}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    import json

    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["widgets"] == [], "the model imported the views' packages"
    assert found["label"] == "AP@5" and found["rows"] > 0 and found["traced"] == ["bm25", "dense"]
    expected = _expected(sample, "AP@5")
    worst = expected[expected["system"] == "dense"].sort_values(["value", "query_id"]).iloc[0]["query_id"]
    assert found["query"] == worst
    means = rankkit.evaluate(sample["qrels.txt"], [sample["bm25.run"], sample["dense.run"]], "AP@5")
    assert found["overall"] == pytest.approx(dict(zip(means["system"], means["value"])), abs=1e-12)
