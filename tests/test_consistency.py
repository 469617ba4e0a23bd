"""One answer everywhere (issue 10): the same input gives the same numbers on every run, through the
command line, Python and SQL, or a clear error. One test per reproduction in the issue; each failed
on the main branch it was reported against."""

from __future__ import annotations

import pandas as pd
import pytest

import rankkit
from rankkit.cli import main
from support import shared_path

pytestmark = pytest.mark.filterwarnings("ignore::rankkit.errors.RankkitWarning")


def cli(capsys, *args: str) -> tuple[int, str, str]:
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# ---- 1. the same numbers on every run ------------------------------------------------------------

def test_a_mean_prints_trec_evals_digit_on_every_run(capsys):
    """P.200 on robust03/humR03dc printed 0.0673 in 14 of 20 runs and 0.0674 (trec_eval's) in 6."""
    folder = shared_path("data", "trectools")
    printed = set()
    for threads in (1, 2, 4, 4, 4, 4, 8, 8):
        status, out, _ = cli(capsys, "eval", "--threads", threads, "-m", "P.200",
                             folder / "robust03_qrels.txt.gz", folder / "input.humR03dc.gz")
        assert status == 0
        printed.add(out)
    # trec_eval's name prints trec_eval's line alone (the query count line comes with rankkit's names)
    assert printed == {"P_200                 \tall\t0.0674\n"}


def test_compare_with_a_seed_repeats_to_the_bit():
    """Two calls of compare(..., test="permutation", seed=7) on the same frames differed in diff, the
    interval and the effect size (about 1e-17) in roughly half the tries."""
    folder = shared_path("data", "trectools")
    con = rankkit.connect(threads=4)
    qrels = rankkit.read_qrels(folder / "robust03_qrels.txt.gz", con=con).df()
    runs = {name: rankkit.read_run(folder / f"input.{name}.gz", con=con).df()
            for name in ("humR03dc", "pircRBa1", "UIUC03Rd1")}
    results = [rankkit.compare(qrels, runs, ["AP", "nDCG@10", "P@200"], baseline="humR03dc",
                               test="permutation", seed=7, resamples=2000, con=con) for _ in range(6)]
    for other in results[1:]:
        pd.testing.assert_frame_equal(results[0], other, check_exact=True)
    means = rankkit.evaluate(qrels, runs, ["AP", "nDCG@10", "P@200"], con=con)
    for row in results[0].itertuples():  # compare's means are evaluate's, to the bit
        assert row.mean == means.query("measure == @row.measure and system == @row.system")["value"].item()


# ---- 4. what the command line prints -----------------------------------------------------------

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\nq3 0 d 1\n"
RUN = "q1 Q0 a 1 2.5 sys\nq1 Q0 b 2 1.5 sys\nq2 Q0 c 1 1.0 sys\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


@pytest.mark.parametrize("fmt", ["trec", "csv", "json", "markdown"])
def test_a_measure_asked_twice_prints_once(capsys, files, fmt):
    """-m nDCG@10 -m nDCG@10 printed four lines."""
    status, twice, _ = cli(capsys, "eval", "-q", "--format", fmt, "-m", "nDCG@10", "-m", "nDCG@10", *files)
    assert status == 0
    assert cli(capsys, "eval", "-q", "--format", fmt, "-m", "nDCG@10", *files)[1] == twice
    assert twice.count("nDCG@10") == 3  # q1, q2, all


def test_python_and_sql_take_a_measure_given_twice_once(con):
    frame = rankkit.evaluate(pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]}),
                             pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]}),
                             ["AP", "nDCG@10", "AP"], con=con)
    assert list(frame["measure"]) == ["AP", "nDCG@10"]
    specs = con.execute("SELECT list(spec.measure ORDER BY spec.i) FROM rankkit.measure_specs(['P@5', 'AP', 'P@5'])")
    assert specs.fetchall()[0][0] == ["P@5", "AP"]


