"""Measures where lower is better (FallOut, Gini, ARP) and where neither way is (unj, Judged, IDCG): each
measure file's ``better:``, read by the registry; the tables' bold and superscript letters, compare's
wins, the fusion sweep and a report's notes follow it, and a report that tests nothing says no word of
significance."""

from __future__ import annotations

import json
import re
import warnings

import pytest

import rankkit
from rankkit import table
from rankkit.cli import main
from rankkit.compare import format_comparison
from rankkit.demo import write_recsys_sample

QUERIES = 10


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Two relevant and four judged non-relevant documents a query; a retrieves both relevant ones and
    one other (FallOut@3 0.25), b two or three non-relevant ones (0.5 or 0.75): a's FallOut is lower."""
    folder = tmp_path_factory.mktemp("better")
    qrels = [f"q{q} 0 d{d} {int(d <= 2)}" for q in range(QUERIES) for d in range(1, 7)]
    runs = {"a": [[1, 2, 3]] * QUERIES, "b": [[3, 4, 5] if q % 2 else [1, 4, 5] for q in range(QUERIES)]}
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    paths = {"qrels": folder / "qrels.txt"}
    for name, lists in runs.items():
        paths[name] = folder / f"{name}.run"
        paths[name].write_text("".join(f"q{q} Q0 d{d} {r} {10 - r} {name}\n"
                                       for q, docs in enumerate(lists) for r, d in enumerate(docs, 1)))
    return paths


@pytest.fixture(scope="module")
def made(inputs):
    return rankkit.report(str(inputs["qrels"]), {"a": str(inputs["a"]), "b": str(inputs["b"])},
                          ["nDCG@3", "FallOut@3", "unj@3"], ci=None)


def test_each_measure_file_says_which_way_is_better():
    from rankkit.measures import beyond_measures, get
    from rankkit.specs import better_of

    assert [get(name).better for name in ("nDCG", "FallOut", "unj", "Judged", "IDCG", "rbp_resid")] == [
        "higher", "lower", "none", "none", "none", "none"]
    assert [beyond_measures()[name].better for name in ("gini", "arp", "novelty", "coverage")] == [
        "lower", "lower", "higher", "higher"]
    # a printed name, a trec_eval name by its alias's pattern, a beyond-accuracy one with parameters
    assert [better_of(name) for name in ("FallOut(rel=2)@5", "unj_10", "Gini@10", "TailShare(tail=0.2)@10")] == [
        "lower", "none", "lower", "higher"]


def test_the_table_bolds_the_lowest_where_lower_is_better_and_nothing_where_neither_is():
    values = {(m, s): {"value": v, "queries": 3} for m, s, v in [
        ("up", "a", 0.5), ("up", "b", 0.25), ("down", "a", 0.5), ("down", "b", 0.25), ("flat", "a", 0.5),
        ("flat", "b", 0.25)]}
    beats = {("down", "b"): ["a"], ("flat", "a"): ["b"]}
    made = table.make_table(["up", "down", "flat"], ["up", "down", "flat"], ["a", "b"], values,
                            dict.fromkeys(["up", "down", "flat"], "mean"), beats, [],
                            better={"down": "lower", "flat": "none"})
    marks = [[(cell.best, cell.beats) for cell in row["cells"]] for row in made.systems]
    assert marks == [[(True, []), (False, []), (False, [])], [(False, []), (True, ["a"]), (False, [])]]
    assert "| (b) b | 0.2500 | **0.2500**<sup>a</sup> | 0.2500 |" in table.markdown(made)
    assert table.best_note({"up": "higher", "down": "lower", "flat": "none", "count": "none"},
                           {"count": "sum"}) == (
        "Bold: the best system for the measure (the lowest for down, where lower is better; none for flat, "
        "where neither higher nor lower is better).")
    assert table.best_note() == "Bold: the best system for the measure."


