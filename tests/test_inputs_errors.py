"""One test per bad input: the message names the place (file and line, or row) and the problem."""

from __future__ import annotations

import gzip
import math
import warnings

import pandas as pd
import pytest

import rankkit
from rankkit import InputError, RankkitWarning
from rankkit.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::rankkit.RankkitWarning")

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n"
RUN = "q1 Q0 a 1 2.0 s\nq1 Q0 b 2 1.0 s\nq2 Q0 c 1 1.0 s\n"


def files(tmp_path, qrels=QRELS, run=RUN, qrels_name="q.txt", run_name="r.txt"):
    (tmp_path / qrels_name).write_text(qrels)
    (tmp_path / run_name).write_text(run)
    return tmp_path / qrels_name, tmp_path / run_name


def fails(qrels, run, *pieces, **options):
    with pytest.raises(InputError) as caught:
        rankkit.evaluate(qrels, run, ["AP"], con=rankkit.connect(), **options)
    for piece in pieces:
        assert piece in str(caught.value), str(caught.value)
    return str(caught.value)


# ---- TREC text --------------------------------------------------------------------------------

def test_trec_qrels_line_missing_a_field(tmp_path):
    q, r = files(tmp_path, qrels="q1 0 a 1\nq1 0 b\n")
    fails(q, r, f"{q}:2:", "expected 4 fields", "found 3")


def test_trec_qrels_line_with_an_extra_field(tmp_path):
    q, r = files(tmp_path, qrels="# judged\nq1 0 a 1\nq1 0 b 1 x\n")
    fails(q, r, f"{q}:3:", "expected 4 fields", "found 5")


@pytest.mark.parametrize("line", ["q1 Q0 b 2  s", "q1  b 2 1.0 s", "q1 Q0 b  1.0 s", "q1 Q0 b 2 1.0 ", " q1 Q0 b 2 1.0"])
@pytest.mark.parametrize("gzipped", [False, True])
def test_trec_run_line_with_an_empty_field_has_a_field_too_few(tmp_path, line, gzipped):
    # two separators in a row: DuckDB's reader sees six fields, one empty; trec_eval sees five
    text = f"q1 Q0 a 1 2.0 s\n{line}\n"
    q, r = files(tmp_path, run=text)
    if gzipped:
        r = tmp_path / "r.txt.gz"
        r.write_bytes(gzip.compress(text.encode()))
    fails(q, r, f"{r}:2:", "expected 6 fields", "found 5")


def test_trec_run_rank_that_is_not_an_integer_is_no_rank(tmp_path):
    q, r = files(tmp_path, run="q1 Q0 a x 2.0 s\nq1 Q0 b - 1.0 s\n")
    assert rankkit.read_run(r, con=rankkit.connect()).fetchall() == [("r", "q1", "a", None, 2.0), ("r", "q1", "b", None, 1.0)]
    fails(q, r, "ties='rank' needs an integer rank on every row", ties="rank")


def test_trec_run_score_not_a_number(tmp_path):
    q, r = files(tmp_path, run="q1 Q0 a 1 2.0 s\nq1 Q0 b 2 abc s\n")
    fails(q, r, f"{r}:2:", "score 'abc' is not a finite number")


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity"])
def test_trec_run_score_not_finite(tmp_path, value):
    q, r = files(tmp_path, run=f"q1 Q0 a 1 2.0 s\n\nq1 Q0 b 2 {value} s\n")
    fails(q, r, f"{r}:3:", f"'{value}' is not a finite number")


def test_trec_duplicate_in_run_names_both_lines(tmp_path):
    q, r = files(tmp_path, run="q1 Q0 a 1 2.0 s\nq1 Q0 b 2 1.0 s\nq1 Q0 a 3 0.5 s\n")
    fails(q, r, f"{r}:3:", "duplicate document a for query q1", "lines 1 and 3", "duplicates='first'")


def test_trec_duplicate_in_qrels(tmp_path):
    q, r = files(tmp_path, qrels="q1 0 a 1\nq1 0 a 0\n")
    fails(q, r, f"{q}:2:", "duplicate document a for query q1")


