"""rankkit.read_trec_qrels and rankkit.read_trec_run (issue 20): SQL users read TREC text as Python
does (tabs or spaces, gzip, comments, a glob of runs each named by its file) into tables the other
macros take, and a bad line is refused in Python's words."""

from __future__ import annotations

import gzip

import pytest

import rankkit
from rankkit import _sql, macros

MEASURES = ["nDCG@10", "AP", "P@5", "RR", "NumRet"]

# Tabs, spaces and both in one line, a comment, a blank line, an indented comment, a trailing tab,
# a field after the tag (ignored), a carriage return, and two runs with one tag.
QRELS = "# judged by hand\n1 0 a 2\n1\t0\tb\t0\n\n1 0  c 1\n2 0 d 1\r\n  # done\n2\t0 e 3\n"
RUNS = {
    "bm25.run": "# bm25, k1=0.9\n1 Q0 a 1 12.5 tag\n1\tQ0\tc\t2\t11.0\ttag\n1 Q0 z 3 9.5 tag\n\n2 Q0 e 1 7.25 tag extra\n2 Q0 d 2 7.0 tag\r\n",
    "dense.run.gz": "1\tQ0\tb\t1\t0.9\ttag\n1\tQ0\ta\t2\t0.8\ttag\t\n2 Q0 d 1 0.7 tag\n  # trailing comment\n",
    "split.txt": "1 Q0 c 1 3 other\n1 Q0 a 2 2 other\n2 Q0 e 1 1 other\n",
}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, text in RUNS.items():
        if name.endswith(".gz"):
            with gzip.open(runs / name, "wt") as out:
                out.write(text)
        else:
            (runs / name).write_text(text)
    return tmp_path


@pytest.fixture
def con():
    con = _sql.connect()
    yield con
    con.close()


def rows(relation) -> list[tuple]:
    return sorted(relation.fetchall(), key=lambda row: tuple(str(x) for x in row))


def test_qrels_read_as_python_reads_them(con, files):
    path = files / "qrels.txt"
    sql = con.sql(f"FROM rankkit.read_trec_qrels('{path}')")
    python = rankkit.read_qrels(path, con=con)
    assert sql.columns == python.columns and sql.types == python.types
    assert rows(sql) == rows(python) and len(rows(sql)) == 5


@pytest.mark.parametrize("name", sorted(RUNS))
def test_each_run_file_read_as_python_reads_it(con, files, name):
    path = files / "runs" / name
    sql = con.sql(f"FROM rankkit.read_trec_run('{path}')")
    python = rankkit.read_run(path, con=con)
    assert sql.columns == python.columns and sql.types == python.types
    assert rows(sql) == rows(python)


def test_a_glob_reads_each_file_as_a_run_named_by_its_file(con, files):
    """Three files share the tag 'tag' or not: each is its own system, named as read_run names it."""
    sql = rows(con.sql(f"FROM rankkit.read_trec_run('{files / 'runs' / '*'}')"))
    python = sorted((row for name in RUNS for row in rows(rankkit.read_run(files / "runs" / name, con=con))),
                    key=lambda row: tuple(str(x) for x in row))
    assert sql == python
    assert {row[0] for row in sql} == {"bm25", "dense", "split"}


def test_evaluation_through_the_readers_equals_evaluate_on_the_files(con, files):
    con.execute(f"CREATE TABLE qrels AS FROM rankkit.read_trec_qrels('{files / 'qrels.txt'}')")
    con.execute(f"CREATE TABLE run AS FROM rankkit.read_trec_run('{files / 'runs' / '*'}')")
    sql = con.execute(f"SELECT measure, system, value FROM rankkit.evaluate('qrels', 'run', {MEASURES})").fetchall()
    python = rankkit.evaluate(files / "qrels.txt", {name.split(".")[0]: files / "runs" / name for name in RUNS}, MEASURES)
    expected = {(r.measure, r.system): r.value for r in python.itertuples()}
    assert len(sql) == len(expected) == len(MEASURES) * len(RUNS)
    for measure, system, value in sql:
        assert value == pytest.approx(expected[measure, system], abs=1e-12), (measure, system)


