"""rankkit.trace: DESIGN's worked examples row by row, evaluate's values at every cutoff, trec_eval's
ndcg_cut_10 on every query of real pairs, the plain duckdb shell, and the errors."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankkit
from rankkit.errors import RankkitError
from support import in_duckdb_shell, shared_path


def _example(grades: list[int], extra: list[int] = (), scores: list[float] | None = None):
    """One query q: documents d0, d1 ... retrieved in this order with these grades, then judged
    documents x0, x1 ... the run missed."""
    docs = [f"d{i}" for i in range(len(grades))]
    run = pd.DataFrame({"query_id": "q", "doc_id": docs,
                        "score": scores if scores is not None else [float(len(grades) - i) for i in range(len(grades))]})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": docs + [f"x{i}" for i in range(len(extra))],
                          "relevance": list(grades) + list(extra)})
    return qrels, run


def _at(trace: pd.DataFrame, rank: int) -> pd.Series:
    return trace[trace["rank"] == rank].iloc[0]


# DESIGN's worked examples

def test_worked_example_1_linear_gain_with_two_judged_documents_missed():
    qrels, run = _example([3, 2, 3, 0, 1, 2], extra=[3, 2])
    trace = rankkit.trace(qrels, run, "q", k=6)
    ranked = trace[trace["rank"].notna()]
    assert ranked["grade"].tolist() == [3, 2, 3, 0, 1, 2]
    assert ranked["gain"].tolist() == [3, 2, 3, 0, 1, 2]
    assert ranked["discount"].tolist() == pytest.approx(np.log2(np.arange(2, 8)), abs=1e-15)
    assert ranked["discounted_gain"].tolist() == pytest.approx(np.array([3, 2, 3, 0, 1, 2]) / np.log2(np.arange(2, 8)))
    assert ranked["ideal_grade"].tolist() == [3, 3, 3, 2, 2, 2]
    last = _at(trace, 6)
    assert last["cg"] == 11
    assert (round(last["dcg"], 5), round(last["idcg"], 5), round(last["ndcg"], 5)) == (6.86113, 8.74026, 0.78500)
    missed = trace[trace["rank"].isna()]
    assert missed[["doc_id", "grade"]].values.tolist() == [["x0", 3], ["x1", 2]]
    assert missed["dcg"].isna().all()


def test_worked_example_1_with_grades_3_and_0_missed():
    qrels, run = _example([3, 2, 3, 0, 1, 2], extra=[3, 0])
    trace = rankkit.trace(qrels, run, "q", k=6)
    assert trace[trace["rank"].notna()]["ideal_grade"].tolist() == [3, 3, 3, 2, 2, 1]
    last = _at(trace, 6)
    assert (round(last["idcg"], 5), round(last["ndcg"], 5)) == (8.38406, 0.81835)
    # a judged document of grade 0 adds nothing to IDCG: it is not listed as missed
    assert trace[trace["rank"].isna()]["doc_id"].tolist() == ["x0"]


def test_worked_example_2_exponential_gain():
    qrels, run = _example([3, 2, 4, 5, 1], extra=[3])
    trace = rankkit.trace(qrels, run, "q", k=5, gain="exp")
    ranked = trace[trace["rank"].notna()]
    assert ranked["gain"].tolist() == [7, 3, 15, 31, 1]
    assert ranked["ideal_grade"].tolist() == [5, 4, 3, 3, 2]
    last = _at(trace, 5)
    assert (round(last["dcg"], 5), round(last["idcg"], 5), round(last["ndcg"], 5)) == (30.13062, 48.13924, 0.62591)


def test_worked_example_3_nothing_else_judged():
    qrels, run = _example([3, 2, 5, 0, 1])
    trace = rankkit.trace(qrels, run, "q", k=5)
    last = _at(trace, 5)
    assert (round(last["dcg"], 5), round(last["idcg"], 5), round(last["ndcg"], 5)) == (7.14871, 8.32347, 0.85886)
    assert trace["rank"].notna().all()


def test_worked_example_4_scikit_learn_ties_average_and_trec():
    docs = list("ABCDE")
    qrels = pd.DataFrame({"query_id": "q", "doc_id": docs, "relevance": [3, 2, 1, 0, 0]})
    run = pd.DataFrame({"query_id": "q", "doc_id": docs, "score": [3.0, 2.0, 0.0, 0.0, 1.0]})
    averaged = rankkit.trace(qrels, run, "q", ties="average", ideal="run")
    last = averaged.iloc[-1]
    assert (round(last["dcg"], 5), round(last["idcg"], 5), round(last["ndcg"], 5)) == (4.67062, 4.76186, 0.98084)
    # C and D tie at ranks 4 and 5: each rank expects the mean of their gains
    assert averaged["gain"].tolist() == [3, 2, 0, 0.5, 0.5]
    assert averaged["precision"].isna().all() and averaged["ap_contribution"].isna().all()
    trec = rankkit.trace(qrels, run, "q", ideal="run")
    assert trec["doc_id"].tolist() == ["A", "B", "E", "D", "C"]
    assert trec["grade"].tolist() == [3, 2, 0, 0, 1]
    last = trec.iloc[-1]
    assert (round(last["dcg"], 5), round(last["ndcg"], 5)) == (4.64871, 0.97624)


def test_worked_example_5_mrr_from_the_rr_contributions():
    # first relevant document at ranks 3, 1, 5 and none
    firsts = {"a": 3, "b": 1, "c": 5, "d": None}
    run = pd.DataFrame([(q, f"{q}{i}", 10.0 - i) for q in firsts for i in range(1, 7)], columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame([(q, f"{q}{i}", int(i == first)) for q, first in firsts.items() for i in range(1, 7)],
                         columns=["query_id", "doc_id", "relevance"])
    trace = rankkit.trace(qrels, run, list(firsts))
    per_query = trace.groupby("query_id")["rr_contribution"].sum()
    assert per_query.to_dict() == pytest.approx({"a": 1 / 3, "b": 1.0, "c": 0.2, "d": 0.0})
    assert round(per_query.mean(), 5) == 0.38333


def test_the_worked_examples_in_sql_with_the_same_numbers():
    qrels, run = _example([3, 2, 4, 5, 1], extra=[3])
    con = rankkit.connect()
    con.register("qrels_frame", qrels)
    con.register("run_frame", run)
    rows = con.sql("SELECT rank, gain, round(dcg, 5), ideal_grade, round(idcg, 5), round(ndcg, 5) "
                   "FROM rankkit.trace('qrels_frame', 'run_frame', 'q', k := 5, gain := 'exp') ORDER BY rank").fetchall()
    assert rows[4] == (5, 1.0, 30.13062, 2.0, 48.13924, 0.62591)
    assert [row[1] for row in rows[:5]] == [7, 3, 15, 31, 1]
    assert rows[5][0] is None  # the judged document the run missed


# evaluate's values, at every cutoff and option

def test_rows_beyond_the_run_carry_the_ideal_to_k():
    """A run shorter than the ideal: nDCG@k divides by IDCG@k, ranks the run never filled included."""
    qrels, run = _example([0, 1], extra=[3, 3, 2])
    trace = rankkit.trace(qrels, run, "q", k=4)
    assert trace["rank"].tolist()[:4] == [1, 2, 3, 4]
    assert trace["doc_id"][2:4].isna().all()
    assert _at(trace, 4)["ndcg"] == pytest.approx(rankkit.evaluate(qrels, run, "nDCG@4")["value"][0], abs=1e-15)
    assert _at(trace, 4)["precision"] == pytest.approx(rankkit.evaluate(qrels, run, "P@4")["value"][0], abs=1e-15)
    assert len(rankkit.trace(qrels, run, "q", k=7).query("rank > 0")) == 7  # to k, past the ideal too
    whole = rankkit.trace(qrels, run, "q")
    assert whole[whole["rank"].notna()]["rank"].max() == 4  # the ideal has four positive grades
    assert whole[whole["rank"].notna()].iloc[-1]["ndcg"] == pytest.approx(
        rankkit.evaluate(qrels, run, "nDCG")["value"][0], abs=1e-15)


def _random_case(seed: int, queries: int = 4):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(queries):
        docs = int(rng.integers(1, 14))
        grades = rng.integers(-1, 4, docs)
        qrels += [(f"q{q}", f"d{d}", int(grades[d])) for d in range(docs) if rng.random() < 0.8]
        for system in ("a", "b"):
            for d in range(docs):
                if rng.random() < 0.85:
                    run.append((system, f"q{q}", f"d{d}", float(rng.integers(0, 6)) / 4))  # ties on purpose
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score"]))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 12), gain=st.sampled_from(["linear", "exp"]),
       ideal=st.sampled_from(["qrels", "run"]), rel=st.sampled_from([1, 2]),
       ties=st.sampled_from(["trec", "average"]), depth=st.sampled_from([None, 3, 8]),
       gains=st.sampled_from([None, "1=3,2=9"]))
def test_the_row_at_rank_k_is_evaluates_value_bit_for_bit(seed, k, gain, ideal, rel, ties, depth, gains):
    """The trace's values come from the definitions evaluate composes from: equal to the last bit; what
    a rank adds to AP, RR and ERR sums to their value (to rounding)."""
    qrels, run = _random_case(seed)
    if qrels.empty or run.empty or not set(qrels["query_id"]) & set(run["query_id"]):
        return
    options = dict(ties=ties, depth=depth)
    written = f",gains=[{gains}]" if gains else ""
    measures = {"ndcg": f"nDCG(gain={gain},ideal={ideal}{written})@{k}", "dcg": f"DCG(gain={gain}{written})@{k}",
                "idcg": f"IDCG(gain={gain},ideal={ideal}{written})@{k}", "cg": f"CG(gain={gain})@{k}"}
    if gains:  # CG takes no gains: the trace's cg follows them, so it is left out here
        del measures["cg"]
    if ties != "average":
        measures |= {"precision": f"P(rel={rel})@{k}", "recall": f"R(rel={rel})@{k}", "ap": f"AP(rel={rel})@{k}",
                     "rr": f"RR(rel={rel})@{k}", "err": f"ERR@{k}", "ap_contribution": f"AP(rel={rel})@{k}",
                     "rr_contribution": f"RR(rel={rel})@{k}", "err_contribution": f"ERR@{k}"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankkit.RankkitWarning)  # queries on one side only: expected here
        expected = rankkit.evaluate(qrels, run, list(dict.fromkeys(measures.values())), per_query=True, **options)
        queries = sorted(set(expected["query_id"]))
        trace = rankkit.trace(qrels, run, queries, k, gain=gain, ideal=ideal, rel=rel, gains=gains, **options)
    ranked = trace[trace["rank"].notna()]
    for (system, query_id), rows in ranked.groupby(["system", "query_id"]):
        last = rows.sort_values("rank").iloc[-1]
        for column, measure in measures.items():
            want = expected[(expected["measure"] == measure) & (expected["system"] == system)
                            & (expected["query_id"] == query_id)]["value"]
            assert len(want) == 1, (measure, sorted(set(expected["measure"])))
            want = want.iloc[0]
            if column.endswith("_contribution"):
                assert rows[column].sum() == pytest.approx(want, abs=1e-12), (column, system, query_id)
            else:
                assert float(last[column]).hex() == float(want).hex(), (column, system, query_id, last[column], want)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.sampled_from([None, 3, 10]), ideal=st.sampled_from(["qrels", "run"]),
       gains=st.sampled_from(["1=9,2=1,3=1", "1=3,2=9", "0=2,1=0,3=5", "3=0.5"]))
def test_the_ideal_rows_sum_to_the_idcg_column_under_any_gains_map(seed, k, ideal, gains):
    """The ideal ordering is by gain, not grade: with a gains map that is not monotone (grade 1 worth
    9, grade 3 worth 1) the trace's ideal rows add up to its IDCG column, and nDCG stays within 1 under
    either ideal (by grade, ideal=run gave nDCG 1.65 and the trace's ideal rows 3.3 against IDCG 11.3)."""
    qrels, run = _random_case(seed)
    if qrels.empty or run.empty or not set(qrels["query_id"]) & set(run["query_id"]):
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rankkit.RankkitWarning)
        queries = sorted(set(qrels["query_id"]) & set(run["query_id"]))
        trace = rankkit.trace(qrels, run, queries, k, ideal=ideal, gains=gains)
        values = rankkit.evaluate(qrels, run, f"nDCG(ideal={ideal},gains=[{gains}])" + (f"@{k}" if k else ""),
                                  per_query=True)
    ranked = trace[trace["rank"].notna()]
    for (system, query_id), rows in ranked.groupby(["system", "query_id"]):
        rows = rows.sort_values("rank")
        ideal_sum = (rows["ideal_gain"].fillna(0.0) / rows["discount"]).sum()
        assert ideal_sum == pytest.approx(rows["idcg"].iloc[-1], abs=1e-12), (system, query_id)
        # each ideal row's grade is one that gains what the row says
        listed = rows[rows["ideal_grade"].notna()]
        assert [_mapped(gains, g) for g in listed["ideal_grade"]] == listed["ideal_gain"].tolist(), (system, query_id)
    assert (values["value"].dropna() <= 1 + 1e-12).all(), values[values["value"] > 1]


