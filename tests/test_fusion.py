"""Fusion (sql/80_fusion.sql, rankkit.fuse, rankkit fuse): every method and normalisation against ranx's
fuse (its answers recorded by bench/fusion_ranx.py: importing and compiling ranx takes longer than the
suite can spend), RRF's known pitfalls, ties, and bad input refused with one line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

import rankkit
from rankkit.errors import InputError, RankkitError

GOLDEN = json.loads((Path(__file__).parent / "golden" / "fusion_ranx.json").read_text(encoding="utf-8"))
RANK_METHODS = ("rrf", "isr", "bordafuse", "condorcet")


def frame(runs: dict) -> pd.DataFrame:
    return pd.DataFrame([(system, q, doc, score) for system, queries in runs.items()
                         for q, docs in queries.items() for doc, score in docs.items()],
                        columns=["system", "query_id", "doc_id", "score"])


@pytest.fixture(scope="module")
def con():
    con = rankkit.connect()
    con.register("golden_runs", frame(GOLDEN["runs"]))
    con.register("voting_runs", frame(GOLDEN["condorcet_runs"]))
    return con


def fused(con, table: str, arguments: str = "", params=()) -> dict:
    rows = con.execute(f"FROM rankkit.fuse('{table}'{arguments})", list(params)).fetchall()
    out: dict = {}
    for system, q, doc, score in rows:
        out.setdefault(q, []).append((doc, score))
    return out


def assert_as_ranx(ours: dict, theirs: dict) -> None:
    """The same documents with the same scores (to 1e-12), and ranx's order ours up to equal scores."""
    assert sorted(ours) == sorted(theirs)
    for q, listed in theirs.items():
        scores = dict(ours[q])
        assert sorted(scores) == sorted(doc for doc, _ in listed), q
        for doc, score in listed:
            assert scores[doc] == pytest.approx(score, rel=1e-12, abs=1e-12), (q, doc)
        in_ranx_order = [scores[doc] for doc, _ in listed]
        assert all(a >= b - 1e-12 for a, b in zip(in_ranx_order, in_ranx_order[1:])), q


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=lambda c: f"{c['method']}-{c['norm']}")
def test_every_method_and_normalisation_equals_ranx(con, case):
    method, norm = case["method"], case["norm"]
    weights = dict(zip(GOLDEN["systems"], GOLDEN["weights"]))
    arguments = ", method := ?, norm := ?"
    params = [method, None if method in RANK_METHODS else (norm or "none")]
    if method in ("wsum", "wmnz"):
        arguments += ", weights := ?::MAP(VARCHAR, DOUBLE)"
        params.append(weights)
    assert_as_ranx(fused(con, "golden_runs", arguments, params), case["fused"])


def test_condorcet_equals_ranx_where_the_majority_is_an_order(con):
    ours = fused(con, "voting_runs", ", method := 'condorcet'")
    for q, listed in ours.items():  # no cycle: the Copeland counts are 1 .. n, each once
        assert sorted(score for _, score in listed) == list(range(1, len(listed) + 1)), q
    assert_as_ranx(ours, GOLDEN["condorcet"])


def test_dbsf_is_qdrants_three_sigma_scaling(con):
    ours = fused(con, "golden_runs", ", method := 'combsum', norm := 'dbsf'")
    expected: dict = {}
    for queries in GOLDEN["runs"].values():
        for q, docs in queries.items():
            scores = np.array(list(docs.values()))
            mean, sd = scores.mean(), scores.std(ddof=1)
            for doc, score in docs.items():
                expected[q, doc] = expected.get((q, doc), 0.0) + (score - (mean - 3 * sd)) / (6 * sd)
    assert {(q, doc): score for q, docs in ours.items() for doc, score in docs} == pytest.approx(expected, rel=1e-12)


# ---- RRF's pitfalls ---------------------------------------------------------------------------------

def run_frame(*rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["system", "query_id", "doc_id", "score"])


