"""rankkit compare: a table with significance marks, the test and correction named under it."""

from __future__ import annotations

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