# trec format: rankkit's names print the num_q line; trec_eval's names print trec_eval's lines alone
@pytest.mark.parametrize("fmt, measure, shown", [
    ("trec", "AP", "num_q                 \tall\t2\n"),
    ("csv", "map", "map,run,all,1.0,2\n"),
    ("json", "map", '"queries": 2'),
    ("markdown", "map", "| map | run | all | 1.0000 | 2 |\n"),
])
def test_every_format_says_how_many_queries_were_averaged(capsys, files, fmt, measure, shown):
    status, out, _ = cli(capsys, "eval", "--format", fmt, "-m", measure, *files)
    assert status == 0 and shown in out


def test_trec_format_gives_a_measure_averaging_fewer_queries_its_own_count(capsys, tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq2 0 c 0\n")  # q2: no gain, so no ideal DCG
    (tmp_path / "run.txt").write_text("q1 Q0 a 1 2.5 sys\nq2 Q0 c 1 1.0 sys\n")
    status, out, _ = cli(capsys, "eval", "-m", "nDCG(empty=skip)@10", "-m", "P@1",
                         tmp_path / "qrels.txt", tmp_path / "run.txt")
    assert status == 0
    assert out.splitlines()[:2] == ["num_q                 \tall\t2", "num_q(nDCG(empty=skip)@10)\tall\t1"]


def test_version_on_the_command_line_and_in_python(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"rankkit {rankkit.__version__}"
    assert rankkit.__version__[0].isdigit() and "__version__" in rankkit.__all__


@pytest.mark.parametrize("run, hint", [
    ("query_id,doc_id,score,sytem\nq1,a,1.0,x\n", "--column sytem= ignores it, --column sytem=system"),
    ("query_id,doc_id,score\nq1,a,1.0\nq1,a,0.5\n", "(--duplicates first keeps the first)"),
    ("qid,topic,doc_id,score\nq1,q1,a,1.0\n", "say which with --column qid=query_id"),
])
def test_command_line_hints_say_options_not_python(capsys, tmp_path, run, hint):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.csv").write_text(run)
    status, _, err = cli(capsys, "eval", "-m", "AP", tmp_path / "qrels.txt", tmp_path / "run.csv")
    assert status == 2 and hint in err and "columns=" not in err and "duplicates=" not in err


def test_command_line_warnings_say_options_not_python(capsys, files):
    status, _, err = cli(capsys, "eval", "-m", "AP", *files)
    assert status == 0 and "(-c counts them as 0)" in err and "queries=" not in err


# ---- 2. one rule for what a system is -----------------------------------------------------------

def test_a_trec_file_with_changing_tags_is_one_run_everywhere(capsys):
    """trectools' r1.run changes its tag from line to line: rankkit eval gave trec_eval's map,
    rankkit.evaluate silently gave two systems NR and R."""
    folder = shared_path("data", "trectools", "unittests")
    qrels, run = folder / "qrel1.txt", folder / "r1.run"
    status, out, _ = cli(capsys, "eval", "-m", "map", qrels, run)
    assert status == 0 and out.splitlines()[-1] == "map                   \tall\t0.4028"  # trec_eval's
    frame = rankkit.evaluate(qrels, run, "map")
    assert list(frame.columns) == ["measure", "system", "value", "queries"] and f"{frame['value'].item():.4f}" == "0.4028"
    assert frame["system"].item() == "r1"  # the run's name, as SQL and the command line give it
    con = rankkit.connect()
    table = rankkit.read_run(run, con=con)
    assert con.execute(f"SELECT DISTINCT system FROM {table.alias}").fetchall() == [("r1",)]
    status, out, _ = cli(capsys, "check", qrels, run)
    assert "1 system" in out and "systems\tr1\t" in out


def test_splitting_a_trec_file_by_tag_is_the_same_option_everywhere(capsys):
    folder = shared_path("data", "trectools", "unittests")
    qrels, run = folder / "qrel1.txt", folder / "r1.run"
    status, out, err = cli(capsys, "eval", "--split-by-tag", "-m", "map", qrels, run)
    # the run column is padded to the longest name, as trec_eval pads its measure column
    printed = {line.split("\t")[0].rstrip(): line.split("\t")[-1] for line in out.splitlines() if "map" in line}
    frame = rankkit.evaluate(qrels, run, "map", split_by_tag=True)
    assert printed == {row.system: f"{row.value:.4f}" for row in frame.itertuples()} == {"NR": "0.0000", "R": "0.5833"}
    assert "split" not in err  # an option asked for: no warning
    status, out, _ = cli(capsys, "check", "--split-by-tag", qrels, run)
    assert "2 systems" in out and "systems\tNR, R\t" in out


@pytest.fixture
def several(tmp_path):
    """qrels text and a Parquet file whose system column holds five systems."""
    import numpy as np

    rng = np.random.default_rng(4)
    qrels = [(f"q{q}", f"d{d}", int(rng.integers(0, 3))) for q in range(6) for d in range(8)]
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    run = pd.DataFrame([(f"s{s}", f"q{q}", f"d{d}", float(rng.integers(0, 8)) / 8)
                        for s in range(5) for q in range(6) for d in range(8)],
                       columns=["system", "query_id", "doc_id", "score"])
    run.to_parquet(tmp_path / "runs.parquet")
    return tmp_path / "qrels.txt", tmp_path / "runs.parquet", run


def test_the_command_line_evaluates_a_table_holding_several_systems(capsys, several):
    """A Parquet file with a system column failed with 'duplicate document ... in system runs.parquet'
    while rankkit check reported five systems and Python evaluated it."""
    qrels, path, _ = several
    status, out, err = cli(capsys, "eval", "-m", "AP", "-m", "nDCG@5", qrels, path)
    assert status == 0, err
    printed = {(line.split("\t")[0], line.split("\t")[1].strip()): line.split("\t")[-1]
               for line in out.splitlines() if "num_q" not in line}
    frame = rankkit.evaluate(qrels, path, ["AP", "nDCG@5"])
    assert printed == {(row.system, row.measure): f"{row.value:.4f}" for row in frame.itertuples()}
    assert len(printed) == 10
    status, out, _ = cli(capsys, "check", qrels, path)
    assert "5 systems" in out and "systems\ts0, s1, s2, s3, s4\t" in out and "duplicates\trun 0" in out
    status, out, _ = cli(capsys, "compare", "-m", "AP", "--baseline", "s0", qrels, path)
    assert status == 0 and len([line for line in out.splitlines() if line.startswith("AP")]) == 4


def test_runs_are_named_alike_on_the_command_line_and_in_python(capsys, several, tmp_path):
    """File stems, made unique when they collide; NAME=PATH on the command line, a dict in Python."""
    qrels, path, run = several
    one = run[run["system"] == "s1"].drop(columns="system")
    (tmp_path / "a").mkdir()
    one.to_csv(tmp_path / "a" / "bm25.csv", index=False)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "bm25.run").write_text("".join(f"{r.query_id} Q0 {r.doc_id} 0 {r.score} tag\n"
                                                     for r in one.itertuples()))
    files = [tmp_path / "a" / "bm25.csv", tmp_path / "b" / "bm25.run"]
    status, out, _ = cli(capsys, "eval", "-m", "AP", qrels, *files, f"mine={path}")
    names = list(dict.fromkeys(line.split("\t")[0].rstrip() for line in out.splitlines()))
    frame = rankkit.evaluate(qrels, {**dict(zip(["bm25", "bm25 (2)"], files)), "mine": path}, "AP")
    assert names == list(frame["system"]) == ["bm25", "bm25 (2)"] + [f"mine/s{s}" for s in range(5)]
    assert list(rankkit.evaluate(qrels, files, "AP")["system"]) == ["bm25", "bm25 (2)"]


# ---- 3. the SQL macros check what they read ----------------------------------------------------

def _tables(con, scores, grades=(1, 1, 0), ids=("a", "b", "c")):
    con.execute("CREATE OR REPLACE TABLE q AS SELECT * FROM (VALUES " + ", ".join(
        f"('q1', 'd{i}', {'NULL' if g is None else g})" for i, g in enumerate(grades)) + ") t(query_id, doc_id, relevance)")
    con.execute("CREATE OR REPLACE TABLE r AS SELECT * FROM (VALUES " + ", ".join(
        f"('q1', {'NULL' if d is None else repr('d' + str(i))}, {s})" for i, (d, s) in enumerate(zip(ids, scores)))
        + ") t(query_id, doc_id, score)")


@pytest.mark.parametrize("score, shown", [("'nan'::DOUBLE", "NaN"), ("'inf'::DOUBLE", "inf"), ("NULL", "NULL")])
def test_sql_refuses_a_score_python_refuses(con, score, shown):
    """A NaN score ranked first in SQL (AP 0.8333 where the answer is 0.5833), a NULL passed."""
    _tables(con, ["1.0E0", score, "3.0E0"])
    with pytest.raises(Exception, match=rf"run table r: the score of document d1 for query q1 is {shown}; "
                                        r"expected a finite number"):
        con.execute("FROM rankkit.evaluate('q', 'r', ['AP'])").fetchall()
    with pytest.raises(rankkit.InputError, match="the run DataFrame: row 2: the score"):  # a NULL is NaN in pandas
        rankkit.evaluate(con.table("q").df(), con.table("r").df(), "AP")


def test_sql_refuses_null_ids_and_grades(con):
    _tables(con, ["1.0E0", "2.0E0", "3.0E0"], ids=("a", None, "c"))
    with pytest.raises(Exception, match="run table r: a NULL document id for query q1"):
        con.execute("FROM rankkit.evaluate('q', 'r', ['AP'])").fetchall()
    _tables(con, ["1.0E0", "2.0E0", "3.0E0"], grades=(1, None, 0))
    with pytest.raises(Exception, match="qrels table q: the relevance of document d1 for query q1 is NULL"):
        con.execute("FROM rankkit.ndcg('q', 'r', k := 10)").fetchall()
    with pytest.raises(rankkit.InputError, match="the relevance is missing"):
        rankkit.evaluate("q", "r", "AP", con=con)
    _tables(con, ["1.0E0", "2.0E0", "3.0E0"])  # the same tables, clean: SQL and Python agree
    sql = con.execute("SELECT value FROM rankkit.evaluate('q', 'r', ['AP'])").fetchall()[0][0]
    assert sql == rankkit.evaluate("q", "r", "AP", con=con)["value"].item() == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_a_nan_is_called_nan():
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, float("nan")]})
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(rankkit.InputError, match="the score is NaN, not a finite number"):
        rankkit.evaluate(qrels, run, "AP")


