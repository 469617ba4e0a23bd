"""``rankkit demo`` does each piece of work once."""

from __future__ import annotations

import importlib

from rankkit.cli import main


def test_the_demo_evaluates_the_runs_once(tmp_path, monkeypatch, capsys):
    """Before: the table, the per-query file and the report each evaluated both runs, three passes
    where the report's one gives all three the same numbers."""
    evaluating = importlib.import_module("rankkit.evaluate")
    statements = []
    run_query = evaluating.run_query
    monkeypatch.setattr(evaluating, "run_query", lambda con, query, *rest, **named:
                        statements.append(query) or run_query(con, query, *rest, **named))
    assert main(["demo", "--queries", "6", "-o", str(tmp_path / "demo")]) == 0
    assert len(statements) == 1, statements
    assert "(72 rows)" in capsys.readouterr().out  # 6 queries x 6 measures x 2 systems, per query