def test_equal_hashes_of_different_rows_are_no_duplicate(tmp_path, monkeypatch):
    # the hash search is only a sieve: when it finds a pair, the exact search decides
    import rankkit.io.checks
    monkeypatch.setattr(rankkit.io.checks, "_may_repeat", lambda con, loaded, split: True)
    q, r = files(tmp_path)
    assert rankkit.evaluate(q, r, ["AP"], con=rankkit.connect())["value"].tolist() == [1.0]


@pytest.mark.parametrize("split", [False, True])
def test_duplicate_among_many_rows_is_found(tmp_path, monkeypatch, split):
    import rankkit.io.checks
    if split:  # as for a large run held in memory: the hashes are sorted in parts
        monkeypatch.setattr(rankkit.io.checks, "SPLIT_ROWS", 0)
    lines = [f"q{i % 50} Q0 d{i} {i} {1000 - i}.5 s" for i in range(5000)] + ["q7 Q0 d4007 9 3.0 s"]
    q, r = files(tmp_path, qrels="q7 0 d7 1\n", run="\n".join(lines) + "\n")
    fails(q, r, f"{r}:5001:", "duplicate document d4007 for query q7", "lines 4008 and 5001")


def test_the_same_document_in_two_systems_is_no_duplicate(tmp_path, monkeypatch):
    import rankkit.io.checks
    monkeypatch.setattr(rankkit.io.checks, "SPLIT_ROWS", 0)
    lines = [f"q{i % 50} Q0 d{i} {i} {1000 - i}.5 {tag}" for tag in ("s", "t") for i in range(2000)]
    q, r = files(tmp_path, qrels="q7 0 d7 1\n", run="\n".join(lines) + "\n")
    assert sorted(rankkit.evaluate(q, r, ["AP"], con=rankkit.connect(), split_by_tag=True)["system"]) == ["s", "t"]
    r.write_text("\n".join(lines + ["q7 Q0 d7 9 3.0 t"]) + "\n")
    fails(q, r, f"{r}:4001:", "duplicate document d7 for query q7 in system t", "lines 2008 and 4001", split_by_tag=True)


def test_empty_file(tmp_path):
    q, r = files(tmp_path, run="\n\n")
    fails(q, r, f"{r}: the file is empty, expected TREC run lines (query_id q0 doc_id rank score system)")


def test_comment_only_file_is_not_called_empty(tmp_path):
    q, r = files(tmp_path, run="# nothing\n\n# yet\n")
    message = fails(q, r, f"{r}: the file holds only comment lines (2 lines starting with #), expected TREC run lines")
    assert "empty" not in message
    q.write_text("# one\n")
    fails(q, r, f"{q}: the file holds only comment lines (1 line starting with #), expected TREC qrels lines "
                "(query_id iteration doc_id relevance)")


def test_no_such_file_or_table(tmp_path, monkeypatch):
    q, _ = files(tmp_path)
    monkeypatch.chdir(tmp_path)
    fails(q, str(tmp_path / "missing.txt"), "missing.txt: no such file")
    fails(q, "my_rnu", "my_rnu: no such file, and no table or view of that name")
    fails(q, "main.my_rnu", "main.my_rnu: no such file, and no table or view of that name")  # main: a schema
    # a file's name, not a table's: no schema is called bm25
    assert fails(q, "bm25.run", "bm25.run: no such file").endswith("no such file")
    assert fails(q, tmp_path / "my_rnu", "my_rnu: no such file").endswith("no such file")  # a Path is a file


# ---- CSV --------------------------------------------------------------------------------------

def test_csv_missing_column_lists_what_it_found(tmp_path):
    q, r = files(tmp_path, run="qid,docno,position\nq1,a,1\n", run_name="r.csv")
    fails(q, r, f"{r}: missing column score", "sim", "columns are qid (VARCHAR), docno (VARCHAR), position (VARCHAR)")


def test_csv_extra_column_is_refused_unless_ignored(tmp_path):
    q, r = files(tmp_path, run="qid,docno,score,sytem\nq1,a,1,s\n", run_name="r.csv")
    fails(q, r, f"{r}: extra column sytem", "rankkit reads query_id, doc_id, score, system, rank",
          "columns={'sytem': None} ignores it")
    got = rankkit.evaluate(q, r, ["P@1"], columns={"sytem": None})
    assert got["value"].tolist() == [1.0]


def test_frame_with_a_second_query_id(tmp_path):
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1], "query": ["cheap flights"]})
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    fails(qrels, run, "the qrels DataFrame: columns query_id, query could each be the query_id")