def test_a_report_marks_the_lower_fallout_best_and_its_significant_win(made):
    """Before: b, of the higher FallOut, was bold and 'significantly better' than a; unj's equal values
    were both bold."""
    cells = _cells(made)
    assert cells[("a", "FallOut@3")].best and not cells[("b", "FallOut@3")].best
    assert cells[("a", "FallOut@3")].beats == ["b"] and cells[("b", "FallOut@3")].beats == []
    assert not cells[("a", "unj@3")].best and not cells[("b", "unj@3")].best
    assert [cells[("a", "nDCG@3")].best, cells[("a", "nDCG@3")].beats] == [True, ["b"]]
    # a query where b's FallOut is higher is a win of a
    fallout = made.comparison.set_index("measure").loc["FallOut@3"]
    assert fallout["diff"] > 0 and (fallout["wins"], fallout["losses"]) == (0, QUERIES)
    note = ("Bold: the best system for the measure (the lowest for FallOut@3, where lower is better; none for "
            "unj@3, where neither higher nor lower is better).")
    win = "A win under FallOut@3 is a lower value: lower is better."
    markdown, latex, page = made.to_markdown(), made.to_latex(), made.to_html()
    assert "| (a) a | **1.0000**<sup>b</sup> | **0.2500**<sup>b</sup> | 0.0000 | 10 |" in markdown
    assert note in markdown and win in markdown
    assert r"\textbf{0.2500}\textsuperscript{b}" in latex and note in latex
    assert note in page and win in page


def _cells(report) -> dict:
    """Each (system, measure label)'s cell of the report's aggregate table."""
    from rankkit.report.render import summary

    made = summary(report)
    return {(row["name"], label): cell for row in made.systems for label, cell in zip(made.labels, row["cells"])}


def test_compare_counts_a_lower_fallout_as_a_win_and_says_so(inputs):
    result = rankkit.compare(str(inputs["qrels"]), {"a": str(inputs["a"]), "b": str(inputs["b"])},
                             ["FallOut@3", "unj@3"], baseline="a")
    fallout = result.set_index("measure").loc["FallOut@3"]
    assert (fallout["wins"], fallout["losses"]) == (0, QUERIES)  # b is above a: it loses every query
    assert result.attrs["better"] == {"FallOut@3": "lower", "unj@3": "none"}
    assert ("W/T/L: queries where system beats/ties/loses to baseline (lower beats higher for FallOut@3); for "
            "unj@3, where neither way is better: above/equal/below") in format_comparison(result)



def test_compare_s_csv_and_json_say_which_way_each_win_is(inputs):
    """compare's text says that a win under FallOut is a lower value; its CSV and JSON rows carried the
    swapped W/T/L without a word of it: each row says its measure's better."""
    import csv
    import io

    from rankkit.compare import write_comparison

    result = rankkit.compare(str(inputs["qrels"]), {"a": str(inputs["a"]), "b": str(inputs["b"])},
                             ["FallOut@3", "unj@3", "P@3"], baseline="a")
    ways = {"FallOut@3": "lower", "unj@3": "none", "P@3": "higher"}
    out = io.StringIO()
    write_comparison(out, result, "json")
    assert {row["measure"]: row["better"] for row in json.loads(out.getvalue())["comparisons"]} == ways
    out = io.StringIO()
    write_comparison(out, result, "csv")
    assert {row["measure"]: row["better"] for row in csv.DictReader(io.StringIO(out.getvalue()))} == ways

def test_eval_bolds_the_lowest_fallout(inputs, capsys):
    assert main(["eval", "-m", "FallOut@3", "-m", "unj_3", "--format", "markdown-table", str(inputs["qrels"]),
                 str(inputs["a"]), str(inputs["b"])]) == 0
    out = capsys.readouterr().out
    assert "| (a) a | **0.2500** | 0.0000 |" in out and "| (b) b | 0.6250 | 0.0000 |" in out
    assert "(the lowest for FallOut@3, where lower is better; none for unj\\_3," in out


