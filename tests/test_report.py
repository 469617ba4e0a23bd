"""rankkit.report: the Report's tables against evaluate and compare, its exports (golden Markdown,
LaTeX and CSV; JSON and Parquet read back; HTML in headless Chromium; the .tex through pdflatex),
the record, verify, and the command line."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import rankkit
from rankkit.cli import main
from rankkit.errors import InputError, RankkitError
from support import ROOT, shared_path

GOLDEN = ROOT / "tests" / "golden" / "report"
# DuckDB sums in parallel: the same number may differ in its last bit from one run to the next
CLOSE = dict(check_exact=False, rtol=1e-12, atol=1e-12)
MEASURES = ["ndcg_cut_10", "AP", "RR", "P(rel=2)@5", "NumRelRet"]  # a trec_eval name: labelled nDCG@10
SYSTEMS = {"bm25": 1.6, "dense_v2": 0.9, "hybrid": 0.8}  # name: noise (less noise, better ranking)


def write_inputs(folder: Path, queries: int = 16, seed: int = 7) -> dict:
    """Qrels, three runs and a query table, as TREC text and CSV, the same every time."""
    rng = random.Random(seed)
    qrels, runs, topics = [], {name: [] for name in SYSTEMS}, ["query_id,category"]
    for q in range(1, queries + 1):
        qid = f"q{q:02d}"
        grades = {f"d{d:02d}": rng.choice((0, 0, 1, 1, 2, 3)) for d in rng.sample(range(40), 12)}
        qrels += [f"{qid} 0 {doc} {grade}" for doc, grade in sorted(grades.items())]
        for name, noise in SYSTEMS.items():
            scored = {f"d{d:02d}": grades.get(f"d{d:02d}", 0) + rng.gauss(0, noise) for d in range(40)}
            top = sorted(scored.items(), key=lambda item: -item[1])[:20]
            runs[name] += [f"{qid} Q0 {doc} {rank} {round(score * 8) / 8:g} {name}"
                           for rank, (doc, score) in enumerate(top, 1)]
        topics.append(f"{qid},{'short' if q % 3 else 'long'}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    paths = {}
    for name, lines in runs.items():
        paths[name] = folder / f"{name}.run"
        paths[name].write_text("\n".join(lines) + "\n")
    (folder / "topics.csv").write_text("\n".join(topics) + "\n")
    return {"qrels": folder / "qrels.txt", "runs": paths, "topics": folder / "topics.csv"}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return write_inputs(tmp_path_factory.mktemp("report-inputs"))


@pytest.fixture(scope="module")
def made(inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rankkit.report(inputs["qrels"], list(inputs["runs"].values()), MEASURES, baseline="bm25",
                              by="category", queries=inputs["topics"], title="Three systems & a baseline")


def fixed(report: rankkit.Report, folder: Path) -> rankkit.Report:
    """The report with what changes from run to run (date, versions, temporary paths) pinned, for golden files."""
    text = json.dumps(report.record).replace(str(folder.resolve()), "/data").replace(str(folder), "/data")
    record = json.loads(text)
    record.update(date="2026-01-01T00:00:00+00:00", rankkit="0.1.0", duckdb="2.0.0", python="3.11.7")
    return rankkit.Report(title=report.title, record=record, aggregate=report.aggregate, comparison=report.comparison,
                          per_query=report.per_query, coverage=report.coverage, slices=report.slices)


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("RANKKIT_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with RANKKIT_UPDATE_GOLDEN=1 once and read what it wrote"
    assert text == path.read_text(encoding="utf-8")


# ---- the tables are evaluate's and compare's ------------------------------------------------------

def test_tables_equal_evaluate_and_compare(inputs, made):
    runs = {name: str(path) for name, path in inputs["runs"].items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        aggregate = rankkit.evaluate(inputs["qrels"], runs, MEASURES)
        per_query = rankkit.evaluate(inputs["qrels"], runs, MEASURES, per_query=True)
        comparison = rankkit.compare(inputs["qrels"], runs, MEASURES, baseline="bm25")
        slices = rankkit.evaluate(inputs["qrels"], runs, MEASURES, by="category", query_table=inputs["topics"])
    pd.testing.assert_frame_equal(made.aggregate[aggregate.columns], aggregate, **CLOSE)
    pd.testing.assert_frame_equal(made.per_query, per_query, **CLOSE)
    pd.testing.assert_frame_equal(made.comparison, comparison, **CLOSE)
    pd.testing.assert_frame_equal(made.slices, slices, **CLOSE)
    assert made.record["systems"] == ["bm25", "dense_v2", "hybrid"]


def test_intervals_are_evaluates_bootstrap_whatever_the_test(inputs, made):
    runs = {name: str(path) for name, path in inputs["runs"].items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bootstrap = rankkit.evaluate(inputs["qrels"], runs, MEASURES, ci=0.95)
    pd.testing.assert_frame_equal(made.aggregate, bootstrap, **CLOSE)
    assert made.record["statistics"]["interval"] == "bootstrap"


def test_coverage_is_judged_at_every_cutoff_of_the_measures(inputs, made):
    # nDCG@10 and P@5 have cutoffs; AP, RR and NumRelRet score the whole list
    assert made.record["coverage"] == ["Judged@5", "Judged@10", "Judged"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        judged = rankkit.evaluate(inputs["qrels"], {n: str(p) for n, p in inputs["runs"].items()},
                                  made.record["coverage"])
    pd.testing.assert_frame_equal(made.coverage[judged.columns], judged, **CLOSE)
    assert made.coverage["value"].between(0, 1).all()


def test_record_says_how_the_numbers_were_made(inputs, made):
    record = made.record
    assert record["rankkit"] and record["duckdb"] == duckdb.__version__ and record["date"].endswith("+00:00")
    assert record["call"].startswith("rankkit.report(") and "baseline='bm25'" in record["call"]
    assert record["conventions"] == rankkit.Conventions().as_dict()
    ndcg = record["measures"][0]
    assert (ndcg["name"], ndcg["label"], ndcg["measure"]) == ("ndcg_cut_10", "nDCG@10", "nDCG")
    assert ndcg["params"] == {"k": "10", "gain": "linear", "gains": None, "ideal": "qrels", "discount": "log2",
                              "empty": "zero"}
    assert record["measures"][3]["params"] == {"k": "5", "rel": "2", "short": "k", "empty": "zero", "scored": "any"}  # P(rel=2)@5 says its own relevance level
    assert record["statistics"] == {"test": "t", "correction": "holm", "alpha": 0.05, "ci": 0.95, "interval": "bootstrap",
                                    "difference_interval": "t", "seed": 0, "resamples": 10000, "baseline": "bm25"}
    import hashlib

    qrels = record["inputs"][0]
    assert qrels["role"] == "qrels" and qrels["path"] == str(inputs["qrels"].resolve())
    assert qrels["sha256"] == hashlib.sha256(inputs["qrels"].read_bytes()).hexdigest()
    assert (qrels["rows"], qrels["queries"]) == (16 * 12, 16)
    assert [(i["role"], i["name"], i["rows"]) for i in record["inputs"][1:]] == [
        ("run", "bm25", 320), ("run", "dense_v2", 320), ("run", "hybrid", 320), ("queries", None, 16)]


def test_the_table_of_measures_shows_every_parameter_with_its_value_and_verify_remakes_it(inputs, tmp_path):
    runs = [str(path) for path in inputs["runs"].values()][:1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = rankkit.report(inputs["qrels"], runs, ["RBP(p=0.8)", "nDCG(gains=[1=3,2=9])@10", "IPrec@0.5"])
    markdown = made.to_markdown()
    assert "| RBP(p=0.8) | RBP(p=0.8) | p=0.8, binary\\_rel=none | mean |" in markdown
    assert "| k=10, gain=linear, gains=\\[1=3,2=9\\], ideal=qrels, discount=log2, empty=zero |" in markdown
    assert "| IPrec@0.5 | IPrec@0.5 | recall=0.5, rel=1 |" in markdown
    made.save(tmp_path / "r.json")
    assert rankkit.verify(tmp_path / "r.json")
    assert rankkit.Report.load(tmp_path / "r.json").to_markdown() == markdown


def test_warnings_are_raised_and_recorded(inputs, tmp_path):
    lines = inputs["runs"]["bm25"].read_text().splitlines()
    extra = tmp_path / "extra.run"
    extra.write_text("\n".join(lines + ["q99 Q0 d01 1 1.0 extra"]) + "\n")
    with pytest.warns(rankkit.RankkitWarning, match="no judgments"):
        made = rankkit.report(inputs["qrels"], [extra], ["AP"])
    assert any("q99" in text for text in made.record["warnings"])
    assert made.comparison.empty and "none (one system)" in made.to_markdown()  # one system: nothing to compare


def test_conventions_travel_to_the_numbers_and_the_record(inputs):
    conventions = rankkit.Conventions(queries="qrels", depth=5, rel=2)
    runs = [str(inputs["runs"]["bm25"]), str(inputs["runs"]["hybrid"])]
    made = rankkit.report(inputs["qrels"], runs, ["AP", "P@5"], conventions=conventions, ci=None)
    direct = rankkit.evaluate(inputs["qrels"], {"bm25": runs[0], "hybrid": runs[1]}, ["AP", "P@5"], queries="qrels",
                              depth=5, rel=2)
    pd.testing.assert_frame_equal(made.aggregate, direct, **CLOSE)
    assert made.record["conventions"] == {"ties": "trec", "scores": "double", "depth": 5, "queries": "qrels",
                                          "rel": 2.0, "duplicates": "error", "judged_only": False, "docs": 0,
                                          "pack": None}
    same = rankkit.evaluate(inputs["qrels"], {"bm25": runs[0], "hybrid": runs[1]}, ["AP", "P@5"],
                            conventions=conventions)
    pd.testing.assert_frame_equal(same, direct, **CLOSE)
    with pytest.raises(RankkitError, match="either as conventions= or as keywords, not both: depth"):
        rankkit.evaluate(inputs["qrels"], runs[0], "AP", depth=3, conventions=conventions)
    with pytest.raises(RankkitError, match="depth must be a positive integer"):
        rankkit.Conventions(depth=2.5)


@pytest.mark.parametrize("depth", [0, -3])
def test_a_depth_below_one_is_refused_by_every_python_surface(inputs, depth):
    """evaluate of files returned an empty frame for depth=0 and compare and report failed with
    KeyError 'i'; the CLI and SQL refuse it, and so does Python now, before reading anything."""
    runs = [str(inputs["runs"]["bm25"]), str(inputs["runs"]["hybrid"])]
    calls = [lambda: rankkit.evaluate(inputs["qrels"], runs[0], "P@5", depth=depth),
             lambda: rankkit.compare(inputs["qrels"], runs, "P@5", depth=depth),
             lambda: rankkit.report(inputs["qrels"], runs, ["P@5"], depth=depth, ci=None)]
    for call in calls:
        with pytest.raises(RankkitError, match=f"depth must be a positive integer or None, got {depth}"):
            call()


# ---- exports --------------------------------------------------------------------------------------

def test_markdown_golden(inputs, made):
    golden("report.md", fixed(made, inputs["qrels"].parent).to_markdown())


def test_latex_golden(inputs, made):
    text = fixed(made, inputs["qrels"].parent).to_latex()
    golden("table.tex", text)
    assert r"\toprule" in text and r"dense\_v2" in text and r"\textbf{" in text and r"\textsuperscript{a}" in text
    assert text == made.table("latex").replace(made.record["date"], "2026-01-01T00:00:00+00:00").replace(
        made.record["rankkit"], "0.1.0")


def _interval(made, measure: str, system: str) -> str:
    row = made.aggregate.set_index(["measure", "system"]).loc[(measure, system)]
    return f"[{row['ci_low']:.4f}, {row['ci_high']:.4f}]"


def test_table_is_systems_by_measures_with_caption_label_and_optional_intervals(made):
    bm25 = _interval(made, "ndcg_cut_10", "bm25")
    latex = made.table("latex")
    assert r"\begin{table}" in latex and r"\caption{Three systems \& a baseline}" in latex
    assert r"\label{tab:three-systems-a-baseline}" in latex and bm25 not in latex
    lines = latex.splitlines()
    assert lines[lines.index(r"\midrule") - 1].startswith("System & nDCG@10 & AP & RR & P(rel=2)@5 & NumRelRet")
    names = [line.split(" & ")[0] for line in lines if line.startswith("(")]
    assert names == ["(a) bm25", r"(b) dense\_v2", "(c) hybrid"]
    assert "superscript letter: significantly better" in latex
    wide = made.table("latex", intervals=True, caption="DL19: 100% of it", label="tab:dl19")
    assert rf"{{\scriptsize {bm25}}}" in wide and r"\caption{DL19: 100\% of it}" in wide and r"\label{tab:dl19}" in wide
    assert r"In brackets: the 95\%" in wide and "In brackets" not in latex  # the note names what is shown
    markdown = made.table("markdown", caption="DL19")
    assert markdown.startswith("| system | nDCG@10 | AP | RR | P(rel=2)@5 | NumRelRet | queries |\n|:---|")
    assert "| (c) hybrid | **0.8333**<sup>a</sup> |" in markdown and "\nTable: DL19\n" in markdown
    assert bm25 not in markdown and bm25 in made.table("markdown", intervals=True)
    assert made.to_latex(caption="DL19", label="tab:x") == made.table("latex", caption="DL19", label="tab:x")


def test_table_refuses_an_unknown_format_and_a_label_latex_cannot_take(made):
    with pytest.raises(InputError, match=r"format 'html': expected one of 'latex', 'markdown'"):
        made.table("html")
    with pytest.raises(InputError, match=r"label 'tab:my results': expected letters, digits and"):
        made.table("latex", label="tab:my results")


def test_pasted_table_compiles_in_a_plain_article(made, tmp_path):
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.skip("pdflatex is absent: apt-get install texlive-latex-recommended")
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                                        "Table~\\ref{tab:dl19} shows it.\n" + made.table("latex", label="tab:dl19")
                                        + "\\end{document}\n")
    for _ in range(2):  # the second pass resolves \ref
        done = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-3000:]
    log = (tmp_path / "paper.log").read_text(errors="replace")
    assert "Overfull" not in log and "undefined" not in log  # five measures fit a 10pt article's text width


def test_csv_golden_and_read_back(inputs, made):
    import io

    text = made.to_csv()
    if os.environ.get("RANKKIT_UPDATE_GOLDEN"):
        golden("aggregate.csv", text)
    # the text is compared as a table: the last bit of a float may change from run to run (see CLOSE)
    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(text)), pd.read_csv(GOLDEN / "aggregate.csv"), **CLOSE)
    back = pd.read_csv(io.StringIO(text))
    merged = back.merge(made.aggregate, on=["measure", "system"], suffixes=("", "_report"))
    assert len(merged) == len(made.aggregate)
    assert (merged["value"] == merged["value_report"]).all()  # every bit: floats are written by repr


def test_json_reads_back_equal(inputs, made, tmp_path):
    path = made.save(tmp_path / "report.json")
    back = rankkit.Report.load(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = rankkit.evaluate(inputs["qrels"], {n: str(p) for n, p in inputs["runs"].items()}, MEASURES,
                                  per_query=True)
    pd.testing.assert_frame_equal(back.per_query, direct, **CLOSE)  # evaluate's numbers, through the file
    assert back.title == made.title and back.record == json.loads(json.dumps(made.record))
    for table in ("aggregate", "per_query", "coverage", "slices"):
        pd.testing.assert_frame_equal(getattr(back, table), getattr(made, table), **CLOSE, check_dtype=False)
    pd.testing.assert_frame_equal(back.comparison, made.comparison, **CLOSE, check_dtype=False)
    assert back.to_markdown() == made.to_markdown()  # exported again without the inputs


def test_parquet_is_long_with_the_record(made, tmp_path):
    path = made.save(tmp_path / "values.parquet")
    con = duckdb.connect()
    values = con.execute(f"SELECT * FROM read_parquet('{path}')").df()
    assert list(values.columns) == ["system", "query_id", "measure", "value"]
    expected = made.per_query[["system", "query_id", "measure", "value"]]
    pd.testing.assert_frame_equal(values, expected, **CLOSE, check_dtype=False)  # made's are evaluate's (above)
    metadata = dict(con.execute(f"SELECT decode(key), decode(value) FROM parquet_kv_metadata('{path}')").fetchall())
    assert json.loads(metadata["rankkit_report"])["record"] == json.loads(json.dumps(made.record))


def test_html_is_one_file_with_everything(made):
    page = made.to_html()
    assert page.startswith("<!DOCTYPE html>") and "http://" not in page and "https://" not in page
    # hybrid is best on the four means, dense_v2 ties it on RR; NumRelRet is a sum, not marked
    assert page.count('class="best"') == 5
    # a measure's label in a head may break between its parts only (nDCG / @10): a box each
    assert 'class="per-query"' in page and '<span class="part">Judged</span><span class="part">@10</span>' in page
    assert "Slices by category" in page
    fragment = made._repr_html_()
    assert "<html" not in fragment and 'class="aggregate"' in fragment


def test_save_chooses_by_suffix_and_refuses_others(made, tmp_path):
    for suffix in (".html", ".md", ".tex", ".csv", ".json", ".parquet"):
        assert made.save(tmp_path / f"r{suffix}").stat().st_size > 500
    assert (tmp_path / "r.tex").read_text().startswith(r"\documentclass")
    with pytest.raises(InputError, match=r"r\.docx: a report is saved as .html"):
        made.save(tmp_path / "r.docx")


def test_load_refuses_what_is_not_a_report(tmp_path):
    (tmp_path / "x.json").write_text('{"a": 1}')
    with pytest.raises(InputError, match=r"x\.json: not a rankkit report"):
        rankkit.Report.load(tmp_path / "x.json")
    (tmp_path / "y.json").write_text("not json")
    with pytest.raises(InputError, match=r"y\.json: not a rankkit report saved as JSON"):
        rankkit.Report.load(tmp_path / "y.json")
    with pytest.raises(InputError, match="no such file"):
        rankkit.Report.load(tmp_path / "absent.json")


def test_by_needs_a_query_table(inputs):
    with pytest.raises(RankkitError, match="give queries="):
        rankkit.report(inputs["qrels"], [inputs["runs"]["bm25"]], "AP", by="category")


# ---- the browser and pdflatex ---------------------------------------------------------------------

CHROMIUM = os.environ.get("RANKKIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def test_html_renders_offline_in_chromium(made, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test drives Chromium with Playwright")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (or set RANKKIT_CHROMIUM)")
    path = made.save(tmp_path / "report.html")
    refused, requested = [], []

    def route(request_route):
        url = request_route.request.url
        requested.append(url)
        if url.startswith("file://") or url.startswith("data:"):
            request_route.continue_()
        else:
            refused.append(url)
            request_route.abort()

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.route("**/*", route)
            page.goto(path.as_uri())
            page.wait_for_load_state("load")
            shown = page.evaluate("""() => ({
                tables: [...document.querySelectorAll('table')].map(t => t.className),
                best: [...document.querySelectorAll('table.aggregate td.best')].map(td => td.innerText),
                marks: [...document.querySelectorAll('table.aggregate sup.beats')].map(s => s.innerText),
                images: [...document.images].map(i => ({ok: i.complete && i.naturalWidth > 0, alt: i.alt})),
                rows: document.querySelectorAll('table.per-query tbody tr').length,
                width: document.documentElement.scrollWidth,
            })""")
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            browser.close()
    assert (tmp_path / "report.png").stat().st_size > 10_000
    assert refused == [] and all(url.startswith("file://") for url in requested), requested
    assert {"aggregate", "comparison", "coverage", "slices", "per-query"} <= set(" ".join(shown["tables"]).split())
    assert len(shown["best"]) == 5 and shown["marks"], shown
    assert all(image["ok"] for image in shown["images"]), shown["images"]
    assert len(shown["images"]) == len(made.record["measures"]) * 2 or not _plots_available()
    assert shown["rows"] == 16
    assert shown["width"] <= 1280  # wide tables scroll in their own box: the page itself never scrolls sideways


# Printable width in CSS pixels (96 per inch) of each paper, less the report's 12 mm margins.
PAPERS = {"A4": (210 - 24) / 25.4 * 96, "Letter": 8.5 * 96 - 24 / 25.4 * 96}


def test_html_prints_on_a4_and_letter_with_nothing_cut_off(made, tmp_path):
    """Printed, the per-query table (three systems by five measures) ran past the page's right edge."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the print test drives Chromium with Playwright")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (or set RANKKIT_CHROMIUM)")
    path = made.save(tmp_path / "report.html")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for paper, width in PAPERS.items():
                page = browser.new_page(viewport={"width": int(width), "height": 1000})
                page.emulate_media(media="print")
                page.goto(path.as_uri())
                laid = page.evaluate("""() => ({
                    page: document.documentElement.scrollWidth,
                    right: Math.max(...[...document.querySelectorAll('.rankkit-report *')].map(
                        e => e.getBoundingClientRect().right + parseFloat(getComputedStyle(e).marginRight))),
                    wrapped: [...document.querySelectorAll('table.per-query td, table.aggregate .value')]
                        .filter(cell => {
                        const range = document.createRange(); range.selectNodeContents(cell);
                        return range.getClientRects().length > 1; }).length,
                })""")
                assert laid["page"] <= int(width) and laid["right"] <= int(width) + 0.5, (paper, laid)
                assert laid["wrapped"] == 0, (paper, laid)  # a value on one line, not broken to fit
                page.pdf(path=str(tmp_path / f"{paper}.pdf"), format=paper)
                page.close()
        finally:
            browser.close()
    if shutil.which("pdftotext"):  # on paper, every query's line holds its id and all 15 values
        for paper in PAPERS:
            text = subprocess.run(["pdftotext", "-layout", f"{paper}.pdf", "-"], cwd=tmp_path, check=True,
                                  capture_output=True, text=True, timeout=120).stdout
            lines = [line.split() for line in text.splitlines() if re.match(r"\s*q\d\d\s", line)]
            assert len(lines) == 16 and all(len(line) == 16 for line in lines), (paper, lines)


