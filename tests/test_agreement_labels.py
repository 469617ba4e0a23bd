"""Label agreement (sql/60_agreement.sql, rankkit/agreement.py) against sklearn's cohen_kappa_score and
the krippendorff package, on hand-made and hypothesis-generated judgment tables, and its refusals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankkit

krippendorff = pytest.importorskip("krippendorff")
metrics = pytest.importorskip("sklearn.metrics")

A = [("q1", "d1", 2), ("q1", "d2", 0), ("q1", "d3", 1), ("q2", "d1", 1), ("q2", "d2", 3), ("q2", "d9", 0)]
B = [("q1", "d1", 1), ("q1", "d2", 0), ("q1", "d3", 1), ("q2", "d1", 1), ("q2", "d2", 2), ("q3", "x", 1)]
MEASURES = ["kappa", "kappa_grades", "kappa_linear", "kappa_quadratic", "alpha_ordinal", "alpha_interval"]


def tables(con, a, b):
    con.execute("CREATE OR REPLACE TABLE a (query_id VARCHAR, doc_id VARCHAR, relevance INTEGER)")
    con.execute("CREATE OR REPLACE TABLE b (qid VARCHAR, docno VARCHAR, rel INTEGER)")  # other names, matched
    for name, rows in (("a", a), ("b", b)):
        if rows:
            con.executemany(f"INSERT INTO {name} VALUES (?, ?, ?)", rows)


def sql_agreement(con, threshold=1) -> dict:
    frame = con.execute(f"FROM rankkit.label_agreement('a', 'b', threshold := {threshold})").df()
    return {row.query_id if isinstance(row.query_id, str) else None: row._asdict() for row in frame.itertuples(index=False)}


def oracles(a, b, threshold=1) -> dict:
    """Every measure per query and overall (None), from sklearn and krippendorff on the aligned pairs."""
    left = {(q, d): g for q, d, g in a}
    right = {(q, d): g for q, d, g in b}
    both = sorted(left.keys() & right.keys())
    labels = sorted({left[k] for k in both} | {right[k] for k in both})
    groups = {None: both} | {q: [k for k in both if k[0] == q] for q in {k[0] for k in both}}
    return {query: _oracle([left[k] for k in keys], [right[k] for k in keys], labels, threshold)
            for query, keys in groups.items()}


def _oracle(x, y, labels, threshold) -> dict:
    if not x:  # no pair judged on both sides: nothing to agree on
        return dict.fromkeys(MEASURES, math.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns where kappa is undefined (NaN)
        binary = metrics.cohen_kappa_score([g >= threshold for g in x], [g >= threshold for g in y], labels=[False, True])
        found = {"kappa": binary,
                 "kappa_grades": metrics.cohen_kappa_score(x, y, labels=labels),
                 "kappa_linear": metrics.cohen_kappa_score(x, y, labels=labels, weights="linear"),
                 "kappa_quadratic": metrics.cohen_kappa_score(x, y, labels=labels, weights="quadratic")}
    for level in ("ordinal", "interval"):
        if len(set(x) | set(y)) < 2:  # krippendorff refuses a single value: alpha is undefined
            found[f"alpha_{level}"] = math.nan
        else:
            found[f"alpha_{level}"] = krippendorff.alpha(np.array([x, y], dtype=float), level_of_measurement=level)
    return found


def assert_matches(found: dict, expected: dict) -> None:
    assert set(found) - {None} >= set(expected) - {None}
    for query, values in expected.items():
        for measure in MEASURES:
            got, want = found[query][measure], values[measure]
            if want is None or (isinstance(want, float) and math.isnan(want)):
                assert got is None or math.isnan(got), (query, measure, got)
            else:
                assert got == pytest.approx(want, abs=1e-9), (query, measure, got, want)


def test_label_pairs_keep_the_one_sided(con):
    tables(con, A, B)
    rows = con.execute("SELECT query_id, doc_id, grade_a, grade_b, side FROM rankkit.label_pairs('a', 'b')").fetchall()
    assert ("q2", "d9", 0.0, None, "a") in rows and ("q3", "x", None, 1.0, "b") in rows
    assert len(rows) == 7
    counts = con.execute("SELECT query_id, pairs, only_a, only_b FROM rankkit.label_agreement('a', 'b')").fetchall()
    assert counts == [("q1", 3, 0, 0), ("q2", 2, 1, 0), ("q3", 0, 0, 1), (None, 5, 1, 1)]


def test_hand_made_tables_match_the_oracles(con):
    tables(con, A, B)
    assert_matches(sql_agreement(con), oracles(A, B))
    confusion = con.execute("SELECT grade_a, grade_b, pairs FROM rankkit.label_confusion('a', 'b') WHERE query_id IS NULL").fetchall()
    assert confusion == [(0.0, 0.0, 1), (1.0, 1.0, 2), (2.0, 1.0, 1), (3.0, 2.0, 1)]


def test_one_table_with_a_judge_column(con):
    tables(con, A, B)
    con.execute("CREATE TABLE j AS SELECT *, 'human' AS judge FROM a UNION ALL SELECT qid, docno, rel, 'llm' FROM b")
    mixed = con.execute("FROM rankkit.label_agreement('j')").fetchall()
    assert mixed == con.execute("FROM rankkit.label_agreement('a', 'b')").fetchall()
    swapped = con.execute("SELECT pairs, only_a, only_b FROM rankkit.label_agreement('j', judges := ['llm', 'human']) "
                          "WHERE query_id IS NULL").fetchall()
    assert swapped == [(5, 1, 1)]


grades = st.integers(min_value=0, max_value=3)
judgments = st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3"]), st.sampled_from(list("abcdefgh")),
                               grades, grades, st.sampled_from(["both", "both", "both", "a", "b"])),
                     min_size=1, max_size=40, unique_by=lambda row: row[:2])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=judgments, threshold=st.sampled_from([1, 2, 3]))
def test_generated_tables_match_the_oracles(con, rows, threshold):
    a = [(q, d, x) for q, d, x, _, side in rows if side != "b"]
    b = [(q, d, y) for q, d, _, y, side in rows if side != "a"]
    tables(con, a, b)
    if not {q for q, _, _ in a} & {q for q, _, _ in b}:
        with pytest.raises(Exception, match="no query in common"):
            sql_agreement(con, threshold)
        return
    assert_matches(sql_agreement(con, threshold), oracles(a, b, threshold))


@pytest.mark.parametrize("rows, message", [
    ([("q1", "d1", "high")], r"relevance of document d1 for query q1 is 'high'; expected a finite number"),
    ([("q1", "d1", "1"), ("q1", "d1", "2")], r"document d1 is judged 2 times for query q1"),
    ([("q9", "d1", "1")], r"have no query in common \(first queries: q1; q9\)"),
])
def test_bad_tables_are_refused_by_name(con, rows, message):
    con.execute("CREATE TABLE a AS SELECT * FROM (VALUES ('q1', 'd1', 1)) t(query_id, doc_id, relevance)")
    con.execute("CREATE TABLE b (query_id VARCHAR, doc_id VARCHAR, grade VARCHAR)")
    con.executemany("INSERT INTO b VALUES (?, ?, ?)", rows)
    with pytest.raises(Exception, match=message) as raised:
        con.execute("FROM rankkit.label_agreement('a', 'b')").fetchall()
    assert "qrels table b" in str(raised.value)


def test_missing_column_and_judges_are_said(con):
    con.execute("CREATE TABLE a AS SELECT * FROM (VALUES ('q1', 'd1', 1)) t(query_id, doc_id, relevance)")
    con.execute("CREATE TABLE b AS SELECT * FROM (VALUES ('q1', 'd1')) t(query_id, doc_id)")
    with pytest.raises(Exception, match="qrels table b: missing column relevance"):
        con.execute("FROM rankkit.label_agreement('a', 'b')").fetchall()
    with pytest.raises(Exception, match="its judge column must hold two judges .* it holds none"):
        con.execute("FROM rankkit.label_agreement('a')").fetchall()


def test_python_agreement_frames_and_intervals():
    a = pd.DataFrame(A, columns=["query_id", "doc_id", "relevance"])
    b = pd.DataFrame(B, columns=["query_id", "doc_id", "relevance"])
    found = rankkit.agreement(a, b, resamples=2000)
    assert (found.pairs, found.only_a, found.only_b) == (5, 1, 1)
    assert found.one_sided[["query_id", "doc_id", "side"]].values.tolist() == [["q2", "d9", "a"], ["q3", "x", "b"]]
    assert found.per_query.query_id.tolist() == ["q1", "q2", "q3"]
    aggregate = found.aggregate.set_index("measure")
    assert aggregate.value["kappa_linear"] == pytest.approx(oracles(A, B)[None]["kappa_linear"])
    linear = found.per_query.kappa_linear.dropna()
    assert aggregate["mean"]["kappa_linear"] == pytest.approx(linear.mean())
    assert aggregate.queries["kappa_linear"] == 2
    assert linear.min() <= aggregate.ci_low["kappa_linear"] <= aggregate.ci_high["kappa_linear"] <= linear.max()


def test_python_agreement_reads_files_and_names_them(tmp_path):
    good = tmp_path / "human.txt"
    good.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    twice = tmp_path / "llm.txt"
    twice.write_text("q1 0 d1 1\nq1 0 d1 0\n")
    with pytest.raises(rankkit.InputError, match=r"llm\.txt:2: duplicate document d1 for query q1"):
        rankkit.agreement(good, twice)
    other = tmp_path / "other.txt"
    other.write_text("q7 0 d1 1\n")
    with pytest.raises(rankkit.RankkitError, match=r"human\.txt and .*other\.txt have no query in common"):
        rankkit.agreement(good, other)


def test_python_agreement_with_a_judge_column():
    frame = pd.DataFrame([(*row, "human") for row in A] + [(*row, "llm") for row in B],
                         columns=["query_id", "doc_id", "relevance", "judge"])
    found = rankkit.agreement(frame)
    assert (found.pairs, found.only_a, found.only_b) == (5, 1, 1)
    with pytest.raises(rankkit.RankkitError, match="the qrels DataFrame: with one table, its judge column must hold two"):
        rankkit.agreement(frame[frame.judge == "human"])
    frame.loc[0, "relevance"] = float("nan")
    with pytest.raises(rankkit.RankkitError, match="judge human in the qrels DataFrame: the relevance of document d1 "
                                                   "for query q1 is NULL"):  # pandas' NaN reaches DuckDB as NULL
        rankkit.agreement(frame)


def test_python_agreement_frames_name_the_two_sides(tmp_path):
    first, second = tmp_path / "human.txt", tmp_path / "llm.txt"
    first.write_text("q1 0 d1 1\nq1 0 d2 0\n")
    second.write_text("q1 0 d1 1\nq1 0 d2 1\n")
    found = rankkit.agreement(first, str(second))
    for frame in (found.aggregate, found.per_query, found.confusion, found.one_sided):
        assert (frame.attrs["qrels_a"], frame.attrs["qrels_b"]) == (str(first), str(second))
    frames = rankkit.agreement(pd.DataFrame(A, columns=["query_id", "doc_id", "relevance"]), str(second))
    assert (frames.per_query.attrs["qrels_a"], frames.per_query.attrs["qrels_b"]) == ("DataFrame", str(second))
    judged = pd.DataFrame([(*row, "zoe") for row in A] + [(*row, "al") for row in B],
                          columns=["query_id", "doc_id", "relevance", "judge"])
    # one table: its judges, in the order label_pairs takes them (sorted), or as named
    assert rankkit.agreement(judged).aggregate.attrs["qrels_a"] == "judge al in DataFrame"
    named = rankkit.agreement(judged, judges=("zoe", "al")).aggregate.attrs
    assert (named["qrels_a"], named["qrels_b"]) == ("judge zoe in DataFrame", "judge al in DataFrame")


def test_docstring_example_runs():
    import doctest
    import importlib

    module = importlib.import_module("rankkit.agreement")  # the module; rankkit.agreement is the function
    assert doctest.testmod(module).failed == 0


def test_python_agreement_says_which_table_and_which_judge():
    """Two DataFrames were both 'the qrels DataFrame' in a message; one table's judges were taken in
    alphabetical order without a word; a judge not in the table read as 'no query in common'; and a
    Python caller was told to write SQL's judges := [a, b] (issue 33's findings)."""
    good = pd.DataFrame(A, columns=["query_id", "doc_id", "relevance"])
    bad = good.rename(columns={"relevance": "grade_x"})
    with pytest.raises(rankkit.InputError, match="^the qrels_b DataFrame: missing column relevance"):
        rankkit.agreement(good, bad)
    with pytest.raises(rankkit.InputError, match="^the qrels_a DataFrame: missing column relevance"):
        rankkit.agreement(bad, good)
    judged = pd.DataFrame([(*row, "zoe") for row in A] + [(*row, "al") for row in B],
                          columns=["query_id", "doc_id", "relevance", "judge"])
    with pytest.warns(rankkit.RankkitWarning, match=r"a is judge al and b is judge zoe.*judges=\('al', 'zoe'\)"):
        rankkit.agreement(judged)
    with warnings.catch_warnings():
        warnings.simplefilter("error", rankkit.RankkitWarning)
        rankkit.agreement(judged, judges=("zoe", "al"))  # named: nothing to say
    with pytest.raises(rankkit.RankkitError, match="judge bo is not in the judge column; it holds al, zoe"):
        rankkit.agreement(judged, judges=("al", "bo"))
    with pytest.raises(rankkit.RankkitError, match=r"name them with judges=\[a, b\]") as raised:
        rankkit.agreement(judged[judged.judge == "al"])
    assert ":=" not in str(raised.value)
