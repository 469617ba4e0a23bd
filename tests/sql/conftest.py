"""One small hand-checked collection for the per-macro tests, as tables ``qrels`` and ``run``.

q1 ranks b(0) a(2) d(-1) f(unjudged) c(1); e(3) and g(0) are judged but not retrieved, so
q1 has 3 relevant documents (a, c, e) and 2 judged non-relevant ones (b, g).
q2 ranks x(0) y(unjudged): nothing relevant. q3 is judged only, q4 retrieved only.
"""

from __future__ import annotations

import pytest

QRELS = [
    ("q1", "a", 2), ("q1", "b", 0), ("q1", "c", 1), ("q1", "d", -1), ("q1", "e", 3), ("q1", "g", 0),
    ("q2", "x", 0),
    ("q3", "z", 1),
]
RUN = [
    ("q1", "b", 0.9), ("q1", "a", 0.8), ("q1", "d", 0.7), ("q1", "f", 0.6), ("q1", "c", 0.5),
    ("q2", "x", 1.0), ("q2", "y", 0.5),
    ("q4", "w", 1.0),
]


@pytest.fixture
def tables(con):
    con.execute("CREATE TABLE qrels (query_id VARCHAR, doc_id VARCHAR, relevance INTEGER)")
    con.execute("CREATE TABLE run (query_id VARCHAR, doc_id VARCHAR, score DOUBLE)")
    con.executemany("INSERT INTO qrels VALUES (?, ?, ?)", QRELS)
    con.executemany("INSERT INTO run VALUES (?, ?, ?)", RUN)
    return con


@pytest.fixture
def values(tables):
    """{query_id: value} of ``FROM rankkit.<macro>('qrels', 'run', <args>)``."""
    def run(macro: str, args: str = "") -> dict:
        rows = tables.execute(f"SELECT query_id, value FROM rankkit.{macro}('qrels', 'run'{', ' + args if args else ''})").fetchall()
        return dict(rows)
    return run


# Subtopic judgments for the diversity measures (pyndeval's README example as query 0, and query 1):
# 0 has subtopics a {A}, b {B, D}, c {C} and ranks A D E(unjudged) B; 1 has x {A}, y {B (grade 2), C}
# and ranks C A Z(unjudged); 2 is judged only, nothing relevant.
SUBTOPICS = [
    ("0", "a", "A", 1), ("0", "b", "B", 1), ("0", "b", "D", 1), ("0", "c", "C", 1),
    ("1", "x", "A", 1), ("1", "y", "B", 2), ("1", "y", "C", 1),
    ("2", "z", "A", 0),
]
SUBTOPIC_RUN = [("0", "A", 9.3), ("0", "D", 8.4), ("0", "E", 8.1), ("0", "B", 7.6),
                ("1", "C", 3.0), ("1", "A", 2.0), ("1", "Z", 1.0)]


@pytest.fixture
def subtopic_values(con):
    """{query_id: value} of ``FROM rankkit.<macro>('subtopics', 'run', <args>)`` on SUBTOPICS."""
    con.execute("CREATE TABLE subtopics (query_id VARCHAR, subtopic VARCHAR, doc_id VARCHAR, relevance INTEGER)")
    con.execute("CREATE TABLE run (query_id VARCHAR, doc_id VARCHAR, score DOUBLE)")
    con.executemany("INSERT INTO subtopics VALUES (?, ?, ?, ?)", SUBTOPICS)
    con.executemany("INSERT INTO run VALUES (?, ?, ?)", SUBTOPIC_RUN)

    def run(macro: str, args: str = "") -> dict:
        sql = f"SELECT query_id, value FROM rankkit.{macro}('subtopics', 'run'{', ' + args if args else ''})"
        return dict(con.execute(sql).fetchall())
    return run
