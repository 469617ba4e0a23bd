"""ir_measures' objects and strings and ranx's names: translated to give the peer's value on the
peer's own fixtures (ir_measures' tests/ data under ../shared), or refused with a message that names
rankkit's spelling; never a parameter silently dropped."""

from __future__ import annotations

import math
import re
import warnings

import pytest

import rankkit
from rankkit.errors import MeasureError
from support import shared_path

ir_measures = pytest.importorskip("ir_measures")

FIXTURES = ("compat", "cwl")
# a value other than ir_measures' default for each parameter it declares
SAMPLES = {"cutoff": 5, "rel": 2, "p": 0.5, "beta": 0.8, "relative": True, "judged_only": True, "dcg": "exp-log2",
           "gains": {0: 1, 1: 4, 2: 5}, "recall": 0.5, "T": 2.0, "min_rel": 1, "max_rel": 3, "alpha": 0.3,
           "normalize": False}
# what rankkit computes that ir_measures cannot compute on these fixtures, and where it is proven instead
PROVEN_ELSEWHERE = {
    "nDCG(dcg='exp-log2')@10": "gdeval.pl rejects these files; test_differential runs it on its own data",
    "ERR@5": "gdeval.pl rejects these files; test_differential runs it on its own data",
    "NumRel(rel=2)": "no ir_measures provider takes rel; trec_eval -l 2 in test_conformance",
}


def expand(measures) -> list[str]:
    """The names the parser reads ``measures`` as (ir_measures' and ranx's spellings translated), or its refusal."""
    from rankkit.io import default_connection
    from rankkit.specs import measure_specs

    return [spec["measure"] for spec in measure_specs(default_connection(), measures)]


def fixture(name: str):
    return str(shared_path("data", "ir_measures", f"{name}.qrels")), str(shared_path("data", "ir_measures", f"{name}.run"))


def theirs(measure, name: str) -> dict[str, float]:
    qrels, run = fixture(name)
    found = ir_measures.iter_calc([measure], ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run))
    return {m.query_id: m.value for m in found}


def ours(measure, name: str) -> dict[str, float]:
    qrels, run = fixture(name)
    frame = rankkit.evaluate(qrels, run, [measure], per_query=True)
    return dict(zip(frame["query_id"], frame["value"]))


def ours_many(names, name: str) -> dict[str, dict[str, float]]:
    """ours() for several names in one evaluation: {name as given: {query: value}}."""
    qrels, run = fixture(name)
    read = {given: expand([given])[0] for given in names}
    frame = rankkit.evaluate(qrels, run, list(dict.fromkeys(read.values())), per_query=True)
    found: dict[str, dict[str, float]] = {}
    for measure, query, value in zip(frame["measure"], frame["query_id"], frame["value"]):
        found.setdefault(measure, {})[query] = value
    return {given: found[measure] for given, measure in read.items()}


# Subtopic judgments for the diversity measures (ir_measures keeps the subtopic in the iteration column);
# ir_measures' fixtures have one subtopic a query, so these are pyndeval's README example and one more query
SUBTOPICS = [("0", "a", "A", 1), ("0", "b", "B", 1), ("0", "b", "D", 1), ("0", "c", "C", 1),
             ("1", "x", "A", 1), ("1", "y", "B", 2), ("1", "y", "C", 1), ("1", "x", "D", 2)]
SUBTOPIC_RUN = [("0", "A", 9.3), ("0", "D", 8.4), ("0", "E", 8.1), ("0", "B", 7.6),
                ("1", "C", 3.0), ("1", "A", 2.0), ("1", "Z", 1.0), ("1", "D", 0.5)]


def diverse(name) -> bool:
    """Whether a name (or object) reads subtopic judgments."""
    from rankkit.specs import measure_specs
    from rankkit.io import default_connection
    from rankkit.measures import needs_subtopics

    return needs_subtopics(measure_specs(default_connection(), expand([name]))[0]["metric"])


