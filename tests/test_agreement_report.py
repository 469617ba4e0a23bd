"""A report with a second judgment table carries an agreement section: the label agreement, the two
leaderboards side by side with the swaps, the per-query kappa plotted; saved, loaded and verified."""

from __future__ import annotations

import json
import re

import pytest

import rankkit
from rankkit.cli import main
from rankkit.report.render import latex_document

QRELS = "".join(f"q{q} 0 d{d} {(q * d) % 3}\n" for q in range(1, 9) for d in range(1, 7))
# the second judge: grade 2 read as 1 on odd queries, and d6 of q1 never judged
SECOND = "".join(f"q{q} 0 d{d} {min((q * d) % 3, 1) if q % 2 else (q * d) % 3}\n"
                 for q in range(1, 9) for d in range(1, 7) if (q, d) != (1, 6))


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "second.txt").write_text(SECOND)
    runs = {}
    for n, name in enumerate(("up", "down", "mixed")):
        lines = "".join(f"q{q} Q0 d{d} 0 {(d if n == 0 else -d if n == 1 else (d * 7 + q) % 5)} {name}\n"
                        for q in range(1, 9) for d in range(1, 7))
        path = tmp_path / f"{name}.run"
        path.write_text(lines)
        runs[name] = str(path)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "second.txt"), runs


def test_report_carries_the_agreement_and_verifies(files, tmp_path):
    qrels, second, runs = files
    made = rankkit.report(qrels, runs, ["P@3", "AP"], second_qrels=second, resamples=500)
    labels = rankkit.agreement(qrels, second, resamples=500)
    assert made.agreement.value.tolist() == pytest.approx(labels.aggregate.value.tolist(), nan_ok=True)
    boards = rankkit.leaderboard_agreement(qrels, second, runs, "P@3", resamples=500)
    assert made.leaderboards.system.tolist() == boards.leaderboards.system.tolist()
    assert made.correlations.kendall_tau_b.tolist() == pytest.approx(boards.correlations.kendall_tau_b.tolist())
    assert [item["role"] for item in made.record["inputs"]][:2] == ["qrels", "second_qrels"]
    assert made.record["inputs"][1]["rows"] == len(SECOND.splitlines())
    markdown = made.to_markdown()
    assert "## Agreement with" in markdown and "| kappa\\_linear |" in markdown and "Kendall's tau-b" in markdown
    html = made.to_html()
    assert '<h2 id="agreement">' in html and "distribution of Cohen&#39;s kappa over queries" in html
    # The pooled kappa stood beside an interval that was the per-query mean's and did not contain it: the
    # interval is in the mean's cell, the value over all pairs bare and said to have none, in every format
    kappa = made.agreement.set_index("measure").loc["kappa_grades"]
    pooled, mean, interval = (f"{kappa[name]:.4f}" for name in ("value", "mean", "ci_low"))
    rows = {markdown: f"| kappa\\_grades | {pooled} | {mean} [{interval}, ",
            html: f"<td>{pooled}</td><td><span class=\"value\">{mean}</span><span class=\"interval\">[{interval}, ",
            latex_document(made): f"kappa\\_grades & {pooled} & {mean} [{interval}, "}
    for text, row in rows.items():
        assert row in text and "Over all pairs: the measure over every pair both tables judge, without an interval." in text
        assert re.search(r"Mean over queries: the mean of each query.*s value; in brackets, its 95\\?% percentile", text)
    labels = made.agreement_tables()["agreement"]  # CSV, Parquet and JSON: the interval's columns say whose
    assert list(labels.columns[2:6]) == ["over_all_pairs", "mean_over_queries", "mean_ci_low", "mean_ci_high"]
    path = made.save(tmp_path / "report.json")
    again = rankkit.Report.load(path)
    assert again.agreement.value.tolist() == pytest.approx(made.agreement.value.tolist(), nan_ok=True)
    checked = rankkit.verify(path)
    assert checked.holds, str(checked)
    (tmp_path / "second.txt").write_text(SECOND.replace("q2 0 d1 2\n", "q2 0 d1 0\n"))
    moved = rankkit.verify(path)
    assert not moved.holds and any(item["role"] == "second_qrels" for item in moved.changed)


def test_the_latex_document_with_the_agreement_compiles(files, tmp_path):
    import shutil
    import subprocess

    qrels, second, runs = files
    made = rankkit.report(qrels, runs, ["P@3"], second_qrels=second, resamples=200)
    path = made.save(tmp_path / "report.tex")
    text = path.read_text()
    assert "Agreement with" in text and "Kendall's $\\tau_b$" in text
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is absent: the document is written, not compiled")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", path.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]


