"""Inputs as recommender teams keep them (issue 35): user_id/item_id/rating/prediction names, extra
columns left alone and named by check, a run ranked by its rank alone, a run of item lists; on the
Python, command-line and SQL surfaces, against rankkit's own names and nDCG restated."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest

import rankkit
from rankkit.check import diagnose
from rankkit.cli import main
from rankkit.errors import InputError

MEASURES = ["nDCG@10", "AP", "P@5", "RR"]


@pytest.fixture(scope="module")
def recsys(tmp_path_factory):
    """Interactions (user_id, item_id, rating, timestamp) and top-8 recommendations (user_id, item_id,
    score) as Parquet, with a tie, and the same recommendations by rank alone and as item lists."""
    folder = tmp_path_factory.mktemp("recsys")
    con = duckdb.connect()
    con.execute("CREATE TABLE inter AS SELECT u AS user_id, (u * 7 + i * 3) % 20 AS item_id, "
                "1 + (u + i) % 5 AS rating, 1700000000 + u * 100 + i AS timestamp FROM range(1, 9) a(u), range(4) b(i)")
    con.execute("CREATE TABLE recs AS SELECT u AS user_id, (u * 5 + r * 2) % 20 AS item_id, "
                "CASE WHEN r = 3 THEN 0.5 ELSE 1.0 / (r + 1) END AS score FROM range(1, 9) a(u), range(8) b(r)")
    paths = {name: str(folder / f"{name}.parquet") for name in ("inter", "recs", "ranked", "lists")}
    con.execute(f"COPY inter TO '{paths['inter']}'")
    con.execute(f"COPY recs TO '{paths['recs']}'")
    ordered = "ORDER BY score DESC, item_id::VARCHAR DESC"  # trec_eval's order, ties by doc_id descending
    con.execute(f"COPY (SELECT user_id, item_id, row_number() OVER (PARTITION BY user_id {ordered}) AS rank "
                f"FROM recs) TO '{paths['ranked']}'")
    con.execute(f"COPY (SELECT user_id, list(item_id {ordered}) AS items FROM recs GROUP BY user_id) "
                f"TO '{paths['lists']}'")
    return paths


def ours(path: str, kind: str) -> pd.DataFrame:
    """The table in rankkit's own column names."""
    frame = duckdb.read_parquet(path).df()
    names = {"user_id": "query_id", "item_id": "doc_id", "rating": "relevance"}
    return frame.rename(columns=names).drop(columns=["timestamp"] if kind == "qrels" else [])


def values(frame: pd.DataFrame) -> dict:
    return dict(zip(frame["measure"], frame["value"]))


def test_recommender_names_read_as_rankkits_own_on_every_surface(recsys, capsys):
    expected = values(rankkit.evaluate(ours(recsys["inter"], "qrels"), ours(recsys["recs"], "run"), MEASURES))
    assert values(rankkit.evaluate(recsys["inter"], recsys["recs"], MEASURES)) == pytest.approx(expected, abs=1e-12)
    con = rankkit.connect()
    sql = con.execute(f"SELECT measure, value FROM rankkit.evaluate('{recsys['inter']}', '{recsys['recs']}', "
                      f"{MEASURES})").fetchall()
    assert dict(sql) == pytest.approx(expected, abs=1e-12)
    assert main(["eval", "-m", "map", recsys["inter"], recsys["recs"]]) == 0
    assert capsys.readouterr().out.split() == ["map", "all", f"{expected['AP']:.4f}"]


def test_a_run_by_rank_alone_agrees_with_ndcg_restated(recsys):
    """nDCG@10 (trec_eval's: the grade as gain, 1/log2(rank + 1), the ideal over every judged item) and P@5
    restated over the run by rank alone; ranx agrees on these tables (its numba start-up costs 9 s)."""
    import math

    grades = {(str(u), str(i)): g for u, i, g, _ in duckdb.read_parquet(recsys["inter"]).fetchall()}
    ranked: dict[str, list] = {}
    for user, item, rank in duckdb.read_parquet(recsys["ranked"]).order("rank").fetchall():
        ranked.setdefault(str(user), []).append(str(item))
    ndcg, precision = [], []
    for user, items in ranked.items():
        gains = [grades.get((user, item), 0) for item in items]
        ideal = sorted((g for (u, _), g in grades.items() if u == user), reverse=True)
        dcg = lambda values: sum(g / math.log2(r + 2) for r, g in enumerate(values[:10]))  # noqa: E731
        ndcg.append(dcg(gains) / dcg(ideal))
        precision.append(sum(g > 0 for g in gains[:5]) / 5)
    got = values(rankkit.evaluate(recsys["inter"], recsys["ranked"], ["nDCG@10", "P@5"]))
    assert got == pytest.approx({"nDCG@10": sum(ndcg) / len(ndcg), "P@5": sum(precision) / len(precision)}, abs=1e-12)


