"""What rankkit says about its inputs and options (issue 33): each warning names the runs it
concerns and the files as the user gave them; a bad option is the first and only message; a bad value is
named with its place."""

from __future__ import annotations

import pytest

from rankkit.cli import main

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq3 0 d 1\n"


def cli(capsys, *args):
    status = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err.strip().splitlines()


# ---- a column mapping: the user's file named, never rankkit's table ---------------------------------

@pytest.fixture
def mapped(tmp_path):
    (tmp_path / "judged.csv").write_text("qid,docno,clicks\nq1,a,1\nq1,b,0\nq2,c,1\nq3,d,1.5\n")
    (tmp_path / "ranked.csv").write_text("qid,docno,sim\nq1,a,2\nq1,b,1\nq9,c,1\n")
    return tmp_path / "judged.csv", tmp_path / "ranked.csv"


@pytest.mark.parametrize("command", [["eval", "-l", "2", "-m", "P@1"], ["eval", "-m", "relstring", "-q"],
                                     ["compare", "-m", "P@1"], ["check"]])
def test_warnings_under_a_column_mapping_name_the_file(capsys, mapped, command):
    qrels, run = mapped
    runs = [run, f"again={run}"] if command[0] == "compare" else [run]
    status, _, err = cli(capsys, *command, qrels, *runs, "--column", "clicks=relevance")
    assert status == 0
    assert len(err) >= 3 and not any("rankkit_" in line or "relation" in line for line in err), err
    assert any(f"{qrels}: fractional grades" in line for line in err)
    assert any(f"have no judgments in {qrels}" in line for line in err)


def test_errors_under_a_column_mapping_name_the_file(capsys, mapped, tmp_path):
    qrels, _ = mapped
    (tmp_path / "other.csv").write_text("qid,docno,sim\nq7,c,1\n")
    status, _, err = cli(capsys, "eval", "-m", "P@1", qrels, tmp_path / "other.csv", "--column", "clicks=relevance")
    assert status == 2 and len(err) == 1
    assert f"{tmp_path / 'other.csv'} and {qrels} have no query in common" in err[0]


# ---- queries on one side only: said of the runs concerned, each with its count -----------------------