def diversity_pair(measure, given) -> tuple[dict, dict]:
    """ir_measures' per-query values of ``measure`` (alone: its pyndeval provider keeps alpha and beta in
    global state, so two measures with different alphas in one call spoil each other) and rankkit's of
    ``given``, on SUBTOPICS."""
    import pandas as pd

    qrels = pd.DataFrame(SUBTOPICS, columns=["query_id", "iteration", "doc_id", "relevance"])
    run = pd.DataFrame(SUBTOPIC_RUN, columns=["query_id", "doc_id", "score"])
    # nNRBP of a query with no relevant subtopic: ndeval divides 0 by 0 (nan), rankkit says 0 (docs/measures.md)
    expected = {m.query_id: 0.0 if math.isnan(m.value) and measure.NAME == "nNRBP" else m.value
                for m in ir_measures.iter_calc([measure], qrels, run)}
    frame = rankkit.evaluate(None, run, [given], per_query=True, subtopics=qrels)
    return dict(zip(frame["query_id"], frame["value"])), expected


def variants():
    """Every ir_measures measure object with one parameter set to a non-default value (and a cutoff
    or IPrec's recall level where the measure takes one, so that it can be computed)."""
    for name, measure in sorted(ir_measures.measures.registry.items()):
        for param, info in measure.SUPPORTED_PARAMS.items():
            # a parameter this list lacks, or a sample equal to the default, would not be tried
            assert SAMPLES[param] != info.default, f"{name}: {param}={SAMPLES[param]} is ir_measures' default"
            made = measure(**{param: SAMPLES[param]})
            at = measure.AT_PARAM  # cutoff, or IPrec's recall level
            if param != at and at in measure.SUPPORTED_PARAMS:
                made = made @ (10 if at == "cutoff" else 0.5)
            yield pytest.param(made, id=f"{name}:{made}")


def assert_names(measure, error: MeasureError) -> None:
    assert measure.NAME in str(error) or str(measure).split("@")[0] in str(error), str(error)


def refused_when_run(accepted: dict) -> list:
    """The measures (of {measure: rankkit's name}) that evaluating refuses, each checked to name itself:
    one evaluation of them all, and one each only if that one is refused (an evaluation costs a tenth
    of a second whatever it computes)."""
    try:
        ours_many(list(dict.fromkeys(accepted.values())), "cwl")
        return []
    except MeasureError:
        pass
    refused = []
    for measure, name in accepted.items():
        try:
            ours(name, "cwl")
        except MeasureError as error:
            assert_names(measure, error)
            refused.append(measure)
    return refused


def test_every_parameter_is_translated_or_refused():
    """A silent mistranslation fails here: each object either gives ir_measures' value per query on
    both fixtures, or is refused with a message naming it."""
    accepted, refused, diversity = {}, [], []
    for param in variants():
        measure = param.values[0]
        try:
            name = expand([measure])[0]
            if diverse(name):  # ir_measures' fixtures have no subtopics
                got, expected = diversity_pair(measure, measure)
                assert got == pytest.approx(expected, abs=1e-9), str(measure)
                diversity.append(str(measure))
                continue
        except MeasureError as error:
            assert_names(measure, error)
            refused.append(str(measure))
            continue
        accepted[measure] = name
    for measure in refused_when_run(accepted):  # the SQL parser's refusals
        del accepted[measure]
        refused.append(str(measure))
    for fixture_name in FIXTURES:
        qrels, run = fixture(fixture_name)
        with warnings.catch_warnings():  # compat.qrels grades up to 50: ERR's scale warning is expected here
            warnings.simplefilter("ignore", rankkit.RankkitWarning)
            frame = rankkit.evaluate(qrels, run, list(dict.fromkeys(accepted.values())), per_query=True)
        values = {(m, q): v for m, q, v in zip(frame["measure"], frame["query_id"], frame["value"])}
        for measure, name in accepted.items():
            try:
                expected = theirs(measure, fixture_name)
            except Exception:  # ir_measures has no provider for it here
                assert str(measure) in PROVEN_ELSEWHERE, f"{measure}: rankkit computes it, ir_measures cannot"
                continue
            for query, value in expected.items():
                if (name, query) in values or value != 0:
                    assert values.get((name, query)) == pytest.approx(value, abs=1e-9), (str(measure), fixture_name, query)
    computed = {str(m) for m in accepted}
    assert {"NumRet(rel=2)", "SetP(relative=True)", "nDCG(gains={0:1,1:4,2:5})@10", "SDCG(max_rel=3)@10", "INSQ(max_rel=3)", "INST(max_rel=3)"} <= computed
    assert "P(judged_only=True)@10" in refused and "BPM(max_rel=3)@10" in refused and "alpha_nDCG(judged_only=True)@10" in refused
    assert {"alpha_nDCG(alpha=0.3)@10", "NRBP(alpha=0.3)", "StRecall(rel=2)@10", "ERR_IA@5", "alpha_DCG@5",
            "nNRBP(alpha=0.3)", "NRBP(beta=0.8)", "nNRBP(beta=0.8)"} <= set(diversity)
    assert {"SetF(beta=0.8)"} <= computed