def test_report_without_a_second_table_has_no_agreement_section(files):
    qrels, _, runs = files
    made = rankkit.report(qrels, runs, "P@3", resamples=200)
    assert made.agreement.empty and "## Agreement" not in made.to_markdown()


def test_command_line_report_takes_a_second_table(files, tmp_path, capsys):
    qrels, second, runs = files
    out = tmp_path / "report.json"
    assert main(["report", qrels, *runs.values(), "-m", "P@3", "-o", str(out), "--second-qrels", second]) == 0
    saved = json.loads(out.read_text())
    assert {row["measure"] for row in saved["agreement"]} >= {"kappa", "alpha_ordinal"}
    assert len(saved["leaderboards"]) == 3


def _swapping(files, tmp_path) -> tuple[str, str, dict]:
    """A second table judging d5 and d6 alone relevant: down, above mixed under the first table's P@3, falls
    below it (a swap)."""
    qrels, _, runs = files
    (tmp_path / "late.txt").write_text("".join(f"q{q} 0 d{d} {2 if d >= 5 else 0}\n"
                                               for q in range(1, 9) for d in range(1, 7)))
    return qrels, str(tmp_path / "late.txt"), runs


def test_machine_exports_carry_the_agreement_tables(files, tmp_path, capsys):
    import duckdb

    qrels, second, runs = _swapping(files, tmp_path)
    made = rankkit.report(qrels, runs, ["P@3", "AP"], second_qrels=second, resamples=300)
    assert len(made.swaps) > 0
    exported = made.agreement_tables()
    assert list(exported) == ["agreement", "agreement_per_query", "leaderboards", "correlations", "swaps"]
    boards = exported["leaderboards"]
    assert list(boards.columns) == ["measure", "system", "value_under_a", "value_under_b", "rank_under_a",
                                    "rank_under_b", "qrels_a", "qrels_b"]
    assert boards.value_under_b.tolist() == made.leaderboards.value_b.tolist()
    assert set(boards.qrels_b) == {second} and set(boards.measure) == {"P@3"}
    swaps = exported["swaps"]
    assert {"higher_under_a", "lower_under_a", "p_adjusted_under_a", "significant_under_a", "test"} <= set(swaps.columns)
    assert swaps.p_adjusted_under_a.tolist() == pytest.approx(made.swaps.p_adjusted.tolist())
    labels = exported["agreement"].set_index("measure")
    assert labels.loc["kappa", "description"].startswith("Cohen's kappa")
    assert labels.over_all_pairs.tolist() == pytest.approx(made.agreement.value.tolist(), nan_ok=True)
    assert exported["correlations"]["among"].tolist() == ["every system"]
    for name, frame in exported.items():  # each table, read alone later, says what was compared
        assert {(a, b) for a, b in zip(frame.qrels_a, frame.qrels_b)} == {(qrels, second)}, name
    # CSV and Parquet: the report's file, and one file per agreement table beside it, read back equal
    for suffix in (".csv", ".parquet"):
        path = made.save(tmp_path / f"report{suffix}")
        written = made.written(path)
        assert [p.name for p in written] == [f"report{suffix}"] + [
            f"report.{name}{suffix}" for name in ("label-agreement", "label-agreement-per-query", "leaderboards",
                                                  "leaderboard-correlations", "swaps")]
        for target, (name, frame) in zip(written[1:], exported.items()):
            back = duckdb.sql(f"FROM '{target}'").df()
            assert list(back.columns) == list(frame.columns), name
            numbers = frame.select_dtypes("number").columns
            assert back[numbers].to_numpy(dtype=float) == pytest.approx(frame[numbers].to_numpy(dtype=float),
                                                                         nan_ok=True), name
        if suffix == ".parquet":
            metadata = duckdb.sql(f"SELECT decode(value) FROM parquet_kv_metadata('{written[-1]}')").fetchall()[0][0]
            assert json.loads(metadata)["record"]["inputs"][1]["role"] == "second_qrels"
    document = json.loads(made.save(tmp_path / "report.json").read_text())
    assert document["agreement_tables"]["swaps"][0]["higher_under_a"] == made.swaps.above_a.iloc[0]
    # the command line says every file it wrote; a report without a second table writes one file
    out = tmp_path / "cli.csv"
    assert main(["report", qrels, *runs.values(), "-m", "P@3", "-o", str(out), "--second-qrels", second]) == 0
    assert capsys.readouterr().out.strip() == "rankkit report: wrote " + ", ".join(map(str, made.written(out)))
    alone = rankkit.report(qrels, runs, "P@3", resamples=200)
    assert alone.agreement_tables() == {} and alone.written(out) == [out]
    assert "agreement_tables" not in json.loads(alone.to_json())