def test_coverage_warnings_name_only_the_runs_concerned(capsys, tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    runs = {"good": "q1 Q0 a 1 2 x\nq2 Q0 c 1 1 x\nq3 Q0 d 1 1 x\n", "bad": "q1 Q0 a 1 2 x\nq9 Q0 c 1 1 x\nq8 Q0 c 1 1 x\n",
            "worse": "q7 Q0 c 1 1 x\nq1 Q0 a 1 2 x\n", "also": "q1 Q0 a 1 2 x\nq9 Q0 c 1 1 x\nq6 Q0 c 1 1 x\n"}
    for name, text in runs.items():
        (tmp_path / f"{name}.run").write_text(text)
    paths = {name: str(tmp_path / f"{name}.run") for name in runs}
    status, _, err = cli(capsys, "eval", "-m", "P@1", tmp_path / "qrels.txt", *paths.values())
    assert status == 0
    unjudged = [line for line in err if "have no judgments" in line]
    assert unjudged == [f"rankkit eval: warning: {paths['bad']}, {paths['also']}: 2 of 3 queries in each have no "
                        f"judgments in {tmp_path / 'qrels.txt'} (such as 'q6', 'q8', 'q9') and are not evaluated",
                        f"rankkit eval: warning: {paths['worse']}: 1 of 2 queries have no judgments in "
                        f"{tmp_path / 'qrels.txt'} (such as 'q7') and are not evaluated"]
    missing = [line for line in err if "are missing from" in line]
    assert len(missing) == 1 and "2 of 3 judged queries are missing from each of" in missing[0]
    assert paths["good"] not in " ".join(err)


def test_coverage_warnings_name_the_systems_of_one_table(capsys, tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "runs.csv").write_text("system,query_id,doc_id,score\nA,q1,a,1\nA,q2,c,1\nA,q3,d,1\nB,q1,a,1\nB,q9,b,1\n")
    status, _, err = cli(capsys, "eval", "-m", "P@1", tmp_path / "qrels.txt", tmp_path / "runs.csv")
    assert status == 0
    assert [line for line in err if "have no judgments" in line] == [
        f"rankkit eval: warning: {tmp_path / 'runs.csv'} (system B): 1 of 2 queries have no judgments in "
        f"{tmp_path / 'qrels.txt'} (such as 'q9') and are not evaluated"]


def test_check_prints_the_qrels_once(capsys, tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS + "q1 0 a 1\n")
    for name in ("one", "two", "three"):
        (tmp_path / f"{name}.run").write_text("q1 Q0 a 1 2 x\nq2 Q0 c 1 1 x\n")
    status, out, _ = cli(capsys, "check", tmp_path / "qrels.txt", *(tmp_path / f"{n}.run" for n in ("one", "two", "three")))
    lines = out.splitlines()
    assert status == 0 and [line for line in lines if line.startswith("qrels")] == [
        f"qrels\t{tmp_path / 'qrels.txt'}\t3 queries, 5 judgments, 1 duplicate"]
    assert lines[0].startswith("qrels") and len([line for line in lines if line.startswith("run\t")]) == 3
    assert all(line.startswith("duplicates\trun 0 (") for line in lines if line.startswith("duplicates"))


# ---- a bad option: the first and only message, before any input is read ---------------------------

@pytest.mark.parametrize("args, said", [
    (["eval", "-m", "Foo@1", "{q}", "{r}"], "unknown measure 'Foo@1'"),
    (["eval", "-m", "P@1", "-o", "{tmp}/out.txt", "{q}", "{r}"], "-o {tmp}/out.txt: the suffix says the format"),
    (["eval", "-m", "P@1", "--digits", "-1", "{q}", "{r}"], "--digits -1: expected a number of decimals"),
    (["eval", "-m", "alpha-nDCG@10", "{q}", "{r}"], "alpha-nDCG@10 needs subtopic judgments"),
    (["eval", "-m", "P@1", "--format", "latex", "--baseline", "nope", "{q}", "{r}", "{g}"], "baseline 'nope' is not one"),
    (["compare", "-m", "P@1", "--baseline", "nope", "{q}", "{r}", "{g}"], "baseline 'nope' is not one of the systems: r, g"),
    (["compare", "-m", "P@1", "--digits", "-2", "{q}", "{r}", "{g}"], "--digits -2"),
    (["compare", "-m", "P@1", "--alpha", "2", "{q}", "{r}", "{g}"], "alpha must be between 0 and 1"),
    (["compare", "-m", "P@1", "--column", "x", "{q}", "{r}", "{g}"], "--column expects YOURS=OURS"),
    (["report", "-m", "P@1", "--baseline", "nope", "-o", "{tmp}/r.md", "{q}", "{r}", "{g}"], "baseline 'nope'"),
    (["agree", "-m", "P@1", "--ci", "3", "{q}", "{q}", "{r}", "{g}", "{r}"], "--ci 3: expected a level"),
    (["agree", "-m", "P@1", "--alpha", "3", "{q}", "{q}", "{r}", "{g}", "{r}"], "alpha must be between 0 and 1"),
    (["agree", "-m", "Foo", "{q}", "{q}", "{r}", "{g}", "{r}"], "unknown measure 'Foo'"),
])
def test_a_bad_option_is_the_first_and_only_message(capsys, tmp_path, args, said, qrels="missing.txt"):
    """Given a missing qrels file, or inputs that warn (queries on one side only), the option is said alone."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "r.run").write_text("q1 Q0 a 1 2 x\nq9 Q0 c 1 1 x\n")
    (tmp_path / "g.run").write_text("q1 Q0 a 1 2 x\nq2 Q0 c 1 1 x\n")
    given = {"q": tmp_path / qrels, "r": tmp_path / "r.run", "g": tmp_path / "g.run", "tmp": tmp_path}
    status, out, err = cli(capsys, *(arg.format(**given) for arg in args))
    assert status == 2 and out == "" and len(err) == 1, err
    assert said.format(**given) in err[0]


@pytest.mark.parametrize("args, said", [
    (["agree", "-m", "P@1", "--ci", "3", "{q}", "{q}", "{r}", "{g}", "{r}"], "--ci 3: expected a level"),
    (["compare", "-m", "P@1", "--baseline", "nope", "{q}", "{r}", "{g}"], "baseline 'nope' is not one of the systems: r, g"),
])
def test_a_bad_option_comes_before_the_warnings(capsys, tmp_path, args, said):
    test_a_bad_option_is_the_first_and_only_message(capsys, tmp_path, args, said, qrels="qrels.txt")


# ---- rankkit sql --dialect duckdb --column ------------------------------------------------------------

def _shell(folder, commands: str):
    """The plain duckdb shell (the duckdb-cli package) fed `rankkit macros` and then ``commands``."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from rankkit._sql import script

    shell = shutil.which("duckdb") or str(Path(sys.executable).parent / "duckdb")
    if not Path(shell).exists():
        pytest.skip("the duckdb shell (duckdb-cli package) is not installed")
    (folder / "rankkit.sql").write_text(script())
    return subprocess.run([shell, "-csv", "-noheader", "-bail"], input=f".read {folder / 'rankkit.sql'}\n{commands}",
                          capture_output=True, text=True, timeout=60)


def test_sql_for_the_duckdb_shell_applies_a_column_mapping(capsys, tmp_path):
    """The statement renames the mapped columns and runs in the plain duckdb shell, as evaluate() reads them."""
    import rankkit

    (tmp_path / "qrels.csv").write_text("topic,docno,clicks\nq1,a,1\nq1,b,0\nq2,c,2\nq2,d,1\n")
    (tmp_path / "run.csv").write_text("topic,docno,points\nq1,a,2\nq1,b,3\nq2,d,1\nq2,c,0.5\n")
    status, statement, err = cli(capsys, "sql", "-m", "AP", "-m", "nDCG@2", "--qrels", "judged", "--run", "ranked",
                                 "--column", "clicks=relevance", "--column", "points=score", "--column", "topic=query_id")
    assert status == 0 and err == [] and 'RENAME ("clicks" AS relevance, "topic" AS query_id)' in statement
    out = _shell(tmp_path, f"CREATE TABLE judged AS FROM read_csv('{tmp_path / 'qrels.csv'}');\n"
                           f"CREATE TABLE ranked AS FROM read_csv('{tmp_path / 'run.csv'}');\n" + statement)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    got = {line.split(",")[0]: float(line.split(",")[2]) for line in out.stdout.split()}
    expected = rankkit.evaluate(tmp_path / "qrels.csv", tmp_path / "run.csv", ["AP", "nDCG@2"],
                                columns={"clicks": "relevance", "points": "score"})
    assert got == pytest.approx(dict(zip(expected["measure"], expected["value"])))


# ---- a bad grade in a DataFrame: its row, as a bad score's ------------------------------------------

@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize("values", ["past_the_sample", "categorical"])
def test_a_bad_number_in_a_frame_is_named_with_its_row(kind, values):
    """DuckDB types a column of Python objects by a sample of its rows (a 'x' among 3,000 integers failed the
    whole read, no row said), and refused a pandas categorical of strings outright."""
    import pandas as pd

    import rankkit

    n = 3000
    number = "relevance" if kind == "qrels" else "score"
    frames = {"qrels": pd.DataFrame({"query_id": "q1", "doc_id": [f"d{i}" for i in range(n)], "relevance": 1}),
              "run": pd.DataFrame({"query_id": "q1", "doc_id": [f"d{i}" for i in range(n)], "score": 1.0})}
    bad = [1] * (n - 1) + ["x"]
    frames[kind][number] = pd.Categorical([str(v) for v in bad]) if values == "categorical" else bad
    with pytest.raises(rankkit.InputError, match=rf"^the {kind} DataFrame: row {n}: the {number} 'x' is not a number$"):
        rankkit.evaluate(frames["qrels"], frames["run"], "AP")


# ---- SQL: a truncated gzip file ----------------------------------------------------------------------

def test_the_duckdb_shell_says_a_compressed_files_bad_last_line_may_be_a_truncation(tmp_path):
    """The duckdb 1.5 shell reads a truncated gzip file up to where it stops, without a word: the line cut
    short was 'line 1404: expected 6 fields'. The SQL cannot tell a truncation (docs/inputs.md says so);
    it says what a bad last line of a compressed file may mean. (DuckDB 2 stops at the cut itself.)"""
    import gzip

    text = "".join(f"q{i // 10} Q0 d{i} {i % 10 + 1} {100 - i % 10}.5 bm25\n" for i in range(3000)).encode()
    packed = gzip.compress(text)
    (tmp_path / "cut.run.gz").write_bytes(packed[: len(packed) // 2])
    (tmp_path / "inner.run.gz").write_bytes(gzip.compress(b"q1 Q0 a 1 1 x\nq1 Q0 b 2\nq1 Q0 c 3 1 x\n"))
    said = {name: _shell(tmp_path, f"FROM rankkit.read_trec_run('{tmp_path / name}');").stderr
            for name in ("cut.run.gz", "inner.run.gz")}
    assert ("expected 6 fields" in said["cut.run.gz"] and "is the file truncated? DuckDB reads" in said["cut.run.gz"]
            or "Unexpected end of GZIP stream" in said["cut.run.gz"]), said
    assert ":2: expected 6 fields" in said["inner.run.gz"] and "truncated" not in said["inner.run.gz"]