def test_numret_with_rel_counts_the_relevant_retrieved():
    for given in (ir_measures.NumRet(rel=1), "NumRet(rel=1)", ir_measures.NumRelRet):
        assert ours(given, "cwl") == pytest.approx(theirs(ir_measures.NumRet(rel=1), "cwl"))
    assert ours("NumRet(rel=2)", "compat") == pytest.approx(theirs(ir_measures.NumRet(rel=2), "compat"))
    assert ours("NumRet", "cwl") == pytest.approx(theirs(ir_measures.NumRet, "cwl"))
    assert ours("NumRet", "cwl") != ours("NumRet(rel=1)", "cwl")


def test_strings_in_ir_measures_spelling():
    assert expand(["NumRet(rel=1)", "nDCG(dcg=exp-log2)@10", "SetP(relative=True)", "P(rel=2, judged_only=False)@5"]) == [
        "NumRelRet(rel=1)", "nDCG(gain=exp)@10", "SetRelP", "P(rel=2)@5"]
    assert expand("nDCG(dcg=exp-log2)@10") == expand([ir_measures.nDCG(dcg="exp-log2") @ 10])


@pytest.mark.parametrize("given, why", [
    ("P(judged_only=True)@5", "evaluate(..., judged_only=True) or rankkit eval -J"),
    ("nDCG(dcg=log10)", "gain=exp (dcg=exp-log2)"),
    ("BPM(max_rel=3)@10", "C/W/L"),
    (ir_measures.INST(T=2.0), "needs max_rel"),
])
def test_refused_with_rankkits_spelling(given, why):
    with pytest.raises(MeasureError, match=r"measure '.*': .*") as error:
        expand([given])
    assert why in str(error.value)


@pytest.mark.parametrize("given, p", [(ir_measures.RBP(rel=1), 0.8), (ir_measures.RBP(rel=2, p=0.5), 0.5),
                                      ("RBP(rel=2)", 0.8), ("RBP(rel=3,p=0.95)", 0.95)])
def test_rbp_with_rel_is_binary_relevance_at_that_level(given, p):
    """ir_measures' RBP(rel=r) (cwl_eval's): a document of grade >= r gains 1; rankkit's RBP alone keeps
    trec_eval's graded gains. The string RBP is rankkit's name, trec_eval's p = 0.9; RBP(rel=2), object or
    string, is ir_measures' spelling and takes its p = 0.8."""
    name = expand([given])[0]
    assert name.startswith(f"RBP(p={p:g},binary_rel=")
    measure = given if not isinstance(given, str) else ir_measures.parse_measure(given.replace(")", f",p={p})")
                                                                                   if "p=" not in given else given)
    for fixture_name in FIXTURES:
        assert_same(ours(given, fixture_name), theirs(measure, fixture_name), (str(given), fixture_name))
    graded = ours("RBP(p=0.5)", "compat")
    assert ours("RBP(p=0.5,binary_rel=1)", "compat") != graded  # compat's grades go up to 50


def test_gains_with_several_levels_in_every_form():
    expected = theirs(ir_measures.nDCG(gains={0: 1, 1: 4}) @ 10, "cwl")
    for given in ("nDCG(gains='0=1,1=4')@10", 'nDCG(gains="0=1, 1=4")@10', "nDCG(gains=0=1,1=4)@10",
                  "nDCG(gains={0: 1, 1: 4})@10", "nDCG(gains=[0=1,1=4])@10", ir_measures.nDCG(gains={0: 1, 1: 4}) @ 10):
        assert ours(given, "cwl") == pytest.approx(expected, abs=1e-12), given
    whole = theirs(ir_measures.nDCG(gains={0: 1, 1: 4}), "cwl")
    assert ours("ndcg_0=1,1=4", "cwl") == pytest.approx(whole, abs=1e-12)
    # a parameter after the levels stays a parameter
    assert expand("nDCG(gains=0=1,1=4, ideal=run)@10") == ["nDCG(gains=[0=1,1=4],ideal=run)@10"]