def rrf(con, runs: pd.DataFrame, arguments: str = "") -> dict:
    con.register("pitfall_runs", runs)
    return {(q, doc): score for _, q, doc, score in
            con.execute(f"FROM rankkit.fuse('pitfall_runs'{arguments})").fetchall()}


def test_rrf_ranks_start_at_one_and_an_absent_document_adds_nothing(con):
    runs = run_frame(("a", "q", "x", 9.0), ("a", "q", "y", 8.0), ("b", "q", "x", 0.5))
    assert rrf(con, runs) == {("q", "x"): 2 / 61, ("q", "y"): 1 / 62}


def test_rrf_over_runs_of_different_depths_and_a_depth_cut(con):
    runs = run_frame(*[("a", "q", f"d{i}", 10.0 - i) for i in range(5)], ("b", "q", "d4", 1.0))
    values = rrf(con, runs)
    assert values[("q", "d4")] == 1 / 65 + 1 / 61 and values[("q", "d0")] == 1 / 61 and len(values) == 5
    assert rrf(con, runs, ", depth := 2") == {("q", "d0"): 1 / 61, ("q", "d1"): 1 / 62, ("q", "d4"): 1 / 61}


def test_rrf_orders_equal_scores_by_trec_evals_rule_whatever_the_row_order(con):
    # b and c tie in system a: doc_id descending puts c at rank 1, b at 2, in any order of the rows
    rows = [("a", "q", "b", 1.0), ("a", "q", "c", 1.0), ("s", "q", "b", 2.0), ("s", "q", "c", 1.0)]
    expected = {("q", "c"): 1 / 61 + 1 / 62, ("q", "b"): 1 / 62 + 1 / 61}
    assert rrf(con, run_frame(*rows)) == rrf(con, run_frame(*reversed(rows))) == expected
    # ranx ranks ties as its sort leaves them; given trec_eval's order it agrees
    three = run_frame(("a", "q", "b", 1.0), ("a", "q", "c", 1.0), ("a", "q", "d", 0.5), ("s", "q", "d", 1.0))
    assert rrf(con, three) == {("q", "c"): 1 / 61, ("q", "b"): 1 / 62, ("q", "d"): 1 / 63 + 1 / 61}


def test_a_document_listed_twice_is_refused_naming_system_query_and_document(con):
    runs = run_frame(("a", "q1", "x", 2.0), ("a", "q1", "x", 1.0), ("b", "q1", "x", 1.0))
    con.register("twice", runs)
    with pytest.raises(Exception, match="run table twice: system a lists document x twice for query q1"):
        con.execute("FROM rankkit.fuse('twice')").fetchall()
    with pytest.raises(InputError, match="x"):  # the readers say it first, with the row
        rankkit.fuse(runs)


def test_the_fused_run_is_named_by_its_method_and_arguments(con):
    runs = run_frame(("a", "q", "x", 2.0), ("b", "q", "y", 1.0))
    con.register("named", runs)
    names = {arguments: con.execute(f"SELECT DISTINCT system FROM rankkit.fuse('named'{arguments})").fetchall()[0][0]
             for arguments in ("", ", k := 10", ", method := 'sum'", ", method := 'combmnz', norm := 'zmuv'",
                               ", method := 'wsum', weights := MAP {'b': 0.7, 'a': 0.3}", ", method := 'bordafuse'")}
    assert list(names.values()) == ["rrf(k=60)", "rrf(k=10)", "combsum(norm=min-max)", "combmnz(norm=zmuv)",
                                    "wsum(norm=min-max;weights=0.3/0.7)", "borda"]


