"""The composer (rankkit.compose) writes one lean statement per call from the measures' declarations,
parameters as literals; the SQL surface's rankkit.per_query_ranked is written from the same
declarations for any list of specs (parameters read per row, variants by CASE). Their per-query values
agree bit for bit, for every registered measure and option (issue 21)."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankkit
from rankkit.compose import compose
from rankkit.plan import QUERY_SETS, plan
from rankkit.errors import RankkitError
from rankkit.specs import SPEC_TYPE, measure_specs
from rankkit.macros import per_query_macro
from rankkit.measures import needs_subtopics, registry

# every registered measure, with its options; the gain measures again under ties='average'
GAIN = ["CG@3", "CG(gain=exp)@5", "DCG@5", "DCG", "DCG(gains=2=5)@5", "IDCG@5", "IDCG(ideal=run)@3",
        "IDCG(gain=exp)", "nDCG@5", "nDCG", "nDCG(gain=exp)@10", "nDCG(ideal=run)@3", "nDCG(empty=skip)@5",
        "nDCG(ideal=run,empty=skip)", "ndcg_1=3,2=9"]
ALL = GAIN + [
    "AP", "AP@5", "AP(rel=2)", "AP(denom=min)@5", "AP(denom=listed)@3", "HitRate@3", "HitRate",
    "nDCG(discount=original)@5", "P(short=retrieved)@5", "R(denom=min)@5", "binG", "binG(rel=2)", "bpref", "bpref(rel=2)", "11pt_avg", "11pt_avg(levels=[.25,.5])",
    "ERR@5", "ERR(max=3)@3", "ERR", "G", "G_1=3,2=9", "gm_bpref", "gm_map", "infAP", "infAP(rel=2)", "IPrec@0.5",
    "IPrec@0", "IPrec(rel=2)@1", "Judged@5", "Judged", "ndcg_rel", "ndcg_rel_1=3,2=9", "num_nonrel_judged_ret",
    "num_nonrel_judged_ret(rel=2)", "numq", "NumRel", "NumRel(rel=2)", "NumRelRet@5", "NumRet@5", "NumRet", "P@3",
    "P", "P(rel=2)@5", "R@5", "R", "RBP(p=0.8)", "RBP(p=0.5,binary_rel=2)", "rbp", "rbp_resid", "rbp_resid_p=0.5", "relative_P@5",
    "relative_P", "Rndcg", "Rndcg_1=3,2=9", "Rprec", "Rprec(rel=2)", "Rprec_mult(mult=2)", "Rprec_mult_0.2", "RR",
    "RR@3", "RR(rel=2)", "P(scored=positive)@3", "R(scored=positive)@5", "AP(denom=retrieved,scored=positive)@5",
    "RR(scored=positive)", "SDCG@5", "SDCG(max=2)", "SDCG(max=3,bottom=1)@5", "INSQ(max=3,bottom=-1)", "INST(max=5,T=2,bottom=1)", "INSQ", "INSQ(max=1)", "INSQ(T=2)", "INST", "INST(max=2)", "INST(max=3,T=0.5)", "FallOut@3", "fall_out(rel=2)", "set_F", "set_F(beta=0.5)", "SetF@3", "Hits@5", "Hits(rel=2)", "set_map", "Success@3", "unj@5", "unj", "utility",
    "utility(coef=[2,-1,0,0],docs=100)"]
DOCS = [f"d{i}" for i in range(10)]


@pytest.fixture(scope="module")
def con():
    return rankkit.connect()


def test_every_registered_measure_is_in_the_property_test(con):
    covered = {spec["metric"] for spec in measure_specs(con, ALL)}
    # the diversity measures read subtopic judgments, which rankkit.per_query_ranked does not take: their
    # property test is against pyndeval (tests/test_diversity.py)
    numeric = {m.metric for m in registry().values() if m.aggregate != "text" and not needs_subtopics(m.metric)}
    assert numeric <= covered, f"not covered: {sorted(numeric - covered)}"


def test_no_statement_of_the_other_measures_reads_the_subtopic_judgments(con):
    """The third scope is added only where a diversity measure asks for it: every other statement is
    the one composed before it existed."""
    for queries in QUERY_SETS:
        sql = compose(measure_specs(con, ALL), qrels="'q'", ranks="rk", queries=queries)
        assert "subtopic" not in sql and "sub_" not in sql
    assert "rankkit_subtopic_lists" in compose(measure_specs(con, ["alpha-nDCG@5"]), qrels="'q'", ranks="rk",
                                               subtopics="'s'", subtopic_ranks="srk")


@st.composite
def inputs(draw):
    """Qrels (grades -1..3) and a run of one or several systems; scores in eighths, so they tie often, some
    at 0 or below (scored=positive);
    a run query nobody judged, judged queries no run has, queries that retrieve no judged document."""
    queries = [f"q{i}" for i in range(draw(st.integers(1, 5)))]
    qrels = [(q, d, draw(st.integers(-1, 3))) for q in queries
             for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))]
    systems = draw(st.sampled_from([["bm25"], ["a", "b"]]))
    run = []
    for system in systems:
        for q in draw(st.lists(st.sampled_from(queries + ["q9"]), min_size=1, max_size=4, unique=True)):
            docs = draw(st.lists(st.sampled_from(DOCS + ["x1", "x2"]), min_size=1, max_size=9, unique=True))
            ranks = draw(st.permutations(range(1, len(docs) + 1)))
            run += [(system, q, d, draw(st.integers(-2, 8)) / 8, r) for d, r in zip(docs, ranks)]
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score", "rank"]))


def per_query(con, measures, ties, queries, judged_only):
    """Both engines' rows over the same ranks table: {(i, system, query_id): value} each."""
    specs = measure_specs(con, measures)
    con.execute("CREATE OR REPLACE TEMP TABLE rk AS FROM rankkit.ranks('q', 'r', ties := ?, judged_only := ?)",
                [ties, judged_only])
    reference = con.execute(reference_query(con, [s["metric"] for s in specs]),
                            {"specs": specs, "ties": ties, "queries": queries}).fetchall()
    composed = con.execute(compose(specs, qrels="'q'", ranks="rk", ties=ties, queries=queries)).fetchall()
    return ({(i, s, q): v for i, _, _, s, q, v in reference}, {(i, s, q): v for i, _, _, s, q, v in composed})