def test_html_splits_a_per_query_table_too_wide_for_paper(made):
    """Seven systems by five measures: tables of three, three and one systems, each query in each."""
    extra = [made.per_query.assign(system=made.per_query["system"] + f"_{i}") for i in (2, 3)]
    systems = made.record["systems"] + [f"{s}_{i}" for i in (2, 3) for s in made.record["systems"]][:4]
    wide = rankkit.Report(title=made.title, record={**made.record, "systems": systems}, aggregate=made.aggregate,
                          per_query=pd.concat([made.per_query, *extra]))
    page = wide.to_html()
    assert page.count('<table class="per-query">') == 3
    heads = re.findall(r'<th class="system" colspan="(\d+)" title="[^"]*"><bdi>([^<]+)</bdi></th>', page)
    assert heads == [("5", s) for s in systems]
    assert page.count("<td class=\"name\">q01</td>") == 3


def _plots_available() -> bool:
    try:
        import rankkit.plot  # noqa: F401
    except ImportError:
        return False
    return True


def test_tex_document_compiles_with_pdflatex(made, tmp_path):
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.skip("pdflatex is absent: apt-get install texlive-latex-recommended")
    text = made.save(tmp_path / "report.tex").read_text()
    # the intervals the HTML shows, a caption and a label on every table of numbers
    assert _interval(made, "AP", "hybrid") in text and r"\label{tab:aggregate}" in text
    assert text.count(r"\caption{") == text.count(r"\label{tab:") == 4  # aggregate, comparison, coverage, slices
    # no heading or table head left at a page foot: each heading keeps room under it, each long table
    # repeats its head on the next page
    assert r"\section*" not in text.split(r"\begin{document}")[1] and text.count(r"\heading{") == 5
    assert text.count(r"\begin{longtable}") == text.count(r"\endhead") == 7
    for _ in range(2):  # longtable settles its column widths on the second pass
        done = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "report.tex"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-3000:]
    assert (tmp_path / "report.pdf").stat().st_size > 10_000
    assert "Overfull" not in (tmp_path / "report.log").read_text(errors="replace")
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-png", "-r", "80", "report.pdf", "page"], cwd=tmp_path, check=True, timeout=120)
        assert list(tmp_path.glob("page-*.png"))
    if shutil.which("pdftotext"):  # no page ends with a heading or a table's head
        pages = subprocess.run(["pdftotext", "-layout", "report.pdf", "-"], cwd=tmp_path, check=True, text=True,
                               capture_output=True, timeout=120).stdout.split("\f")
        for page in pages[:-2]:
            lines = [line.strip() for line in page.splitlines() if line.strip()][:-1]  # the page number
            assert lines[-1] not in ("Aggregate", "Comparison", "Judgment coverage", "Slices by category",
                                     "How the numbers were made") and not lines[-1].startswith(("Table ", "System ")), \
                page[-300:]