# ---- bad input ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("arguments, message", [
    (", method := 'rff'", "method must be one of rrf, isr, combsum, .* got 'rff'"),
    (", method := 'combsum', norm := 'l2'", "norm must be one of none, min-max, .* got 'l2'"),
    (", norm := 'zmuv'", "rrf fuses ranks, not scores: norm 'zmuv' does not apply to it"),
    (", k := -1", "k must be a number, 0 or more"),
    (", method := 'wsum'", "wsum needs weights, one for each system: a, b"),
    (", method := 'combsum', weights := MAP {'a': 1, 'b': 1}", "combsum takes no weights"),
    (", weights := MAP {'a': 1}", "no weight for system b; the systems are a, b"),
    (", weights := MAP {'a': 1, 'b': 1, 'c': 2}", "'c' is no system fused"),
    (", weights := MAP {'a': 1, 'b': 'nan'::DOUBLE}", "the weight of system b must be a finite number, got nan"),
])
def test_bad_arguments_are_refused_in_one_line(con, arguments, message):
    con.register("two", run_frame(("a", "q", "x", 2.0), ("b", "q", "y", 1.0)))
    with pytest.raises(Exception, match=message):
        con.execute(f"FROM rankkit.fuse('two'{arguments})").fetchall()


def test_names_in_messages_are_shown_with_their_control_characters_visible(con):
    con.register("hostile", run_frame(("a\x1b[2J", "q\n1", "x", 2.0), ("a\x1b[2J", "q\n1", "x", 1.0), ("b", "q", "y", 1.0)))
    with pytest.raises(Exception) as raised:
        con.execute("FROM rankkit.fuse('hostile')").fetchall()
    said = str(raised.value)
    assert "system a\\x1b[2J lists document x twice for query q\\n1" in said and "\x1b" not in said


def test_a_table_of_one_system_or_rows_without_one_is_refused(con):
    con.register("one", run_frame(("a", "q", "x", 2.0), ("a", "q", "y", 1.0)))
    with pytest.raises(Exception, match="run table one: 1 system; fusion combines two or more"):
        con.execute("FROM rankkit.fuse('one')").fetchall()
    con.register("unnamed", run_frame(("a", "q", "x", 2.0), (None, "q", "y", 1.0), ("b", "q", "y", 1.0)))
    with pytest.raises(Exception, match="run table unnamed: some rows have no system"):
        con.execute("FROM rankkit.fuse('unnamed')").fetchall()
    con.register("scoreless", pd.DataFrame({"system": ["a", "b"], "query_id": "q", "doc_id": "x"}))
    with pytest.raises(Exception, match="missing column score"):
        con.execute("FROM rankkit.fuse('scoreless')").fetchall()


def test_python_pairs_weights_with_the_runs_given():
    a = pd.DataFrame({"query_id": "q", "doc_id": ["x", "y"], "score": [2.0, 1.0]})
    b = pd.DataFrame({"query_id": "q", "doc_id": ["y", "x"], "score": [2.0, 1.0]})
    fused = rankkit.fuse({"a": a, "b": b}, method="wsum", weights=[0.25, 0.75])
    assert fused.set_index("doc_id").score.to_dict() == {"y": 0.75, "x": 0.25}
    assert fused.system.iloc[0] == "wsum(norm=min-max;weights=0.25/0.75)"
    with pytest.raises(RankkitError, match=r"weights: 3 given for 2 runs \(a, b\): give one per run"):
        rankkit.fuse({"a": a, "b": b}, method="wsum", weights=[1, 2, 3])
    with pytest.raises(RankkitError, match="a list pairs with runs given as a list"):
        rankkit.fuse(pd.concat([a.assign(system="a"), b.assign(system="b")]), method="wsum", weights=[1, 2])
    with pytest.raises(RankkitError, match="k must be a number"):
        rankkit.fuse([a, b], k="60")
    assert rankkit.fuse([a, b], k=10.0).system.iloc[0] == "rrf(k=10)"


# ---- the command line -------------------------------------------------------------------------------

