"""``rankkit demo`` does each piece of work once."""

from __future__ import annotations

import importlib

import pandas as pd

from rankkit.cli import main


def test_the_demo_evaluates_the_runs_once(tmp_path, monkeypatch, capsys):
    """Before: the table, the per-query file and the report each evaluated both runs, three passes
    where the report's one gives all three the same numbers."""
    evaluating = importlib.import_module("rankkit.evaluate")
    statements = []
    run_query = evaluating.run_query
    monkeypatch.setattr(evaluating, "run_query", lambda con, query, *rest, **named:
                        statements.append(query) or run_query(con, query, *rest, **named))
    # a folder's name is printed as the terminal shows it: an escape sequence written visibly, not run
    assert main(["demo", "--queries", "6", "-o", str(tmp_path / "demo\x1b[2J")]) == 0
    assert len(statements) == 1, statements
    out = capsys.readouterr().out
    assert "(72 rows)" in out  # 6 queries x 6 measures x 2 systems, per query
    assert "\x1b" not in out and "demo\\x1b[2J/report.html" in out


def test_the_recommender_demo_compares_two_recommenders(tmp_path, capsys):
    """rankkit demo --recsys writes the sample as Parquet and prints accuracy and beyond-accuracy measures
    for pop and itemknn, itemknn the better and the wider (the sample is made so)."""
    assert main(["demo", "--recsys", "--users", "40", "-o", str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    folder = tmp_path / "demo" / "recsys"
    assert {path.name for path in folder.glob("*.parquet")} == {
        "interactions.parquet", "train.parquet", "test.parquet", "items.parquet", "pop.parquet", "itemknn.parquet",
        "recs.parquet"}
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if "@10" in line and " " in line}
    assert set(rows) >= {"nDCG@10", "HitRate@10", "R@10", "AP@10", "AP(denom=min)@10", "Novelty@10", "Coverage@10"}
    pop, itemknn = (float(value) for value in rows["Coverage@10"][:2])
    assert itemknn > pop
    # the rank column is trec_eval's order of the scores (item id descending among equal ones), what rankkit
    # evaluates: ties="rank" and the default agree
    recs = pd.read_parquet(folder / "recs.parquet")
    trec = recs.sort_values(["system", "user_id", "score", "item_id"], ascending=[True, True, False, False])
    assert list(trec.groupby(["system", "user_id"]).cumcount() + 1) == list(trec["rank"])
    assert main(["demo", "--recsys", "--users", "40", "-o", str(tmp_path / "demo")]) == 0  # written again
    assert "unchanged since, written again" in capsys.readouterr().out
    (folder / "items.parquet").write_bytes(b"mine")
    assert main(["demo", "--recsys", "-o", str(tmp_path / "demo")]) == 2
    assert "items.parquet changed since rankkit demo wrote it" in capsys.readouterr().err
    assert (folder / "items.parquet").read_bytes() == b"mine"


def test_the_recommender_sample_is_bounded_before_anything_is_written(tmp_path, capsys):
    """--users 100000000 built a users x items matrix of 320 GB: refused in one line, nothing written."""
    assert main(["demo", "--recsys", "--users", "100000000", "-o", str(tmp_path / "demo")]) == 2
    assert capsys.readouterr().err.strip() == ("rankkit demo: the recommender sample takes 1 to 20,000 users (its "
                                               "users x items matrices are held in memory), got 100000000")
    assert not (tmp_path / "demo").exists()


def test_the_demo_refuses_a_size_of_the_other_sample(capsys):
    assert main(["demo", "--recsys", "--queries", "3"]) == 2
    assert capsys.readouterr().err.strip() == \
        "rankkit demo: --queries sizes the search sample; with --recsys give --users"
