"""The SQL macros speak as clearly as Python (issue 20): a table whose column goes by another name,
a table that does not exist, a measure name where a list belongs. Each test failed on the code
before: a missing column read as "a NULL query id", a missing table named qrels or run as a
"Circular reference to CTE", a string of measures as "UNNEST not supported here"."""

from __future__ import annotations

import duckdb
import pytest

from rankkit import _sql
from rankkit.names import ALIASES

QRELS = "SELECT * FROM (VALUES ('q1', 'a', 2), ('q1', 'b', 0), ('q2', 'c', 1)) t({q}, {d}, {r})"
RUN = "SELECT * FROM (VALUES ('q1', 'a', 0.9), ('q1', 'b', 0.8), ('q2', 'c', 0.5), ('q2', 'x', 0.7)) t({q}, {d}, {s})"


@pytest.fixture
def con():
    con = _sql.connect()
    yield con
    con.close()


def make(con, name: str, sql: str, q="query_id", d="doc_id", r="relevance", s="score") -> None:
    con.execute(f"CREATE TABLE {name} AS {sql.format(q=q, d=d, r=r, s=s)}")


def error_of(con, query: str) -> str:
    with pytest.raises(duckdb.Error) as caught:
        con.execute(query).fetchall()
    return str(caught.value)


# ---- a column under a name rankkit does not know ------------------------------------------------

def test_a_run_with_topic_number_says_query_id_is_missing_and_the_names_recognised(con):
    make(con, "qrels", QRELS)
    make(con, "run", RUN, q="topic_number")
    message = error_of(con, "FROM rankkit.evaluate('qrels', 'run', ['nDCG@10'])")
    assert ("rankkit: run table run: missing column query_id (also recognised: qid, queryid, query, topic, "
            "topic_id, topicid, q_id, user_id, userid, user, uid, customer_id); columns are topic_number (VARCHAR), "
            "doc_id (VARCHAR)") in message
    assert "NULL query id" not in message


def test_a_run_with_retrieval_score_says_score_is_missing(con):
    make(con, "qrels", QRELS)
    make(con, "run", RUN, s="retrieval_score")
    for query in ("FROM rankkit.evaluate('qrels', 'run', ['AP'])", "FROM rankkit.ndcg('qrels', 'run', k := 10)",
                  "FROM rankkit.evaluate_queries('qrels', 'run', ['RR'])",
                  "FROM rankkit.trace('qrels', 'run', 'q1')", "FROM rankkit.ranks('qrels', 'run')"):
        message = error_of(con, query)
        assert ("run table run: missing column score (also recognised: sim, similarity, prediction, pred, preds, "
                "predicted)") in message, query
        assert "retrieval_score (DECIMAL(2,1))" in message


def test_qrels_without_a_relevance_column_say_so(con):
    make(con, "qrels", QRELS, r="relevance_level")
    make(con, "run", RUN)
    message = error_of(con, "FROM rankkit.evaluate('qrels', 'run', ['AP'])")
    assert "qrels table qrels: missing column relevance (also recognised: rel, grade, label" in message


@pytest.mark.parametrize("column", [c for c in ("query_id", "doc_id", "relevance", "score")])
def test_sql_recognises_every_name_python_recognises(con, column):
    """One list (rankkit.names.ALIASES) for both: each name reads as the column it stands for."""
    make(con, "qrels", QRELS)
    make(con, "run", RUN)
    expected = con.execute("FROM rankkit.evaluate('qrels', 'run', ['AP', 'nDCG'])").fetchall()
    table, key = ("qrels", "r") if column == "relevance" else ("run", "s") if column == "score" else ("both", None)
    for alias in ALIASES[column][1:]:
        con.execute("DROP TABLE IF EXISTS qrels_alias; DROP TABLE IF EXISTS run_alias")
        short = {"query_id": "q", "doc_id": "d"}.get(column, key)
        make(con, "qrels_alias", QRELS, **({short: alias} if table in ("qrels", "both") else {}))
        make(con, "run_alias", RUN, **({short: alias} if table in ("run", "both") else {}))
        assert con.execute("FROM rankkit.evaluate('qrels_alias', 'run_alias', ['AP', 'nDCG'])").fetchall() == expected, alias


