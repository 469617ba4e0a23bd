"""The engine's two stages: ``rankkit.ranks`` (the ranked run, judged documents only) and
``rankkit.per_query_ranked`` (the values from it). Evaluating a kept ranks table must give exactly
what ``rankkit.per_query`` gives from the raw inputs, for every ranking option: that is what lets a
caller (the explorer) keep the ranked run between settings. So must the composition Python runs
(``engine_query``: the stages in one statement, the value dispatch over the measures asked for only)."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankkit
from rankkit.specs import measure_specs
from rankkit.statement import engine_query
from support import shared_path

# every measure but the two text ones, several with their parameters
MEASURES = ["all_trec", "nDCG@5", "nDCG(gain=exp)@10", "nDCG(ideal=run)@3", "nDCG(empty=skip)@5", "ERR@5",
            "ERR(max=3)", "Success@3", "Judged@5", "CG@4", "DCG@5", "IDCG@5", "RR(rel=2)", "P(rel=2)@3", "R@5",
            "AP@4", "ndcg_1=3,2=9", "G_1=2,2=5", "rbp_p=0.8", "iprec_at_recall_0.33", "Rprec_mult_0.5",
            "set_F_0.5", "utility_2,-1,0,0", "unj_5", "relative_P_5", "NumRet@5", "NumRelRet@3"]
GAIN_MEASURES = ["CG@4", "DCG@5", "IDCG@5", "nDCG@3", "nDCG(ideal=run)@5", "nDCG(gain=exp)", "DCG", "nDCG"]
DOCS = [f"d{i}" for i in range(14)]
SPECS = "(SELECT list(spec ORDER BY spec.i) FROM rankkit.measure_specs(?))"


@st.composite
def inputs(draw):
    """Qrels and a run of one or several systems, with a rank column; scores in eighths, so they tie often."""
    queries = [f"q{i}" for i in range(draw(st.integers(1, 5)))]
    qrels = [(q, d, draw(st.integers(-1, 3))) for q in queries
             for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=12, unique=True))]
    systems = draw(st.sampled_from([["bm25"], ["a", "b", "c"]]))
    run = []
    for s in systems:
        for q in draw(st.lists(st.sampled_from(queries + ["q9"]), min_size=1, max_size=4, unique=True)):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=14, unique=True))
            ranks = draw(st.permutations(range(1, len(docs) + 1)))
            run += [(s, q, d, draw(st.integers(0, 16)) / 8, r) for d, r in zip(docs, ranks)]
    if not {row[1] for row in run} & {q for q, _, _ in qrels}:  # no query in common is an error
        run.append((systems[0], qrels[0][0], "judged", 1.0, 99))
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score", "rank"]))


def options():
    return st.fixed_dictionaries({
        "ties": st.sampled_from(["trec", "rank", "average"]),
        "scores": st.sampled_from(["double", "float32"]),
        "depth": st.sampled_from([None, 1, 3, 8]),
        "judged_only": st.booleans(),
        "queries": st.sampled_from(["both", "qrels"]),
        "keyed": st.booleans(),
    })


def both_ways(con, opts: dict) -> tuple[list, list]:
    """per_query's rows, and per_query_ranked's over a table holding rankkit.ranks, sorted; Python's
    composition (engine_query) is checked equal to per_query's rows here."""
    measures = GAIN_MEASURES if opts["ties"] == "average" else MEASURES
    ranking = "ties := $ties, scores := $scores, depth := $depth, judged_only := $judged_only, keyed := $keyed"
    params = {k: opts[k] for k in ("ties", "scores", "depth", "judged_only", "keyed")}
    direct = con.execute(
        f"SELECT * FROM rankkit.per_query('qrels', 'run', {SPECS.replace('?', '$measures')}, {ranking}, "
        "queries := $queries) ORDER BY ALL", {**params, "measures": measures, "queries": opts["queries"]}).fetchall()
    con.execute(f"CREATE OR REPLACE TEMP TABLE kept AS FROM rankkit.ranks('qrels', 'run', {ranking})", params)
    staged = con.execute(
        f"SELECT * FROM rankkit.per_query_ranked('qrels', 'kept', {SPECS.replace('?', '$measures')}, ties := $ties, "
        "queries := $queries) ORDER BY ALL",
        {"measures": measures, "ties": opts["ties"], "queries": opts["queries"]}).fetchall()
    specs = measure_specs(con, measures)
    # i numbers the specs: Python expands trec_eval's nicknames (all_trec) itself, the SQL parser too
    conventions = rankkit.Conventions(ties=opts["ties"], scores=opts["scores"], depth=opts["depth"],
                                      judged_only=opts["judged_only"], queries=opts["queries"])
    query = engine_query(True, False, specs, conventions, keyed=opts["keyed"])
    composed = con.execute(f"SELECT * EXCLUDE (i) FROM ({query}) ORDER BY ALL", {"qrels": "qrels", "run": "run"}).fetchall()
    assert composed == sorted(row[1:] for row in direct)
    return direct, staged