def test_tex_document_of_many_systems_breaks_its_aggregate_across_pages(made, tmp_path):
    """Thirty systems with intervals are taller than a page: a float would run off its foot."""
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        pytest.skip("pdflatex is absent: apt-get install texlive-latex-recommended")
    systems = [f"run{i:02d}" for i in range(30)]
    aggregate = pd.concat([made.aggregate[made.aggregate["system"] == "bm25"].assign(system=name) for name in systems])
    many = rankkit.Report(title="Thirty runs", record={**made.record, "systems": systems}, aggregate=aggregate)
    text = many.save(tmp_path / "report.tex").read_text()
    assert r"\begin{longtable}" in text.split(r"\heading{Aggregate}")[1].split(r"\heading")[0]
    for _ in range(2):
        done = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "report.tex"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-3000:]
    log = (tmp_path / "report.log").read_text(errors="replace")
    assert "Float too large" not in log and "Overfull" not in log
    if shutil.which("pdftotext"):  # every system's row, each under a head
        pages = subprocess.run(["pdftotext", "-layout", "report.pdf", "-"], cwd=tmp_path, check=True, text=True,
                               capture_output=True, timeout=120).stdout.split("\f")
        rows = [line for line in "\n".join(pages).splitlines() if re.match(r"\s*\([a-z]\d?\) run\d\d", line)]
        assert len(rows) == 30
        assert all("System" in page for page in pages if re.search(r"\([a-z]\d?\) run\d\d", page))