def test_the_trace_shows_what_the_measures_headers_name():
    """Beside the document's own columns, a trace column is what some measure's header (trace:) names:
    its value at each rank's cutoff, or a column that explains it, computed from the features."""
    from rankkit.trace_fields import trace_columns, traced

    qrels, run = _example([3, 2, 0])
    own = ["system", "query_id", "rank", "doc_id", "score", "grade"]
    columns = list(rankkit.trace(qrels, run, "q").columns)
    assert columns[:len(own)] == own
    assert sorted(columns[len(own):]) == sorted({*traced().values(), *trace_columns()})


def _mapped(gains: str, grade: float) -> float:
    """A grade's gain under a gains map (linear gain for a level it does not list, 0 below grade 0)."""
    levels = {float(level): float(gain) for level, gain in (pair.split("=") for pair in gains.split(","))}
    return 0.0 if grade < 0 else levels.get(grade, max(grade, 0.0))


@pytest.mark.parametrize("ties, depth", [("trec", None), ("rank", 4), ("average", 6)])
def test_sql_trace_of_any_columns_is_the_loaded_trace(ties, depth):
    """rankkit.trace matches and checks any table's columns, then hands them to rankkit.trace_loaded,
    which Python's trace (and the explorer) calls on the tables it loaded: the same rows either way."""
    qrels, run = _random_case(7)
    run["rank"] = run.groupby(["system", "query_id"]).cumcount() + 1  # a given rank, read under ties='rank'
    queries = sorted(set(qrels["query_id"]) & set(run["query_id"]))[:3]
    con = rankkit.connect()
    con.register("qrels_named", qrels.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "rel"}))
    con.register("run_named", run.rename(columns={"query_id": "topic", "doc_id": "docid", "score": "sim", "system": "tag"}))
    from_sql = con.execute("FROM rankkit.trace('qrels_named', 'run_named', ?::VARCHAR[], k := 5, gain := 'exp', "
                           "ties := ?, depth := ?)", [queries, ties, depth]).df()
    loaded = rankkit.trace(qrels, run, queries, 5, gain="exp", ties=ties, depth=depth)
    pd.testing.assert_frame_equal(from_sql, loaded, check_dtype=False)
    # its ranks are rankkit.ranked's, the ranking every measure reads
    ranked = con.execute("SELECT system, query_id, rank, doc_id FROM rankkit.ranked('run_named', ties := ?, depth := ?, "
                         "for_queries := ?::VARCHAR[]) WHERE rank <= 5", [ties, depth, queries]).fetchall()
    shown = loaded[loaded["doc_id"].notna() & loaded["rank"].notna()]
    assert sorted(ranked) == sorted(zip(shown["system"], shown["query_id"], shown["rank"].astype(int), shown["doc_id"]))