# 20 examples: each binds rankkit.per_query_ranked, every measure's CASE, twice; tests/test_compose.py
# holds the same macro to the composed statements on 40 more
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inputs(), options())
def test_values_from_a_kept_ranks_table_equal_per_query(con, data, opts):
    qrels, run = data
    con.register("qrels_frame", qrels)
    con.register("run_frame", run)
    con.execute("CREATE OR REPLACE TEMP TABLE qrels AS FROM qrels_frame")
    # keyed := true reads the join key the parsed text stores; here the table stores it too
    con.execute("CREATE OR REPLACE TEMP TABLE run AS SELECT *, hash(query_id, doc_id) AS rankkit_key FROM run_frame")
    direct, staged = both_ways(con, opts)
    assert direct, "per_query gave no rows"
    assert staged == direct  # bitwise: the same doubles, the same NULLs


def test_values_from_a_kept_ranks_table_equal_per_query_on_a_trec_run(con):
    """The DL19 BM25 run (43 queries with many judged documents each: the window ranking) and with
    depth 5 (few judged documents: the counting one)."""
    qrels = rankkit.read_qrels(shared_path("data", "anserini-tools/qrels.dl19-passage.txt"), con=con)
    run = rankkit.read_run(shared_path("data", "rank_llm/dl19.BM25.trec_results.txt"), con=con)
    con.execute(f"CREATE TEMP TABLE qrels AS FROM {qrels.alias}")
    con.execute(f"CREATE TEMP TABLE run AS FROM {run.alias}")
    for depth in (None, 5):
        direct, staged = both_ways(con, {"ties": "trec", "scores": "double", "depth": depth, "judged_only": False,
                                         "queries": "qrels", "keyed": False})
        assert len(direct) > 43 * 100 and staged == direct


def test_ranks_holds_the_judged_documents_of_the_ranked_run(tables):
    """The collection of tests/sql/conftest.py: q1 ranks b(0) a(2) d(-1) f(unjudged) c(1); q2 x(0)
    y(unjudged); q4 retrieved nothing judged and still has its row."""
    rows = tables.execute("SELECT query_id, num_ret, rank, grade, tie_first, tie_size FROM rankkit.ranks('qrels', 'run') "
                          "ORDER BY query_id, rank").fetchall()
    assert rows == [("q1", 5, 1, 0.0, None, None), ("q1", 5, 2, 2.0, None, None), ("q1", 5, 3, -1.0, None, None),
                    ("q1", 5, 5, 1.0, None, None), ("q2", 2, 1, 0.0, None, None), ("q4", 1, None, None, None, None)]
    # trec_eval -J ranks the documents judged >= 0 among themselves; -M 2 keeps the top two
    judged_only = tables.execute("SELECT query_id, num_ret, rank, grade FROM rankkit.ranks('qrels', 'run', "
                                 "judged_only := true) ORDER BY query_id, rank").fetchall()
    assert judged_only == [("q1", 3, 1, 0.0), ("q1", 3, 2, 2.0), ("q1", 3, 3, 1.0), ("q2", 1, 1, 0.0), ("q4", 0, None, None)]
    cut = tables.execute("SELECT query_id, num_ret, rank FROM rankkit.ranks('qrels', 'run', depth := 2) "
                         "ORDER BY query_id, rank").fetchall()
    assert cut == [("q1", 2, 1), ("q1", 2, 2), ("q2", 2, 1), ("q4", 1, None)]


def test_ranks_gives_tie_groups_for_the_average_rule(con):
    con.execute("CREATE TABLE qrels AS SELECT * FROM (VALUES ('q', 'a', 3), ('q', 'c', 1)) t(query_id, doc_id, relevance)")
    con.execute("CREATE TABLE run AS SELECT * FROM (VALUES ('q', 'a', 3.0), ('q', 'b', 2.0), ('q', 'c', 1.0), "
                "('q', 'd', 1.0), ('q', 'e', 1.0)) t(query_id, doc_id, score)")
    rows = con.execute("SELECT rank, grade, tie_first, tie_size FROM rankkit.ranks('qrels', 'run', ties := 'average') "
                       "ORDER BY rank").fetchall()
    assert rows == [(1, 3.0, 1, 1), (5, 1.0, 3, 3)]  # c ranks last of e, d, c (doc_id descending), in a group of 3


def test_per_query_ranked_refuses_what_per_query_refuses(tables):
    tables.execute("CREATE TEMP TABLE kept AS FROM rankkit.ranks('qrels', 'run', ties := 'average')")
    with pytest.raises(Exception, match="ties=average applies to the gain-based measures"):
        tables.execute(f"FROM rankkit.per_query_ranked('qrels', 'kept', {SPECS}, ties := 'average')", [["AP"]]).fetchall()
    with pytest.raises(Exception, match="queries must be both, qrels or run"):
        tables.execute(f"FROM rankkit.per_query_ranked('qrels', 'kept', {SPECS}, queries := 'all')", [["AP"]]).fetchall()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False), max_size=70))
def test_running_sum_is_the_ordered_sum_of_each_prefix(con, terms):
    """rankkit.running_sum (ndcg_rel's, G's and Rndcg's running DCG) adds left to right, as trec_eval
    does: element t is, bit for bit, rankkit.ordered_sum of the first t terms."""
    sums, prefixes = con.execute("SELECT rankkit.running_sum($t), [rankkit.ordered_sum($t[:n]) FOR n IN range(1, len($t) + 1)]",
                                 {"t": terms}).fetchone()
    assert sums == prefixes
    assert len(sums) == len(terms)
