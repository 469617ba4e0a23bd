"""Hostile names in everything typeset (issue 32): any system name, query id or measure label a
stranger can give draws in every plot (no exception, no warning, the text drawn is the text meant:
no mathtext, no hidden character), compiles in the LaTeX table and report with pdflatex, stays text
in the HTML report, and the explorer works with any number of systems."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import unicodedata
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

import rankkit
from rankkit import plot
from rankkit.demo import write_sample
from rankkit.safe import plot as safe_plot

# control characters, mathtext, glyphs DejaVu lacks, layout and bidi: each once a crash or a lie
HOSTILE = ["tab\there", "new\nline", "nul\x00", "esc\x1b[31mred", "bell\x07", "cr\rx", "del\x7f", "c1\x85",
           "$x$", "cost $5", r"$\frac", r"$\frac{$", "\\$x$", "中文系统", "x" * 300,
           "right\u202eleft", "zero\u200bwidth", "line\u2028sep", "_nolegend_", "<script>alert(1)</script>",
           "&amp; {braces} %comment #hash ^caret ~tilde \\backslash"]
FUNCTIONS = ["distribution", "differences", "scatter", "trace_curve"]


def _per_query(name: str, other: str = "base", measure: str = "AP") -> pd.DataFrame:
    return pd.DataFrame({"measure": measure, "system": [name] * 3 + [other] * 3,
                         "query_id": [name, "q2", "q3"] * 2, "value": [0.1, 0.5, 0.9, 0.2, 0.4, 0.3]})


def _trace(name: str, other: str = "base") -> pd.DataFrame:
    frame = pd.DataFrame({"system": [name] * 3 + [other] * 3, "query_id": name, "rank": [1, 2, 3] * 2,
                          "dcg": [1.0, 2.0, 3.0, 1.0, 1.0, 2.0], "idcg": [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]})
    return frame.assign(ndcg=frame["dcg"] / frame["idcg"])


def _draw(function: str, name: str, other: str = "base", measure: str = "AP"):
    per_query = _per_query(name, other, measure)
    if function == "distribution":
        return plot.distribution(per_query, highlight=name)
    if function == "differences":
        return plot.differences(per_query, other, highlight=name)
    if function == "scatter":
        return plot.scatter(per_query, other, name, highlight=name)
    return plot.trace_curve(_trace(name, other))


def _texts(fig) -> list:
    """Every piece of text the figure draws (titles, labels, tick labels, legends, marks)."""
    from matplotlib.text import Text

    return [artist for artist in fig.findobj(Text) if artist.get_visible() and artist.get_text()]


def _drawn(artist) -> tuple[str, bool]:
    """The string matplotlib draws for a Text, and whether it reads it as mathtext."""
    return artist._preprocess_math(artist.get_text())


def _has_glyph(char: str) -> bool:
    from matplotlib.font_manager import FontProperties, findfont, get_font

    return get_font(findfont(FontProperties())).get_char_index(ord(char)) != 0


def _check_figure(fig, name: str) -> None:
    """Drawn without a warning; no text is mathtext; every character drawn has a glyph and is seen;
    the name, made visible, is in the figure's text (broken into lines, every character kept)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig.savefig(io.BytesIO(), format="png")
    drawn = []
    for artist in _texts(fig):
        text, math = _drawn(artist)
        assert math is False, text
        for char in text.replace("\n", ""):
            assert unicodedata.category(char) not in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}, repr(text)
            assert _has_glyph(char), repr(text)
        drawn.append(text)
    meant = safe_plot.visible(name)
    assert "".join(meant.split()) in "".join("".join(drawn).split()), (meant, drawn)


@pytest.mark.parametrize("function", FUNCTIONS)
@pytest.mark.parametrize("name", HOSTILE, ids=[repr(name)[:24] for name in HOSTILE])
def test_every_plot_draws_any_name_as_its_characters(function, name):
    _check_figure(_draw(function, name), name)