# trec_eval on real pairs

def _trec_eval_values(path: Path, measure: str) -> dict[str, float]:
    with gzip.open(path, "rt") as lines:
        return {parts[1]: float(parts[2]) for parts in map(str.split, lines)
                if len(parts) == 3 and parts[0] == measure and parts[1] != "all"}


@pytest.mark.parametrize("folder, name", [("rank_llm", "dl19.BM25"), ("trectools", "robust03.humR03dc")])
def test_row_at_rank_10_is_trec_evals_ndcg_cut_10_on_every_query(folder, name):
    """dl19: graded passages; robust03.humR03dc: heavy score ties, broken by doc_id as trec_eval does."""
    expected_dir = shared_path("data", folder, "expected")
    pairs = pd.read_csv(expected_dir / "PAIRS.tsv", sep="\t").set_index("name")
    wanted = _trec_eval_values(expected_dir / f"{name}.all_trec.q.hp.txt.gz", "ndcg_cut_10")
    con = rankkit.connect()
    qrels_table = rankkit.read_qrels(expected_dir.parent / pairs.loc[name, "qrels"], con=con, integer_grades=True)
    run_table = rankkit.read_run(expected_dir.parent / pairs.loc[name, "run"], con=con)
    trace = rankkit.trace(qrels_table, run_table, sorted(wanted), 10, con=con)
    at_10 = trace[trace["rank"] == 10].set_index("query_id")["ndcg"]
    assert len(wanted) > 40 and sorted(at_10.index) == sorted(wanted)
    for query_id, value in wanted.items():
        assert at_10[query_id] == pytest.approx(value, abs=1e-9), query_id