def test_csv_row_with_an_extra_field(tmp_path):
    q, r = files(tmp_path, run="qid,docno,score\nq1,a,1\nq1,b,2,3\n", run_name="r.csv")
    fails(q, r, f"{r}:3:", "expected 3 fields as in the header, found 4")


def test_csv_row_missing_a_field(tmp_path):
    q, r = files(tmp_path, run="qid,docno,score\nq1,a,1\nq1,b\n", run_name="r.csv")
    fails(q, r, f"{r}:3:", "expected 3 fields as in the header, found 2")


def test_csv_score_not_a_number(tmp_path):
    q, r = files(tmp_path, run="qid,docno,score\nq1,a,1\n\nq1,b,x1\n", run_name="r.csv")
    fails(q, r, f"{r}:4:", "the score 'x1' is not a number")


def test_csv_empty_score(tmp_path):
    q, r = files(tmp_path, run="qid,docno,score\nq1,a,1\nq1,b,\n", run_name="r.csv")
    fails(q, r, f"{r}:3:", "the score is missing")


def test_csv_empty_document_id(tmp_path):
    q, r = files(tmp_path, qrels="query_id,doc_id,relevance\nq1,,1\n", qrels_name="q.csv")
    fails(q, r, f"{q}:2:", "document id is missing")


def test_csv_duplicate_names_lines(tmp_path):
    q, r = files(tmp_path, run="qid,docno,score\nq1,a,1\nq1,b,1\nq1,a,3\n", run_name="r.csv")
    fails(q, r, f"{r}:4:", "duplicate document a for query q1", "lines 2 and 4")


def test_csv_ambiguous_columns(tmp_path):
    q, r = files(tmp_path, run="qid,topic,docno,score\nq1,q1,a,1\n", run_name="r.csv")
    fails(q, r, "columns qid, topic could each be the query_id", "columns={'qid': 'query_id'}")


def test_csv_header_names_a_column_twice(tmp_path):
    q, r = files(tmp_path, run="qid,docno,score,QID\nq1,a,1,q1\n", run_name="r.csv")
    fails(q, r, f"{r}:1:", "names column 'QID' twice")


def test_csv_not_utf8(tmp_path):
    q, r = files(tmp_path, run_name="r.csv")
    r.write_bytes(b"qid,docno,score\nq1,\xff\xfe,1\n")
    fails(q, r, f"{r}:2:", "not UTF-8")


# ---- frames, Parquet, tables ------------------------------------------------------------------

def test_frame_nan_score_names_the_row():
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, math.nan]})
    fails(qrels, run, "the run DataFrame: row 2:", "score is NaN, not a finite number")


def test_frame_infinite_score():
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, -math.inf]})
    fails(qrels, run, "the run DataFrame: row 2:", "score -inf is not a finite number")


def test_frame_null_query_id():
    qrels = pd.DataFrame({"query_id": ["q1", None], "doc_id": ["a", "b"], "relevance": [1, 1]})
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": [1.0]})
    fails(qrels, run, "the qrels DataFrame: row 2:", "query id is missing")


def test_frame_float_ids_are_the_wrong_type():
    qrels = pd.DataFrame({"query_id": [1.0], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "score": [1.0]})
    fails(qrels, run, "the qrels DataFrame: column query_id (query_id) is DOUBLE", "expected strings or integers")


def test_frame_score_of_the_wrong_type():
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "score": pd.to_datetime(["2024-01-01"])})
    fails(qrels, run, "column score (score) is TIMESTAMP", "expected numbers")


def test_frame_duplicate_names_rows():
    qrels = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [1]})
    run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    fails(qrels, run, "the run DataFrame:", "duplicate document a for query q1", "rows 1 and 2")


def test_parquet_null_score_names_file_and_row(tmp_path):
    q, _ = files(tmp_path)
    pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "c"], "sim": [1.0, None, 2.0]}).to_parquet(
        tmp_path / "r.parquet")
    fails(q, tmp_path / "r.parquet", "r.parquet: row 2:", "score is missing")