@pytest.mark.parametrize("function", ["distribution", "differences", "scatter"])
def test_a_measure_label_is_drawn_as_its_characters(function):
    label = "$\\frac{1}{$ \t中文 " + "m" * 120
    fig = _draw(function, "bm25", measure=label)
    _check_figure(fig, label)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.text(min_size=1, max_size=60), function=st.sampled_from(FUNCTIONS))
# found by the suite: a title of five lines (glyphs the font lacks, written as escapes) collapsed the panel
@example(name="\U0001d56c\U0001d56c\U0001d56c \U0001d357\U0001d56c\U0001d56c\U0001d56c\U0001d56c \U0001d357"
              "\U0001d56c\U0001d56c \U0001d56c\U0001d56c\U0001d56c\U0001d56c\U0001d56c 00\u058b\U0001d357"
              "\U0001d357 \U0001d357\U0001d357\U0001d56c\U0001d56c\U0001d56c", function="differences")
def test_any_string_is_drawn_as_its_characters(name, function):
    other = name + "'"  # a second system whatever the first is called
    _check_figure(_draw(function, name, other), name)


def test_dollars_are_drawn_as_dollars_not_read_as_math():
    from matplotlib.text import Text

    for name in ("$x$", "$\\frac$", "a $ b $ c", "\\$x$"):
        assert _drawn(Text(text=safe_plot.text(name))) == (name, False)
    assert safe_plot.text("a\tb\x1b\u202e中") == "a\\tb\\x1b\\u202e\\u4e2d"
    assert safe_plot.text("plain name-1.2") == "plain name-1.2"


def test_a_trace_legend_names_a_system_whose_name_starts_with_an_underscore():
    fig = plot.trace_curve(_trace("_nolegend_", "_baseline"))
    labels = [text.get_text() for text in fig.axes[0].get_legend().get_texts()]
    assert any(label.startswith("_nolegend_") for label in labels) and any("_baseline" in label for label in labels)


# ---- many systems --------------------------------------------------------------------------------

