"""rankkit agree: the label agreement and, given runs, the leaderboard agreement, in trec text, csv and json."""

from __future__ import annotations

import csv
import io
import json

import pytest

from rankkit.cli import main

QRELS_A = "q1 0 a 2\nq1 0 b 0\nq1 0 c 1\nq2 0 a 1\nq2 0 b 3\nq2 0 x 0\n"
QRELS_B = "q1 0 a 1\nq1 0 b 0\nq1 0 c 1\nq2 0 a 1\nq2 0 b 2\nq3 0 z 1\n"
# three runs that order q1's and q2's documents differently
RUNS = {"first": ("a", "b", "c"), "second": ("b", "c", "a"), "third": ("c", "a", "b")}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.qrels").write_text(QRELS_A)
    (tmp_path / "b.qrels").write_text(QRELS_B)
    runs = []
    for name, order in RUNS.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {doc} {i} {3 - i} {name}\n" for q in ("q1", "q2") for i, doc in enumerate(order)))
        runs.append(str(path))
    return str(tmp_path / "a.qrels"), str(tmp_path / "b.qrels"), runs


def test_labels_only_in_trec_text(files, capsys):
    a, b, _ = files
    assert main(["agree", a, b]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    found = {(name.strip(), scope.strip()): value for name, scope, value in lines}
    assert found[("pairs", "all")] == "5" and found[("only_a", "all")] == "1" and found[("only_b", "all")] == "1"
    assert found[("kappa_linear", "all")] == "0.5833"
    assert main(["agree", a, b, "--one-sided"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    found = {(name.strip(), scope.strip()): value for name, scope, value in lines}
    assert found[("only_a", "q2 x")] == "0" and found[("only_b", "q3 z")] == "1"  # named, with the grade given


def test_the_summary_comes_first_and_one_sided_pairs_are_counted(files, capsys):
    """On DL19 with a second judge, 208 one-sided pairs were printed before the leaderboards: the
    summary (labels over all pairs, leaderboards, correlations, swaps) comes first, the detail after
    it and only when asked for (-q: per query; --one-sided: each pair), and stderr says how many
    pairs one table alone judges and how to list them."""
    a, b, runs = files
    assert main(["agree", a, b, *runs, "-m", "P@1", "--format", "json"]) == 0
    captured = capsys.readouterr()
    rows = json.loads(captured.out)
    assert [row["section"] for row in rows if row["scope"] == "all"][:3] == ["labels"] * 3
    assert "one_sided" not in {row["section"] for row in rows}
    assert "2 pairs judged by one table only (1 by " in captured.err and "--one-sided lists them" in captured.err
    assert main(["agree", a, b, *runs, "-m", "P@1", "--format", "json", "-q", "--one-sided"]) == 0
    captured = capsys.readouterr()
    sections = [row["section"] if row["scope"] == "all" or row["section"] != "labels" else "per query"
                for row in json.loads(captured.out)]
    order = [section for i, section in enumerate(sections) if i == 0 or sections[i - 1] != section]
    assert order == ["labels", "leaderboard", "correlation", "per query", "one_sided"]  # these runs swap nothing
    assert "pairs judged by one table only" not in captured.err  # listed: nothing to point to
    per_query = {(row["name"], row["scope"]): row["value"] for row in json.loads(captured.out) if row["scope"] == "q2"}
    assert per_query[("only_a", "q2")] == 1 and per_query[("only_b", "q2")] == 0  # where the pairs are


def test_help_says_what_runs_agree_takes(capsys):
    """The help said both "three or more runs" and "one or more runs": two systems or more are
    compared, rank correlations need three."""
    with pytest.raises(SystemExit):
        main(["agree", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "one or more runs" not in text and "three or more runs" not in text
    assert "two or more systems" in text and "three or more the rank correlations" in text


def test_two_runs_print_the_labels_and_leaderboards_and_say_why_no_correlation(files, capsys):
    """Two runs printed nothing, the label agreement included: now the labels, both leaderboards and
    whether the two systems swap, and a line saying why there is no rank correlation."""
    a, b, runs = files
    assert main(["agree", a, b, *runs[:2], "-m", "P@1"]) == 0
    captured = capsys.readouterr()
    found = {(name.strip(), scope.strip()): value for name, scope, value in
             (line.split("\t") for line in captured.out.splitlines())}
    assert found[("kappa_linear", "all")] == "0.5833" and found[("systems(P@1)", "all")] == "2"
    assert {scope for name, scope in found if name == "rank_a(P@1)"} == {"first", "second"}
    assert ("kendall_tau_b(P@1)", "all") not in found and found[("swaps(P@1)", "all")] in ("0", "1")
    assert "warning: rank correlations need 3 systems or more, got 2 (first, second)" in captured.err
    assert main(["agree", a, b, runs[0], "-m", "P@1"]) == 2  # one system: no leaderboard to compare
    assert "a leaderboard orders 2 systems or more, got 1 (first)" in capsys.readouterr().err


def test_leaderboards_and_machine_formats(files, capsys):
    a, b, runs = files
    assert main(["agree", a, b, *runs, "-m", "P@1", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    correlation = {row["name"]: row["value"] for row in rows if row["section"] == "correlation"}
    assert correlation["systems(P@1)"] == 3 and -1 <= correlation["kendall_tau_b(P@1)"] <= 1
    assert {row["scope"] for row in rows if row["section"] == "leaderboard"} == set(RUNS)
    assert "kendall_tau_b_low(P@1)" not in correlation  # intervals only with --ci
    assert main(["agree", a, b, *runs, "-m", "P@1", "--format", "json", "--ci", "0.9"]) == 0
    rows = json.loads(capsys.readouterr().out)
    interval = {row["name"]: row["value"] for row in rows if row["section"] == "correlation"}
    assert -1 <= interval["kendall_tau_b_low(P@1)"] <= interval["kendall_tau_b_high(P@1)"] <= 1
    assert main(["agree", a, b, *runs, "-m", "P@1", "--format", "csv", "-q", "--one-sided"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {"labels", "one_sided", "leaderboard", "correlation"} <= {row["section"] for row in table}
    assert [row["value"] for row in table if row["name"] == "pairs" and row["scope"] == "q1"] == ["3"]


def test_machine_formats_name_the_two_judgment_tables(files, capsys):
    """A CSV or JSON file read later says which table was a and which b, on every row, as the
    agreement tables a report writes do."""
    a, b, runs = files
    assert main(["agree", a, b, *runs, "-m", "P@1", "--format", "csv", "--one-sided"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {(row["qrels_a"], row["qrels_b"]) for row in table} == {(a, b)}
    assert {"labels", "one_sided", "leaderboard", "correlation"} <= {row["section"] for row in table}
    assert main(["agree", b, a, "--format", "json"]) == 0  # swapped: the names follow the order given
    rows = json.loads(capsys.readouterr().out)
    assert {(row["qrels_a"], row["qrels_b"]) for row in rows} == {(b, a)}
    assert main(["agree", a, b]) == 0  # the text a person reads stays three columns
    assert {len(line.split("\t")) for line in capsys.readouterr().out.splitlines()} == {3}


@pytest.mark.parametrize("extra, message", [
    (["-m", "P@1"], "-m names the measure of the leaderboards"),
    (["RUNS"], "runs are compared by one measure: give -m"),
    (["RUNS", "-m", "nDGC@10"], "nDGC@10"),
    # a diversity measure reads subtopic judgments, not the two tables compared: both leaderboards would be one
    (["RUNS", "-m", "alpha-nDCG@10"], "alpha-nDCG@10 reads subtopic judgments, not the two judgment tables"),
])
def test_bad_usage_exits_2_with_one_line(files, capsys, extra, message):
    a, b, runs = files
    given = []
    for item in extra:
        given += runs if item == "RUNS" else [item]
    assert main(["agree", a, b, *given]) == 2
    err = [line for line in capsys.readouterr().err.strip().splitlines() if "warning:" not in line]
    assert len(err) == 1 and err[0].startswith("rankkit agree: ") and message in err[0]


def test_no_subtopic_judgments_offered(files, capsys):
    # agree compares two judgment tables; it offered the shared --subtopics and ignored it
    a, b, runs = files
    with pytest.raises(SystemExit) as stopped:
        main(["agree", a, b, *runs, "-m", "AP", "--subtopics", a])
    assert stopped.value.code == 2 and "unrecognized arguments: --subtopics" in capsys.readouterr().err


@pytest.mark.parametrize("second, message", [
    # a grade that is not a number, in a CSV file: the file, line, column and what was expected
    ("query_id,doc_id,relevance\nq1,a,1\nq1,b,high\n", "b.csv:3: column relevance: 'high' is not a number"),
    # a document judged twice: refused, without advice on an option agree does not have
    ("query_id,doc_id,relevance\nq1,a,1\nq1,a,2\n",
     "b.csv:3: duplicate document a for query q1 (lines 2 and 3); each document may appear once per query"),
    ("query_id,doc_id,relevance\nq9,a,1\n", "b.csv have no query in common (first queries: q1, q2; q9)"),
])
def test_bad_judgment_tables_are_named(files, tmp_path, capsys, second, message):
    a, _, _ = files
    (tmp_path / "b.csv").write_text(second)
    assert main(["agree", a, str(tmp_path / "b.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rankkit agree: ") and err.endswith(message) and len(err.splitlines()) == 1


@pytest.mark.parametrize("option", [["--threshold", "nan"], ["--threshold", "inf"], ["--ci", "nan"]])
def test_a_level_that_is_no_number_is_a_usage_error(files, capsys, option):
    a, b, runs = files
    with pytest.raises(SystemExit) as stopped:
        main(["agree", a, b, *runs, "-m", "AP", *option])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"expected a finite number, got '{option[1]}'" in err and capsys.readouterr().out == ""
