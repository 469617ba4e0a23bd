"""rankkit.explore(..., second_qrels=B): a run under two judgment tables, side by side.

Every number shown under B is evaluate's (or trace's) under B; the documents whose labels differ
are the ones a plain pandas join of the two tables finds."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rankkit
from rankkit.demo import write_sample
from rankkit.errors import RankkitError
from rankkit.explore import Explorer
from rankkit.explore.data import ExplorerData
from rankkit.explore.serve import notebook


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("second")
    paths = write_sample(folder, queries=30)
    qrels = rankkit.read_qrels(paths["qrels.txt"]).df()
    # B: a fifth of the labels moved one grade, and three pairs A judges left out (one-sided)
    moved = np.random.default_rng(3).random(len(qrels)) < 0.2
    second = qrels.assign(relevance=np.where(moved, (qrels["relevance"] + 1) % 3, qrels["relevance"])).iloc[3:]
    paths["b.csv"] = folder / "b.csv"
    second.to_csv(paths["b.csv"], index=False)
    return paths


@pytest.fixture(scope="module")
def data(sample) -> ExplorerData:
    return ExplorerData(sample["qrels.txt"], [sample["bm25.run"], sample["dense.run"]], second_qrels=sample["b.csv"])


def _runs(sample) -> list[Path]:
    return [sample["bm25.run"], sample["dense.run"]]


def _differing(sample, query_id: str) -> set[str]:
    """The reference: documents of the query that the two tables label differently or one table only."""
    a = rankkit.read_qrels(sample["qrels.txt"]).df()
    b = pd.read_csv(sample["b.csv"], dtype={"query_id": str, "doc_id": str})
    both = a.merge(b, on=["query_id", "doc_id"], how="outer", suffixes=("_a", "_b"))
    both = both[both["query_id"] == query_id]
    return set(both.loc[both["relevance_a"].ne(both["relevance_b"]), "doc_id"])


@pytest.mark.parametrize("measure", ["nDCG@10", "AP"])
def test_values_under_both_tables_are_evaluates(data, sample, measure):
    ex = Explorer(data, [measure])
    for table, frame, overall in ((sample["qrels.txt"], ex.per_query, ex.overall),
                                  (sample["b.csv"], ex.second_per_query, ex.second_overall)):
        want = rankkit.evaluate(table, _runs(sample), measure, per_query=True)
        got = frame.merge(want, on=["system", "query_id"], suffixes=("", "_want"))
        assert len(got) == len(frame) == len(want)
        assert got["value"].to_numpy() == pytest.approx(got["value_want"].to_numpy(), abs=1e-12)
        aggregate = rankkit.evaluate(table, _runs(sample), measure).set_index("system")["value"]
        assert overall == pytest.approx(aggregate.to_dict(), abs=1e-12)
    # the query table and the summary show both; the distribution has a column of panels per table
    wide = ex.table_frame()
    assert {"bm25 under B", "dense under B"} <= set(wide.columns)
    assert "under B" in ex._views["summary"].value and str(sample["b.csv"]) in ex._views["summary"].value
    titles = [ax.get_title() for ax in ex.figures["distribution"].axes]
    assert any("qrels = A" in t for t in titles) and any("qrels = B" in t for t in titles)
    ex.sort("value: dense under B", False)
    assert ex.table["dense under B"].is_monotonic_decreasing


def test_a_query_shows_each_rank_under_both_tables_differences_marked(data, sample):
    ex = Explorer(data, ["AP@20"])
    query_id = "q007"
    ex.query = query_id
    want = rankkit.trace(sample["b.csv"], _runs(sample), query_id, k=20)
    got = ex.second_trace
    assert got[["system", "rank", "doc_id"]].astype(str).equals(want[["system", "rank", "doc_id"]].astype(str))
    assert got["ap"].to_numpy() == pytest.approx(want["ap"].to_numpy(), nan_ok=True)
    differing = _differing(sample, query_id)
    assert set(ex.labels.query("side != 'both' or grade_a != grade_b")["doc_id"]) == differing
    html = ex._views["drilldown"].children[1].children[0].value  # bm25's table
    rows = re.findall(r"<tr( style='background:#fde2b8')?><td[^>]*>(\d+)</td><td[^>]*>([^<]*)</td>", html)
    top = ex.trace[(ex.trace["system"] == "bm25") & ex.trace["rank"].notna()]
    assert [int(rank) for _, rank, _ in rows] == list(range(1, len(top) + 1))
    assert {doc for tint, _, doc in rows if tint} == differing & set(top["doc_id"])
    # the measure under each table at the last rank, as evaluate gives it
    per_a = rankkit.evaluate(sample["qrels.txt"], sample["bm25.run"], "AP@20", per_query=True).set_index("query_id")
    per_b = rankkit.evaluate(sample["b.csv"], sample["bm25.run"], "AP@20", per_query=True).set_index("query_id")
    assert f"AP@20 = {per_a.value[query_id]:.4f} under A, {per_b.value[query_id]:.4f} under B" in html
    legend = ex._views["drilldown"].children[2].value
    assert f"{len(differing)} labelled differently" in legend


def test_without_a_second_table_nothing_changes(sample):
    ex = rankkit.explore(sample["qrels.txt"], _runs(sample))
    ex.query = "q003"
    assert ex.second_per_query is None and ex.second_trace is None and ex.labels is None
    assert "under B" not in ex._views["summary"].value and "log2(r+1)" in ex._views["drilldown"].children[1].children[0].value
    with pytest.raises(RankkitError, match="no second judgment table"):
        ex.data.labels("q003")


def test_a_bad_second_table_is_named(sample, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("query_id,doc_id,relevance\nq001,d1,1\nq001,d2,high\n")
    with pytest.raises(RankkitError, match=re.escape(f"{bad}:3: column relevance: 'high' is not a number")):
        rankkit.explore(sample["qrels.txt"], _runs(sample), second_qrels=bad)
    apart = tmp_path / "apart.csv"
    apart.write_text("query_id,doc_id,relevance\nz1,d1,1\n")
    with pytest.raises(RankkitError, match="have no query in common"):  # refused on opening, as agree refuses it
        rankkit.explore(sample["qrels.txt"], _runs(sample), second_qrels=apart)


def test_the_served_notebook_passes_the_second_table(sample):
    page = notebook(str(sample["qrels.txt"]), [str(p) for p in _runs(sample)], second_qrels=str(sample["b.csv"]))
    assert f"second_qrels={str(sample['b.csv'].resolve())!r}" in page["cells"][0]["source"]