# ---- a real pair: the Parquet's per-query values are trec_eval's ----------------------------------

def test_parquet_per_query_values_equal_trec_eval_on_dl19(tmp_path):
    from test_conformance import read_trec_eval

    qrels = shared_path("data", "anserini-tools", "qrels.dl19-passage.txt")
    names = ["BM25", "D_BERT_KD_TASB"]
    runs = {name: shared_path("data", "rank_llm", f"dl19.{name}.trec_results.txt") for name in names}
    measures = ["ndcg_cut_10", "map", "recip_rank", "P_10", "recall_100", "bpref"]
    made = rankkit.report(qrels, runs, measures, baseline="BM25")
    path = made.save(tmp_path / "dl19.parquet")
    values = duckdb.connect().execute(f"SELECT system, query_id, measure, value FROM '{path}'").fetchall()
    checked = 0
    for name in names:
        expected = read_trec_eval(shared_path("data", "rank_llm", "expected", f"dl19.{name}.all_trec.q.hp.txt.gz"))
        got = {(measure, query): value for system, query, measure, value in values if system == name}
        for measure in measures:
            for (m, query), text in expected.items():
                if m == measure and query != "all":
                    assert got[(measure, query)] == pytest.approx(float(text), abs=1e-9), (name, measure, query)
                    checked += 1
    assert checked == 2 * len(measures) * 43