def write_runs(folder: Path) -> tuple[Path, Path, Path]:
    (folder / "qrels.txt").write_text("q1 0 x 1\nq1 0 z 2\nq2 0 y 1\n")
    (folder / "bm25.run").write_text("q1 Q0 x 1 3.0 t\nq1 Q0 y 2 2.0 t\nq2 Q0 y 1 1.0 t\n")
    (folder / "dense.run").write_text("q1 Q0 z 1 0.9 t\nq1 Q0 x 2 0.8 t\nq2 Q0 x 1 0.7 t\n")
    return folder / "qrels.txt", folder / "bm25.run", folder / "dense.run"


def test_the_command_line_writes_a_run_that_eval_reads(tmp_path, capsys):
    from rankkit.cli import main

    qrels, bm25, dense = write_runs(tmp_path)
    out = tmp_path / "fused.run"
    assert main(["fuse", str(bm25), str(dense), "-k", "1", "-o", str(out)]) == 0, capsys.readouterr().err
    assert out.read_text().splitlines() == [
        f"q1 Q0 x 1 {1 / 2 + 1 / 3!r} rrf(k=1)", f"q1 Q0 z 2 {1 / 2!r} rrf(k=1)", f"q1 Q0 y 3 {1 / 3!r} rrf(k=1)",
        f"q2 Q0 y 1 {1 / 2!r} rrf(k=1)", f"q2 Q0 x 2 {1 / 2!r} rrf(k=1)"]
    assert main(["eval", str(qrels), str(out), "-m", "P@1"]) == 0
    assert "P@1" in capsys.readouterr().out
    assert main(["fuse", str(bm25), str(dense), "--method", "wsum", "--weights", "1,3", "-o",
                 str(tmp_path / "w.parquet")]) == 0
    assert pd.read_parquet(tmp_path / "w.parquet").doc_id.tolist() == ["z", "x", "y", "y", "x"]
    # the tag names the weights without a comma, which the readers would take for a CSV header's
    assert main(["fuse", str(bm25), str(dense), "--method", "wsum", "--weights", "1,3", "-o", str(tmp_path / "w.run")]) == 0
    assert main(["eval", str(qrels), str(tmp_path / "w.run"), "-m", "P@1"]) == 0, capsys.readouterr().err


def test_the_command_line_refuses_an_input_as_output_and_ids_text_cannot_hold(tmp_path, capsys):
    from rankkit.cli import main

    _, bm25, dense = write_runs(tmp_path)
    assert main(["fuse", str(bm25), str(dense), "-o", str(bm25)]) == 2
    assert "is the same file as the run" in capsys.readouterr().err
    assert main(["fuse", str(bm25), str(dense), "--weights", "1,x", "-o", str(tmp_path / "f.run")]) == 2
    assert "expected numbers separated by commas" in capsys.readouterr().err
    spaced = pd.DataFrame({"system": ["a", "b"], "query_id": "q", "doc_id": ["x y\x1b", "z"], "score": 1.0})
    spaced.to_parquet(tmp_path / "spaced.parquet")
    assert main(["fuse", str(tmp_path / "spaced.parquet"), "-o", str(tmp_path / "f.run")]) == 2
    said = capsys.readouterr().err
    assert "cannot be a field of TREC text; write a .parquet file" in said and "\x1b" not in said
    assert not (tmp_path / "f.run").exists()
    assert math.isclose(rankkit.fuse(tmp_path / "spaced.parquet").score.sum(), 2 / 61)


# ---- the sweep ----------------------------------------------------------------------------------------