def _systems(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(n)
    return pd.DataFrame({"measure": "AP", "system": np.repeat([f"system {i}" for i in range(n)], 20),
                         "query_id": [f"q{j}" for j in range(20)] * n, "value": rng.random(20 * n)})


@pytest.mark.parametrize("n", [12, 30])
def test_more_systems_than_colours_are_told_apart_by_marker(n):
    frame = _systems(n)
    trace = pd.DataFrame({"system": frame["system"], "query_id": "q", "rank": list(range(1, 21)) * n,
                          "dcg": frame["value"].cumsum(), "idcg": 100.0})
    fig = plot.trace_curve(trace.assign(ndcg=trace["dcg"] / trace["idcg"]))
    styles = [(line.get_color(), line.get_marker()) for line in fig.axes[0].lines if line.get_gid() == "dcg"]
    assert len(styles) == n and len(set(styles)) == n
    with warnings.catch_warnings():  # the legend goes under the panel, which keeps its size
        warnings.simplefilter("error")
        fig.savefig(io.BytesIO(), format="png")
    assert len(fig.legends) == 1 and len(fig.legends[0].get_texts()) == n + 1
    assert fig.axes[0].get_position().height * fig.get_size_inches()[1] > 1.5  # inches of plot, not collapsed
    assert len(plot.distribution(frame).axes) == n


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> dict[str, Path]:
    return write_sample(tmp_path_factory.mktemp("sample"), queries=12)


def _runs(sample, names: list[str]) -> dict[str, pd.DataFrame]:
    """One run per name, each bm25's ranking with its scores shifted a little (systems that differ)."""
    base = pd.read_csv(sample["bm25.run"], sep=" ", header=None, dtype={0: str, 2: str},
                       names=["query_id", "q0", "doc_id", "rank", "score", "system"])
    runs = {}
    for i, name in enumerate(names):
        rng = np.random.default_rng(i)
        runs[name] = base.assign(score=base["score"] + rng.random(len(base)), system=name)[
            ["query_id", "doc_id", "score"]].assign(system=name)
    return runs


@pytest.mark.parametrize("n", [9, 12, 30])
def test_the_explorer_works_with_any_number_of_systems(sample, n):
    from rankkit.explore import Explorer
    from rankkit.explore.data import ExplorerData

    names = [f"system {i}" for i in range(n)]
    ex = Explorer(ExplorerData(sample["qrels.txt"], _runs(sample, names)))
    assert len(ex.figures["distribution"].axes) == n
    ex.measure = "AP"  # drawn again: the kept axes of the first drawing laid where they fit
    assert len(ex.figures["distribution"].axes) == n and len(ex.figures["differences"].axes) == n - 1


def test_the_explorer_shows_hostile_names(sample):
    from rankkit.explore import Explorer
    from rankkit.explore.data import ExplorerData

    names = ["$x$", "中文系统", "x" * 300, "right\u202eleft", "<script>alert(1)</script>"]
    ex = Explorer(ExplorerData(sample["qrels.txt"], _runs(sample, names)))
    for fig in ex.figures.values():
        for artist in _texts(fig):
            assert _drawn(artist)[1] is False
    shown = "".join(str(getattr(view, "value", "")) for view in ex._views.values())
    assert "<script>" not in shown
    # the widgets' own HTML (not autoescaped): a U+202E would reverse the rest of the summary line
    assert "\u202e" not in shown and "right\\u202eleft" in shown


# ---- LaTeX ---------------------------------------------------------------------------------------

# what once stopped pdflatex or ran out of the page, each as a system name
TEX_NAMES = ["ctl\x00nul\x1besc\ttab\nnew\x07bell\u202eright\u200bzero", "中文系统", "y" * 300,
             r"\input{/etc/passwd} $x$ & 50% #1 _a_ {b} ~c ^d <e> |f| \\", "naïve_é–ß_ł_€_Ж_😀"]


def _pdflatex(folder: Path, name: str, passes: int = 1, engine: str = "pdflatex") -> str:
    """Compile with pdflatex (skipped where it is absent: CI installs it) and return the log."""
    pdflatex = shutil.which(engine)
    if pdflatex is None:
        pytest.skip(f"{engine} is absent: apt-get install texlive-latex-recommended (CI installs it; "
                    f"lualatex: texlive-luatex, xelatex: texlive-xetex)")
    for _ in range(passes):
        done = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", name],
                              cwd=folder, capture_output=True, text=True, errors="replace", timeout=180)
        assert done.returncode == 0, done.stdout[-3000:]
    return (folder / name).with_suffix(".log").read_text(errors="replace")


def _pdf_text(pdf: Path) -> str:
    if shutil.which("pdftotext") is None:
        return ""
    return subprocess.run(["pdftotext", "-raw", str(pdf), "-"], capture_output=True, text=True, check=True,
                          timeout=60).stdout


def _paper(body: str) -> str:
    """A paper's preamble as the table's docstring asks for it: booktabs and nothing of rankkit's."""
    return ("\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n\\usepackage{longtable}\n"
            "\\begin{document}\n" + body + "\n\\end{document}\n")


def _table(names: list[str]):
    from rankkit import table

    values = {("AP", name): {"value": 0.25 + i / 100, "queries": 5} for i, name in enumerate(names)}
    return table.make_table(["AP"], ["AP"], names, values, {"AP": "mean"}, {}, ["A note about " + names[0]])