@pytest.mark.parametrize("given", ["nDCG(gains='0=1,x=4')", "nDCG(gains={0: 'a'})", "nDCG(gains='')", "nDCG(gains={})"])
def test_malformed_gains_say_what_is_expected(given):
    with pytest.raises(MeasureError, match=r"gains"):
        expand([given])


# ---- the table of docs/coming-from.md, "ranx and ir_measures", row by row -----------------------------

RANX_SCRIPT = """
import json, sys
from ranx import Qrels, Run, evaluate
names, out = json.loads(sys.argv[1]), {}
for fixture in sys.argv[2:]:
    qrels = Qrels.from_file(fixture + ".qrels", kind="trec")
    run = Run.from_file(fixture + ".run", kind="trec")
    found = evaluate(qrels, run, names, return_mean=False, make_comparable=True)
    found = {names[0]: found} if len(names) == 1 else found
    out[fixture] = {name: dict(zip(qrels.keys(), map(float, found[name]))) for name in names}
print(json.dumps(out))
"""


def readme_rows():
    """(peer, name there, rankkit's name or None, what that name does given to rankkit, note)."""
    from support import ROOT

    text = (ROOT / "docs" / "coming-from.md").read_text(encoding="utf-8")
    table = text.split("\n## ranx and ir_measures\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[0] in ("ranx", "ir_measures"):
            ours_name = cells[2].split("`")[1] if "`" in cells[2] else None
            rows.append((cells[0], cells[1].strip("`"), ours_name, cells[3], cells[2], cells[4]))
    return rows


def ranx_values(names) -> dict:
    """ranx's per-query values on both fixtures, computed in a child process with numba's compiler
    off (ranx's own Python code: compiling it costs a minute, and these files are small)."""
    import json
    import os
    import subprocess
    import sys

    pytest.importorskip("ranx")
    paths = [str(fixture(name)[0])[: -len(".qrels")] for name in FIXTURES]
    done = subprocess.run([sys.executable, "-c", RANX_SCRIPT, json.dumps(names), *paths], capture_output=True,
                          text=True, env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, check=True)
    found = json.loads(done.stdout)
    return {name: found[path] for name, path in zip(FIXTURES, paths)}


def assert_same(got: dict, expected: dict, what) -> None:
    for query, value in expected.items():
        if query in got or value != 0:  # a query the run lacks is 0 to the peer, left out by rankkit
            assert got.get(query) == pytest.approx(value, abs=1e-9), (what, query)


def test_readme_rows_from_ranx():
    rows = [row for row in readme_rows() if row[0] == "ranx"]
    assert len(rows) >= 15
    expected = ranx_values([row[1] for row in rows])
    asked = [row[2] for row in rows] + [row[1] for row in rows if row[3] == "same value"]
    got = {name: ours_many(asked, name) for name in FIXTURES}
    for _, theirs_name, ours_name, given, _, note in rows:
        judged = ("cwl",) if given == "refused" else FIXTURES  # cwl's judgments are binary
        for name in judged:
            assert_same(got[name][ours_name], expected[name][theirs_name], (ours_name, name))
        if given == "same value":
            for name in FIXTURES:
                assert_same(got[name][theirs_name], expected[name][theirs_name], (theirs_name, name))
        elif given == "refused":
            with pytest.raises(MeasureError, match=re.escape(ours_name)):
                expand([theirs_name])
        else:
            assert given == "trec_eval's family" and len(expand([theirs_name])) == 9, theirs_name


def test_readme_rows_from_ir_measures():
    rows = [row for row in readme_rows() if row[0] == "ir_measures"]
    assert len(rows) >= 8
    for _, theirs_name, ours_name, given, cell, note in rows:
        measure = ir_measures.parse_measure(theirs_name)
        if given == "refused":
            with pytest.raises(MeasureError):
                expand([theirs_name])
            with pytest.raises(MeasureError):
                expand([measure])
            if ours_name:
                judged_only = "judged_only=True" in cell
                for name in FIXTURES:
                    qrels, run = fixture(name)
                    frame = rankkit.evaluate(qrels, run, [ours_name], per_query=True, judged_only=judged_only)
                    assert_same(dict(zip(frame["query_id"], frame["value"])), theirs(measure, name), theirs_name)
            continue
        if given == "trec_eval's default":  # the string is rankkit's own name; the object is ir_measures'
            assert expand([measure]) == expand([ours_name]) and expand([theirs_name]) == [theirs_name]
            continue
        assert given == "same value", theirs_name
        assert expand([theirs_name]) == expand([measure])
        if diverse(ours_name):
            for asked in (theirs_name, ours_name):
                got, expected = diversity_pair(measure, asked)
                assert got == pytest.approx(expected, abs=1e-9), asked
            continue
        for name in FIXTURES:
            try:
                expected = theirs(measure, name)
            except Exception:
                assert "test_differential" in note, f"{theirs_name}: ir_measures cannot compute it here"
                assert ours(theirs_name, name) == ours(ours_name, name)
                continue
            assert_same(ours(theirs_name, name), expected, (theirs_name, name))
            assert_same(ours(ours_name, name), expected, (ours_name, name))


def test_measures_lists_ranx_names_and_what_a_name_alone_gives(capsys):
    from rankkit.cli import main

    assert main(["measures"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    assert "ndcg_burges=nDCG(gain=exp)" in lines["nDCG"] and "dcg_burges=DCG(gain=exp)" in lines["DCG"]
    assert "hit_rate" in lines["HitRate"] and "f1" in lines["SetF"] and "r-precision" in lines["Rprec"]
    assert lines["P"].endswith("P: 9 rows, P_5 ... P_1000; other names: whole ranking")
    assert lines["R"].endswith("recall: 9 rows, recall_5 ... recall_1000; other names: whole ranking")
    assert lines["SetAP"].endswith("whole ranking")
    assert main(["measures", "ndcg_burges@10"]) == 0
    assert "ndcg_burges@10 means nDCG(gain=exp)@10" in capsys.readouterr().out


@pytest.mark.parametrize("given, named", [
    ("hitss@5", "Hits"), ("hit_rat@5", "hit_rate (HitRate)"), ("f2", "f1 (SetF)"), ("r_precision", "r-precision (Rprec)"),
    ("mmr@10", "MRR (RR)"), ("topk_accuracy@3", "top_k_accuracy (Success)"),
    ("ndcg_burge@10", "ndcg_burges (nDCG(gain=exp))"), ("dcg_burge", "dcg_burges (DCG(gain=exp))")])
def test_near_misses_name_ranx_spellings(given, named):
    """A suggestion names the spelling nearest to the one typed (an alias, a preset) beside the measure."""
    with pytest.raises(MeasureError, match="did you mean .*" + re.escape(named)):
        ours(given, "cwl")


@pytest.mark.parametrize("given, said", [("P@", "the cutoff, as in P@10"), ("mrr@", "the cutoff, as in mrr@10"),
                                         ("IPrec@", "the recall level, as in IPrec@0.5"), ("bpref@", "bpref takes no cutoff")])
def test_an_at_sign_without_a_number_is_refused(given, said):
    """'P@' was read as P without a cutoff: over the documents retrieved, a value the user did not ask for."""
    with pytest.raises(MeasureError, match=re.escape(f"measure '{given}': the number after @ is missing ({said})")):
        ours(given, "cwl")


def test_a_name_alone_one_rule():
    assert len(expand("P")) == 9 and expand("SetP") == ["SetP"] and expand("P(rel=2)") == ["P(rel=2)"]
    assert len(expand("recall")) == 9 and expand("R") == ["R"]
    assert len(ours("precision", "cwl")) == 3  # one value a query, over the documents retrieved


# ---- Fall-out (torchmetrics) and top-k accuracy (scikit-learn) -----------------------------------

def torchmetrics_fall_out(preds, target, top_k=None):
    """torchmetrics' retrieval_fall_out restated: of the non-relevant documents ranked, the share in
    the top k (0 when there is none); every ranked document is labelled."""
    nonrelevant = [1 - t for t in target]
    if not sum(nonrelevant):
        return 0.0
    order = sorted(range(len(preds)), key=lambda i: -preds[i])[: top_k or len(preds)]
    return sum(nonrelevant[i] for i in order) / sum(nonrelevant)


def frames(queries):
    """{query: [(doc, score, label)]} as rankkit's qrels and run tables: every document judged."""
    import pandas as pd

    rows = [(q, d, s, label) for q, docs in queries.items() for d, s, label in docs]
    return (pd.DataFrame([(q, d, label) for q, d, _, label in rows], columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame([(q, d, s) for q, d, s, _ in rows], columns=["query_id", "doc_id", "score"]))


def test_fallout_agrees_with_torchmetrics_definition():
    import random

    random.seed(7)
    queries = {"doc": [("a", 0.2, 1), ("b", 0.3, 0), ("c", 0.5, 1)]}  # torchmetrics' docstring: 1.0 at k=2
    for q in range(20):
        size = random.randint(1, 8)
        scores = random.sample(range(100), size)  # distinct: torchmetrics' argsort has no tie rule
        queries[f"q{q}"] = [(f"d{i}", scores[i] / 10, random.randint(0, 1)) for i in range(size)]
    qrels, run = frames(queries)
    for k in (1, 2, 5, None):
        name = f"FallOut@{k}" if k else "FallOut"
        frame = rankkit.evaluate(qrels, run, [name], per_query=True)
        got = dict(zip(frame["query_id"], frame["value"]))
        for query, docs in queries.items():
            expected = torchmetrics_fall_out([s for _, s, _ in docs], [t for _, _, t in docs], k)
            assert got[query] == pytest.approx(expected, abs=1e-12), (name, query)
    assert got["doc"] == 1.0 and rankkit.evaluate(qrels, run, ["FallOut@2"], per_query=True).iloc[0]["value"] == 1.0


def test_top_k_accuracy_agrees_with_scikit_learn():
    import random

    import numpy as np
    sklearn_metrics = pytest.importorskip("sklearn.metrics")

    random.seed(3)
    labels = [f"d{i}" for i in range(6)]
    truth, scores, queries = [], [], {}
    for q in range(30):
        row = [random.randint(0, 4) / 4 for _ in labels]  # few values: ties, broken by doc_id as trec_eval does
        answer = random.choice(labels)
        truth.append(answer)
        scores.append(row)
        queries[f"q{q:02}"] = [(d, s, int(d == answer)) for d, s in zip(labels, row)]
    qrels, run = frames(queries)
    for k in (1, 2, 3):
        expected = sklearn_metrics.top_k_accuracy_score(truth, np.array(scores), k=k, labels=labels)
        got = rankkit.evaluate(qrels, run, [f"top_k_accuracy@{k}"])
        assert got.iloc[0]["value"] == pytest.approx(expected, abs=1e-12), k
        assert got.iloc[0]["measure"] == f"top_k_accuracy@{k}"


def test_top_k_accuracy_ties_differ_from_scikit_learn_only_for_integer_labels():
    """The edge docs/coming-from.md states: equal scores go to the greater document id, byte-wise; scikit-learn puts the
    later of its sorted labels first, the same for string ids, not for integers (9 < 10 < 11 there)."""
    import numpy as np
    sklearn_metrics = pytest.importorskip("sklearn.metrics")

    qrels, run = frames({"q": [("9", 0.5, 0), ("10", 0.5, 0), ("11", 0.5, 1)]})
    ours_value = rankkit.evaluate(qrels, run, ["top_k_accuracy@1"])["value"][0]
    assert ours_value == 0.0  # '9' is ranked first: '9' > '11' > '10' byte-wise
    scores = np.array([[0.5, 0.5, 0.5]])
    assert sklearn_metrics.top_k_accuracy_score(["11"], scores, k=1, labels=["10", "11", "9"]) == ours_value
    assert sklearn_metrics.top_k_accuracy_score([11], scores, k=1, labels=[9, 10, 11]) == 1.0


def test_fallout_of_a_query_without_a_non_relevant_document_is_zero():
    """torchmetrics' retrieval_fall_out's 0 (its RetrievalFallOut class says 1 by default, docs/coming-from.md)."""
    qrels, run = frames({"all": [("a", 0.2, 1), ("b", 0.3, 1)], "some": [("a", 0.2, 0), ("b", 0.3, 1)]})
    frame = rankkit.evaluate(qrels, run, ["FallOut@1", "FallOut"], per_query=True)
    got = {(m, q): v for m, q, v in zip(frame["measure"], frame["query_id"], frame["value"])}
    assert got == {("FallOut@1", "all"): 0.0, ("FallOut", "all"): 0.0, ("FallOut@1", "some"): 0.0, ("FallOut", "some"): 1.0}
    assert torchmetrics_fall_out([0.2, 0.3], [1, 1]) == 0.0


# ---- C/W/L measures against cwl_eval, through ir_measures -----------------------------------------

@pytest.mark.parametrize("k, top", [(1, 1), (3, 3), (10, 3), (20, 50), (1000, 1)])
def test_sdcg_agrees_with_cwl_eval(k, top):
    pytest.importorskip("cwl")
    measure = ir_measures.SDCG(max_rel=top) @ k
    assert expand([measure]) == [f"SDCG(max={top})@{k}"]
    for name in FIXTURES:
        assert_same(ours(measure, name), theirs(measure, name), (str(measure), name))


@pytest.mark.parametrize("top, T", [(1, 1.0), (3, 1.0), (50, 1.0), (3, 2.0), (1, 0.5), (50, 3.0)])
@pytest.mark.parametrize("family", ["INSQ", "INST"])
def test_user_models_agree_with_cwl_eval(family, top, T):
    """INSQ and INST with cwl_eval's T, the gain the user wants (ir_measures' INST(T=2)), as objects and
    as ir_measures' and rankkit's strings."""
    pytest.importorskip("cwl")
    measure = getattr(ir_measures, family)(max_rel=top, T=T)
    ours_name = f"{family}(max={top},T={T:g})"
    assert expand([measure]) == [ours_name]
    for name in FIXTURES:
        expected = theirs(measure, name)
        for given in (measure, str(measure), ours_name):
            assert_same(ours(given, name), expected, (str(given), name))
    if T == 1:  # ir_measures' default, and rankkit's
        assert expand([getattr(ir_measures, family)(max_rel=top)]) == [f"{family}(max={top})"]


def test_presets_read_by_the_sql_parser_too(con):
    """The plain duckdb shell's rankkit.evaluate reads ranx's ndcg_burges@10 as Python does: nDCG(gain=exp)@10,
    through rankkit.preset_name, generated from the presets: of the measures' headers."""
    con.execute("CREATE TABLE q AS SELECT * FROM (VALUES ('0', 'A', 2), ('0', 'B', 1)) t(query_id, doc_id, relevance)")
    con.execute("CREATE TABLE r AS SELECT * FROM (VALUES ('0', 'A', 1.0), ('0', 'B', 2.0)) t(query_id, doc_id, score)")
    rows = con.execute("SELECT measure, value FROM rankkit.evaluate('q', 'r', ['ndcg_burges@10', 'DCG_Burges@1', "
                       "'nDCG@10'])").fetchall()
    exp = {name: value for name, value in con.execute(
        "SELECT measure, value FROM rankkit.evaluate('q', 'r', ['nDCG(gain=exp)@10', 'DCG(gain=exp)@1'])").fetchall()}
    assert rows[0] == ("nDCG(gain=exp)@10", exp["nDCG(gain=exp)@10"])
    assert rows[1] == ("DCG(gain=exp)@1", exp["DCG(gain=exp)@1"]) and rows[2][0] == "nDCG@10"
    assert rows[0][1] != rows[2][1]  # the gain differs: 2^2 - 1 for A
    python = rankkit.evaluate(con.table("q").df(), con.table("r").df(), ["ndcg_burges@10"])
    assert python[["measure", "value"]].values.tolist() == [list(rows[0])]


@pytest.mark.parametrize("measure", [
    ir_measures.SDCG(min_rel=1, max_rel=3) @ 10, ir_measures.INSQ(min_rel=1, max_rel=3),
    ir_measures.INST(min_rel=1, max_rel=5, T=2.0), ir_measures.SDCG(min_rel=-1, max_rel=2) @ 5])
def test_min_rel_is_the_bottom_of_the_grading_scale(measure):
    """ir_measures' min_rel (cwl_eval's scale from min_rel to max_rel) is rankkit's bottom."""
    pytest.importorskip("cwl")
    name = expand([measure])[0]
    assert f"bottom={measure['min_rel']}" in name
    for fixture_name in FIXTURES:
        expected = theirs(measure, fixture_name)
        for given in (measure, str(measure), name):
            assert_same(ours(given, fixture_name), expected, (str(given), fixture_name))


def test_a_scale_that_does_not_rise_is_refused():
    with pytest.raises(rankkit.RankkitError, match=r"the grading scale must rise: max \(2(\.0)?\) must be above bottom \(2(\.0)?\)"):
        ours("SDCG(max=2,bottom=2)@5", "cwl")


# ---- the plain duckdb shell: its parser reads the neighbours' names as Python's evaluate does ----------

SQL_TRANSLATED = [  # (given, rankkit's spelling), evaluated in SQL as in Python
    ("NumRet(rel=1)", "NumRelRet(rel=1)"), ("RBP(rel=2)", "RBP(p=0.8,binary_rel=2)"),
    ("nDCG(dcg=exp-log2)@10", "nDCG(gain=exp)@10"), ("nDCG(dcg='exp-log2')@5", "nDCG(gain=exp)@5"),
    ("nDCG(gains={0: 1, 1: 4})@10", "nDCG(gains=[0=1,1=4])@10"), ("SetP(relative=True)", "SetRelP"),
    ("INST(max_rel=3)", "INST(max=3)"), ("SDCG(max_rel=3)@10", "SDCG(max=3)@10"),
    ("INSQ(min_rel=1,max_rel=3)", "INSQ(max=3,bottom=1)"),
    ("P(rel=2, judged_only=False)@5", "P(rel=2)@5"), ("map@100-l2", "map(rel=2)@100"), ("hit_rate@5-l2", "hit_rate(rel=2)@5"),
]
SQL_REFUSALS = [  # (given, what the refusal names: rankkit's spelling)
    ("P(judged_only=True)@10", "judged_only=True"), ("ndcg@10-l2", "does not take"), ("rbp.95", "write RBP(p=0.95)"),
    ("BPM(max_rel=3)@10", "not in rankkit yet"), ("NERR8(max_rel=3)@10", "not in rankkit yet"),
    ("INST(T=2,min_rel=0)", "INST(max=3)"), ("nDCG(min_rel=1)", "bottom"), ("nDCG(dcg=log10)", "gain=exp"),
    ("nDCG(gains={})", "gains names no relevance level"), ("nDCG(gains=[])", "gains names no relevance level"),
]


def test_the_sql_parser_translates_neighbours_spellings(con):
    """rankkit.evaluate in the plain duckdb shell reads ir_measures' parameters and ranx's -l as Python's
    evaluate does (one parser, its rules generated from rankkit/neighbours.py): it refused them before."""
    qrels, run = fixture("cwl")
    con.execute(f"CREATE TABLE cwl_q AS FROM rankkit.read_trec_qrels('{qrels}')")
    con.execute(f"CREATE TABLE cwl_r AS FROM rankkit.read_trec_run('{run}')")
    given = [name for name, _ in SQL_TRANSLATED]
    rows = con.execute("SELECT measure, value FROM rankkit.evaluate('cwl_q', 'cwl_r', ?::VARCHAR[])", [given]).fetchall()
    assert [measure for measure, _ in rows] == [written for _, written in SQL_TRANSLATED]
    ours_rows = con.execute("SELECT measure, value FROM rankkit.evaluate('cwl_q', 'cwl_r', ?::VARCHAR[])",
                            [[written for _, written in SQL_TRANSLATED]]).fetchall()
    assert rows == ours_rows
    python = rankkit.evaluate(qrels, run, given)
    assert python[["measure", "value"]].values.tolist() == [list(row) for row in rows]


@pytest.mark.parametrize("given, named", SQL_REFUSALS)
def test_the_sql_parser_refuses_neighbours_spellings_naming_rankkits(con, given, named):
    """A name the rules refuse is refused in SQL and in Python alike, naming rankkit's spelling."""
    import duckdb

    with pytest.raises(duckdb.Error) as error:
        con.execute("SELECT rankkit.parse_measures([?])", [given]).fetchall()
    message = str(error.value)
    assert named in message and "did you mean" not in message, message
    with pytest.raises(MeasureError) as python:
        expand([given])
    assert message.endswith(f"rankkit: {python.value}")