def test_the_sweep_judges_each_point_as_compare_judges_its_fused_run(tmp_path):
    qrels, bm25, dense = write_runs(tmp_path)
    (tmp_path / "qrels.txt").write_text("q1 0 x 1\nq1 0 z 2\nq2 0 y 1\nq3 0 w 1\n")
    (tmp_path / "bm25.run").write_text(bm25.read_text() + "q3 Q0 w 1 2.0 t\nq3 Q0 v 2 1.0 t\n")
    (tmp_path / "dense.run").write_text(dense.read_text() + "q3 Q0 v 1 2.0 t\nq3 Q0 w 2 1.5 t\n")
    runs = {"bm25": str(bm25), "dense": str(dense)}
    swept = rankkit.fusion_sweep(str(qrels), runs, "RR", step=0.25, correction="none", test="t")
    assert swept.point.tolist() == [f"wsum(norm=min-max;weights={a}/{1 - a})" for a in (0.0, 0.25, 0.5, 0.75, 1.0)]
    best, other = swept.attrs["best"], swept.point.iloc[0]
    fused = {name: rankkit.fuse(runs, method="wsum", weights=[float(w) for w in name.split("=")[-1][:-1].split("/")])
             for name in (best, other)}
    assert [run.system.iloc[0] for run in fused.values()] == [best, other]
    compared = rankkit.compare(str(qrels), fused, "RR", baseline=best, correction="none")
    row = swept.set_index("point").loc[other]
    assert row.diff_best == pytest.approx(compared["diff"].iloc[0]) and row.p_best == pytest.approx(compared.p_value.iloc[0])
    assert swept.set_index("point").loc[best, "mean"] == pytest.approx(compared.baseline_mean.iloc[0])
    assert swept.attrs["best_single"] in runs
    # nDCG@1 reads each point's top document only (fuse_grid's top := 1): the same means as the whole runs
    cut = rankkit.fusion_sweep(str(qrels), runs, "nDCG@1", step=0.25, correction="none").set_index("point")
    means = rankkit.evaluate(str(qrels), fused, "nDCG@1").set_index("system")["value"]
    assert [cut.loc[name, "mean"] for name in fused] == pytest.approx([means[name] for name in fused])
    from rankkit.fusion import ranks_read
    # the measure files' top_k: header field says which (HitRate's hit in the top k reads no rank below it)
    names = ("nDCG@10", "nDCG(ideal=run)@10", "RR", "P@5", "bpref", "HitRate@3")
    assert [ranks_read(rankkit.connect(), name) for name in names] == [10, None, None, 5, None, 3]


def test_the_sweep_finds_ranx_optimize_fusions_best_weights_and_its_values():
    """ranx's optimize_fusion (wsum, min-max, step 0.1, nDCG@5; bench/fusion_ranx.py): the same best
    weights, and every point's value where no weight is 0. A weight of 0 leaves documents tied at 0 (those
    of the zero-weight system alone, and each other system's lowest after min-max), which ranx orders as
    its sort leaves them and rankkit by its tie rule (docs/fusion.md): there the two may differ."""
    optimize = GOLDEN["optimize"]
    qrels = pd.DataFrame([(q, doc, grade) for q, docs in optimize["qrels"].items() for doc, grade in docs.items()],
                         columns=["query_id", "doc_id", "relevance"])
    runs = {name: frame({name: GOLDEN["runs"][name]}).drop(columns="system") for name in GOLDEN["systems"]}
    swept = rankkit.fusion_sweep(qrels, runs, "nDCG@5", method="wsum", step=0.1, resamples=50)
    means = {point.split("weights=")[1][:-1]: mean for point, mean in zip(swept.point, swept["mean"])}
    assert swept.attrs["best"] == f"wsum(norm=min-max;weights={'/'.join(f'{w:.1f}' for w in optimize['best'])})"
    positive = {point: value for point, value in optimize["points"].items() if "0.0" not in point.split("/")}
    assert len(positive) == 36 and len(means) == len(optimize["points"]) == 66
    assert {point: means[point] for point in positive} == pytest.approx(positive, abs=1e-12)

