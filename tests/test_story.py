"""One story on every surface (issue 20): where the command line, Python, SQL and the report offer
the same thing (an interval, a format, a measure's name, a frame's columns, a label), they give the
same answer. One test per pair; each failed on the main branch the issue was reported against."""

from __future__ import annotations

import html
import json

import pandas as pd
import pytest

import rankkit
from rankkit.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::rankkit.errors.RankkitWarning")


def cli(capsys, *args) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def nearly_perfect(folder, queries: int = 40) -> dict:
    """Qrels and two runs whose RR@10 is near 1: most queries find their relevant document first,
    a few second. Student's t put the upper end of such a mean above 1."""
    qrels, runs = [], {"good": [], "fair": []}
    for q in range(queries):
        qrels.append(f"q{q:02d} 0 rel 1")
        for name, every in (("good", 20), ("fair", 3)):
            first = "other" if q % every == 0 else "rel"
            second = "rel" if first == "other" else "other"
            runs[name] += [f"q{q:02d} Q0 {first} 1 2 {name}", f"q{q:02d} Q0 {second} 2 1 {name}"]
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    paths = {}
    for name, lines in runs.items():
        paths[name] = folder / f"{name}.run"
        paths[name].write_text("\n".join(lines) + "\n")
    return {"qrels": folder / "qrels.txt", "runs": paths}


@pytest.fixture
def near_one(tmp_path):
    return nearly_perfect(tmp_path)


# ---- 1. one interval for an aggregate --------------------------------------------------------------

@pytest.mark.parametrize("test", ["t", "permutation"])
def test_evaluate_and_report_give_an_aggregate_the_same_interval(near_one, test):
    runs = {name: str(path) for name, path in near_one["runs"].items()}
    measures = ["RR@10", "NumRelRet"]
    made = rankkit.report(near_one["qrels"], list(runs.values()), measures, test=test, seed=3, resamples=2000)
    evaluated = rankkit.evaluate(near_one["qrels"], runs, measures, ci=0.95, seed=3, resamples=2000)
    # the report lists the systems in the order given, evaluate by name
    from rankkit.report.model import in_system_order

    pd.testing.assert_frame_equal(made.aggregate, in_system_order(evaluated, made.record["systems"]), check_exact=False,
                                  rtol=1e-12, atol=1e-12)
    assert made.record["statistics"]["interval"] == "bootstrap"


def test_an_interval_for_a_table_that_names_no_system():
    """With system always there, a run frame without one (system None) still gets its interval."""
    qrels = pd.DataFrame({"query_id": ["1", "2", "3", "4"], "doc_id": ["a"] * 4, "relevance": [1] * 4})
    run = pd.DataFrame({"query_id": ["1", "1", "2", "2", "3", "3", "4", "4"], "doc_id": ["a", "b"] * 4,
                        "score": [2.0, 1.0, 1.0, 2.0, 2.0, 1.0, 2.0, 1.0]})
    got = rankkit.evaluate(qrels, run, ["RR", "NumRet"], ci=0.9)
    assert got["system"].isna().all() and got["ci_low"].notna().all()
    assert got["ci_high"].tolist() == [1.0, 8.0]


def test_the_interval_of_a_measure_near_1_stays_inside_its_bounds(near_one):
    made = rankkit.report(near_one["qrels"], [str(p) for p in near_one["runs"].values()], ["RR@10"])
    rr = made.aggregate.set_index("system")
    assert rr.loc["good", "value"] > 0.9
    assert (rr["ci_low"] >= 0).all() and (rr["ci_high"] <= 1).all()
    assert (rr["ci_low"] <= rr["value"]).all() and (rr["value"] <= rr["ci_high"]).all()


def test_every_surface_names_the_aggregates_interval_alike(near_one, capsys):
    made = rankkit.report(near_one["qrels"], [str(p) for p in near_one["runs"].values()], ["RR@10"])
    name = "percentile bootstrap interval"
    from rankkit.report.render import latex_document

    for text in (made.to_markdown(), html.unescape(made.to_html()), latex_document(made).replace("\\%", "%")):
        assert f"95% {name} of the mean" in text
        assert "Student's t interval of the mean" not in text
        assert "Student's t interval of the difference" in text  # the comparison's follows the t-test
    assert name in " ".join(rankkit.evaluate.__doc__.split())
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "percentile bootstrap interval of each aggregate" in " ".join(capsys.readouterr().out.split())


def test_compare_labels_its_interval_as_the_differences(near_one, capsys):
    status, out, _ = cli(capsys, "compare", near_one["qrels"], *near_one["runs"].values(), "-m", "RR@10")
    assert status == 0
    assert "diff 95% CI" in out.splitlines()[0]
    assert "diff 95% CI: the Student's t interval of the mean difference" in out
    runs = {name: str(path) for name, path in near_one["runs"].items()}
    assert rankkit.compare(near_one["qrels"], runs, "RR@10").attrs["interval"] == "t"
    assert rankkit.compare(near_one["qrels"], runs, "RR@10", test="wilcoxon").attrs["interval"] == "bootstrap"


# ---- 5. a measure is labelled by what was computed -------------------------------------------------

