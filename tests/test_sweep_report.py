"""A report's fusion sweep (rankkit.report(sweep=...), rankkit report --sweep): the section in every
format, the record verify re-makes it from, a forged number found, bad options refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rankkit
from rankkit.cli import main
from rankkit.errors import RankkitError

HOSTILE = "<b>bm25</b> $x$ \\emph{y}_%\u202e"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[str, dict]:
    folder = tmp_path_factory.mktemp("sweep")
    queries = [f"q{i}" for i in range(8)]
    (folder / "qrels.txt").write_text("".join(f"{q} 0 d{i % 3} 1\n{q} 0 d{3 + i % 2} 2\n"
                                              for i, q in enumerate(queries)))
    for name, shift in (("bm25", 0), ("dense", 2)):
        (folder / f"{name}.run").write_text("".join(
            f"{q} Q0 d{(d + shift + i) % 6} {d + 1} {6 - d + 0.1 * i} {name}\n"
            for i, q in enumerate(queries) for d in range(6)))
    return str(folder / "qrels.txt"), {HOSTILE: str(folder / "bm25.run"), "dense": str(folder / "dense.run")}


@pytest.fixture(scope="module")
def made(files):
    qrels, runs = files
    return rankkit.report(qrels, runs, "nDCG@5", resamples=200,
                          sweep={"method": "wsum", "step": 0.25, "holdout": 0.5})


def test_the_section_in_every_format_says_the_best_point_its_tests_and_the_held_out_figure(made, tmp_path):
    record = made.record["sweep"]
    assert record["measure"] == "nDCG@5" and record["best"] in set(made.sweep.point) and len(made.sweep) == 5
    best = made.sweep.set_index("point").loc[record["best"]]
    assert record["held_out"]["queries"] == 4 and record["held_out"]["point"] == record["best"]
    html, markdown, latex = made.to_html(), made.to_markdown(), (made.save(tmp_path / "r.tex")).read_text()
    for text in (html, markdown, latex):
        assert "Fusion sweep" in text and "Holm over the grid's points" in text and "Held out" in text
        assert f"{best['mean']:.4f}" in text
    assert "<b>bm25</b>" not in html and "&lt;b&gt;bm25&lt;/b&gt;" in html and "\\u202e" in html
    assert 'alt="nDCG@5 at each point of the fusion grid"' in html  # the line drawn
    assert "\\emph{y}" not in latex.split("Fusion sweep")[1]
    written = made.save(tmp_path / "r.csv")
    beside = Path(str(written).replace("r.csv", "r.fusion-sweep.csv"))
    assert beside.exists() and beside.read_text().count("\n") == 6 and f"weight_{HOSTILE}" in beside.read_text()


def test_verify_remakes_the_sweep_from_the_record_and_finds_a_forged_number(files, tmp_path, capsys):
    qrels, runs = files
    path = tmp_path / "r.json"
    words = ["report", qrels, *(f"{name}={run}" for name, run in runs.items()), "-m", "nDCG@5", "--sweep", "wsum",
             "--sweep-step", "0.5", "-o", str(path)]
    assert main(words) == 0
    assert rankkit.verify(path), str(rankkit.verify(path))
    document = json.loads(path.read_text())
    assert document["record"]["sweep"]["step"] == 0.5 and len(document["sweep"]) == 3
    document["sweep"][1]["p_single"] = 0.001
    document["record"]["sweep"]["best_single_mean"] += 0.01
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(document))
    said = str(rankkit.verify(forged))
    assert "sweep.best_single_mean" in said and "p_single" in said, said
    document = json.loads(path.read_text())
    document["record"]["sweep"]["step"] = 0.25  # the call says 0.5
    forged.write_text(json.dumps(document))
    assert "call (sweep)" in str(rankkit.verify(forged))


def test_bad_sweep_options_are_refused_in_one_line(files, capsys):
    qrels, runs = files
    with pytest.raises(RankkitError, match="sweep: no option 'steps'; it takes method, measure"):
        rankkit.report(qrels, runs, "AP", sweep={"steps": 0.5})
    with pytest.raises(RankkitError, match="grid: point .*: its weights are numbers"):  # was a ValueError
        rankkit.report(qrels, runs, "AP", sweep={"grid": [{"weights": {HOSTILE: 1, "dense": "a"}}]})
    with pytest.raises(RankkitError, match="sweep: a fusion sweep is evaluated under the default conventions"):
        rankkit.report(qrels, runs, "AP", sweep="wsum", ties="average")
    assert main(["report", qrels, *runs.values(), "-m", "AP", "--sweep-step", "0.5", "-o", "x.html"]) == 2
    assert "--sweep-step" in capsys.readouterr().err


def test_the_sweep_explorer_shows_the_chosen_points_differences_against_the_best_single_run(files):
    pytest.importorskip("ipywidgets")
    qrels, runs = files
    ex = rankkit.explore_sweep(qrels, runs, "nDCG@5", step=0.5, resamples=200)
    best, single = ex.table.attrs["best"], ex.table.attrs["best_single"]
    assert ex.point == best and ex._choice.value == best
    shown = ex._views["grid"].value
    other = next(name for name in ex.table.point if name != best)
    ex._choice.value = other  # the drop-down sets the trait; the views follow
    assert ex.point == other and ex._views["grid"].value != shown
    assert set(ex.per_query.system) == {other, single}
    means = ex.per_query.groupby("system")["value"].mean()
    row = ex.table.set_index("point").loc[other]
    assert means[other] - means[single] == pytest.approx(row["diff_single"])  # the table's number, fused again
    assert bytes(ex._views["differences"].value).startswith(b"\x89PNG")
    assert "&lt;b&gt;bm25&lt;/b&gt;" in ex._views["summary"].value and "Holm" in ex._views["summary"].value
    with pytest.raises(Exception, match="is not a point of the grid"):
        ex.point = "wsum(nope)"
    # an rrf grid of k alone: its points are named without weights, as the run fused again is not
    # with a holdout, the tuning queries' (an rrf grid of k alone names its points without weights)
    ex = rankkit.explore_sweep(qrels, runs, "nDCG@5", method="rrf", grid=[1, 60], resamples=200, holdout=0.5)
    best, single = ex.table.attrs["best"], ex.table.attrs["best_single"]
    means = ex.per_query.groupby("system")["value"].mean()
    assert ex.per_query.query_id.nunique() == 4
    assert means[best] == pytest.approx(ex.table.set_index("point").loc[best, "mean"])