# ---- verify ---------------------------------------------------------------------------------------

def test_verify_holds_then_names_the_changed_input_and_the_moved_numbers(inputs, tmp_path):
    folder = tmp_path / "copy"
    copied = write_inputs(folder)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = rankkit.report(copied["qrels"], list(copied["runs"].values()), ["nDCG@10", "AP"], baseline="bm25",
                              test="permutation", resamples=2000)
    saved = made.save(tmp_path / "report.json")
    outcome = rankkit.verify(saved)
    assert outcome.holds and bool(outcome) and "holds" in str(outcome) and outcome.checked > 150
    run = copied["runs"]["dense_v2"]
    lines = run.read_text().splitlines()
    first = lines[0].split()
    lines[0] = " ".join(first[:4] + ["-100", first[5]])  # q01's top document drops to the bottom
    run.write_text("\n".join(lines) + "\n")
    outcome = rankkit.verify(saved)
    text = str(outcome)
    assert not outcome.holds and "does not hold" in text
    assert [item["name"] for item in outcome.changed] == ["dense_v2"] and str(run.resolve()) in text
    moved = {(item["table"], item["key"]) for item in outcome.moved}
    assert ("per_query", ("AP", "dense_v2", "q01")) in moved and ("aggregate", ("AP", "dense_v2")) in moved
    assert not any(item["table"] == "per_query" and "bm25" == item["key"][1] for item in outcome.moved)
    assert "moved: per_query AP, dense_v2, q01 value" in text