@pytest.mark.parametrize("kind, text", [
    ("run", "# c\n1 Q0 a 1 2.5 x\n\n1 Q0 b 2\n"),
    ("run", "1 Q0 a 1 2.5 x\n1 Q0 b 2 abc x\n"),
    ("run", "1 Q0 a 1 nan x\n"),
    ("qrels", "1 0 a 1\n1 0 b 1 extra\n"),
    ("qrels", "1 0 a 1\n\n1 0 b inf\n"),
    ("qrels", "1 0 a\n"),
])
def test_a_bad_line_is_refused_in_pythons_words(con, tmp_path, kind, text):
    path = tmp_path / f"bad.{'run' if kind == 'run' else 'txt'}"
    path.write_text(text)
    with pytest.raises(rankkit.InputError) as python:
        (rankkit.read_run if kind == "run" else rankkit.read_qrels)(path, con=con)
    with pytest.raises(Exception) as sql:
        con.execute(f"FROM rankkit.read_trec_{kind}('{path}')").fetchall()
    assert f"rankkit: {python.value}" in str(sql.value)


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_an_empty_file_is_refused_in_pythons_words(con, tmp_path, kind):
    path = tmp_path / "empty.txt"
    path.write_text("# nothing judged yet\n\n")
    with pytest.raises(rankkit.InputError) as python:
        (rankkit.read_run if kind == "run" else rankkit.read_qrels)(path, con=con)
    with pytest.raises(Exception) as sql:
        con.execute(f"FROM rankkit.read_trec_{kind}('{path}')").fetchall()
    assert f"rankkit: {python.value}" in str(sql.value)


def test_an_empty_file_in_a_glob_is_named(con, tmp_path):
    (tmp_path / "a.run").write_text("1 Q0 a 1 1 x\n")
    (tmp_path / "b.run").write_text("")
    with pytest.raises(Exception) as sql:
        con.execute(f"FROM rankkit.read_trec_run('{tmp_path / '*.run'}')").fetchall()
    assert (f"rankkit: {tmp_path / 'b.run'}: the file is empty, expected TREC run lines "
            "(query_id q0 doc_id rank score system)") in str(sql.value)


def test_a_bad_line_in_a_glob_names_its_file_and_its_line_there(con, tmp_path):
    (tmp_path / "a.run").write_text("1 Q0 a 1 1 x\n1 Q0 b 2 1 x\n1 Q0 c 3 1 x\n")
    (tmp_path / "b.run").write_text("# b\n1 Q0 a 1 1 x\n1 Q0 b 2 x\n")
    with pytest.raises(Exception) as sql:
        con.execute(f"FROM rankkit.read_trec_run('{tmp_path / '*.run'}')").fetchall()
    assert f"rankkit: {tmp_path / 'b.run'}:3: expected 6 fields (query_id q0 doc_id rank score system), found 5" in str(sql.value)


def test_run_name_sheds_suffixes_as_python_does():
    from rankkit.io import run_name

    con = _sql.connect()
    for path in ["runs/bm25.run.gz", "dl19.BM25.trec_results.txt", ".gz", "x.RUN", "a.b", "dir.run/x.res.gz"]:
        assert con.execute("SELECT rankkit.run_name(?)", [path]).fetchall()[0][0] == run_name(path), path


def test_the_duckdb_shell_reads_and_evaluates_through_the_macros(files, tmp_path):
    """The duckdb 1.5 shell binds some macros as it creates them: the readers must load there too."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    shell = shutil.which("duckdb") or str(Path(sys.executable).parent / "duckdb")
    if not Path(shell).exists():
        pytest.skip("the duckdb shell (duckdb-cli package) is not installed")
    (tmp_path / "rankkit.sql").write_text(macros.script())
    commands = (f".read {tmp_path / 'rankkit.sql'}\n"
                f"CREATE TABLE qrels AS FROM rankkit.read_trec_qrels('{files / 'qrels.txt'}');\n"
                f"CREATE TABLE run AS FROM rankkit.read_trec_run('{files / 'runs' / '*.run*'}');\n"
                "SELECT measure, system, round(value, 4) FROM rankkit.evaluate('qrels', 'run', 'AP') ORDER BY system;\n")
    out = subprocess.run([shell, "-csv", "-noheader"], input=commands, capture_output=True, text=True, timeout=60)
    python = rankkit.evaluate(files / "qrels.txt", {"bm25": files / "runs" / "bm25.run",
                                                     "dense": files / "runs" / "dense.run.gz"}, ["AP"])
    expected = [f"AP,{r.system},{round(r.value, 4)}" for r in python.sort_values("system").itertuples()]
    assert out.stdout.split() == expected, out.stderr