@pytest.mark.parametrize("measure, said", [
    ("FallOut@3", "under FallOut@3 lower is better"),
    ("unj@3", "under unj@3 neither higher nor lower is better (it describes the runs)"),
])
def test_a_sweep_refuses_a_measure_where_higher_is_not_better(inputs, measure, said):
    with pytest.raises(rankkit.RankkitError, match=re.escape(said)):
        rankkit.fusion_sweep(str(inputs["qrels"]), {"a": str(inputs["a"]), "b": str(inputs["b"])}, measure)


def test_the_leaderboards_refuse_a_measure_where_higher_is_not_better(inputs):
    """The leaderboards rank the highest first: under FallOut, tau_AP and the top k read the worst first."""
    with pytest.raises(rankkit.RankkitError, match=re.escape("the leaderboards rank the highest value first, and "
                                                             "under FallOut@3 lower is better")):
        rankkit.leaderboard_agreement(str(inputs["qrels"]), str(inputs["qrels"]),
                                      {"a": str(inputs["a"]), "b": str(inputs["b"])}, "FallOut@3")


# ---- the command line, on the recommender demo's sample ---------------------------------------------

@pytest.fixture(scope="module")
def recsys(tmp_path_factory):
    """The sample ``rankkit demo --recsys`` writes (40 users), and its item-kNN the wider: the lower Gini."""
    return write_recsys_sample(tmp_path_factory.mktemp("demo"), users=40)


def _report(recsys, out, *measures):
    argv = ["report", recsys["test"], f"pop={recsys['pop']}", f"itemknn={recsys['itemknn']}",
            "--items", recsys["items"], "--interactions", recsys["train"], "--ci", "0", "-o", out]
    for measure in measures:
        argv += ["-m", measure]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(list(map(str, argv))) == 0


def test_a_beyond_report_bolds_the_lower_gini_and_verify_holds(recsys, tmp_path, capsys):
    out = tmp_path / "r.json"
    _report(recsys, out, "Gini@10", "Novelty@10")
    saved = rankkit.Report.load(out)
    gini = saved.aggregate[saved.aggregate.measure == "Gini@10"].set_index("system")["value"]
    assert gini["itemknn"] < gini["pop"]
    assert [m.get("better") for m in json.loads(out.read_text())["record"]["measures"]] == ["lower", "higher"]
    markdown = saved.to_markdown()
    assert re.search(r"\| \(b\) itemknn \| \*\*0\.\d{4}\*\* \|", markdown)  # the lower Gini, bold
    assert re.search(r"\| \(a\) pop \| 0\.\d{4} \|", markdown)
    assert "(the lowest for Gini@10, where lower is better)" in markdown
    assert "A superscript letter" in markdown  # Novelty@10 is tested user by user
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    assert "holds" in capsys.readouterr().out


def test_a_report_that_tests_nothing_says_nothing_of_significance(recsys, tmp_path):
    """Gini@10 alone: one value per system, no paired test; before, the notes said 'No difference is
    significant' in every format."""
    for suffix in (".md", ".html", ".tex"):
        out = tmp_path / f"r{suffix}"
        _report(recsys, out, "Gini@10")
        text = re.sub(r"(?s)<style>.*?</style>", "", out.read_text())
        assert "significant" not in text.replace("not significant", "") and "superscript" not in text.lower()
        assert "no paired test" in text


def test_a_report_of_system_level_measures_alone_says_one_interval(recsys):
    """Before, Gini@10's report also said its interval was 'of the mean over queries', of which it has none."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = rankkit.report(str(recsys["test"]), {"pop": str(recsys["pop"]), "itemknn": str(recsys["itemknn"])},
                              ["Gini@10"], items=str(recsys["items"]), resamples=20)
    notes = made.to_markdown().split("## How the numbers were made")[0]
    assert "of the mean over queries" not in notes and "percentile bootstrap interval over users" in notes
