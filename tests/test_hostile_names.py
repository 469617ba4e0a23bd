"""Ids and names from strangers (issue 32, DESIGN.md's user 5): no id, system name or file name forges
a line of trec_eval's text, sends a sequence to the terminal, becomes a spreadsheet formula, a
Markdown link, image or HTML, or breaks out of a Spark SQL name; a query id or system name holding a
control character, an empty system name and a query named ``all`` (where outputs name the aggregate
so) are refused at read time with one line naming the file, the id written visibly."""

from __future__ import annotations

import csv
import io
import json
import re

import duckdb
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

import rankkit
from rankkit.check import describe
from rankkit.cli import main
from rankkit.errors import InputError, RankkitError
from rankkit.output import write_eval
from rankkit.agreement_output import write_agreement
from rankkit.safe import csv as safe_csv
from rankkit.safe.markdown import text as markdown_text
from rankkit.safe.spark_sql import table_name
from rankkit.spark_dialect import quoted
from rankkit.safe.terminal import visible

# every byte a terminal or trec_eval's text must never receive raw from an id
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
FORMULA = re.compile(r"^ *[=+\-@\t\r\n\x00\uff1d\uff0b\uff0d\uff20]")
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# names a stranger may choose that the readers accept (no control character): formulas, Markdown, HTML
ACCEPTED = ["=HYPERLINK(\"http://evil\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", " =1+1",
            "[click](http://evil)", "![](http://evil/pixel.png)", "<img src=x onerror=alert(1)>", "a|b", "**b**",
            "`code`", "# heading", "&lt;script&gt;", "\\", "x_y_z", "~~s~~", "$x$", "1. item", "> quote"]
# names the readers refuse: each control character class
REFUSED = ["a\nmap\tall\t1.0", "x\x1b[31mred", "bell\x07", "osc\x1b]0;title\x07", "c1\x9b2J", "del\x7f", "nul\x00",
           "cr\rmap"]


def cli(capsys, *args):
    status = main(list(args))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def one_line(err: str) -> str:
    """stderr is one line, with no raw control byte."""
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert not RAW.search(err), repr(err)
    return err


def csv_file(path, header, rows):
    with open(path, "w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
    return str(path)


@pytest.fixture
def accepted(tmp_path):
    """qrels and a run whose query ids and system names are each of ACCEPTED."""
    qrels = csv_file(tmp_path / "qrels.csv", ["query_id", "doc_id", "relevance"],
                     [[name, "d1", 1] for name in ACCEPTED] + [[name, "d2", 0] for name in ACCEPTED])
    run = csv_file(tmp_path / "run.csv", ["system", "query_id", "doc_id", "score"],
                   [[system, name, doc, score] for system in ACCEPTED[:3] + ACCEPTED[5:8]
                    for name in ACCEPTED for doc, score in (("d1", 2.0), ("d2", 1.0))])
    return qrels, run


# ---- rankkit.safe, for any text --------------------------------------------------------------------

@settings(deadline=None)
@given(st.text())
def test_visible_leaves_no_control_character_and_keeps_printable_text(text):
    shown = visible(text)
    assert not RAW.search(shown) and "\n" not in shown and "\t" not in shown
    if text.isprintable():
        assert shown == text


@settings(deadline=None)
@given(st.one_of(st.text(), st.text(alphabet="=+-@ \t\r\n0123456789.eE").map(str)))
def test_a_csv_cell_is_never_a_formula(text):
    cell = safe_csv.cell(text)
    assert not FORMULA.match(cell) or NUMBER.fullmatch(cell)
    assert "\r" not in cell
    shown = text.replace("\r", "\\r")
    assert cell in (shown, "'" + shown)


@pytest.mark.parametrize("number", [-1.5, -3, 0.0, float("nan")])
def test_numbers_stay_numbers(number):
    assert safe_csv.cell(number) is number


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(alphabet=st.sampled_from("=+-@ \t\n\x00ab1.eE\uff1d"), max_size=6), min_size=1, max_size=8))
def test_the_sql_cell_is_the_python_cell(texts):
    found = CON.execute(f"SELECT {safe_csv.sql_cell('x')} FROM (SELECT unnest(?::VARCHAR[]) AS x)", [texts]).fetchall()
    assert [row[0] for row in found] == [safe_csv.cell(text) for text in texts]


