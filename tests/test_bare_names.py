"""Inputs named by their bare file name in the working directory (``run.csv``, ``big.parquet``,
``topics.csv``), and run arguments given as NAME=PATH to every command that takes runs.

DuckDB's replacement scan binds any CSV or Parquet file by its name, so the check that refuses a
name meaning both a table and a file refused every data file named bare; only a real table or view
of the connection's catalog makes a name ambiguous.
"""

from __future__ import annotations

import pandas as pd
import pytest

import rankkit
from rankkit.cli import main

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 a 1\nq2 0 d 0\n"
ROWS = [("q1", "b", 3.0), ("q1", "a", 2.0), ("q1", "c", 1.0), ("q2", "a", 2.0), ("q2", "d", 1.0)]


def _write_run(path, fmt: str) -> None:
    frame = pd.DataFrame(ROWS, columns=["query_id", "doc_id", "score"])
    if fmt == "parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False, sep="\t" if fmt == "tsv" else ",")


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A working directory holding qrels.txt, the same run as run.txt, run.csv, run.tsv and run.parquet,
    and topics.csv."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text("".join(f"{q} Q0 {d} 1 {s} x\n" for q, d, s in ROWS))
    for fmt in ("csv", "tsv", "parquet"):
        _write_run(tmp_path / f"run.{fmt}", fmt)
    (tmp_path / "topics.csv").write_text("query_id,category\nq1,short\nq2,long\n")
    return tmp_path


@pytest.mark.parametrize("name", ["run.csv", "run.tsv", "run.parquet"])
def test_python_reads_a_data_file_named_bare(here, name):
    expected = rankkit.evaluate("qrels.txt", "run.txt", "AP")["value"].item()
    assert rankkit.evaluate("qrels.txt", name, "AP")["value"].item() == expected


@pytest.mark.parametrize("name", ["run.csv", "run.tsv", "run.parquet"])
def test_the_command_line_reads_a_data_file_named_bare(here, name, capsys):
    assert main(["eval", "-m", "AP", "qrels.txt", "run.txt"]) == 0
    expected = capsys.readouterr().out.splitlines()[-1].split("\t")[-1]
    assert main(["eval", "-m", "AP", "qrels.txt", name]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.splitlines()[-1].split("\t")[-1] == expected


def test_a_query_table_named_bare_slices_evaluate_and_report(here):
    by = rankkit.evaluate("qrels.txt", "run.csv", "AP", by="category", query_table="topics.csv")
    assert sorted(by["category"]) == ["long", "short"]
    made = rankkit.report("qrels.txt", ["run.csv", "run.parquet"], ["AP"], by="category", queries="topics.csv")
    assert sorted(made.slices["category"].unique()) == ["long", "short"]


def test_a_qrels_csv_named_bare_is_read(here):
    rows = [line.split() for line in QRELS.splitlines()]
    pd.DataFrame(rows, columns=["query_id", "iter", "doc_id", "relevance"]).drop(columns="iter").to_csv(
        "qrels.csv", index=False)
    assert rankkit.evaluate("qrels.csv", "run.csv", "AP")["value"].item() == \
        rankkit.evaluate("qrels.txt", "run.txt", "AP")["value"].item()


def test_a_table_that_is_also_a_data_file_is_still_refused(here):
    """A true ambiguity: a view named like the file (``"run.csv"`` as schema ``run``, table ``csv``)."""
    con = rankkit.connect()
    con.execute("CREATE SCHEMA run; CREATE TABLE run.csv AS SELECT 'q1' AS query_id, 'a' AS doc_id, 1.0 AS score")
    with pytest.raises(rankkit.InputError, match=r"'run.csv' is both a table in the connection and a file"):
        rankkit.evaluate("qrels.txt", "run.csv", "AP", con=con)
    # the table holds q1 alone, ranking a (grade 2) but not c (grade 1): AP 1/2; the file's mean differs
    with pytest.warns(rankkit.RankkitWarning, match="missing from the run"):  # q2, scored 0 as asked
        table = rankkit.evaluate("qrels.txt", con.table("run.csv"), "AP", con=con, queries="qrels")
    assert table["value"].item() == 0.25


# ---- NAME=PATH --------------------------------------------------------------------------------

def test_report_takes_name_equals_path_runs(here, capsys):
    """As eval, compare, check and explore do: the name given is the system's name, and the baseline
    can be given by that name or by the file's path."""
    assert main(["report", "qrels.txt", "first=run.txt", "second=run.csv", "-m", "AP", "--baseline", "first",
                 "-o", "named.json"]) == 0, capsys.readouterr().err
    made = rankkit.Report.load(here / "named.json")
    assert sorted(made.aggregate["system"].unique()) == ["first", "second"]
    assert made.record["statistics"]["baseline"] == "first"
    assert main(["verify", "named.json"]) == 0  # the names recorded, recomputed the same
    assert main(["report", "qrels.txt", "first=run.txt", "second=run.csv", "-m", "AP", "--baseline", "run.txt",
                 "-o", "by_path.json"]) == 0, capsys.readouterr().err
    assert rankkit.Report.load(here / "by_path.json").record["statistics"]["baseline"] == "first"


def test_report_names_unnamed_runs_as_eval_does(here, capsys):
    """Stems, made unique when they collide, as eval names them (run and run (2))."""
    assert main(["report", "qrels.txt", "run.txt", "run.csv", "-m", "AP", "-o", "stems.json"]) == 0, \
        capsys.readouterr().err
    assert sorted(rankkit.Report.load(here / "stems.json").aggregate["system"].unique()) == ["run", "run (2)"]


def test_report_on_the_command_line_reads_bare_names(here, capsys):
    assert main(["report", "qrels.txt", "run.parquet", "run.tsv", "-m", "AP", "--by", "category",
                 "--queries", "topics.csv", "-o", "sliced.json"]) == 0, capsys.readouterr().err
    made = rankkit.Report.load(here / "sliced.json")
    assert sorted(made.slices["category"].unique()) == ["long", "short"]
    assert sorted(made.aggregate["system"].unique()) == ["run", "run (2)"]


def test_report_reads_one_table_of_systems_as_eval_does(here, capsys):
    """One run argument holding a system column is its systems, in report as in eval."""
    frame = pd.DataFrame(ROWS, columns=["query_id", "doc_id", "score"])
    pd.concat([frame.assign(system="a"), frame.assign(system="b")]).to_csv("systems.csv", index=False)
    assert main(["report", "qrels.txt", "systems.csv", "-m", "AP", "-o", "systems.json"]) == 0, \
        capsys.readouterr().err
    assert sorted(rankkit.Report.load(here / "systems.json").aggregate["system"].unique()) == ["a", "b"]
    assert main(["eval", "-m", "AP", "--format", "csv", "qrels.txt", "systems.csv"]) == 0
    assert {"a", "b"} <= set(capsys.readouterr().out.replace(",", " ").split())