def test_a_run_with_a_system_alias_keeps_its_systems(con):
    make(con, "qrels", QRELS)
    con.execute(f"CREATE TABLE run AS SELECT *, 'bm25' AS run FROM ({RUN.format(q='query_id', d='doc_id', s='score')})")
    assert con.execute("SELECT DISTINCT system FROM rankkit.evaluate('qrels', 'run', ['AP'])").fetchall() == [("bm25",)]


# ---- a table that does not exist ---------------------------------------------------------------

@pytest.mark.parametrize("missing", ["qrels", "run"])
@pytest.mark.parametrize("macro", ["evaluate('qrels', 'run', ['AP'])", "ndcg('qrels', 'run')",
                                   "trace('qrels', 'run', 'q1')", "ranks('qrels', 'run')"])
def test_a_missing_table_is_named_as_missing(con, missing, macro):
    present = "run" if missing == "qrels" else "qrels"
    make(con, present, QRELS if present == "qrels" else RUN)
    message = error_of(con, f"FROM rankkit.{macro}")
    assert f"Table with name {missing} does not exist" in message
    assert "Circular reference" not in message


# ---- one measure name where a list belongs ---------------------------------------------------------

@pytest.mark.parametrize("macro, columns", [("evaluate", "measure, system, value"),
                                            ("evaluate_queries", "measure, system, query_id, value")])
def test_one_measure_name_reads_as_a_list_of_one(con, macro, columns):
    make(con, "qrels", QRELS)
    make(con, "run", RUN)
    one = con.execute(f"SELECT {columns} FROM rankkit.{macro}('qrels', 'run', 'nDCG@10')").fetchall()
    listed = con.execute(f"SELECT {columns} FROM rankkit.{macro}('qrels', 'run', ['nDCG@10'])").fetchall()
    assert one == listed and one


def test_one_measure_name_reads_as_a_list_by_slice(con):
    make(con, "qrels", QRELS)
    make(con, "run", RUN)
    con.execute("CREATE TABLE topics AS SELECT * FROM (VALUES ('q1', 'easy'), ('q2', 'hard')) t(query_id, level)")
    one = con.execute("FROM rankkit.evaluate_by('qrels', 'run', 'AP', 'topics', 'level')").fetchall()
    assert one == con.execute("FROM rankkit.evaluate_by('qrels', 'run', ['AP'], 'topics', 'level')").fetchall()


def test_measures_of_another_type_are_unknown_measures(con):
    make(con, "qrels", QRELS)
    make(con, "run", RUN)
    message = error_of(con, "FROM rankkit.evaluate('qrels', 'run', 10)")
    assert "rankkit: unknown measure '10'" in message
    assert "UNNEST" not in message


def test_the_readme_lists_the_names_recognised_as_rankkit_names_has_them():
    from pathlib import Path
    import re

    readme = (Path(__file__).parents[1] / "docs" / "sql.md").read_text(encoding="utf-8")
    table = readme[readme.index("| column | also recognised |"):].split("\n\n")[0]
    listed = {m.group(1): tuple(re.findall(r"`(\w+)`", m.group(2)))
              for m in re.finditer(r"^\| `(\w+)` \| (.*) \|$", table, re.M)}
    assert listed == {column: names[1:] for column, names in ALIASES.items() if len(names) > 1}


def test_a_query_text_column_beside_a_topic_column_is_not_read_as_the_query_id(con):
    """'query' is one of the names of query_id: with 'topic' there too, SQL says both could be it
    (as Python does) rather than read the query's text as its id."""
    make(con, "qrels", QRELS, q="topic")
    con.execute(f"CREATE TABLE run AS SELECT *, 'what is x' AS query FROM ({RUN.format(q='topic', d='doc_id', s='score')})")
    message = error_of(con, "FROM rankkit.evaluate('qrels', 'run', ['AP'])")
    assert "run table run: columns query, topic could each be the query_id" in message