def test_the_grid_fuses_as_fuse_and_keeps_each_points_top_by_the_tie_rule(con):
    # three documents tie at 0.5 for equal weights: the top 2 are z and y, by doc_id descending; u is
    # below every point's bar (its best x, 0.1, under each point's second score) and left out unscored
    con.register("tied_runs", frame({"a": {"q": {"x": 1.0, "y": 1.0, "z": 0.0, "u": 0.1}},
                                     "b": {"q": {"x": 0.0, "y": 0.0, "z": 1.0, "w": 0.5, "u": 0.1}}}))
    points = {"even": (0.5, 0.5), "lean": (0.8, 0.2)}
    con.register("tied_grid", pd.DataFrame([(point, system, weight, 1) for point, weights in points.items()
                                            for system, weight in zip("ab", weights)],
                                           columns=["point", "system", "weight", "k"]))
    order = "ORDER BY system, score DESC, doc_id DESC"
    for method in ("wsum", "wmnz", "rrf"):
        whole = con.execute(f"FROM rankkit.fuse_grid('tied_runs', 'tied_grid', method := ?) {order}", [method]).df()
        top = con.execute(f"FROM rankkit.fuse_grid('tied_runs', 'tied_grid', method := ?, top := 2) {order}",
                          [method]).df()
        assert top.equals(whole.groupby("system").head(2).reset_index(drop=True))
        for point, (a, b) in points.items():
            one = con.execute(f"SELECT doc_id, score FROM rankkit.fuse('tied_runs', method := ?, k := 1, "
                              f"weights := MAP {{'a': {a}, 'b': {b}}}) ORDER BY score DESC, doc_id DESC", [method]).df()
            mine = whole[whole.system == point]
            assert mine.doc_id.tolist() == one.doc_id.tolist() and np.allclose(mine.score, one.score, atol=1e-12)
    assert con.execute(f"FROM rankkit.fuse_grid('tied_runs', 'tied_grid', top := 2) {order}").df().doc_id.tolist()[:2] \
        == ["z", "y"]
    with pytest.raises(duckdb.Error, match="top must be a whole number, 1 or more"):
        con.execute("FROM rankkit.fuse_grid('tied_runs', 'tied_grid', top := 0)").fetchall()


def test_a_held_out_half_measures_the_best_point_tuned_on_the_other(tmp_path, capsys):
    from rankkit.cli import main

    queries = [f"q{i}" for i in range(8)]
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {doc} 1\n" for i, q in enumerate(queries) for doc in "xz"[: 1 + i % 2]))
    bm25, dense = tmp_path / "bm25.run", tmp_path / "dense.run"
    bm25.write_text("".join(f"{q} Q0 {d} {r} {4 - r}.0 t\n" for i, q in enumerate(queries)
                            for r, d in enumerate("xyz"[i % 3:] + "xyz"[:i % 3], 1)))
    dense.write_text("".join(f"{q} Q0 {d} {r} {1 - r / 10} t\n" for i, q in enumerate(queries)
                             for r, d in enumerate("zyx"[i % 2:] + "zyx"[:i % 2], 1)))
    runs = {"bm25": str(bm25), "dense": str(dense)}
    swept = rankkit.fusion_sweep(str(tmp_path / "qrels.txt"), runs, "RR", step=0.5, holdout=0.5, seed=3)
    held = swept.attrs["holdout"]
    assert held["queries"] == 4 and set(swept.queries) == {4} and held["point"] == swept.attrs["best"]
    weights = [float(w) for w in held["point"].split("=")[-1][:-1].split("/")]
    values = rankkit.evaluate(str(tmp_path / "qrels.txt"), rankkit.fuse(runs, method="wsum", weights=weights), "RR",
                              per_query=True)
    tuned = swept.set_index("point").loc[held["point"], "mean"]
    assert held["mean"] * 4 + tuned * 4 == pytest.approx(values.value.sum())  # the two halves make the whole
    assert held["ci_low"] <= held["mean"] <= held["ci_high"] and 0 <= held["p_single"] <= 1
    with pytest.raises(RankkitError, match="holdout: the fraction"):
        rankkit.fusion_sweep(str(tmp_path / "qrels.txt"), runs, "RR", holdout=1)
    assert main(["fuse", *runs.values(), "--sweep", str(tmp_path / "qrels.txt"), "-m", "RR", "--holdout", "0.5"]) == 0
    assert "held out (4 queries): rrf(k=" in capsys.readouterr().out
    assert main(["fuse", *runs.values(), "--holdout", "0.5", "-o", str(tmp_path / "f.run")]) == 2
    assert "--holdout holds queries out of a sweep" in capsys.readouterr().err
    assert main(["fuse", *runs.values(), "--step", "0.5", "-o", str(tmp_path / "f.run")]) == 2  # not silently unused
    assert "--step is the step of a sweep's weights" in capsys.readouterr().err
    from rankkit import plot

    line = plot.sweep(swept).axes[0]  # two runs' weights: one free coordinate
    assert line.get_xlabel() == "weight of bm25"
    assert [a.get_gid() for a in line.lines] == ["values", "single", "tied", "best"]
    assert list(line.lines[0].get_xdata()) == [0.0, 0.5, 1.0]


