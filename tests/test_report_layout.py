"""A report read as a user reads it: p-values printed by one rule in every format, the systems in one
order and one colour in every section (made by Python or the command line), and the HTML page on a
1366-pixel screen and on A4 paper with long, right-to-left and unbroken run names: nothing cut off,
nothing hidden behind a scroll bar, no label or number broken inside."""

from __future__ import annotations

import html
import re
import warnings
from pathlib import Path

import pytest

import rankkit
from rankkit.cli import main
from rankkit.compare import format_comparison, format_p
from rankkit.report.render import latex_document
from test_report import CHROMIUM, CHROMIUM_ARGS, write_inputs

MEASURES = ["ndcg_cut_10", "AP", "RR", "P@10"]
# Three systems in an order that is not their names' (alphabetical: the x run, then the Hebrew, then the
# a run): a name of 300 characters without a space, a right-to-left one, and one of 60 with hyphens.
GIVEN = ["x" * 300, "שלום" * 20 + " run", "hybrid-" + "-".join(["dense"] * 9)]
RUNS = dict(zip(GIVEN, ["bm25", "dense_v2", "hybrid"]))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    return write_inputs(tmp_path_factory.mktemp("layout-inputs"))


@pytest.fixture(scope="module")
def made(inputs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rankkit.report(inputs["qrels"], {name: inputs["runs"][run] for name, run in RUNS.items()}, MEASURES,
                              baseline=GIVEN[0], by="category", queries=inputs["topics"])


@pytest.fixture(scope="module")
def page(made):
    return made.to_html()


# ---- p-values ------------------------------------------------------------------------------------

def test_a_p_value_has_one_format():
    """4.9e-05 beside 9.9e-05, 9.4e-05 beside 0.0002: p and adjusted p were printed by two rules."""
    shown = [format_p(p) for p in (4.9e-05, 9.4e-05, 0.000999, 0.001, 0.00569, 0.0114, 0.0170, 0.271, 0.5, 1.0)]
    assert shown == ["< 0.001", "< 0.001", "< 0.001", "0.00100", "0.00569", "0.0114", "0.0170", "0.271", "0.500",
                     "1.00"]


def test_every_format_prints_a_p_value_alike(made, page):
    rows = made.comparison
    printed = {p for row in rows.itertuples() for p in (format_p(row.p_value), format_p(row.p_adjusted))}
    assert "< 0.001" in printed and len(printed) > 2
    text = format_comparison(rows.assign(p_value=rows.p_value))
    page = html.unescape(page)
    markdown, latex = made.to_markdown(), latex_document(made).replace("$<$", "<")
    for row in rows.itertuples():
        p, adjusted = format_p(row.p_value), format_p(row.p_adjusted)
        assert f"<td>{p}</td><td>{adjusted}</td>" in page
        assert f"| {p} | {adjusted} |" in markdown
        assert f"& {p} & {adjusted} &" in latex
        assert re.search(rf"\s{re.escape(p)}\s+{re.escape(adjusted)}\s", text)
    assert not re.search(r"\d\.\de-\d\d", page + markdown + latex + text)  # no scientific notation anywhere


# ---- one order and one colour ----------------------------------------------------------------------

def test_every_section_lists_the_systems_in_the_order_given(made, page):
    """The aggregate frame, the slices and the plots' colours followed the names' alphabetical order,
    the aggregate table the order given."""
    from rankkit.plot import system_colors
    from rankkit.plot.frames import _colors
    from rankkit.report.render import coverage_rows, per_query_wide, slice_rows, summary

    assert made.record["systems"] == GIVEN
    for frame in (made.aggregate, made.per_query, made.slices, made.coverage):
        for _, group in frame.groupby("measure", sort=False):
            assert list(dict.fromkeys(group["system"])) == GIVEN
    assert [row["name"] for row in summary(made).systems] == GIVEN
    assert [row["name"] for row in coverage_rows(made)[1]] == GIVEN
    assert [row["system"] for row in slice_rows(made)[2]] == GIVEN * 2  # long, short
    assert list(dict.fromkeys(system for system, _ in per_query_wide(made).columns)) == GIVEN
    assert [(row.system, row.baseline) for row in made.comparison.itertuples()][:2] == [(GIVEN[1], GIVEN[0]),
                                                                                       (GIVEN[2], GIVEN[0])]
    # one colour per system: the plots' (by their place in the per-query frame) beside its name in the table
    colors = system_colors(GIVEN)
    assert _colors(made.per_query) == colors
    for letter, name in zip("abc", GIVEN):
        assert f'<span class="swatch" style="background: {colors[name]}"></span>({letter}) <bdi>{name}</bdi>' in page


def test_the_command_line_makes_the_same_report(inputs, made, tmp_path, capsys):
    path = tmp_path / "cli.json"
    argv = ["report", str(inputs["qrels"]), *[f"{name}={inputs['runs'][run]}" for name, run in RUNS.items()],
            "--baseline", GIVEN[0], "--by", "category", "--queries", str(inputs["topics"]), "-o", str(path)]
    for measure in MEASURES:
        argv += ["-m", measure]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    capsys.readouterr()
    saved = rankkit.Report.load(path)
    assert saved.record["systems"] == made.record["systems"]
    for name in ("aggregate", "per_query", "slices", "coverage", "comparison"):
        ours, theirs = getattr(made, name), getattr(saved, name)
        assert theirs[["measure", "system"]].values.tolist() == ours[["measure", "system"]].values.tolist(), name

    def sections(report):  # the tables (the record says when and how each was asked for)
        return report.to_markdown().split("## How the numbers were made")[0]

    assert "| (a) " + GIVEN[0] in sections(made).replace("\\", "")
    assert sections(saved) == sections(made)


# ---- the page on a laptop's screen and on paper -----------------------------------------------------

SCREEN = 1366  # a common laptop's width
A4 = int((210 - 24) / 25.4 * 96)  # A4's printable width in CSS pixels, less the report's 12 mm margins

LAID = """() => {
    const lines = element => { const range = document.createRange(); range.selectNodeContents(element);
                               return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size; };
    const report = document.querySelector('.rankkit-report');
    return {
        page: document.documentElement.scrollWidth,
        right: Math.max(...[...report.querySelectorAll('*')].filter(e => !e.closest('.per-query-box'))
            .map(e => e.getBoundingClientRect().right)),
        // a table wider than its box hides columns behind a scroll bar
        hidden: [...document.querySelectorAll('.scroll, .per-query-box')].filter(box => box.scrollWidth > box.clientWidth)
            .map(box => box.firstElementChild.className),
        // a label's part (nDCG, @10) or a number on two lines
        broken: [...report.querySelectorAll('.part, .value, .interval, table:not(.aggregate) td:not(.name)')]
            .filter(e => lines(e) > 1)
            .map(e => e.innerText),
        heads: [...document.querySelectorAll('table.per-query th.system')].map(th => th.title),
    };
}"""


def test_the_page_fits_a_laptop_screen_and_a4_paper_with_any_names(made, page, tmp_path):
    """At 1366 pixels three systems by four measures needed 1601 (a long run name hid the comparison's
    last columns behind a scroll bar); printed, labels broke inside (nDCG@1 / 0)."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test drives Chromium with Playwright")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (or set RANKKIT_CHROMIUM)")
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            screen = browser.new_page(viewport={"width": SCREEN, "height": 900})
            screen.goto(path.as_uri())
            shown = screen.evaluate(LAID)
            screen.screenshot(path=str(tmp_path / "screen-1366.png"), full_page=True)
            paper = browser.new_page(viewport={"width": A4, "height": 1000})
            paper.emulate_media(media="print")
            paper.goto(path.as_uri())
            printed = paper.evaluate(LAID)
            paper.pdf(path=str(tmp_path / "A4.pdf"), format="A4")
        finally:
            browser.close()
    assert shown["page"] <= SCREEN and shown["right"] <= SCREEN and shown["hidden"] == [], shown
    assert shown["broken"] == [], shown["broken"]
    assert shown["heads"] == GIVEN  # a system's head is one line on screen: its full name in the title
    assert printed["page"] <= A4 and printed["right"] <= A4 + 0.5, printed
    assert printed["broken"] == [], printed["broken"]


def test_a_count_is_printed_by_its_specs_aggregation_not_its_label():
    """The tables took "is this a count" from the label (measures.is_count, a registry lookup): a name the
    registry does not know printed a count with decimals. The spec's aggregation, carried with the
    results (the report's record, rankkit eval's specs), says it: a sum is an integer, and has no best."""
    from rankkit import table

    values = {("mine", "a"): {"value": 3.0, "queries": 2, "low": 2.0, "high": 4.0},
              ("mine", "b"): {"value": 5.0, "queries": 2}}
    made = table.make_table(["mine"], ["my count"], ["a", "b"], values, {"mine": "sum"}, {}, [])
    assert "| (a) a | 3 [2, 4] | 2 |" in table.markdown(made, intervals=True) and "**" not in table.markdown(made)
    averaged = table.make_table(["mine"], ["my count"], ["a", "b"], values, {"mine": "mean"}, {}, [])
    assert "**5.0000**" in table.markdown(averaged)
