"""ir_measures' objects and strings and ranx's names: translated to give the peer's value on the
peer's own fixtures (ir_measures' tests/ data under ../shared), or refused with a message that names
rankkit's spelling; never a parameter silently dropped."""

from __future__ import annotations

import math

import pytest

import rankkit
from rankkit.errors import MeasureError
from rankkit.trec import expand
from tests.support import shared_path

ir_measures = pytest.importorskip("ir_measures")

FIXTURES = ("compat", "cwl")
# a value other than ir_measures' default for each parameter it declares
SAMPLES = {"cutoff": 5, "rel": 2, "p": 0.5, "beta": 0.5, "relative": True, "judged_only": True, "dcg": "exp-log2",
           "gains": {0: 1, 1: 4, 2: 5}, "recall": 0.5, "T": 2.0, "min_rel": 1, "max_rel": 3, "alpha": 0.3,
           "normalize": False}
# what rankkit computes that ir_measures cannot compute on these fixtures, and where it is proven instead
PROVEN_ELSEWHERE = {
    "nDCG(dcg='exp-log2')@10": "gdeval.pl rejects these files; test_differential runs it on its own data",
    "ERR@5": "gdeval.pl rejects these files; test_differential runs it on its own data",
    "NumRel(rel=2)": "no ir_measures provider takes rel; trec_eval -l 2 in test_conformance",
}


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


def variants():
    """Every ir_measures measure object with one parameter set to a non-default value (and a cutoff
    or IPrec's recall level where the measure takes one, so that it can be computed)."""
    for name, measure in sorted(ir_measures.measures.registry.items()):
        for param in measure.SUPPORTED_PARAMS:
            made = measure(**{param: SAMPLES[param]})
            at = measure.AT_PARAM  # cutoff, or IPrec's recall level
            if param != at and at in measure.SUPPORTED_PARAMS:
                made = made @ (10 if at == "cutoff" else 0.5)
            yield pytest.param(made, id=f"{name}:{made}")


def test_every_parameter_is_translated_or_refused():
    """A silent mistranslation fails here: each object either gives ir_measures' value per query on
    both fixtures, or is refused with a message naming it."""
    accepted, refused = {}, []
    for param in variants():
        measure = param.values[0]
        try:
            name = expand([measure])[0]
            ours(name, "cwl")  # the SQL parser's refusals
        except MeasureError as error:
            assert measure.NAME in str(error) or str(measure).split("@")[0] in str(error), str(error)
            refused.append(str(measure))
            continue
        accepted[measure] = name
    for fixture_name in FIXTURES:
        qrels, run = fixture(fixture_name)
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
    assert {"NumRet(rel=2)", "SetP(relative=True)", "nDCG(gains={0:1,1:4,2:5})@10"} <= computed
    assert "P(judged_only=True)@10" in refused and "alpha_nDCG@5" in refused


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
    ("RBP(rel=2)", "binary relevance at a level"),
    (ir_measures.RBP(rel=2), "binary relevance at a level"),
    ("P(judged_only=True)@5", "evaluate(..., judged_only=True) or rankkit eval -J"),
    ("nDCG(dcg=log10)", "gain=exp (dcg=exp-log2)"),
    ("INST", "C/W/L"),
])
def test_refused_with_rankkits_spelling(given, why):
    with pytest.raises(MeasureError, match=r"measure '.*': .*") as error:
        expand([given])
    assert why in str(error.value)


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