def test_table_with_a_missing_column(tmp_path):
    con = rankkit.connect()
    con.execute("CREATE TABLE judgments AS SELECT 'q1' AS query_id, 'a' AS doc_id, 1 AS stars")
    q, r = files(tmp_path)
    with pytest.raises(InputError, match=r"table judgments: missing column relevance .*stars \(INTEGER\)"):
        rankkit.evaluate("judgments", r, ["AP"], con=con)
    got = rankkit.evaluate("judgments", r, ["AP"], con=con, columns={"stars": "relevance"})
    assert got["value"].tolist() == [1.0]


def test_no_query_in_common_shows_both_sides(tmp_path):
    q, r = files(tmp_path, run="1 Q0 a 1 2.0 s\n")
    fails(q, r, "have no query in common", "'1'", "'q1', 'q2'", "compared as strings")


def test_ties_rank_needs_integer_ranks(tmp_path):
    q, r = files(tmp_path, run="q1 Q0 a first 2.0 s\n")
    rankkit.evaluate(q, r, ["AP"])  # trec_eval ignores the rank field
    fails(q, r, "ties='rank' needs an integer rank", ties="rank")


# ---- warnings ---------------------------------------------------------------------------------

def caught(qrels, run, measures=("AP",)):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        rankkit.evaluate(qrels, run, list(measures), con=rankkit.connect())
    return [str(w.message) for w in seen if issubclass(w.category, RankkitWarning)]


def test_warns_about_queries_on_one_side_only(tmp_path):
    q, r = files(tmp_path, run="q1 Q0 a 1 2.0 s\nq9 Q0 a 1 2.0 s\n")
    seen = caught(q, r)
    assert any("1 of 2 queries have no judgments" in w and "'q9'" in w for w in seen)
    assert any("1 of 2 judged queries are missing" in w and "'q2'" in w and "trec_eval -c" in w for w in seen)


def test_loaded_inputs_are_compared_once_and_warned_about_every_call(tmp_path):
    """The counts of a pair of loaded inputs are kept (they cannot change); the warnings are not."""
    q, r = files(tmp_path, run="q1 Q0 a 1 2.0 s\nq9 Q0 a 1 2.0 s\n")
    con = rankkit.connect()
    qrels, run = rankkit.read_qrels(q, con=con), rankkit.read_run(r, con=con)
    other = rankkit.read_qrels(pd.DataFrame({"query_id": ["q9"], "doc_id": ["a"], "relevance": [1]}), con=con)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            rankkit.evaluate(qrels, run, ["AP"], con=con)
        assert any("1 of 2 queries have no judgments" in str(w.message) for w in seen)
    with warnings.catch_warnings(record=True) as seen:  # another pair, other counts
        warnings.simplefilter("always")
        rankkit.evaluate(other, run, ["AP"], con=con)
    assert any("1 of 2 queries have no judgments" in str(w.message) and "'q1'" in str(w.message) for w in seen)


def test_warns_about_fractional_grades_and_grades_above_errs_scale(tmp_path):
    q, r = files(tmp_path, qrels="q1 0 a 1.5\nq1 0 b 0\nq2 0 c 6\n")
    seen = caught(q, r, ["AP", "ERR@10"])
    assert any("fractional grades (such as 1.5 for document a of query q1)" in w for w in seen)
    assert any("grade 6 is above ERR's scale (max=4)" in w for w in seen)
    assert caught(q, r, ["AP"]) == [seen[0]]


def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys):
    q, r = files(tmp_path, run="q1 Q0 a 1 2.0 s\nq1 Q0 b 2 abc s\n")
    assert main(["eval", str(q), str(r)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"rankkit eval: {r}:2: the score 'abc' is not a finite number"]


def test_cli_prints_warnings_on_stderr(tmp_path, capsys):
    q, r = files(tmp_path, run="q1 Q0 a 1 2.0 s\n")
    assert main(["eval", "-q", "-m", "AP", str(q), str(r)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rankkit eval: warning:") and "'q2'" in err[0]


def test_csv_glob_names_the_file_and_line(tmp_path):
    q, _ = files(tmp_path)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.csv").write_text("qid,docno,score\nq1,a,1\n")
    (tmp_path / "runs" / "b.csv").write_text("qid,docno,score\nq1,b,2\n\nq2,c,many\n")
    fails(q, str(tmp_path / "runs" / "*.csv"), f"{tmp_path / 'runs' / 'b.csv'}:4:", "the score 'many' is not a number")