def test_verify_refuses_a_report_made_from_frames(tmp_path):
    qrels = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    path = rankkit.report(qrels, run, "AP").save(tmp_path / "r.json")
    with pytest.raises(InputError, match="cannot be verified: qrels was a DataFrame, not a file"):
        rankkit.verify(path)


# ---- command line ---------------------------------------------------------------------------------

def test_cli_report_and_verify(inputs, tmp_path, capsys):
    runs = [str(p) for p in inputs["runs"].values()]
    out = tmp_path / "r.json"
    assert main(["report", str(inputs["qrels"]), *runs, "-m", "nDCG@10", "-m", "map", "--baseline",
                 runs[0], "--by", "category", "--queries", str(inputs["topics"]), "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    saved = rankkit.Report.load(out)
    assert saved.record["call"].startswith("rankkit report ") and "--baseline bm25.run" not in saved.record["call"]
    assert saved.record["statistics"]["baseline"] == "bm25" and saved.record["systems"] == list(SYSTEMS)
    assert main(["verify", str(out)]) == 0
    assert "holds" in capsys.readouterr().out
    for suffix in (".html", ".md", ".tex", ".csv", ".parquet"):
        assert main(["report", str(inputs["qrels"]), *runs, "-m", "P@5", "-o", str(tmp_path / f"r{suffix}")]) == 0
        assert (tmp_path / f"r{suffix}").exists()


def test_cli_eval_prints_the_reports_table_as_latex_and_markdown(inputs, made, capsys):
    """rankkit eval with several runs prints the Report's systems x measures table (means only: eval
    runs no test, and its note says so), drawn by the same renderer."""
    runs = [str(path) for path in inputs["runs"].values()]
    measures = [word for name in ["nDCG@10", "AP", "RR", "P(rel=2)@5", "NumRelRet"] for word in ("-m", name)]
    for fmt, header, paper in (("latex", "System &", made.table("latex")),
                               ("markdown-table", "| system |", made.table("markdown"))):
        assert main(["eval", str(inputs["qrels"]), *runs, *measures, "--format", fmt]) == 0
        printed = capsys.readouterr().out
        assert _line(printed, header) == _line(paper, header)
        assert _line(printed, "(a) bm25") == _line(paper, "(a) bm25")  # the baseline beats nothing: no mark
        assert "**0.8333**" in printed or r"\textbf{0.8333}" in printed  # hybrid's nDCG@10, the best
        assert "superscript" not in printed and "<sup>" not in printed
        assert "No significance marks: with --baseline NAME, rankkit eval marks" in printed
        assert (r"\begin{table}" in printed) == (fmt == "latex")


def test_cli_eval_baseline_marks_the_table_as_the_report_does(inputs, made, capsys):
    runs = [str(path) for path in inputs["runs"].values()]
    measures = [word for name in MEASURES for word in ("-m", name)]
    assert main(["eval", str(inputs["qrels"]), *runs, *measures, "--format", "markdown-table",
                 "--baseline", str(inputs["runs"]["bm25"])]) == 0  # a run named by its path, as compare takes it
    assert capsys.readouterr().out == made.table("markdown")  # same tests, same table, same notes
    assert main(["eval", str(inputs["qrels"]), *runs, *measures, "--format", "latex", "--baseline", "bm25"]) == 0
    printed = capsys.readouterr().out
    assert r"\textsuperscript{a}" in printed and r"\label{tab:results}" in printed
    assert main(["eval", str(inputs["qrels"]), *runs, "-m", "AP", "--baseline", "bm25"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--baseline marks significance in the tables of --format" in err[0]


def _line(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.lstrip("| ").startswith(start.lstrip("| ")))


def test_cli_eval_table_formats_load_no_heavy_module_and_refuse_per_query(inputs, capsys):
    from test_import import loaded_after

    files = [str(inputs["qrels"]), str(inputs["runs"]["bm25"]), str(inputs["runs"]["hybrid"])]
    calls = "\n".join(f"main(['eval', '--format', {fmt!r}, '-m', 'nDCG@10', '-m', 'num_ret', *{files!r}])"
                      for fmt in ("latex", "markdown-table"))
    assert loaded_after(f"from rankkit.cli import main\n{calls}") == []  # no pandas, no scipy: a second saved
    assert main(["eval", "-q", "--format", "latex", *files]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--format latex prints the summary of each system" in err[0] and "-q" in err[0]


def test_cli_report_bad_usage_exits_2_with_one_line(inputs, tmp_path, capsys):
    runs = [str(p) for p in inputs["runs"].values()]
    assert main(["report", str(inputs["qrels"]), *runs, "-m", "AP", "-o", str(tmp_path / "r.docx")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "r.docx: a report is written as .html" in err[0]
    assert main(["report", str(inputs["qrels"]), *runs, "-m", "AP", "--by", "category", "-o", "r.md"]) == 2
    assert "--by and --queries go together" in capsys.readouterr().err
    assert main(["report", str(inputs["qrels"]), *runs, "-m", "AP", "--baseline", "nope", "-o", "r.md"]) == 2
    assert "baseline 'nope' is not one of the systems" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "absent.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_verify_exits_1_when_a_number_moved(inputs, tmp_path, capsys):
    copied = write_inputs(tmp_path / "copy", queries=6)
    out = tmp_path / "r.json"
    assert main(["report", str(copied["qrels"]), *map(str, copied["runs"].values()), "-m", "P@5", "-o", str(out)]) == 0
    qrels = copied["qrels"]
    qrels.write_text(qrels.read_text().replace(" 0\n", " 1\n", 3))
    capsys.readouterr()
    assert main(["verify", str(out)]) == 1
    assert "input changed: qrels" in capsys.readouterr().out


# ---- inputs: what a report reads, names and leaves behind ----------------------------------------

def test_a_table_of_several_systems_keeps_its_system_column(inputs, tmp_path):
    frames = []
    for name, path in inputs["runs"].items():
        rows = [line.split() for line in path.read_text().splitlines()]
        frames.append(pd.DataFrame({"system": name, "query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
                                    "score": [float(r[4]) for r in rows]}))
    table = tmp_path / "all.parquet"
    duckdb.connect().from_df(pd.concat(frames)).write_parquet(str(table))
    made = rankkit.report(inputs["qrels"], table, ["AP"], ci=None)
    assert made.record["systems"] == sorted(SYSTEMS) and made.record["inputs"][1]["name"] is None
    one = rankkit.report(inputs["qrels"], inputs["runs"]["bm25"], ["AP"], ci=None)  # a TREC file: one run, its stem
    assert one.record["systems"] == ["bm25"]


def test_a_report_leaves_no_table_in_the_connection(inputs):
    con = rankkit.connect()
    before = set(con.execute("SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views() "
                             "WHERE NOT internal").fetchall())
    rankkit.report(inputs["qrels"], list(inputs["runs"].values()), ["AP"], con=con, ci=None)
    after = set(con.execute("SELECT table_name FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views() "
                            "WHERE NOT internal").fetchall())
    assert after == before


def test_fingerprint_of_a_parquet_folder_names_every_file(tmp_path):
    from rankkit.report.build import fingerprint

    folder = tmp_path / "runs"
    (folder / "part=1").mkdir(parents=True)
    (folder / "part=1" / "a.parquet").write_bytes(b"one")
    (folder / "b.parquet").write_bytes(b"two")
    sha, files = fingerprint(folder)
    assert files == 2 and fingerprint(str(folder / "**" / "*.parquet")) == (sha, 2)
    (folder / "b.parquet").write_bytes(b"changed")
    assert fingerprint(folder)[0] != sha
    assert fingerprint(pd.DataFrame()) == (None, None)


def test_bad_options_are_refused_before_any_input_is_read(tmp_path):
    absent = tmp_path / "absent.txt"  # never read: the options fail first
    with pytest.raises(RankkitError, match="test must be one of t, wilcoxon, permutation, bootstrap, got 'z'"):
        rankkit.report(absent, [absent], "AP", test="z")
    with pytest.raises(RankkitError, match="correction must be one of"):
        rankkit.report(absent, [absent], "AP", correction="sidak")
    with pytest.raises(RankkitError, match="either as conventions= or as keywords"):
        rankkit.report(absent, [absent], "AP", ties="rank", conventions=rankkit.Conventions(ties="average"))


def test_bad_measure_and_baseline_name_what_is_wrong(inputs):
    runs = list(inputs["runs"].values())
    with pytest.raises(rankkit.MeasureError, match="nDCG@ten"):
        rankkit.report(inputs["qrels"], runs, ["nDCG@ten"])
    with pytest.raises(InputError, match="baseline 'bm99' is not one of the systems: bm25, dense_v2, hybrid"):
        rankkit.report(inputs["qrels"], runs, ["AP"], baseline="bm99")


def test_a_relevance_level_is_never_silently_ignored(inputs):
    """nDCG(rel=4) is refused as a name, but evaluate(rel=4) with nDCG alone took it and said nothing;
    and at a level above 1 the queries with no document that high score 0 on R, AP and Success, as in
    trec_eval, with nothing said (issue 33's findings)."""
    qrels, run = inputs["qrels"], str(inputs["runs"]["bm25"])
    with pytest.warns(rankkit.RankkitWarning, match=r"rel=4 changes none of the measures asked \(nDCG@10\)"):
        rankkit.evaluate(qrels, run, "nDCG@10", rel=4)
    top = pd.read_csv(qrels, sep=" ", header=None, names=["query_id", "iter", "doc_id", "relevance"]) \
        .groupby("query_id")["relevance"].max()
    level = int(top.max())
    lacking = int((top < level).sum())
    assert 0 < lacking < len(top)  # the fixture has queries on both sides of the level
    with pytest.warns(rankkit.RankkitWarning, match=rf"{lacking} of {len(top)} judged queries have no document graded "
                                                    rf"{level} or above .*: AP\(rel={level}\), R\(rel={level}\)@10 score 0"):
        rankkit.evaluate(qrels, run, ["nDCG@10", "AP", "R@10"], rel=level)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankkit.RankkitWarning)
        rankkit.evaluate(qrels, run, ["nDCG@10", "AP"])  # level 1: trec_eval's everyday case, nothing to say