def test_verify_checks_the_swaps_and_the_per_query_agreement(files, tmp_path):
    qrels, second, runs = _swapping(files, tmp_path)
    path = rankkit.report(qrels, runs, "P@3", second_qrels=second, resamples=300).save(tmp_path / "report.json")
    assert rankkit.verify(path).holds
    document = json.loads(path.read_text())
    document["swaps"][0]["p_value"] = 0.5 if document["swaps"][0]["p_value"] != 0.5 else 0.25
    document["agreement_per_query"][0]["kappa_linear"] = -0.5
    path.write_text(json.dumps(document))
    checked = rankkit.verify(path)
    assert not checked.holds
    assert {(item["table"], item["column"]) for item in checked.moved} == {("swaps", "p_value"),
                                                                          ("agreement_per_query", "kappa_linear")}


def test_the_kappa_plot_names_what_it_draws(files):
    """The per-query kappa is drawn by plot.distribution, made for systems: its title and axis must
    speak of kappa, not of a system called "per query", and count the queries without a kappa."""
    from rankkit.report.render import kappa_distribution

    qrels, second, runs = files
    made = rankkit.report(qrels, runs, ["P@3"], second_qrels=second, resamples=200)
    kappas = made.agreement_per_query.kappa
    undefined = int(kappas.isna().sum())
    assert undefined > 0  # q3 and q6: every document not relevant under both tables
    (ax,) = kappa_distribution(made.agreement_per_query).axes  # one panel
    title = ax.get_title().replace("\n", " ")
    assert title.startswith(f"Cohen's kappa of the two tables: {kappas.notna().sum()} queries "
                            f"({undefined} without a value), mean {kappas.mean():.4g}")
    assert "per query:" not in title
    assert ax.get_xlabel().startswith("Cohen's kappa per query, relevant or not")
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["mean", "median"]
    assert kappa_distribution(made.agreement_per_query.assign(kappa=float("nan"))) is None


def test_html_on_a_narrow_screen_scrolls_wide_tables_in_their_own_box(files, tmp_path):
    """At a phone's width the record's tables (measures, inputs with their paths) widened the page,
    which then scrolled sideways as a whole; every table wider than the screen scrolls in its box."""
    from pathlib import Path

    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test drives Chromium with Playwright")
    from test_report import CHROMIUM, CHROMIUM_ARGS

    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (or set RANKKIT_CHROMIUM)")
    qrels, second, runs = files
    path = rankkit.report(qrels, runs, ["P@3", "AP"], second_qrels=second, resamples=200).save(tmp_path / "r.html")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for width in (1366, 420):
                page = browser.new_page(viewport={"width": width, "height": 900})
                page.goto(path.as_uri())
                laid = page.evaluate("""() => ({
                    page: document.documentElement.scrollWidth,
                    tables: [...document.querySelectorAll('table')].map(t => ({
                        name: t.className, wide: t.scrollWidth > t.parentElement.clientWidth + 0.5,
                        scrolls: getComputedStyle(t.parentElement).overflowX === 'auto'})),
                })""")
                page.screenshot(path=str(tmp_path / f"report-{width}.png"), full_page=True)
                page.close()
                assert laid["page"] <= width, (width, laid)
                assert all(table["scrolls"] for table in laid["tables"] if table["wide"]), (width, laid)
                assert {"agreement", "leaderboards", "correlations"} <= {t["name"] for t in laid["tables"]}
                if width == 420:  # the check can fail: here some tables are wider than the screen
                    assert any(table["wide"] for table in laid["tables"]), laid
        finally:
            browser.close()


def test_a_report_of_two_systems_shows_both_leaderboards_and_says_why_no_correlation(files, tmp_path):
    """Two systems have places and a possible swap, as `rankkit agree` shows, but no rank correlation:
    the report shows the leaderboards and the swap, says so in place of the correlations, and verifies."""
    qrels, second, runs = files
    two = {name: runs[name] for name in ("up", "mixed")}
    made = rankkit.report(qrels, two, ["P@3"], second_qrels=second, resamples=200)
    boards = rankkit.leaderboard_agreement(qrels, second, two, "P@3", resamples=200)
    assert made.leaderboards.drop(columns="measure").equals(boards.leaderboards)
    markdown, html = made.to_markdown(), made.to_html()
    for text in (markdown, html, made.save(tmp_path / "r.tex").read_text()):
        assert "Two systems: " in text and "rank correlations need three systems or more" in text
        assert "tau-b" not in text and "\\tau_b" not in text
    assert "| up | " in markdown and "| mixed | " in markdown
    assert rankkit.verify(made.save(tmp_path / "r.json")).holds
