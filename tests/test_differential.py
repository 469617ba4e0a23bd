"""Differential tests: rankkit against pytrec_eval (trec_eval 9.0.8) and ir_measures' gdeval.pl
on generated qrels and runs.

The generated data go where bugs hide: heavy score ties (scores are multiples of 1/8, exact in the
32-bit floats pytrec_eval reads, so the tie rule decides), negative and zero grades, unjudged
documents, ids such as '9', '10' and '007' whose string and numeric orders differ, and queries
present in only the qrels or only the run. Hypothesis runs derandomized: the same examples every
time.
"""

from __future__ import annotations

import shutil
from statistics import mean

import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import rankkit

pytrec_eval = pytest.importorskip("pytrec_eval")
# Queries on one side only are the point here: rankkit warns about them, as it should.
pytestmark = pytest.mark.filterwarnings("ignore::rankkit.errors.RankkitWarning")
ir_measures = pytest.importorskip("ir_measures")

EXAMPLES = settings(max_examples=40, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# rankkit's name -> pytrec_eval's (its measure, the key of its per-query result)
PYTREC = {
    "map": ("map", "map"),
    "ndcg": ("ndcg", "ndcg"),
    "ndcg_cut_5": ("ndcg_cut.5", "ndcg_cut_5"),
    "P_5": ("P.5", "P_5"),
    "recall_10": ("recall.10", "recall_10"),
    "recip_rank": ("recip_rank", "recip_rank"),
    "Rprec": ("Rprec", "Rprec"),
    "bpref": ("bpref", "bpref"),
    "num_rel_ret": ("num_rel_ret", "num_rel_ret"),
    "success_5": ("success.5", "success_5"),
}
SUMMED = {"num_rel_ret"}

QUERY_IDS = ["1", "9", "10", "007", "7"]
DOC_IDS = ["1", "9", "10", "007", "7", "a", "b", "B", "doc-2"]
SCORES = st.integers(min_value=-4, max_value=8).map(lambda n: n / 8)  # few values: many ties


def judgments(grades):
    # pytrec_eval 0.5.11 crashes (segfault or endless loop) on a query whose judgments are all
    # negative, so every generated query has a grade >= 0; the neg_zero_rel probe (q3, one -1
    # judgment) checks that case against trec_eval 10.0 in test_conformance.py.
    return st.dictionaries(st.sampled_from(DOC_IDS), grades, min_size=1, max_size=len(DOC_IDS)).filter(
        lambda docs: max(docs.values()) >= 0)


def rankings():
    return st.dictionaries(st.sampled_from(DOC_IDS), SCORES, min_size=1, max_size=len(DOC_IDS))


def collections(query_ids, grades):
    """(qrels, run) as {query: {doc: grade}} and {query: {doc: score}}; the query sets overlap
    but need not be equal."""
    return st.tuples(
        st.dictionaries(st.sampled_from(query_ids), judgments(grades), min_size=1, max_size=len(query_ids)),
        st.dictionaries(st.sampled_from(query_ids), rankings(), min_size=1, max_size=len(query_ids)),
    ).filter(lambda pair: set(pair[0]) & set(pair[1]))


def frames(qrels: dict, run: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    q = pd.DataFrame([(qid, doc, grade) for qid, docs in qrels.items() for doc, grade in docs.items()],
                     columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame([(qid, doc, score) for qid, docs in run.items() for doc, score in docs.items()],
                     columns=["query_id", "doc_id", "score"])
    return q, r


def rankkit_values(qrels: dict, run: dict, measures: list[str]) -> tuple[dict, dict]:
    """Per query {(measure, query): value} and aggregate {measure: value}."""
    q, r = frames(qrels, run)
    per_query = rankkit.evaluate(q, r, measures, per_query=True)
    aggregate = rankkit.evaluate(q, r, measures)
    return ({(row.measure, row.query_id): row.value for row in per_query.itertuples()},
            dict(zip(aggregate["measure"], aggregate["value"])))


TIES = (  # docs tied at 0.5 go 9, 7, 10, 007 (bytes, descending); query 7 is judged only, 10 run only
    {"1": {"9": -1, "10": 2, "007": 0, "7": 1, "a": 1}, "9": {"1": 0}, "7": {"a": 3}},
    {"1": {"9": 0.5, "10": 0.5, "007": 0.5, "7": 0.5, "B": 0.5, "b": 1.0}, "9": {"1": -0.5}, "10": {"a": 1.0}},
)


@given(collections(QUERY_IDS, st.integers(min_value=-2, max_value=3)))
@example(TIES)
@EXAMPLES
def test_agrees_with_pytrec_eval(data):
    qrels, run = data
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {name for name, _ in PYTREC.values()})
    # pytrec_eval evaluates the queries in both, as trec_eval and rankkit's default do.
    expected = evaluator.evaluate(run)
    assert set(expected) == set(qrels) & set(run)
    got, aggregate = rankkit_values(qrels, run, list(PYTREC))
    assert {query for _, query in got} == set(expected)
    for measure, (_, key) in PYTREC.items():
        for query, values in expected.items():
            assert got[(measure, query)] == pytest.approx(values[key], abs=1e-9), (measure, query)
        combine = sum if measure in SUMMED else mean
        assert aggregate[measure] == pytest.approx(combine(v[key] for v in expected.values()), abs=1e-9), measure


# ---- gdeval.pl (ERR and exponential-gain nDCG) through ir_measures ------------------------------

GDEVAL_QUERIES = ["1", "9", "10", "23"]  # gdeval.pl wants numeric topics and sorts them as numbers


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl, which is absent")
@given(collections(GDEVAL_QUERIES, st.integers(min_value=-1, max_value=4)), st.sampled_from([1, 3, 5, 10]))
@example(({"1": {"9": -1, "10": 4, "007": 0, "7": 1, "a": 2}, "9": {"1": 0}, "23": {"a": 3}},
          {"1": {"9": 0.5, "10": 0.5, "007": 0.5, "7": 0.5, "B": 0.5, "a": 1.0}, "9": {"1": -0.5}, "10": {"a": 1.0}}), 3)
@settings(max_examples=20, derandomize=True, deadline=None)
def test_err_and_exponential_ndcg_agree_with_gdeval(data, k):
    qrels, run = data
    # gdeval.pl scores only topics with a positive judgment; rankkit scores the others 0.
    assume(any(grade > 0 for docs in qrels.values() for grade in docs.values()))
    q, r = frames(qrels, run)
    measures = [ir_measures.ERR @ k, ir_measures.nDCG(dcg="exp-log2") @ k]
    expected = {(str(m.measure), m.query_id): m.value for m in ir_measures.gdeval.iter_calc(measures, q, r)}
    names = {f"ERR@{k}": str(measures[0]), f"nDCG(gain=exp)@{k}": str(measures[1])}
    got, _ = rankkit_values(qrels, run, list(names))
    # ir_measures adds qrels topics missing from the run with 0; rankkit leaves them out by default.
    expected = {key: value for key, value in expected.items() if key[1] in run or value != 0}
    scored = {query for _, query in expected}
    assert scored <= {query for _, query in got}
    for (measure, query), value in got.items():
        if query in scored:
            # gdeval.pl prints five decimals
            assert value == pytest.approx(expected[(names[measure], query)], abs=1e-5), (measure, query)
        else:
            assert value == 0, (measure, query)


# ---- Judged@k through ir_measures' judged provider (OpenNIR's definition) -----------------------

def untied(run: dict) -> dict:
    """The same rankings with distinct scores: ir_measures' judged provider breaks ties by doc_id
    ascending, trec_eval by doc_id descending, so only untied runs compare."""
    out = {}
    for query, docs in run.items():
        order = sorted(docs, key=lambda doc: (-docs[doc], [-b for b in doc.encode()]))
        out[query] = {doc: float(len(order) - i) for i, doc in enumerate(order)}
    return out


@given(collections(QUERY_IDS, st.integers(min_value=-2, max_value=3)), st.sampled_from([1, 3, 5, 20]))
@settings(max_examples=20, derandomize=True, deadline=None)
def test_judged_agrees_with_ir_measures(data, k):
    qrels, run = data
    run = untied(run)
    q, r = frames(qrels, run)
    # ir_measures adds qrels topics missing from the run with 0; rankkit leaves them out by default.
    expected = {m.query_id: m.value for m in ir_measures.judged.iter_calc([ir_measures.Judged @ k], q, r)
                if m.query_id in run}
    got, _ = rankkit_values(qrels, run, [f"Judged@{k}"])
    assert {query for _, query in got} == set(expected) == set(qrels) & set(run)
    for (_, query), value in got.items():
        assert value == pytest.approx(expected[query], abs=1e-12), query


# ---- scores="float32": pytrec_eval's own precision ------------------------------------------------

NEAR_ONE = st.integers(min_value=0, max_value=30).map(lambda n: 1.0 + n * 1e-8)  # distinct doubles, float32 ties


@given(st.tuples(
    st.dictionaries(st.sampled_from(QUERY_IDS), judgments(st.integers(min_value=0, max_value=2)), min_size=1),
    st.dictionaries(st.sampled_from(QUERY_IDS), st.dictionaries(st.sampled_from(DOC_IDS), NEAR_ONE, min_size=1), min_size=1),
).filter(lambda pair: set(pair[0]) & set(pair[1])))
@settings(max_examples=20, derandomize=True, deadline=None)
def test_float32_scores_agree_with_pytrec_eval(data):
    """Scores that differ only beyond float32 precision tie in pytrec_eval (trec_eval 9 reads
    floats); rankkit's scores='float32' gives its numbers."""
    qrels, run = data
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank", "ndcg_cut.5"}).evaluate(run)
    q, r = frames(qrels, run)
    got = rankkit.evaluate(q, r, ["map", "recip_rank", "ndcg_cut_5"], per_query=True, scores="float32")
    assert set(got["query_id"]) == set(expected)
    for row in got.itertuples():
        assert row.value == pytest.approx(expected[row.query_id][row.measure], abs=1e-9), (row.measure, row.query_id)


# ---- every all_trec measure: pytrec_eval (9.0.8) and, where it is installed, trec_eval 10.0 ---------

# 9.0.8 turns recall levels into ranks otherwise (adds 0.9 and truncates; 10.0 rounds) and has no
# rbp, rbp_resid or unj; runid and relstring are text.
NOT_IN_9 = ("iprec_at_recall", "11pt_avg", "runid", "relstring")
GEOMETRIC = {"gm_map", "gm_bpref"}
COUNTS = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}


@given(collections(QUERY_IDS, st.integers(min_value=-2, max_value=3)))
@example(TIES)
@settings(max_examples=25, derandomize=True, deadline=None)
def test_all_trec_agrees_with_pytrec_eval(data):
    import math

    qrels, run = data
    qrels = {query: {doc: int(grade) for doc, grade in docs.items()} for query, docs in qrels.items()}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(run)
    names = sorted(key for key in next(iter(expected.values())) if not key.startswith(NOT_IN_9))
    got, aggregate = rankkit_values(qrels, run, names)
    for name in names:
        for query, values in expected.items():
            want = math.exp(values[name]) if name in GEOMETRIC else values[name]  # pytrec_eval gives the log
            mine = max(got[(name, query)], 1e-5) if name in GEOMETRIC else got[(name, query)]
            assert mine == pytest.approx(want, abs=1e-9), (name, query)
        column = [v[name] for v in expected.values()]
        combined = (math.exp(mean(column)) if name in GEOMETRIC else sum(column) if name in COUNTS else mean(column))
        assert aggregate[name] == pytest.approx(combined, abs=1e-9), name


def trec_eval_10():
    """trec_eval 10.0's binary: $RANKKIT_TREC_EVAL or the oracle build beside the project, else skip."""
    import os
    from pathlib import Path

    from support import ROOT

    for candidate in (os.environ.get("RANKKIT_TREC_EVAL"), ROOT.parent.parent / "oracle" / "trec_eval" / "trec_eval",
                      ROOT.parent / "oracle" / "trec_eval" / "trec_eval"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    pytest.skip("trec_eval 10.0 is absent (set RANKKIT_TREC_EVAL to its binary)")


def trec_files(folder, qrels: dict, run: dict):
    qrels_path, run_path = folder / "qrels.txt", folder / "run.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    run_path.write_text("".join(f"{q} Q0 {d} {i} {s} tag{len(q)}\n" for q, docs in run.items()
                                for i, (d, s) in enumerate(docs.items(), 1)))
    return qrels_path, run_path