def test_a_grid_of_three_weights_is_drawn_as_a_heat_map():
    from rankkit import plot

    grid = [{"weights": {"a": a / 2, "b": b / 2, "c": (2 - a - b) / 2}, "k": 60.0}
            for a in range(3) for b in range(3 - a)]
    table = pd.DataFrame({"point": [f"p{i}" for i in range(6)], "mean": np.linspace(0.1, 0.6, 6),
                          "ci_low": 0.0, "ci_high": 1.0, "significant_best": [True] * 4 + [False] * 2})
    table.attrs.update(measure="nDCG@10", best="p5", grid=grid)
    fig = plot.sweep(table)
    cells = [c for c in fig.axes[0].collections if c.get_gid() == "values"][0].get_array()
    assert cells.count() == 6 and cells.size == 9  # the simplex's corner beyond a + b = 1 is blank
    assert fig.axes[0].get_ylabel() == "weight of b"
    table.attrs["grid"] = [{"weights": {"a": 0.5, "b": 0.5}, "k": 60.0}] * 6
    with pytest.raises(RankkitError, match="one or two free coordinates"):
        plot.sweep(table)


def test_the_sweep_over_rrfs_k_and_its_bad_grids(tmp_path, capsys):
    from rankkit.cli import main

    qrels, bm25, dense = write_runs(tmp_path)
    runs = [str(bm25), str(dense)]
    assert rankkit.fusion_sweep(str(qrels), runs, "RR", method="rrf", grid=[1, {"k": 5, "weights": [1, 2]}]).point.tolist() \
        == ["rrf(k=1;weights=1.0/1.0)", "rrf(k=5;weights=1.0/2.0)"]
    with pytest.raises(RankkitError, match="varies the weights of wsum, wmnz or rrf"):
        rankkit.fusion_sweep(str(qrels), runs, "RR", method="combsum")
    with pytest.raises(RankkitError, match="k is rrf's"):
        rankkit.fusion_sweep(str(qrels), runs, "RR", grid=[{"k": 3}])
    with pytest.raises(RankkitError, match="step must divide 1"):
        rankkit.fusion_sweep(str(qrels), runs, "RR", step=0.3)
    # judged by a mean over queries: gm_map's mean would be MAP under gm_map's name, and two measures crashed
    with pytest.raises(RankkitError, match="gm_map combines queries by its geometric mean"):
        rankkit.fusion_sweep(str(qrels), runs, "gm_map")
    with pytest.raises(RankkitError, match="by one measure; 'P.5,10' names 2"):
        rankkit.fusion_sweep(str(qrels), runs, "P.5,10")
    assert main(["fuse", *runs, "--sweep", str(qrels), "-m", "RR"]) == 0
    out = capsys.readouterr().out
    assert "rrf(k=20)" in out and "best single run:" in out
    assert main(["fuse", *runs, "--sweep", str(qrels)]) == 2
    assert "give -m" in capsys.readouterr().err