@pytest.mark.parametrize("long", [False, True], ids=["float", "longtable"])
def test_the_latex_table_compiles_with_pdflatex_for_any_name(tmp_path, long):
    from rankkit import table

    made = _table(TEX_NAMES)
    text = (table.latex_long(made, caption=TEX_NAMES[1], comment=TEX_NAMES[0]) if long else
            table.latex(made, caption=TEX_NAMES[0], label="tab:x", comment=TEX_NAMES[0]))
    assert "\x00" not in text and "\x1b" not in text and "\u202e" not in text
    (tmp_path / "paper.tex").write_text(_paper(text), encoding="utf-8")
    log = _pdflatex(tmp_path, "paper.tex", passes=2)
    assert "Overfull \\hbox" not in log, log[-2000:]
    shown = _pdf_text(tmp_path / "paper.pdf")
    if shown:  # each character shown, as itself or as its code point
        for piece in ("\\x00", "\\x1b", "\\t", "\\n", "\\u202e", "\\u200b", "\\u4e2d\\u6587\\u7cfb\\u7edf",
                      "\\u0416", "\\U0001f600", "\\input{/etc/passwd}", "$x$", "50%"):
            assert piece in shown.replace("\n", "").replace(" ", ""), piece
        assert "y" * 300 in shown.replace("\n", "").replace("-", "")


def test_eval_format_latex_compiles_for_any_system_name(tmp_path):
    from rankkit import output

    frames = [(name, [{"measure": "map", "value": 0.5, "queries": 3}], None) for name in TEX_NAMES]
    (tmp_path / "eval.tex").write_text(_paper(output._table(frames, "latex", 4, {})), encoding="utf-8")
    _pdflatex(tmp_path, "eval.tex")