# the plain duckdb shell

def test_trace_in_the_duckdb_shell(tmp_path):
    """The duckdb shell (1.5, from the duckdb-cli package) runs rankkit.trace from `rankkit macros`."""
    commands = """CREATE TABLE qrels AS SELECT * FROM (VALUES ('q','a',3),('q','b',2),('q','c',3),('q','d',0),('q','e',1),('q','f',2),('q','g',3),('q','h',2)) t(query_id, doc_id, relevance);
CREATE TABLE run AS SELECT * FROM (VALUES ('q','a',6.0),('q','b',5.0),('q','c',4.0),('q','d',3.0),('q','e',2.0),('q','f',1.0)) t(query_id, doc_id, score);
SELECT rank, doc_id, round(dcg, 5) AS dcg, round(idcg, 5) AS idcg, round(ndcg, 5) AS ndcg FROM rankkit.trace('qrels', 'run', 'q', k := 6) WHERE rank = 6 OR rank IS NULL;
"""
    out = in_duckdb_shell(tmp_path, commands)
    assert out.split() == ["rank,doc_id,dcg,idcg,ndcg", "6,f,6.86113,8.74026,0.785", "NULL,g,NULL,NULL,NULL", "NULL,h,NULL,NULL,NULL"]


# errors

def test_a_query_nobody_retrieved_is_named():
    qrels, run = _example([1, 0], extra=[2])
    qrels = pd.concat([qrels, pd.DataFrame({"query_id": ["judged-only", "judged-twice", "judged-twice"],
                                            "doc_id": ["z", "y", "z"], "relevance": [1, 0, 2]})])
    with pytest.raises(RankkitError, match="query 'judged-only' is judged \\(1 document\\) but not retrieved by the run: "
                                           "there is nothing to trace"):
        rankkit.trace(qrels, run, ["q", "judged-only"])
    with pytest.raises(RankkitError, match="query 'judged-twice' is judged \\(2 documents\\) but not retrieved"):
        rankkit.trace(qrels, run, "judged-twice")
    with pytest.raises(RankkitError, match="query 'nope' is neither judged nor retrieved"):
        rankkit.trace(qrels, run, "nope")
    with pytest.raises(RankkitError, match="query_id is empty"):
        rankkit.trace(qrels, run, [])