def test_list_macros_take_k_second(con):
    """rankkit.rr([0, 0, 1], 10) was 0: the 10 was a relevance level."""
    assert con.execute("SELECT rankkit.rr([0, 0, 1], 10), rankkit.ap([1, 0, 1], 2)").fetchall() == [(1 / 3, 1 / 2)]


# ---- 5. sources --------------------------------------------------------------------------------

def test_a_name_that_is_a_table_and_a_file_is_refused_saying_how_to_choose(con, tmp_path, monkeypatch):
    """A table name that was also a file in the working directory silently read the file, even when
    the caller passed the connection that holds the table."""
    from pathlib import Path

    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\n")
    Path("run").write_text("q1 Q0 b 1 1.0 x\n")  # the file ranks b: AP 0
    con.execute("CREATE TABLE run AS SELECT 'q1' AS query_id, 'a' AS doc_id, 1.0 AS score")  # the table: AP 1
    with pytest.raises(rankkit.InputError, match=r"'run' is both a table in the connection and a file in .*: "
                                                 r"pass con.table\('run'\) for the table, or pathlib.Path\('run'\)"):
        rankkit.evaluate("qrels.txt", "run", "AP", con=con)
    assert rankkit.evaluate("qrels.txt", con.table("run"), "AP", con=con)["value"].item() == 1.0
    assert rankkit.evaluate("qrels.txt", Path("run"), "AP", con=con)["value"].item() == 0.0
    assert rankkit.evaluate("qrels.txt", "./run", "AP", con=con)["value"].item() == 0.0