def test_a_relevance_level_given_as_an_option_is_in_the_measures_label(near_one, capsys):
    qrels, run = near_one["qrels"], near_one["runs"]["fair"]
    asked = rankkit.evaluate(qrels, run, ["AP(rel=2)", "P(rel=2)@5"])
    given = rankkit.evaluate(qrels, run, ["AP", "P@5"], rel=2)
    pd.testing.assert_frame_equal(given, asked)
    assert given["measure"].tolist() == ["AP(rel=2)", "P(rel=2)@5"]
    status, out, _ = cli(capsys, "eval", "-l", "2", "-m", "AP", "--format", "csv", qrels, run)
    assert status == 0 and "\nAP(rel=2),fair,all," in out
    # trec_eval's names keep trec_eval's spelling: trec_eval -l 2 prints map
    assert rankkit.evaluate(qrels, run, ["map"], rel=2)["measure"].tolist() == ["map"]
    made = rankkit.report(qrels, [str(run)], ["AP"], conventions=rankkit.Conventions(rel=2))
    assert made.aggregate["measure"].tolist() == ["AP(rel=2)"]
    assert [m["label"] for m in made.record["measures"]] == ["AP(rel=2)"]
    assert "| AP(rel=2) |" in made.to_markdown().replace("\\", "")


# ---- 3. rankkit measures takes what eval -m takes ---------------------------------------------------

@pytest.mark.parametrize("name, meant, measure", [
    ("ndcg_cut_10", "nDCG@10", "nDCG"), ("P_10", "P@10", "P"), ("map_cut_10", "AP@10", "AP"),
    ("iprec_at_recall_0.50", "IPrec@0.5", "IPrec"), ("P.5,10", "P@5", "P"), ("ap", "AP", "AP")])
def test_measures_explains_every_name_eval_takes(capsys, near_one, name, meant, measure):
    status, out, _ = cli(capsys, "measures", name)
    assert status == 0
    assert f"means {meant}\n" in out and f"\n{measure}: " in out
    # eval takes the same name, and computes what measures says it means
    status, evaluated, _ = cli(capsys, "eval", "-m", name, "--format", "json", near_one["qrels"],
                               near_one["runs"]["good"])
    status, canonical, _ = cli(capsys, "eval", "-m", meant, "--format", "json", near_one["qrels"],
                               near_one["runs"]["good"])
    assert json.loads(evaluated)[0]["value"] == json.loads(canonical)[0]["value"]


def test_measures_says_an_unknown_name_is_unknown(capsys):
    status, _, err = cli(capsys, "measures", "nope_10")
    assert status == 2 and "unknown measure 'nope_10'" in err


# ---- 2. machine formats carry full precision, on stdout as in -o ---------------------------------------

@pytest.mark.parametrize("per_query", [[], ["-q"]])
def test_csv_on_stdout_is_what_o_writes(capsys, near_one, tmp_path, per_query):
    runs = list(near_one["runs"].values())
    args = ["eval", *per_query, "-m", "nDCG@10", "-m", "RR", "-m", "NumRet", near_one["qrels"], *runs]
    status, printed, _ = cli(capsys, *args, "--format", "csv")
    assert status == 0
    assert cli(capsys, *args, "-o", tmp_path / "out.csv")[:2] == (0, "")
    assert (tmp_path / "out.csv").read_text() == printed


def test_json_on_stdout_carries_the_fields_and_precision_of_o(capsys, near_one, tmp_path):
    qrels, run = near_one["qrels"], near_one["runs"]["fair"]
    status, printed, _ = cli(capsys, "eval", "-q", "-m", "nDCG@10", "--format", "json", qrels, run)
    cli(capsys, "eval", "-q", "-m", "nDCG@10", "-o", tmp_path / "out.json", qrels, run)
    assert json.loads(printed) == json.loads((tmp_path / "out.json").read_text())
    records = {r["query_id"]: r for r in json.loads(printed)}
    assert list(records["all"]) == ["measure", "system", "query_id", "value", "queries"]
    python = rankkit.evaluate(qrels, run, "nDCG@10")
    assert records["all"]["value"] == python["value"].item()  # every bit, not 4 decimals
    assert records["all"]["system"] == python["system"].item() == "fair"


def test_digits_given_still_round_machine_formats(capsys, near_one, tmp_path):
    qrels, run = near_one["qrels"], near_one["runs"]["fair"]
    status, printed, _ = cli(capsys, "eval", "-m", "nDCG@10", "--digits", "2", "--format", "json", qrels, run)
    value = json.loads(printed)[0]["value"]
    assert value == round(rankkit.evaluate(qrels, run, "nDCG@10")["value"].item(), 2)
    cli(capsys, "eval", "-m", "nDCG@10", "--digits", "2", "-o", tmp_path / "out.json", qrels, run)
    assert json.loads((tmp_path / "out.json").read_text())[0]["value"] == value


def test_trec_format_aligns_the_columns_of_several_runs(capsys, near_one, tmp_path):
    short = tmp_path / "a.run"
    short.write_text(near_one["runs"]["good"].read_text())
    status, out, _ = cli(capsys, "eval", "-q", "-m", "RR", "-m", "P@5", near_one["qrels"], short,
                         near_one["runs"]["fair"])
    assert status == 0
    assert len({line.index("\t") for line in out.splitlines()}) == 1  # the measure column starts alike
    assert {line.split("\t")[0] for line in out.splitlines()} == {"a   ", "fair"}
    status, one, _ = cli(capsys, "eval", "-m", "RR", near_one["qrels"], short)
    assert one.splitlines()[-1] == "RR                    \tall\t0.9750"  # one run: trec_eval's layout


def test_the_explorer_spells_a_measure_as_the_report_does():
    from rankkit.specs import measure_specs
    from rankkit.explore.data import parse_measure
    from rankkit.measures import label

    con = rankkit.connect()
    for name in ["nDCG(ideal=run, gain=exp, empty=skip)@10", "P(rel=2)@5", "ERR(max=3)@20"]:
        assert parse_measure(con, name).name == label(measure_specs(con, [name])[0])
