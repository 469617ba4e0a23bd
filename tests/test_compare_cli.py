"""rankkit compare: a table with significance marks, the test and correction named under it."""

from __future__ import annotations

import io

import pytest

from rankkit.cli import main
from test_compare import _sample


def _files(tmp_path, seed=31, queries=20):
    qrels, run = _sample(seed, queries=queries)
    (tmp_path / "qrels.txt").write_text("".join(f"{r.query_id} 0 {r.doc_id} {r.relevance}\n" for r in qrels.itertuples()))
    paths = []
    for system, rows in run.groupby("system"):
        path = tmp_path / f"{system}.run"
        path.write_text("".join(f"{r.query_id} Q0 {r.doc_id} 0 {r.score} {system}\n" for r in rows.itertuples()))
        paths.append(str(path))
    return str(tmp_path / "qrels.txt"), paths


def test_compare_prints_marks_and_names_the_test(tmp_path, capsys):
    qrels, runs = _files(tmp_path)
    assert main(["compare", qrels, *runs, "-m", "nDCG@10", "-m", "map", "--baseline", "a.run",
                 "--test", "permutation", "--correction", "bh", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["measure", "system", "mean", "baseline"]
    assert [line.split()[:2] for line in lines[1:5]] == [["nDCG@10", "b"], ["nDCG@10", "c"],
                                                         ["map", "b"], ["map", "c"]]
    assert "test: paired randomisation (sign-flip permutation) test, two-sided, seed 3" in out
    assert "correction: Benjamini-Hochberg" in out and "* p adj < 0.05" in out
    assert any(line.split()[5].endswith("*") for line in lines[1:5])  # c beats a clearly
    main(["compare", qrels, *runs, "-m", "nDCG@10", "-m", "map", "--baseline", "a.run",
          "--test", "permutation", "--correction", "bh", "--seed", "3"])
    assert capsys.readouterr().out == out  # one seed, one table


def test_compare_all_pairs_by_default(tmp_path, capsys):
    qrels, runs = _files(tmp_path)
    assert main(["compare", qrels, *runs, "-m", "P@5", "--correction", "none"]) == 0
    out = capsys.readouterr().out
    assert len([line for line in out.splitlines() if line.startswith("P@5")]) == 3
    assert "test: paired t-test, two-sided; correction: no correction" in out


def test_compare_bad_usage_exits_2_with_one_line(tmp_path, capsys):
    qrels, runs = _files(tmp_path, queries=4)
    assert main(["compare", qrels, *runs, "-m", "AP", "--baseline", "nope.run"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "baseline 'nope.run' is not one of the systems" in err[0]
    assert main(["compare", qrels, runs[0], "-m", "AP"]) == 2
    assert "compare needs two or more systems, got 1: a" in capsys.readouterr().err


def test_compare_with_average_ties(tmp_path, capsys):
    qrels, runs = _files(tmp_path, queries=10)
    assert main(["compare", qrels, *runs, "-m", "nDCG@5", "--ties", "average", "--baseline", "a.run"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 7  # header, 2 rows, blank, test, marks, interval
    assert main(["compare", qrels, *runs, "-m", "AP", "--ties", "average"]) == 2
    assert "ties=average applies to the gain-based measures" in capsys.readouterr().err


def test_compare_takes_eval_s_conventions(tmp_path, capsys):
    """-c, -l and -M, as rankkit eval and rankkit report take them: the means are evaluate's."""
    import rankkit

    qrels, runs = _files(tmp_path)
    assert main(["compare", qrels, *runs, "-m", "AP", "-l", "2", "-M", "5", "--baseline", "a.run",
                 "--digits", "12"]) == 0
    printed = {line.split()[1]: float(line.split()[2]) for line in capsys.readouterr().out.splitlines()[1:3]}
    means = rankkit.evaluate(qrels, dict(zip("abc", runs)), "AP", rel=2, depth=5).set_index("system")["value"]
    assert printed == {name: round(means[name], 12) for name in ("b", "c")}
    assert printed["b"] != round(rankkit.evaluate(qrels, runs[1], "AP")["value"].item(), 12)  # the options count


def _python_result(qrels, runs, **options):
    import rankkit

    return rankkit.compare(qrels, dict(zip("abc", runs)), ["nDCG@10", "AP"], **options)


def test_compare_json_and_csv_hold_the_python_result(tmp_path, capsys):
    """--format json and csv: every number of compare()'s frame at full precision, and its settings."""
    import json

    import pandas as pd

    qrels, runs = _files(tmp_path)
    options = ["-m", "nDCG@10", "-m", "AP", "--test", "wilcoxon", "--correction", "bh", "--seed", "5", "-l", "2"]
    expected = _python_result(qrels, runs, test="wilcoxon", correction="bh", seed=5, rel=2)
    assert main(["compare", qrels, *runs, *options, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    found = pd.DataFrame(document.pop("comparisons"))
    assert found.pop("better").unique().tolist() == ["higher"]  # which way W/T/L count
    pd.testing.assert_frame_equal(found, expected, check_exact=True)
    conventions = document.pop("conventions")
    assert document == {name: expected.attrs[name] for name in document}
    assert list(document) == ["test", "correction", "alpha", "interval", "seed", "resamples"]
    assert conventions == expected.attrs["conventions"] and conventions["rel"] == 2
    assert main(["compare", qrels, *runs, *options, "--format", "csv"]) == 0
    read = pd.read_csv(io.StringIO(capsys.readouterr().out))
    pd.testing.assert_frame_equal(read[list(expected.columns)], expected, check_exact=True)
    assert read["test"].unique().tolist() == ["wilcoxon"] and read["conventions.rel"].unique().tolist() == [2.0]


def test_compare_writes_missing_numbers_as_null_not_nan(tmp_path, capsys):
    """One query: no interval, effect or p; JSON holds null (NaN is not JSON), CSV an empty cell."""
    import json

    qrels, runs = _files(tmp_path, queries=1)
    assert main(["compare", qrels, *runs, "-m", "AP", "--format", "json"]) == 0
    text = capsys.readouterr().out
    rows = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))["comparisons"]
    assert {row["ci_low"] for row in rows} == {None} and {row["p_value"] for row in rows} == {None}
    assert main(["compare", qrels, *runs, "-m", "AP", "--format", "csv"]) == 0
    assert ",,,," in capsys.readouterr().out.splitlines()[1]  # ci_low, ci_high, effect, p_value


def test_compare_output_file_is_what_it_prints(tmp_path, capsys):
    qrels, runs = _files(tmp_path, queries=8)
    for fmt, suffix in (("csv", "csv"), ("json", "json"), ("text", "txt")):
        assert main(["compare", qrels, *runs, "-m", "P@5", "--format", fmt, "--digits", "3"]) == 0
        printed = capsys.readouterr().out
        assert main(["compare", qrels, *runs, "-m", "P@5", "-o", str(tmp_path / f"out.{suffix}"), "--digits", "3"]) == 0
        assert capsys.readouterr().out == "" and (tmp_path / f"out.{suffix}").read_text() == printed
    assert main(["compare", qrels, *runs, "-m", "P@5", "-o", str(tmp_path / "out.tsv")]) == 0
    assert (tmp_path / "out.tsv").read_text().startswith("measure\tsystem\tbaseline\tmean\t")
    assert not list(tmp_path.glob(".partial-*"))


def test_compare_output_refusals(tmp_path, capsys):
    """-o onto an input (however spelled), a suffix compare does not write, or one --format contradicts:
    one line, exit 2, nothing written."""
    qrels, runs = _files(tmp_path, queries=4)
    table = tmp_path / "runs.csv"
    table.write_text("system,query_id,doc_id,score\n" + "".join(
        line.split()[5] + "," + ",".join(line.split()[i] for i in (0, 2, 4)) + "\n"
        for run in runs for line in open(run)))
    before = table.read_bytes()
    (tmp_path / "link.csv").symlink_to(table)
    for output, extra, said in ((str(table), [], "is the same file as the run"),
                                (str(tmp_path / "link.csv"), [], "is the same file as the run"),
                                (str(tmp_path / "x.xlsx"), [], "compare writes .txt, .csv, .tsv, .json"),
                                (str(tmp_path / "x.csv"), ["--format", "json"], "--format json and -o")):
        assert main(["compare", qrels, str(table), "-m", "AP", "-o", output, *extra]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and said in err[0]
    assert table.read_bytes() == before and not (tmp_path / "x.csv").exists()


def test_compare_csv_quotes_hostile_system_names(tmp_path, capsys):
    import csv

    qrels, runs = _files(tmp_path, queries=6)
    assert main(["compare", qrels, f"+SUM(A1)|calc={runs[0]}", f"@cmd={runs[1]}", "-m", "AP", "--format", "csv"]) == 0
    row = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))[0]
    assert (row["system"], row["baseline"]) == ("'@cmd", "'+SUM(A1)|calc")