def reference_query(con, metrics) -> str:
    """rankkit.per_query_ranked over the ranks table rk, as the catalog's is written, for ``metrics``
    only (binding the macro of every measure costs each example a second)."""
    con.execute(per_query_macro(set(metrics)).replace("MACRO rankkit.per_query_ranked(", "MACRO rk_reference("))
    return f"FROM rk_reference('q', 'rk', $specs::{SPEC_TYPE}[], ties := $ties, queries := $queries)"


def same_double(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and float(a).hex() == float(b).hex())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inputs(), st.sampled_from(["trec", "rank", "average"]), st.sampled_from(["both", "qrels"]), st.booleans())
def test_composed_values_are_the_generated_macros_bit_for_bit(con, data, ties, queries, judged_only):
    qrels, run = data
    con.register("q", qrels)
    con.register("r", run)
    reference, composed = per_query(con, GAIN if ties == "average" else ALL, ties, queries, judged_only)
    assert composed.keys() == reference.keys()
    specs = {s["i"]: s["measure"] for s in measure_specs(con, GAIN if ties == "average" else ALL)}
    wrong = [(specs[key[0]], key[1:], reference[key], composed[key]) for key in reference
             if not same_double(reference[key], composed[key])]
    assert not wrong, wrong[:5]


@pytest.mark.parametrize("metric", sorted(m.metric for m in registry().values() if m.aggregate != "text"))
def test_every_measure_composes_alone(metric):
    measure = registry()[metric]
    con = rankkit.connect()
    example = f"{measure.name}@5" if "k" in measure.params else f"{measure.name}@0.5" if "recall" in measure.params \
        else measure.name
    subtopics = {"subtopics": "'s'", "subtopic_ranks": "srk"} if needs_subtopics(metric) else {}
    sql = compose(measure_specs(con, [example]), qrels="'q'", ranks="rk", **subtopics)
    con.execute("CREATE TABLE q (query_id VARCHAR, doc_id VARCHAR, relevance INTEGER)")
    con.execute("CREATE TABLE r (query_id VARCHAR, doc_id VARCHAR, score DOUBLE)")
    con.execute("CREATE TABLE s (query_id VARCHAR, subtopic VARCHAR, doc_id VARCHAR, relevance INTEGER)")
    con.execute("CREATE TABLE rk AS FROM rankkit.ranks('q', 'r')")
    con.execute("CREATE TABLE srk AS FROM rankkit.subtopic_ranks('s', 'r')")
    assert con.execute(sql).fetchall() == []  # it binds and runs


