"""Beyond-accuracy measures in a report: the per-user ones (Novelty, ILD ...) like any measure, the
system-level ones (Coverage ...) with their bootstrap interval and no per-query values; the side tables
recorded as inputs, so that verify re-makes the report and sees a changed catalog or a forged number."""

from __future__ import annotations

import html
import json
import random

import duckdb
import pandas as pd
import pytest

import rankkit
from rankkit.cli import main

NAMES = ["nDCG@3", "Coverage@3", "novelty@3", "ILD(similarity=features)@3"]


def _write(folder):
    """Six users, two systems, a catalog of ten items with features (one item recommended is not in it)
    and a training log; the item file's name is hostile (markup and a control character)."""
    rng = random.Random(7)
    catalog = [f"i{n}" for n in range(10)]
    items = pd.DataFrame({"item_id": catalog, "features": [[rng.random() + 0.1, rng.random()] for _ in catalog]})
    log = pd.DataFrame(sorted({(f"u{rng.randint(0, 5)}", rng.choice(catalog)) for _ in range(30)}),
                       columns=["user_id", "item_id"])
    run = pd.DataFrame([(system, f"u{u}", item, float(5 - r)) for system in ("a", "b") for u in range(6)
                        for r, item in enumerate(rng.sample(catalog[: 5 if system == "a" else 10] + ["zz"], 4))],
                       columns=["system", "user_id", "item_id", "score"])
    test = pd.DataFrame({"user_id": [f"u{u}" for u in range(6)], "item_id": [f"i{u}" for u in range(6)],
                         "rating": [1] * 6})
    paths = {"items": folder / "it<b>ems\x07.parquet", "interactions": folder / "train.parquet",
             "qrels": folder / "test.parquet"}
    for name, frame in (("items", items), ("interactions", log), ("qrels", test)):
        frame.to_parquet(paths[name])
    for system in ("a", "b"):
        paths[system] = folder / f"{system}.parquet"
        run[run.system == system].drop(columns="system").to_parquet(paths[system])
    return paths


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    folder = tmp_path_factory.mktemp("beyond-report")
    paths = _write(folder)
    with pytest.warns(rankkit.RankkitWarning, match="not in items"):
        report = rankkit.report(str(paths["qrels"]), {"a": str(paths["a"]), "b": str(paths["b"])}, NAMES,
                                items=str(paths["items"]), interactions=str(paths["interactions"]), resamples=50)
    report.save(folder / "report.json")
    return folder, paths, report


def test_per_user_ones_are_measures_like_any_and_system_level_ones_have_their_interval(made):
    _, paths, report = made
    names = ["nDCG@3", "Coverage@3", "Novelty@3", "ILD(similarity=features)@3"]
    assert list(dict.fromkeys(report.aggregate.measure)) == names
    with pytest.warns(rankkit.RankkitWarning):
        expected = rankkit.evaluate(str(paths["qrels"]), {"a": str(paths["a"]), "b": str(paths["b"])}, names,
                                    items=str(paths["items"]), interactions=str(paths["interactions"]), ci=0.95,
                                    resamples=50)
    got = report.aggregate.set_index(["measure", "system"])
    for row in expected.itertuples(index=False):  # evaluate's numbers, intervals included
        assert tuple(got.loc[(row.measure, row.system), ["value", "ci_low", "ci_high"]]) == pytest.approx(
            (row.value, row.ci_low, row.ci_high))
    assert set(report.per_query.measure) == {"nDCG@3", "Novelty@3", "ILD(similarity=features)@3"}
    assert set(report.comparison.measure) == {"nDCG@3", "Novelty@3", "ILD(similarity=features)@3"}
    aggregates = {m["name"]: m["aggregate"] for m in report.record["measures"]}
    assert aggregates["Coverage@3"] == "system" and aggregates["Novelty@3"] == "mean"
    sides = {item["role"]: item for item in report.record["inputs"] if item["role"] in ("items", "interactions")}
    assert sides["items"]["rows"] == 10 and sides["interactions"]["given"] == str(paths["interactions"])
    assert all(len(item["sha256"]) == 64 and item["queries"] is None for item in sides.values())
    assert "items=" in report.record["call"] and "interactions=" in report.record["call"]