def test_check_names_the_columns_left_alone(recsys, capsys):
    found = diagnose(recsys["inter"], recsys["recs"])
    assert (found["qrels_ignored"], found["run_ignored"]) == (["timestamp"], [])
    assert main(["check", recsys["inter"], recsys["recs"]]) == 0
    assert "ignored\tqrels columns: timestamp (left alone)" in capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("run", ["ranked", "lists"])
def test_a_run_by_rank_alone_or_of_item_lists_reads_as_ranked(recsys, run):
    expected = values(rankkit.evaluate(recsys["inter"], recsys["recs"], MEASURES))
    assert values(rankkit.evaluate(recsys["inter"], recsys[run], MEASURES)) == pytest.approx(expected, abs=1e-12)


def test_sql_reads_a_rank_alone_and_refuses_lists_saying_how(recsys):
    con = rankkit.connect()
    expected = values(rankkit.evaluate(recsys["inter"], recsys["recs"], MEASURES))
    rank = con.execute(f"SELECT measure, value FROM rankkit.evaluate('{recsys['inter']}', '{recsys['ranked']}', "
                       f"{MEASURES})").fetchall()
    assert dict(rank) == pytest.approx(expected, abs=1e-12)
    con.execute(f"CREATE TABLE lists AS FROM '{recsys['lists']}'")
    with pytest.raises(duckdb.Error) as caught:
        con.execute(f"FROM rankkit.evaluate('{recsys['inter']}', 'lists', ['AP'])").fetchall()
    message = str(caught.value)
    assert "run table lists: column items holds lists (BIGINT[])" in message
    recipe = message[message.index("give a view of ") + 15:message.index(" (rank 1 first)")]
    con.execute(f"CREATE VIEW unlisted AS {recipe}")
    assert dict(con.execute(f"SELECT measure, value FROM rankkit.evaluate('{recsys['inter']}', 'unlisted', "
                            f"{MEASURES})").fetchall()) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("lists, said", [
    ("SELECT 1 AS user_id, [1.5, 2.5] AS items", "column items (the run's lists of doc_id) is DECIMAL(2,1)[]"),
    ("SELECT NULL::INT AS user_id, [1, 2] AS items", "column user_id (query_id) is NULL"),
    ("SELECT 1 AS user_id, [1, NULL] AS items", "column items (doc_id) holds a NULL item for query 1"),
    ("SELECT 1 AS user_id, [1, 2] AS items, 0.5 AS score", "the column score beside it would rank them again"),
])
def test_a_bad_list_run_is_one_line_naming_its_column(recsys, lists, said):
    con = rankkit.connect()
    con.execute(f"CREATE TABLE lists AS {lists}")
    with pytest.raises(InputError) as caught:
        rankkit.evaluate(recsys["inter"], "lists", ["AP"], con=con)
    assert str(caught.value).startswith("table lists: ") and said in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_null_user_id_names_its_column_on_both_surfaces(recsys):
    run = pd.DataFrame({"user_id": ["1", None], "item_id": [1, 2], "score": [1.0, 0.5]})
    with pytest.raises(InputError, match=r"the run DataFrame: row 2: the query id is missing \(NULL or empty\) "
                                         r"in column user_id$"):
        rankkit.evaluate(recsys["inter"], run, ["AP"])
    con = rankkit.connect()
    con.register("frame", run)
    con.execute("CREATE TABLE nulls AS FROM frame")
    with pytest.raises(duckdb.Error, match=r"run table nulls: a NULL query id in column user_id \(document 2\)"):
        con.execute(f"FROM rankkit.evaluate('{recsys['inter']}', 'nulls', ['AP'])").fetchall()


@pytest.mark.parametrize("columns, said", [
    ({"user_id": [1], "query_id": [1]}, "columns query_id, user_id could each be the query_id"),
    ({"uid": [1], "user": [1]}, "columns user, uid could each be the query_id"),
])
def test_two_names_of_one_column_are_an_error_on_both_surfaces(recsys, columns, said):
    con = rankkit.connect()
    frame = pd.DataFrame({**columns, "item_id": [1], "score": [1.0]})
    con.register("frame", frame)
    con.execute("CREATE TABLE two AS FROM frame")
    with pytest.raises(InputError, match=said):
        rankkit.evaluate(recsys["inter"], "two", ["AP"], con=con)
    with pytest.raises(duckdb.Error, match=said):
        con.execute(f"FROM rankkit.evaluate('{recsys['inter']}', 'two', ['AP'])").fetchall()