def test_bad_options_are_refused_in_sql_terms():
    qrels, run = _example([1, 0])
    with pytest.raises(RankkitError, match="gain must be linear or exp, got cubic"):
        rankkit.trace(qrels, run, "q", gain="cubic")
    with pytest.raises(RankkitError, match=r"the cutoff must be a positive integer below 2\^63 - 1, got 0"):
        rankkit.trace(qrels, run, "q", 0)
    with pytest.raises(RankkitError, match="depth must be a positive integer, got -1"):
        rankkit.trace(qrels, run, "q", depth=-1)
    with pytest.raises(RankkitError, match="ideal must be qrels or run, got best"):
        rankkit.trace(qrels, run, "q", ideal="best")
    # checked though no column of the trace reads them but the generated values (they were accepted)
    with pytest.raises(RankkitError, match="max must be a positive number up to 1000"):
        rankkit.trace(qrels, run, "q", max=-1)
    with pytest.raises(RankkitError, match="empty must be zero, skip, one or error, got never"):
        rankkit.trace(qrels, run, "q", empty="never")
    with pytest.raises(RankkitError, match="ties must be trec, rank or average"):
        rankkit.trace(qrels, run, "q", ties="random")


def test_several_runs_trace_side_by_side():
    qrels, run = _example([1, 0, 2])
    other = run.assign(score=run["score"][::-1].to_numpy())
    trace = rankkit.trace(qrels, {"first": run, "second": other}, "q")
    assert trace.groupby("system")["doc_id"].apply(list).to_dict() == {
        "first": ["d0", "d1", "d2"], "second": ["d2", "d1", "d0"]}


def test_the_trace_takes_every_parameter_of_the_traced_measures_with_its_declared_default():
    # a parameter's default is declared once; the Python signatures read it, and a parameter a traced
    # measure gains is one the trace must take (or this fails)
    import inspect

    from rankkit.trace_fields import trace_params
    from rankkit.measures import default, params
    from rankkit.tracing import trace_sources
    taken = set(trace_params())
    for function in (rankkit.trace, trace_sources):
        signature = inspect.signature(function).parameters
        shared = [name for name in signature if name in params()]
        assert set(shared) == taken
        assert all(signature[name].default == default(name) for name in shared)



def test_the_trace_reads_its_options_from_the_declarations_and_refuses_others():
    # rankkit.trace's signature and docstring are written from the traced measures' declared parameters
    from rankkit.measures import params
    from rankkit.trace_fields import trace_params

    for name in trace_params()[1:]:
        assert f"    {name}: " in rankkit.trace.__doc__ and params()[name].description in rankkit.trace.__doc__
    assert "{options}" not in rankkit.trace.__doc__
    qrels, run = _example([1, 0, 2])
    with pytest.raises(TypeError, match="unexpected keyword argument 'p'; the traced measures' parameters are "):
        rankkit.trace(qrels, run, "q", p=0.5)