def test_every_format_says_the_system_level_ones_have_no_per_query_values(made):
    folder, _, report = made
    note = ("Coverage@3: one value per system, of all its users' lists together; in brackets, the 95% percentile "
            "bootstrap interval over users, moved by the bootstrap's bias")
    page = report.to_html()
    assert note in html.unescape(page) and "<b>ems" not in page and "\x07" not in page  # the hostile file name, escaped
    assert "it&lt;b&gt;ems" in page
    assert page.count("<figure>") == 6  # nDCG, Novelty, ILD: a distribution and the differences each
    assert note in report.to_markdown() and "Coverage@3" in report.to_markdown()
    assert "one value per system" in report.to_latex() and "items" in report.save(folder / "r.tex").read_text()
    csv = pd.read_csv(report.save(folder / "r.csv"))
    assert set(csv.measure) == {"nDCG@3", "Coverage@3", "Novelty@3", "ILD(similarity=features)@3"}
    report.save(folder / "r.parquet")
    metadata = dict(duckdb.sql(f"SELECT decode(key), decode(value) FROM parquet_kv_metadata("
                               f"'{folder / 'r.parquet'}')").fetchall())
    system_level = json.loads(metadata["rankkit_system_level"])
    assert {(row["measure"], row["system"]) for row in system_level} == {("Coverage@3", "a"), ("Coverage@3", "b")}
    assert "Coverage@3" not in set(duckdb.sql(f"SELECT measure FROM '{folder / 'r.parquet'}'").df().measure)


def test_verify_remakes_it_and_sees_a_forged_coverage_and_a_changed_catalog(made, tmp_path):
    folder, paths, _ = made
    with pytest.warns(rankkit.RankkitWarning):  # the item the catalog lacks, said again
        assert rankkit.verify(folder / "report.json").holds
    document = json.loads((folder / "report.json").read_text())
    for row in document["aggregate"]:
        if row["measure"] == "Coverage@3" and row["system"] == "b":
            row["value"] += 0.1
    (tmp_path / "forged.json").write_text(json.dumps(document))
    with pytest.warns(rankkit.RankkitWarning):
        outcome = rankkit.verify(tmp_path / "forged.json")
    assert not outcome.holds and [(m["table"], m["key"]) for m in outcome.moved] == [("aggregate", ("Coverage@3", "b"))]
    original = paths["items"].read_bytes()
    try:
        pd.read_parquet(paths["items"]).iloc[:8].to_parquet(paths["items"])  # two items fewer: coverage moves
        with pytest.warns(rankkit.RankkitWarning):
            outcome = rankkit.verify(folder / "report.json")
    finally:
        paths["items"].write_bytes(original)
    assert [item["role"] for item in outcome.changed] == ["items"]
    assert "input changed: items" in str(outcome) and "moved: aggregate Coverage@3" in str(outcome)


def test_the_command_line_records_the_side_tables_and_verify_agrees_with_its_call(made, tmp_path, capsys):
    _, paths, _ = made
    out = tmp_path / "cli.json"
    args = ["report", paths["qrels"], f"a={paths['a']}", f"b={paths['b']}", "-m", "nDCG@3", "-m", "Coverage@3",
            "-m", "Novelty@3", "--items", paths["items"], "--interactions", paths["interactions"], "--ci", "0",
            "-o", out]
    assert main(list(map(str, args))) == 0
    assert "--items" in json.loads(out.read_text())["record"]["call"]
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    assert "holds" in capsys.readouterr().out


@pytest.mark.parametrize("keywords, said", [
    ({"measures": ["ILD(similarity=features)@3"], "interactions": "interactions"},
     "measure ILD(similarity=features)@3 needs items= (--items) with a features column"),
    ({"measures": ["Novelty@3"]},
     "measure Novelty@3 needs interactions= (--interactions: the training log: user and item); none was given"),
    ({"measures": ["Coverage@3"], "items": pd.DataFrame({"title": ["x"]})},
     "the items DataFrame: no item_id column (also recognised: itemid"),
    ({"measures": ["nDCG@3"], "items": "items"}, "items= and interactions= (--items, --interactions) are the side "
                                                 "tables of the beyond-accuracy measures"),
    ({"measures": ["Coverage@3"], "items": "items", "by": "kind", "queries": "qrels"},
     "Coverage@3: the beyond-accuracy measures are not split by slice (by=) yet"),
])
def test_bad_side_tables_and_options_are_one_line(made, keywords, said):
    _, paths, _ = made
    keywords = {key: str(paths[value]) if isinstance(value, str) and value in paths else value
                for key, value in keywords.items()}
    measures = keywords.pop("measures")
    with pytest.raises(rankkit.RankkitError) as caught:
        rankkit.report(str(paths["qrels"]), {"a": str(paths["a"])}, measures, resamples=20, **keywords)
    assert said in str(caught.value) and "\n" not in str(caught.value)


def test_a_report_of_system_level_measures_alone_names_its_systems(made):
    _, paths, _ = made
    report = rankkit.report(str(paths["qrels"]), str(paths["b"]), ["Coverage@3"], items=str(paths["items"]), ci=None)
    assert report.record["systems"] == ["b"] and report.per_query.empty
    assert "| (a) b | 0." in report.to_markdown()
    assert "Mean over queries" not in report.to_markdown()  # no measure of the report is a mean over queries
    # two systems: nothing to compare per query (it crashed on the empty per-query values)
    both = rankkit.report(str(paths["qrels"]), {"a": str(paths["a"]), "b": str(paths["b"])}, ["Coverage@3"],
                          items=str(paths["items"]), ci=None)
    assert both.record["systems"] == ["a", "b"] and both.comparison.empty