CON = duckdb.connect()


def _markdown():
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])  # commonmark: raw HTML passes


def _cells(html: str) -> list[str]:
    return re.findall(r"<td>(.*?)</td>", html, flags=re.S)


@settings(deadline=None)
@given(st.text())
def test_markdown_text_shows_exactly_its_characters(text):
    html = _markdown().render(f"| a | b |\n|---|---|\n| {markdown_text(text)} | end |\n")
    cells = _cells(html)
    assert len(cells) == 2 and cells[1] == "end", html  # one row, two cells: nothing ended the cell or row
    assert "<a " not in html and "<img" not in html and "<em>" not in html and "<s>" not in html
    shown = visible(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    assert cells[0] == shown.strip(), (text, html)


@settings(deadline=None)
@given(st.text())
def test_markdown_text_in_a_paragraph_starts_no_block(text):
    html = _markdown().render(markdown_text(text) + "\n")
    assert html == "" or (html.startswith("<p>") and html.count("<p>") == 1), html
    assert "<a " not in html and "<img" not in html


@settings(deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cc"]), min_size=1), min_size=1, max_size=3))
def test_a_spark_table_name_is_its_parts_quoted(parts):
    quoted = ".".join("`" + part.replace("`", "``") + "`" for part in parts)
    assert table_name(quoted) == quoted  # given quoted, read as the same parts
    plain = ".".join(parts)
    if all("." not in part and "`" not in part for part in parts):
        assert table_name(plain) == quoted


@pytest.mark.parametrize("name", ["a`b", "`a", "a..b", "", "a.", "x\ny", "t\x1b"])
def test_a_spark_table_name_that_no_quoting_makes_one_name_is_refused(name):
    with pytest.raises(ValueError):
        table_name(name)
    with pytest.raises(RankkitError):  # as the Spark engine says it
        quoted(name, table=True)


# ---- read time: refused on every surface, one line naming the file --------------------------------

# (a CR inside a quoted CSV field stops DuckDB's CSV parser before any check: refused all the same, in
# its words; the TREC text test below has the CR)
@pytest.mark.parametrize("bad", [bad for bad in REFUSED if "\r" not in bad])
@pytest.mark.parametrize("where", ["qrels query", "run query", "run system"])
def test_a_control_character_in_an_id_is_refused_naming_file_and_id(capsys, tmp_path, bad, where):
    qrels = [["q1", "d1", 1], [bad if where == "qrels query" else "q1", "d2", 1]]
    run = [["s", "q1", "d1", 1.0], [bad if where == "run system" else "s", bad if where == "run query" else "q1",
                                    "d2", 2.0]]
    q = csv_file(tmp_path / "qrels.csv", ["query_id", "doc_id", "relevance"], qrels)
    r = csv_file(tmp_path / "run.csv", ["system", "query_id", "doc_id", "score"], run)
    status, out, err = cli(capsys, "eval", "-q", q, r)
    assert status == 2 and out == ""
    one_line(err)
    assert ("qrels.csv" if where == "qrels query" else "run.csv") in err
    if "\x00" in bad:  # a NUL makes a file binary: refused as such before any id is read
        assert "looks binary (a NUL byte at byte" in err
        return
    assert f"'{visible(bad)}'" in err and "control character" in err


@pytest.mark.parametrize("bad", ["x\x1b[2J", "bell\x07", "c1\x9b", "del\x7f"])  # (a CR ends a line there)
def test_trec_text_ids_are_refused_with_their_line(capsys, tmp_path, bad):
    (tmp_path / "qrels.txt").write_text(f"q1 0 d1 1\n{bad} 0 d1 1\n")
    (tmp_path / "run.txt").write_text(f"q1 Q0 d1 1 1.0 t\nq1 Q0 d2 2 0.5 t\n")
    status, out, err = cli(capsys, "eval", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"))
    assert status == 2 and out == ""
    assert "qrels.txt:2: the query id" in one_line(err) and visible(bad) in err


def test_a_tag_is_refused_with_its_line_when_tags_are_systems(capsys, tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 1.0 ok\nq1 Q0 d2 2 0.5 bad\x1b[8m\n")
    status, _, err = cli(capsys, "eval", "--split-by-tag", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"))
    assert status == 2 and "run.txt:2: the system name 'bad\\x1b[8m'" in one_line(err)


@pytest.mark.parametrize("command", ["eval", "check", "compare", "report"])
def test_a_file_name_that_makes_a_forged_system_name_is_refused(capsys, tmp_path, command):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    forged = tmp_path / "a\nmap                   \tall\t1.0000.run"
    forged.write_text("q1 Q0 d1 1 1.0 t\n")
    other = tmp_path / "b.run"
    other.write_text("q1 Q0 d1 1 1.0 t\n")
    extra = {"eval": [], "check": [], "compare": ["-m", "AP"], "report": ["-m", "AP", "-o", str(tmp_path / "r.md")]}
    status, out, err = cli(capsys, command, *extra[command], str(tmp_path / "qrels.txt"), str(forged), str(other))
    assert status == 2 and out == ""
    assert "a\\nmap" in one_line(err) and "\\t" in err and "control character" in err
    assert not (tmp_path / "r.md").exists()


def test_an_empty_or_missing_system_name_is_refused(capsys, tmp_path):
    q = csv_file(tmp_path / "qrels.csv", ["query_id", "doc_id", "relevance"], [["q1", "d1", 1]])
    for rows, said in (([["", "q1", "d1", 1.0]], "the system is missing"),
                       ([["  ", "q1", "d1", 1.0]], "' is empty"),
                       ([["s", "q1", "d1", 1.0], ["", "q1", "d2", 1.0]], "run.csv:3: the system is missing")):
        r = csv_file(tmp_path / "run.csv", ["system", "query_id", "doc_id", "score"], rows)
        status, out, err = cli(capsys, "eval", q, r)
        assert status == 2 and out == "" and said in one_line(err), err


def test_python_readers_refuse_as_the_command_line_does():
    qrels = pd.DataFrame({"query_id": ["q1", "q\x1b2"], "doc_id": ["a", "b"], "relevance": [1, 1]})
    with pytest.raises(InputError, match=r"the query id 'q\\x1b2' holds a control character") as error:
        rankkit.read_qrels(qrels)
    assert "\x1b" not in str(error.value)
    with pytest.raises(InputError, match="the system is missing"):
        rankkit.read_run(pd.DataFrame({"system": ["a", None], "query_id": ["q1", "q1"], "doc_id": ["a", "b"],
                                       "score": [1.0, 2.0]}))
    with pytest.raises(InputError, match="control character"):
        rankkit.read_run(pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]}), system="s\n")
    # a frame naming no system is one system named NULL, as before
    assert rankkit.read_run(pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})).fetchall()[0][0] is None


def test_the_sql_surface_refuses_as_the_readers_do(tmp_path):
    con = rankkit.connect()
    con.execute("CREATE TABLE q AS SELECT * FROM (VALUES ('q1', 'd1', 1.0)) t(query_id, doc_id, relevance)")
    cases = {"run table r1: the query id 'q\\x1b[2J'": "('s', 'q' || chr(27) || '[2J', 'd1', 1.0)",
             "run table r2: the system name 's\\nmap all 1'": "('s' || chr(10) || 'map all 1', 'q1', 'd1', 1.0)",
             "run table r3: the system name '' is empty": "('', 'q1', 'd1', 1.0)",
             "run table r4: the system is NULL on some rows": "('s', 'q1', 'd1', 1.0), (NULL, 'q1', 'd2', 1.0)"}
    for i, (said, rows) in enumerate(cases.items(), start=1):
        con.execute(f"CREATE TABLE r{i} AS SELECT * FROM (VALUES {rows}) t(system, query_id, doc_id, score)")
        with pytest.raises(duckdb.Error) as error:
            con.execute(f"FROM rankkit.evaluate('q', 'r{i}', ['AP'])").fetchall()
        assert said in str(error.value) and not RAW.search(str(error.value).split("\n")[0])
    forged = tmp_path / "a\nmap all 1.run"
    forged.write_text("q1 Q0 d1 1 1.0 t\n")
    with pytest.raises(duckdb.Error, match=r"a\\nmap all 1.run: the system name 'a\\nmap all 1'"):
        con.execute("FROM rankkit.read_trec_run(?)", [str(tmp_path / "a*1.run")]).fetchall()


def test_doc_ids_are_not_refused_and_are_written_visibly_where_printed(capsys, tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 d\x1b[2J 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d\x1b[2J 1 1.0 t\nq1 Q0 d\x1b[2J 2 0.5 t\n")
    status, out, err = cli(capsys, "eval", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"))
    assert status == 2 and "duplicate document d\\x1b[2J for query q1" in one_line(err)
    (tmp_path / "run.txt").write_text("q1 Q0 d\x1b[2J 1 1.0 t\n")
    assert cli(capsys, "eval", "-m", "AP", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"))[0] == 0
    (tmp_path / "b.txt").write_text("q1 0 e\x1b]0;x\x07 1\n")
    status, out, err = cli(capsys, "agree", "--one-sided", str(tmp_path / "qrels.txt"), str(tmp_path / "b.txt"))
    assert status == 0 and "q1 e\\x1b]0;x\\x07" in out and not RAW.search(out)
    (tmp_path / "b\x1b7.txt").write_text("q1 0 e 1\n")  # the count of one-sided pairs names the files
    status, out, err = cli(capsys, "agree", str(tmp_path / "qrels.txt"), str(tmp_path / "b\x1b7.txt"))
    assert status == 0 and "b\\x1b7.txt) are left out" in err and not RAW.search(err)


def test_a_file_name_in_an_error_is_written_visibly(capsys, tmp_path):
    missing = tmp_path / "q\x1b]0;owned\x07.txt"
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 1.0 t\n")
    status, _, err = cli(capsys, "eval", str(missing), str(tmp_path / "run.txt"))
    assert status == 2 and "q\\x1b]0;owned\\x07.txt: no such file" in one_line(err)


def test_a_warning_quoting_a_file_name_is_written_visibly(capsys, tmp_path):
    qrels = tmp_path / "q\x1b7.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 1.0 t\n")
    status, out, err = cli(capsys, "eval", "-m", "AP", str(qrels), str(tmp_path / "run.txt"))
    assert status == 0 and "warning" in err and "q\\x1b7.txt" in err and not RAW.search(err)


# ---- a query named all -------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["-q"], ["-q", "--format", "csv"], ["-q", "--format", "json"],
                                  ["-q", "--format", "markdown"], ["-q", "-n"], ["-q", "-o", "OUT.csv"]])
def test_a_query_named_all_is_refused_where_per_query_rows_are_written(capsys, tmp_path, args):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nall 0 d1 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 1.0 t\nall Q0 d1 1 1.0 t\n")
    args = [str(tmp_path / "out.csv") if arg == "OUT.csv" else arg for arg in args]
    status, out, err = cli(capsys, "eval", "-m", "AP", *args, str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"))
    assert status == 2 and out == "" and "qrels.txt" in one_line(err) and "'all'" in err and "rename" in err
    assert not (tmp_path / "out.csv").exists()
    # the summary alone prints no query id: nothing to mistake
    status, out, _ = cli(capsys, "eval", "-m", "AP", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt"))
    assert status == 0 and out.endswith("\nAP                    \tall\t1.0000\n")


def test_agree_refuses_a_query_named_all_with_per_query_rows(capsys, tmp_path):
    (tmp_path / "a.txt").write_text("q1 0 d1 1\nall 0 d1 1\n")
    (tmp_path / "b.txt").write_text("q1 0 d1 0\nall 0 d1 1\n")
    status, out, err = cli(capsys, "agree", "-q", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"))
    assert status == 2 and out == "" and "a.txt: the query 'all'" in one_line(err)
    assert cli(capsys, "agree", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"))[0] == 0


# ---- every writer, names the readers accept -----------------------------------------------------------

def _trec_lines_are_whole(out: str, fields: int):
    for line in out.splitlines():
        assert len(line.split("\t")) == fields, repr(line)
    assert not RAW.search(out)


def test_eval_trec_text_keeps_one_line_per_value(capsys, accepted):
    status, out, err = cli(capsys, "eval", "-q", "-m", "AP", *accepted)
    assert status == 0
    _trec_lines_are_whole(out, 4)  # several systems: the system first
    queries = {line.split("\t")[2] for line in out.splitlines()}
    assert queries == set(ACCEPTED) | {"all"}  # printable ids as they are (trec_eval's text)


def _formula_free(rows):
    for row in rows:
        for cell in row:
            assert not FORMULA.match(cell) or NUMBER.fullmatch(cell), (cell, row)


def test_eval_csv_has_no_formula_cell(capsys, accepted, tmp_path):
    status, out, _ = cli(capsys, "eval", "-q", "-m", "AP", "--format", "csv", *accepted)
    assert status == 0
    rows = list(csv.reader(io.StringIO(out)))
    _formula_free(rows)
    assert {row[2] for row in rows[1:]} == {safe_csv.cell(name) for name in ACCEPTED} | {"all"}
    for suffix in (".csv", ".tsv"):
        target = tmp_path / f"out{suffix}"
        assert cli(capsys, "eval", "-q", "-m", "AP", "-o", str(target), *accepted)[0] == 0
        _formula_free(csv.reader(io.StringIO(target.read_text()), delimiter="\t" if suffix == ".tsv" else ","))


@pytest.mark.parametrize("suffix", [".json", ".parquet"])
def test_typed_files_keep_ids_as_they_are(capsys, accepted, tmp_path, suffix):
    target = tmp_path / f"out{suffix}"
    assert cli(capsys, "eval", "-q", "-m", "AP", "-o", str(target), *accepted)[0] == 0
    found = duckdb.sql(f"SELECT DISTINCT query_id FROM '{target}'").fetchall()
    assert {row[0] for row in found} == set(ACCEPTED) | {"all"}


def test_eval_json_keeps_ids_as_they_are(capsys, accepted):
    status, out, _ = cli(capsys, "eval", "-q", "-m", "AP", "--format", "json", *accepted)
    assert status == 0 and {row["query_id"] for row in json.loads(out)} == set(ACCEPTED) | {"all"}


def _safe_markdown(text: str, rows: int | None = None):
    html = _markdown().render(text)
    assert "<a " not in html and "<img" not in html, html
    # no HTML but rankkit's own (a superscript mark, the per-query table's details)
    tags = set(re.findall(r"<(/?[a-z0-9]+)", html)) - {"table", "/table", "thead", "/thead", "tbody", "/tbody", "tr",
                                                     "/tr", "th", "/th", "td", "/td", "p", "/p", "strong", "/strong",
                                                     "h1", "/h1", "h2", "/h2", "code", "/code", "ul", "/ul", "li",
                                                     "/li", "sup", "/sup", "details", "/details", "summary",
                                                     "/summary"}
    assert not tags, tags
    if rows is not None:
        assert html.count("<tr>") == rows + 1, html
    return html


def test_eval_markdown_rows_escape_everything(capsys, accepted):
    status, out, _ = cli(capsys, "eval", "-q", "-m", "AP", "--format", "markdown", *accepted)
    assert status == 0
    html = _safe_markdown(out, rows=len(out.splitlines()) - 2)
    assert "[click](http://evil)" in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_markdown_table_escapes_system_names(capsys, accepted):
    status, out, _ = cli(capsys, "eval", "-m", "AP", "--format", "markdown-table", *accepted)
    assert status == 0
    _safe_markdown(out, rows=6)


def test_the_markdown_and_csv_reports_escape_names(capsys, tmp_path, accepted):
    for suffix in (".md", ".csv"):
        target = tmp_path / f"report{suffix}"
        status, out, err = cli(capsys, "report", "-m", "AP", "--ci", "0", "-o", str(target), *accepted)
        assert status == 0, err
        if suffix == ".md":
            html = _safe_markdown(target.read_text())
            assert "![](http://evil/pixel.png)" in html
        else:
            _formula_free(csv.reader(io.StringIO(target.read_text())))


def test_agree_csv_has_no_formula_cell(capsys, tmp_path):
    a = csv_file(tmp_path / "a.csv", ["query_id", "doc_id", "relevance"], [[name, "d", 1] for name in ACCEPTED])
    b = csv_file(tmp_path / "b.csv", ["query_id", "doc_id", "relevance"],
                 [[name, "d", 0] for name in ACCEPTED] + [["=cmd", "@d", 1]])
    status, out, _ = cli(capsys, "agree", "-q", "--one-sided", "--format", "csv", a, b)
    assert status == 0
    rows = list(csv.reader(io.StringIO(out)))
    _formula_free(rows)
    assert ["one_sided", "only_b", "'=cmd @d", "1", "'" + a if a.startswith("=") else a, b] in rows


def test_check_and_compare_print_accepted_names_on_their_lines(capsys, accepted):
    status, out, _ = cli(capsys, "check", *accepted)
    assert status == 0 and all(len(line.split("\t")) in (2, 3) for line in out.splitlines()) and not RAW.search(out)
    status, out, _ = cli(capsys, "compare", "-m", "AP", *accepted)
    assert status == 0 and not RAW.search(out)


def test_sql_spark_quotes_table_names(capsys):
    status, out, _ = cli(capsys, "sql", "--dialect", "spark", "-m", "AP", "--qrels", "db.my qrels",
                         "--run", "`x``; DROP TABLE t; --`")
    assert status == 0
    assert "FROM `db`.`my qrels`" in out and "FROM `x``; DROP TABLE t; --`)" in out
    for bad in ("x` UNION SELECT 1 --", "a\nb", "a..b"):
        status, out, err = cli(capsys, "sql", "--dialect", "spark", "-m", "AP", "--qrels", "q", "--run", bad)
        assert status == 2 and out == "" and "table name" in one_line(err) or "Spark SQL name" in err


# ---- defense in depth: the writers escape whatever a Python caller hands them ----------------------------

HOSTILE = st.text(min_size=1).filter(lambda text: text.strip() != "all")


@settings(max_examples=80, deadline=None)
@given(st.lists(HOSTILE, min_size=2, max_size=3, unique=True), st.lists(HOSTILE, min_size=1, max_size=3, unique=True))
def test_write_eval_is_safe_for_any_names(systems, queries):
    frames = [(system, [{"measure": "AP", "value": 0.5, "queries": len(queries)}],
               [{"measure": "AP", "query_id": query, "value": -0.25} for query in queries]) for system in systems]
    out = io.StringIO()
    write_eval(out, frames, "trec")
    assert len(out.getvalue().splitlines()) == len(systems) * (len(queries) + 2)  # + num_q and the mean
    _trec_lines_are_whole(out.getvalue(), 4)
    out = io.StringIO()
    write_eval(out, frames, "csv")
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    assert len(rows) == 1 + len(systems) * (len(queries) + 1)
    _formula_free(rows)
    assert {row[3] for row in rows[1:]} >= {"-0.25"}  # a negative value is a number, not text
    out = io.StringIO()
    write_eval(out, frames, "markdown")
    _safe_markdown(out.getvalue(), rows=len(systems) * (len(queries) + 1))
    out = io.StringIO()
    write_eval(out, [(run, aggregate, None) for run, aggregate, _ in frames], "markdown-table")
    _safe_markdown(out.getvalue(), rows=len(systems))


@settings(max_examples=60, deadline=None)
@given(HOSTILE, HOSTILE)
def test_write_agreement_and_describe_are_safe_for_any_names(query, doc):
    rows = [{"section": "one_sided", "name": "only_a", "scope": f"{query} {doc}", "value": 1, "qrels_a": query,
             "qrels_b": doc}, {"section": "labels", "name": "kappa", "scope": "all", "value": -0.5}]
    out = io.StringIO()
    write_agreement(out, rows, "trec")
    _trec_lines_are_whole(out.getvalue(), 3)
    out = io.StringIO()
    write_agreement(out, rows, "csv")
    _formula_free(csv.reader(io.StringIO(out.getvalue())))
    found = {"qrels": query, "run": doc, "qrels_queries": 1, "judgments": 1, "run_queries": 1, "retrieved": 1,
             "systems": 2, "system_names": [query, None], "common": 1, "run_only": 0, "qrels_only": 0,
             "judged_at_10": 1.0, "run_duplicates": 0, "qrels_duplicates": 0, "ties": [(query, 2, 1)]}
    lines = describe(found)
    assert len("\n".join(lines).split("\n")) == 7 and not any(RAW.search(line) for line in lines)


def test_format_comparison_is_safe_for_any_names():
    from rankkit.compare import compare, format_comparison

    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "a"], "relevance": [1, 1]})
    runs = {name: pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "score": [1.0, 1.0]})
            for name in ("x", "y")}
    frame = compare(qrels, runs, ["AP"])
    frame["system"] = "a\nAP  x  0.0000\x1b[2J"
    text = format_comparison(frame)
    assert not RAW.search(text) and "a\\nAP" in text and len(text.splitlines()) == 6


@pytest.mark.parametrize("rows, said", [
    ("('s', '1', 'a', 1.0E0), ('s', concat('q', chr(27), '[2J'), 'a', 1.0E0)",
     r"run DataFrame: the query id 'q\x1b[2J' holds a control"),
    ("(concat('s', chr(10), 'map all 1'), '1', 'a', 1.0E0)", r"run DataFrame: the system name 's\nmap all 1' holds"),
    ("('', '1', 'a', 1.0E0)", "run DataFrame: the system name '' is empty"),
    ("('s', '1', 'a', 1.0E0), (CAST(NULL AS STRING), '1', 'b', 1.0E0)", "the system is NULL on some rows"),
])
def test_the_spark_statement_refuses_as_the_readers_do(spark, rows, said):
    from rankkit.spark import collected, evaluate

    qrels = spark.createDataFrame(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}))
    run = spark.sql(f"SELECT * FROM VALUES {rows} AS t(system, query_id, doc_id, score)")
    with pytest.raises(InputError) as error:
        collected(evaluate(spark, qrels, run, "AP"))
    assert said in str(error.value) and not RAW.search(str(error.value)), str(error.value)


@pytest.mark.parametrize("argv", [["eval", "-m", "P.5", "q", "r", "--x\x1b[2J"], ["\x1b]0;title\x07"],
                                  ["eval", "-m", "P.5", "--digits", "\x1b[31m", "q", "r"]])
def test_argparse_errors_quote_arguments_visibly(capsys, argv):
    """argparse's own errors quote the arguments ('unrecognized arguments: ...', 'invalid choice: ...'):
    a terminal sequence among them is written visibly too."""
    with pytest.raises(SystemExit) as raised:
        main(argv)
    err = capsys.readouterr().err
    assert raised.value.code == 2 and "\x1b" not in err and "\x07" not in err and "\\x1b" in err


@pytest.mark.parametrize("name", ["q[1]", "q*", "q?"])
@pytest.mark.parametrize("suffix", [".txt", ".txt.gz", ".csv", ".parquet"])
def test_a_file_named_like_a_glob_is_read_as_itself(capsys, tmp_path, name, suffix):
    """DuckDB's readers take *, ? and [ as a glob: q[1].csv would read q1.csv, the wrong judgments
    with no error. A path that names a file is that file; the pattern's match is never read."""
    import gzip

    rows = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "relevance": [1, 1]})
    decoy = pd.DataFrame({"query_id": ["q1"], "doc_id": ["d9"], "relevance": [1]})
    for frame, stem in ((rows, name), (decoy, "q1")):
        path = tmp_path / f"{stem}{suffix}"
        if suffix == ".parquet":
            frame.to_parquet(path)
        elif suffix == ".csv":
            frame.to_csv(path, index=False)
        else:
            text = "".join(f"{q} 0 {d} {r}\n" for q, d, r in frame.itertuples(index=False))
            path.write_bytes(gzip.compress(text.encode()) if suffix.endswith(".gz") else text.encode())
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 s\nq1 Q0 d9 2 1.0 s\n")
    status, out, err = cli(capsys, "eval", str(tmp_path / f"{name}{suffix}"), str(tmp_path / "a.run"),
                           "-m", "num_rel", "-m", "P@1")
    assert status == 0, err
    assert re.search(r"num_rel\s+all\s+2\b", out) and re.search(r"P@1\s+all\s+1\.0000", out)
    qrels = rankkit.read_qrels(str(tmp_path / f"{name}{suffix}")).df()
    assert sorted(qrels["doc_id"]) == ["d1", "d2"]
    if suffix in (".csv", ".parquet"):  # an output onto the file itself is refused, as onto any input
        status, _, err = cli(capsys, "eval", "-q", "-o", str(tmp_path / f"{name}{suffix}"),
                             str(tmp_path / f"{name}{suffix}"), str(tmp_path / "a.run"))
        assert status == 2 and "would replace it" in err