@pytest.mark.parametrize("options", [["-c"], ["-c", "-J"], ["-c", "-M", "3", "-l", "2"]])
@given(data=collections(QUERY_IDS, st.integers(min_value=-2, max_value=3)))
@example(data=TIES)
@settings(max_examples=15, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_cli_all_trec_agrees_with_trec_eval_10(tmp_path_factory, capsys, options, data):
    """rankkit eval -q -m all_trec against trec_eval 10.0 itself on generated files: the same lines,
    values to the printed 4 decimals (nan: trec_eval's 0/0 on an empty -J ranking, rankkit's 0)."""
    import subprocess

    from rankkit.cli import main

    binary = trec_eval_10()
    qrels, run = data
    qrels = {query: {doc: int(grade) for doc, grade in docs.items()} for query, docs in qrels.items()}
    qrels_path, run_path = trec_files(tmp_path_factory.mktemp("trec"), qrels, run)
    args = [*options, "-q", "-m", "all_trec", str(qrels_path), str(run_path)]
    wanted = subprocess.run([binary, *args], capture_output=True, text=True, check=True).stdout.splitlines()
    capsys.readouterr()
    assert main(["eval", *args]) == 0
    got = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in got] == [line.split()[:2] for line in wanted]
    for mine, theirs in zip(got, wanted):
        name, query, value = theirs.split("\t")
        if "nan" in value or (query == "all" and any("nan" in w and w.split()[0] == name.strip() for w in wanted)):
            continue
        if (name.strip(), query) == ("num_rel", "all") and "-l" in options:
            # trec_eval -c sums grades > 0 for this summary whatever -l says: not its per-query num_rel
            continue
        if name.startswith(("runid", "relstring")) or "." not in value:
            assert mine == theirs
        else:
            assert abs(float(mine.split("\t")[2]) - float(value)) <= 5e-5 + 1e-9, theirs