@given(name=st.text(min_size=1, max_size=40))
@settings(max_examples=200, deadline=None)
def test_latex_escape_leaves_no_raw_character_tex_could_misread(name):
    from rankkit.safe import latex

    shown = latex.escape(name) + latex.breakable(name) + latex.cell(name)
    shown.encode("utf-8")  # a lone surrogate would stop the file being written
    # a non-ASCII character is only ever the last argument of \rankkitchar, after its code point
    raw = re.findall(r"\\rankkitchar\{(\d+)\}\{[0-9a-fxuU]+\}\{(.)\}", shown, flags=re.S)
    assert all(int(code) == ord(char) and unicodedata.category(char) not in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
               for code, char in raw)
    rest = re.sub(r"\\rankkitchar\{\d+\}\{[0-9a-fxuU]+\}\{.\}", "", shown, flags=re.S)
    assert all(" " <= char <= "~" for char in rest), rest
    # each of the three renderings sets every visible non-ASCII character so (the rest are escaped)
    assert len(raw) == 3 * sum(not char.isascii() and unicodedata.category(char) not in
                               {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"} for char in name)
    # braces balance: no name opens or closes a group
    assert rest.count("{") - rest.count("\\{") == rest.count("}") - rest.count("\\}")


@pytest.fixture(scope="module")
def hostile_report(sample):
    # the readers refuse C0 and C1 controls in a system name (test_hostile_names), so the report's names
    # carry the invisible characters they accept (bidi override, zero-width, line separator) and its
    # title, given in Python, the controls
    names = ["bidi\u202eright\u200bzero\u2028line"] + TEX_NAMES[1:3] + [
        "<script>alert(1)</script><img src=x onerror=alert(2)>", "ab\u202edcba", "$\\frac{1}{2}$"]
    runs = _runs(sample, names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rankkit.report(sample["qrels.txt"], runs, ["AP", "ndcg_cut_10"], title="Runs \x1b[2J from $strangers$ 中文",
                              by="category", queries=sample["topics.csv"]), names


def test_the_latex_report_compiles_with_pdflatex_for_any_name(hostile_report, tmp_path):
    report, names = hostile_report
    text = report.save(tmp_path / "report.tex").read_text(encoding="utf-8")
    assert "\x00" not in text and "\x1b" not in text
    log = _pdflatex(tmp_path, "report.tex", passes=2)
    assert "Overfull \\hbox" not in log, [line for line in log.splitlines() if "Overfull" in line]
    shown = _pdf_text(tmp_path / "report.pdf").replace("\n", "").replace(" ", "")
    if shown:
        assert "\\u4e2d\\u6587\\u7cfb\\u7edf" in shown and "<script>" in shown and "y" * 300 in shown.replace("-", "")
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-png", "-r", "60", "report.pdf", "page"], cwd=tmp_path, check=True, timeout=120)
        assert list(tmp_path.glob("page-*.png"))


# ---- HTML ----------------------------------------------------------------------------------------

def test_the_html_report_shows_names_as_text(hostile_report, tmp_path):
    from html.parser import HTMLParser

    report, names = hostile_report
    page = report.save(tmp_path / "report.html").read_text(encoding="utf-8")
    tags = []

    class Tags(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append((tag, dict(attrs)))

    Tags().feed(page)
    assert not [tag for tag, _ in tags if tag == "script"]
    assert all(attrs.get("src", "").startswith("data:image/png;base64,") and "onerror" not in attrs
               for tag, attrs in tags if tag == "img")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    # nothing hidden: no control, bidirectional or zero-width character reaches the page raw
    hidden = [char for char in page if unicodedata.category(char) in {"Cc", "Cf", "Cs", "Zl", "Zp"} and char != "\n"]
    assert hidden == [], hidden[:5]
    assert "ab\\u202edcba" in page and "bidi\\u202eright\\u200bzero\\u2028line" in page and "\\x1b[2J" in page


def test_the_html_report_keeps_its_layout_in_chromium(hostile_report, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test drives Chromium with Playwright")
    chromium = Path("/usr/bin/chromium")
    if not chromium.exists():
        pytest.skip("no Chromium at /usr/bin/chromium: apt-get install chromium")
    report, _ = hostile_report
    path = report.save(tmp_path / "report.html")
    dialogs = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(chromium),
                                             args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            page.goto(path.as_uri())
            page.wait_for_load_state("load")
            shown = page.evaluate("""() => {
                const box = document.querySelector('table.aggregate').parentElement;
                return {page: document.documentElement.scrollWidth, table: box.scrollWidth, box: box.clientWidth,
                        names: [...document.querySelectorAll('table.aggregate td.name')].map(td => td.offsetWidth),
                        images: [...document.images].map(i => i.complete && i.naturalWidth > 0)};
            }""")
            page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
        finally:
            browser.close()
    assert dialogs == []  # no script ran
    assert shown["page"] <= 1280 and shown["images"] and all(shown["images"])
    # the 300-character name wraps in its cell: the aggregate's numbers stay in view, no scrolling
    assert shown["table"] <= shown["box"] and max(shown["names"]) <= 24 * 16 + 40, shown


@pytest.mark.parametrize("engine", ["lualatex", "xelatex"])
def test_a_unicode_engine_sets_what_its_font_has_and_escapes_the_rest(hostile_report, tmp_path, engine):
    from rankkit import table

    (tmp_path / "paper.tex").write_text(_paper(table.latex(_table(TEX_NAMES), caption=TEX_NAMES[4])), encoding="utf-8")
    log = _pdflatex(tmp_path, "paper.tex", engine=engine)
    assert "Missing character" not in log  # no character silently dropped
    shown = _pdf_text(tmp_path / "paper.pdf").replace("\n", "").replace(" ", "")
    if shown:  # Latin Modern has é, ß, ł and €, not Cyrillic nor CJK
        assert "naïve_é–ß_ł_€_\\u0416_\\U0001f600" in shown and "\\u4e2d\\u6587" in shown
    text = hostile_report[0].save(tmp_path / "report.tex").read_text(encoding="utf-8")
    assert "Missing character" not in _pdflatex(tmp_path, "report.tex", engine=engine)


@pytest.mark.parametrize("function", ["distribution", "scatter"])
def test_a_long_marked_query_id_stays_inside_its_panel(function):
    query = "中文 query $\\frac$ " + "z" * 120
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = _draw(function, query)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in fig.axes:
        for label in [text for text in ax.texts if text.get_gid() == "highlight"]:
            box, panel = label.get_window_extent(renderer), ax.get_window_extent(renderer)
            assert box.y1 <= panel.y1 + 1 and box.width <= panel.width, (box, panel)  # not over the title