def test_a_relation_read_on_another_connection_fails_saying_so(tmp_path):
    (tmp_path / "q.txt").write_text("q1 0 a 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 1.0 x\n")
    qrels, run = rankkit.read_qrels(tmp_path / "q.txt"), rankkit.read_run(tmp_path / "r.txt")
    mine = rankkit.connect()
    with pytest.raises(rankkit.InputError, match=r"the qrels relation belongs to another DuckDB connection .* "
                                                 r"pass the same con= to read_qrels\(\) and to this call"):
        rankkit.evaluate(qrels, run, "AP", con=mine)
    assert rankkit.evaluate(qrels, run, "AP")["value"].item() == 1.0  # on the connection they came from
    qrels, run = rankkit.read_qrels(tmp_path / "q.txt", con=mine), rankkit.read_run(tmp_path / "r.txt", con=mine)
    assert rankkit.evaluate(qrels, run, "AP", con=mine)["value"].item() == 1.0


@pytest.mark.filterwarnings("always::rankkit.errors.RankkitWarning")
def test_warnings_point_at_the_callers_line(tmp_path):
    (tmp_path / "q.txt").write_text("q1 0 a 1\nq2 0 b 1\n")
    (tmp_path / "r.txt").write_text("q1 Q0 a 1 1.0 x\n")
    for call in (lambda: rankkit.evaluate(tmp_path / "q.txt", tmp_path / "r.txt", "AP"),
                 lambda: rankkit.compare(tmp_path / "q.txt", [tmp_path / "r.txt", tmp_path / "r.txt"], "AP")):
        with pytest.warns(rankkit.RankkitWarning) as caught:
            call()
        assert {w.filename for w in caught} == {__file__}