def test_a_rating_in_a_run_is_no_score(recsys):
    run = pd.DataFrame({"user_id": [1], "item_id": [1], "rating": [4.0]})
    with pytest.raises(InputError, match=r"missing column score .*columns are user_id \(BIGINT\), item_id "
                                         r"\(BIGINT\), rating \(DOUBLE\)"):
        rankkit.evaluate(recsys["inter"], run, ["AP"])
    both = run.assign(score=[0.5])
    with pytest.warns(UserWarning, match="7 of 8 judged queries are missing"):
        assert diagnose(recsys["inter"], both)["run_ignored"] == ["rating"]


@pytest.mark.parametrize("spare, meant", [("sytem", "system"), ("rnak", "rank")])
def test_a_column_one_letter_from_a_missing_one_is_refused_on_both_surfaces(recsys, spare, meant):
    con = rankkit.connect()
    con.execute(f"CREATE TABLE spare AS SELECT user_id, item_id, score, 1 AS timestamp, 'x' AS {spare} "
                f"FROM '{recsys['recs']}'")
    said = f"extra column {spare}, one letter from the {meant}"
    with pytest.raises(InputError, match=said):
        rankkit.evaluate(recsys["inter"], "spare", ["AP"], con=con)
    with pytest.raises(duckdb.Error, match=said):
        con.execute(f"FROM rankkit.evaluate('{recsys['inter']}', 'spare', ['AP'])").fetchall()


def test_a_null_score_beside_a_rank_is_no_rank_alone_in_sql(recsys):
    """The rank stands in for the score only where the table has no score column, never row by row."""
    con = rankkit.connect()
    con.execute("CREATE TABLE gap AS SELECT 1 AS user_id, 1 AS item_id, NULL::DOUBLE AS score, 1 AS rank")
    with pytest.raises(duckdb.Error, match="run table gap: .*score"):
        con.execute(f"FROM rankkit.evaluate('{recsys['inter']}', 'gap', ['AP'])").fetchall()


def test_a_bad_rank_in_a_run_by_rank_alone_is_said_to_be_its_rank(recsys, tmp_path):
    run = tmp_path / "ranked.csv"
    run.write_text("user_id,item_id,rank,timestamp\n1,5,1,0\n1,6,x,0\n")
    with pytest.raises(InputError, match=rf"^{run}:3: the rank 'x' is not a number$"):
        rankkit.evaluate(recsys["inter"], str(run), ["AP"])


@pytest.mark.parametrize("kind, one", [("one system", True), ("a system column", False), ("tags", False),
                                       ("TREC files", False)])
def test_the_checking_pass_counts_a_run_of_one_system_by_user_alone(recsys, tmp_path, kind, one):
    """A run whose system is one name is counted per user alone (cheaper at 10M rows); a system column's,
    a TREC run's tags' and TREC files' per system and user: the same counts as grouping by both."""
    from rankkit.inputs import load_runs
    from rankkit.io.checks import _one_system
    from rankkit.io.sources import release

    trec = "u1 Q0 a 1 2.0 x\nu1 Q0 b 2 1.0 y\nu2 Q0 a 1 1.0 x\n"
    if kind == "a system column":
        run = pd.DataFrame({"system": ["x", "y", "x"], "user_id": [1, 1, 2], "item_id": [3, 3, 4], "score": [1.0, 2, 3]})
    elif kind == "one system":
        run = recsys["recs"]
    else:
        for name in ("a", "b"):
            (tmp_path / f"run.{name}").write_text(trec)
        run = str(tmp_path / ("run.a" if kind == "tags" else "run.*"))
    con = rankkit.connect()
    source = load_runs(con, run, split_by_tag=kind == "tags")
    try:
        assert _one_system(source) is one
        by_both = (f"SELECT system, query_id, count(*), count(*) FILTER (WHERE rank IS NULL) FROM {source.table} "
                   f"GROUP BY ALL ORDER BY ALL")
        counted = f"SELECT system, query_id, n, no_rank FROM {source.queries} ORDER BY ALL"
        assert con.execute(counted).fetchall() == con.execute(by_both).fetchall()
        assert len(con.execute(by_both).fetchall()) == {"one system": 8, "TREC files": 4}.get(kind, 3)
    finally:
        release(con, source)