def columns(sql: str) -> set[str]:
    """The features a composed statement computes: its columns named feature_n."""
    return set(re.findall(r" AS ([a-z_]+)_\d+\b", sql))


def test_ndcg_alone_computes_nothing_only_ap_or_err_needs(con):
    ndcg = compose(measure_specs(con, ["nDCG@10"]), qrels="'q'", ranks="rk")
    others = plan(measure_specs(con, ["AP", "ERR@10"])).features() - plan(measure_specs(con, ["nDCG@10"])).features()
    assert {"ap_sum", "rel_ranks", "stops", "reads_on", "err"} <= others
    assert columns(ndcg) == {"gains", "n_cut", "dcg", "ideal", "idcg", "value"}
    assert not columns(ndcg) & others
    # no struct of features, no CASE over measure names
    assert "metric" not in ndcg and "{'" not in ndcg.replace("{'rank'", "")


def test_a_feature_is_computed_once_however_many_measures_read_it(con):
    sql = compose(measure_specs(con, ["nDCG@5", "nDCG@20", "P@5", "AP"]), qrels="'q'", ranks="rk")
    assert len(re.findall(r" AS gains_\d+\b", sql)) == 1  # the cutoffs share the gains
    assert len(re.findall(r" AS ideal_\d+\b", sql)) == 1  # and the ideal
    assert len(re.findall(r" AS n_cut_\d+\b", sql)) == 3  # @5 (nDCG and P), @20, none (AP)


def test_parameters_are_literals(con):
    sql = compose(measure_specs(con, ["nDCG(gain=exp)@7", "RBP(p=0.8)"]), qrels="'q'", ranks="rk")
    assert "r <= 7" in sql and "'exp'" in sql and "pow(0.8E0, r - 1)" in sql
    assert "s." not in sql and "{" not in sql.replace("{'rank'", "")


def test_ties_average_is_refused_for_measures_without_it(con):
    with pytest.raises(RankkitError, match=r"ties=average applies to the gain-based measures \(CG, DCG, IDCG, nDCG\) only, not AP"):
        plan(measure_specs(con, ["nDCG@5", "AP"]), ties="average")
    with pytest.raises(RankkitError, match="queries must be both, qrels or run"):
        plan(measure_specs(con, ["AP"]), queries="all")


def test_a_kept_statement_is_kept_for_all_it_is_made_from():
    # compose keeps its statements: a spec, a table or a convention changed is another statement
    from rankkit.compose import compose
    from rankkit.dialect import DUCKDB, LOADED
    con = rankkit.connect()
    rbp = measure_specs(con, ["RBP"])
    other_p = measure_specs(con, ["RBP(p=0.8)"])
    first = compose(rbp, qrels="'q'", ranks="r")
    assert compose(rbp, qrels="'q'", ranks="r") is first
    assert "0.8" in compose(other_p, qrels="'q'", ranks="r") and "0.8" not in first
    assert compose(rbp, qrels="'other'", ranks="r") != first
    assert compose(rbp, qrels="'q'", ranks="r", dialect=LOADED) != compose(rbp, qrels="'q'", ranks="r", dialect=DUCKDB)
    assert compose(measure_specs(con, ["nDCG@10"]), qrels="'q'", ranks="r", ties="average") != \
        compose(measure_specs(con, ["nDCG@10"]), qrels="'q'", ranks="r")


def test_one_rule_writes_every_macro_s_variant_conditions():
    """The table, trace, per-measure and list macros write a variant's condition by one rule
    (rankkit.conditions.condition), their differences its arguments (issue 34)."""
    from rankkit.conditions import condition

    listed, generic, argument = condition({"ties": "trec", "queries": "both"}), condition(typed=True), \
        condition({"ties": "trec", "queries": "qrels"}, argument=True)
    assert [listed("ties", "average"), listed("queries", "both"), argument("queries", "both")] == [False, True, False]
    assert generic("ties", "average") == "ties = 'average'"  # not decided: the macro's argument
    assert [listed("gains", "NULL"), argument("gains", "NULL")] == ["{s.gains} IS NULL", "gains IS NULL"]
    assert [generic("p", "0.5"), listed("p", "0.5")] == ["{s.p} = 0.5", "{s.p} = '0.5'"]