@pytest.mark.parametrize("run", [pd.DataFrame({"query_id": [], "doc_id": [], "score": []}),
                                 pd.DataFrame({"query_id": pd.Series([], dtype=str), "doc_id": pd.Series([], dtype=str),
                                               "score": pd.Series([], dtype=float)})])
def test_an_empty_run_dataframe_is_an_error_like_an_empty_file(run, tmp_path):
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(rankkit.InputError, match="the run DataFrame: no rows, expected query_id, doc_id, score rows"):
        rankkit.evaluate(qrels, run, "AP")
    (tmp_path / "r.csv").write_text("query_id,doc_id,score\n")
    with pytest.raises(rankkit.InputError, match="r.csv: no rows"):
        rankkit.evaluate(qrels, tmp_path / "r.csv", "AP")


# ---- 6. duplicates="first" ---------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["trec", "csv", "parquet", "frame"])
def test_duplicates_first_keeps_each_documents_first_row_in_every_kind_of_source(tmp_path, kind, monkeypatch):
    """Only the rows whose key repeats go through the window; the rest are kept as they are."""
    import rankkit.io.checks

    monkeypatch.setattr(rankkit.io.checks, "SPLIT_ROWS", 0)  # the hash search in parts, as for a large run
    rows = [("q1", "b", 3.0), ("q1", "a", 1.0), ("q2", "c", 2.0), ("q1", "a", 5.0), ("q2", "c", 9.0), ("q2", "d", 1.0)]
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    if kind == "trec":
        source = tmp_path / "r.txt"
        source.write_text("".join(f"{q} Q0 {d} 0 {s} x\n" for q, d, s in rows))
    elif kind == "csv":
        source = tmp_path / "r.csv"
        run.to_csv(source, index=False)
    elif kind == "parquet":
        source = tmp_path / "r.parquet"
        run.to_parquet(source)
    else:
        source = run
    kept = rankkit.read_run(source, duplicates="first", con=rankkit.connect()).fetchall()
    assert sorted((q, d, s) for _, q, d, _, s in kept) == sorted([("q1", "b", 3.0), ("q1", "a", 1.0),
                                                                ("q2", "c", 2.0), ("q2", "d", 1.0)])
