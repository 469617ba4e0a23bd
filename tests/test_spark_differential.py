"""rankkit.spark.evaluate against the DuckDB engine (to 1e-12) and trec_eval 10.0's references (to 1e-9)
on the real pairs under ../shared/data, under trec_eval's conventions, and on generated runs.

Spark costs seconds a statement whatever its size, and its list functions run interpreted (a DL run's
all_trec takes it minutes where DuckDB takes a second), so each convention is one statement over every
pair at once, on a few queries of each: the pairs' runs are one table (a system per pair) and their
qrels one table, each query id prefixed by its qrels file, so that no two pairs share a query. A
query's values do not depend on the others: trec_eval's per-query references hold for it."""

from __future__ import annotations

import os
import re
import shutil
from functools import cache

import pandas as pd
import pytest

pytest.importorskip("pyspark", reason="pyspark is absent: pip install 'rankkit-duckdb[spark]'")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Java is absent: Spark needs a JVM (Debian: openjdk-17-jre-headless)", allow_module_level=True)

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rankkit
from rankkit.conventions import PACKS
from rankkit.specs import measure_specs
from rankkit.trec import family_of
from support import SHARED, shared_path
from test_conformance import PAIRS, measures_of, read_trec_eval, reference

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning",
                                        "ignore::rankkit.errors.RankkitWarning")

# rankkit's own measures with parameters trec_eval has no name for, beside trec_eval's all_trec and params
OWN = ["nDCG(gain=exp)@10", "nDCG(ideal=run)@10", "nDCG(empty=skip)@5", "ERR@20", "ERR(max=3)", "CG@5",
       "DCG(gain=exp)@10", "IDCG(ideal=run)@5", "RBP(p=0.5)", "rbp_resid", "Bing", "G", "ndcg_rel", "Rndcg",
       "infAP", "Judged@10", "unj@5", "binG", "RR@10", "AP@100", "SetF(beta=0.5)", "Rprec_mult(mult=2)", "INST",
       "INST(max=2)", "nDCG(discount=original)@10", "P(short=retrieved)@10", "R(denom=min)@10", "AP(denom=listed)@10"]
DATA_PAIRS = [(name, expected, row) for name, expected, row in PAIRS if "/data/" in str(expected)]
# -l 2, -c: the pairs trec_eval's references exist for (and one with a qrels topic the run lacks);
# -M 15: a pair of each source
SUBSETS = {"rel": ("dl19.BM25", "dl20.BM25"), "queries": ("unittests.r1", "unittests.r2", "unittests.r3", "compat"),
           "depth": ("compat", "cwl", "dl20.BM25", "covid.r5_bm25", "unittests.r4")}
TOLERANCE = 1e-12
# the queries of each qrels file evaluated: the first few by id, and (for -c) one the runs may lack
QUERIES_PER_QRELS = 2


def _pairs(names=None):
    shared_path("data")
    if not DATA_PAIRS:
        pytest.skip(f"no pair under {SHARED / 'data'}")
    return [p for p in DATA_PAIRS if names is None or p[0].split("/", 1)[1] in names]


@cache
def _tables(names: tuple[str, ...] | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pairs' qrels and runs as one table each: system = the pair, query ids prefixed by the qrels file."""
    qrels, runs, seen, kept = [], [], set(), {}
    for name, expected, row in _pairs(names):
        path = expected.parent / row["qrels"]
        key = path.resolve().name
        if key not in seen:
            seen.add(key)
            frame = rankkit.read_qrels(path, integer_grades=True).df()
            ids = sorted(frame["query_id"].unique())
            kept[key] = set(ids[:QUERIES_PER_QRELS] + ids[-1:])
            frame = frame[frame["query_id"].isin(kept[key])]
            qrels.append(frame.assign(query_id=key + "|" + frame["query_id"]))
        run = rankkit.read_run(expected.parent / row["run"]).df()
        run = run[run["query_id"].isin(kept[key])]
        runs.append(run.assign(system=name.split("/", 1)[1], query_id=key + "|" + run["query_id"])
                    [["system", "query_id", "doc_id", "score"]])
    return pd.concat(qrels, ignore_index=True), pd.concat(runs, ignore_index=True)


def _references(kind: str, names=None) -> dict[tuple[str, str, str], str]:
    """(measure, system, query id as prefixed) -> trec_eval's per-query text, from each pair's ``kind`` file,
    for the queries _tables keeps (the aggregate, over every query, is compared with DuckDB's)."""
    queries = set(_tables(names)[0]["query_id"])
    found = {}
    for name, expected, row in _pairs(names):
        key = (expected.parent / row["qrels"]).resolve().name
        for path in (reference(expected, name, kind), expected / f"{name.split('/')[1]}.params.{kind}"):
            if path is None or not path.exists():
                continue
            for (measure, query), text in read_trec_eval(path).items():
                if query != "all" and f"{key}|{query}" in queries:
                    found[(measure, name.split("/", 1)[1], f"{key}|{query}")] = text
    return found


def _spark_rows(spark, qrels: pd.DataFrame, run: pd.DataFrame, measures, per_query: bool, **conventions):
    from rankkit.spark import evaluate

    frame = evaluate(spark, spark.createDataFrame(qrels), spark.createDataFrame(run), measures, per_query=per_query,
                     **conventions)
    return frame.toPandas()


def _keyed(frame: pd.DataFrame) -> dict:
    """(measure, system, query_id or 'all') -> value; a missing system is None (pandas may say NaN)."""
    systems = [None if pd.isna(system) else system for system in frame["system"]]
    queries = frame["query_id"] if "query_id" in frame else ["all"] * len(frame)
    return dict(zip(zip(frame["measure"], systems, queries), frame["value"]))


def _close(a, b, tolerance) -> bool:
    if a is None or b is None or pd.isna(a) or pd.isna(b):
        return (a is None or pd.isna(a)) and (b is None or pd.isna(b))
    return abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))


def _assert_engines_agree(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want)
    ours, theirs = _keyed(got), _keyed(want)
    assert ours.keys() == theirs.keys()
    wrong = [f"{key}: spark {ours[key]!r}, duckdb {theirs[key]!r}" for key in theirs
             if not _close(ours[key], theirs[key], TOLERANCE)]
    assert not wrong, f"{len(wrong)} values differ between the engines:\n" + "\n".join(wrong[:30])


def _assert_trec_eval_agrees(got: dict, wanted: dict) -> None:
    missing = [key for key in wanted if key not in got]
    assert not missing, f"{len(missing)} values trec_eval has and Spark lacks: {missing[:10]}"
    wrong = [f"{key}: trec_eval {text}, spark {got[key]!r}" for key, text in wanted.items()
             if abs(float(text) - got[key]) > 1e-9]
    assert not wrong, f"{len(wrong)} disagreements with trec_eval:\n" + "\n".join(wrong[:30])


def _measures(references: dict) -> list[str]:
    return sorted({m for m, _, _ in references}) + OWN  # trec_eval's all_trec and params names, and rankkit's


def _one_cutoff_each(measures: list[str]) -> list[str]:
    """The measures without the cutoffs (and recall levels) beside 10, 0.50 and 1.00: a convention other
    than the default changes the ranks, the query set or the relevance level that every cutoff reads,
    and the default convention checks every cutoff (Spark plans each measure for seconds)."""
    return [m for m in measures if not re.search(r"_(\d+(\.\d+)?)$", m) or re.search(r"_(10|0\.50|1\.00)$", m)]


def _one_per_aggregation(measures: list[str]) -> list[str]:
    """A measure of each aggregation (mean, sum, geometric mean) and each rule for an empty query (skip
    leaves NULLs out): the aggregate is one pass over the per-query values, the same for every measure of
    an aggregation (spark_dialect.over_values), which are compared for every measure; and Spark plans
    each measure of a statement for seconds."""
    first = {}
    for spec in measure_specs(rankkit.connect(), measures):
        first.setdefault((spec["agg"], spec["empty"]), spec["measure"])
    return list(first.values())


CONVENTIONS = {  # name: (evaluate's conventions, trec_eval's reference file, pairs)
    "default": ({}, "q.hp.txt.gz", None),
    "-J": ({"judged_only": True}, "J.q.hp.txt.gz", None),
    "-l 2": ({"rel": 2}, "l2.q.txt", SUBSETS["rel"]),
    "-c": ({"queries": "qrels"}, "cq.txt", SUBSETS["queries"]),
    "-M 15": ({"depth": 15}, None, SUBSETS["depth"]),
}


@pytest.mark.parametrize("convention", list(CONVENTIONS))
def test_every_measure_equals_duckdb_and_trec_eval(spark, convention):
    conventions, kind, names = CONVENTIONS[convention]
    qrels, run = _tables(names)
    measures = _measures(_references("q.hp.txt.gz", names))
    if convention != "default":
        measures = _one_cutoff_each(measures)
    wanted = {key: text for key, text in (_references(kind, names) if kind else {}).items() if key[0] in measures}
    got = _spark_rows(spark, qrels, run, measures, True, **conventions)
    _assert_engines_agree(got, rankkit.evaluate(qrels, run, measures, per_query=True, **conventions))
    values = _keyed(got)
    if convention == "default":  # the aggregate too, against both
        aggregated = _one_per_aggregation([*measures, "gm_map"])  # the references hold no gm_ per query
        assert len(aggregated) == 4, aggregated  # mean, sum, gmean, and a mean leaving out skipped queries
        aggregate = _spark_rows(spark, qrels, run, aggregated, False, **conventions)
        _assert_engines_agree(aggregate, rankkit.evaluate(qrels, run, aggregated, **conventions))
        values.update(_keyed(aggregate))
    # trec_eval 9.0.8 (the reference where 10.0 aborts) lists a qrels query the run lacks; without -c it is not evaluated
    present = set(zip(run["system"], run["query_id"])) if convention != "-c" else None
    per_query = {key: text for key, text in wanted.items() if (family_of(key[0]) is None or family_of(key[0]).per_query)
                 and (present is None or key[1:] in present)}
    assert per_query or not kind, f"no trec_eval reference for {convention} under {SHARED}"
    if kind and not kind.endswith("hp.txt.gz"):  # printed to 4 digits (-l 2, -c): compared as printed
        wrong = [key for key, text in per_query.items() if
                 key not in values or (f"{values[key]:.4f}" != text if "." in text else float(text) != values[key])]
        assert not wrong, f"{len(wrong)} printed values differ from trec_eval {convention}: {wrong[:10]}"
    else:
        _assert_trec_eval_agrees(values, per_query)


# ---- generated runs ----------------------------------------------------------------------------------

IDS = st.sampled_from(["q1", "q2", "é", "😀", "Ａ", "q10"])
DOCS = st.sampled_from(["d1", "d2", "D1", "é1", "😀", "d#", "\uffff", "z"])
SCORES = st.sampled_from([0.0, -0.0, 1.0, 0.5, 2.0, -1.0, 0.25])


@st.composite
def pairs(draw):
    qrels = draw(st.lists(st.tuples(IDS, DOCS, st.sampled_from([-1, 0, 1, 2, 3])), max_size=20,
                          unique_by=lambda r: r[:2]))
    run = draw(st.lists(st.tuples(st.sampled_from(["a", "b"]), IDS, DOCS, SCORES), min_size=1, max_size=30,
                        unique_by=lambda r: r[:3]))
    return (pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]).astype({"relevance": "float64"}),
            pd.DataFrame(run, columns=["system", "query_id", "doc_id", "score"]))


GENERATED = ["nDCG@3", "AP", "RR", "P@2", "ERR@5", "bpref", "infAP", "Rprec", "G", "ndcg_rel", "Rndcg", "RBP",
             "rbp_resid", "11pt_avg", "gm_map", "SetF", "Bing", "num_rel_ret", "unj@2", "nDCG(ideal=run)"]


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs(), st.sampled_from([{}, {"queries": "qrels"}, {"judged_only": True}, {"depth": 2}, {"rel": 2}]))
def test_generated_runs_agree_between_the_engines(spark, pair, conventions):
    qrels, run = pair
    assume(set(qrels["query_id"]) & set(run["query_id"]))  # else rankkit refuses: no query in common
    want = rankkit.evaluate(qrels, run, GENERATED, per_query=True, **conventions)
    got = _spark_rows(spark, qrels, run, GENERATED, True, **conventions)
    _assert_engines_agree(got, want)


@pytest.mark.parametrize("ties", ["average", "rank"])
def test_other_tie_rules_agree_between_the_engines(spark, ties):
    run = pd.DataFrame({"query_id": ["q"] * 5 + ["r"] * 2, "doc_id": ["a", "b", "c", "d", "e", "a", "b"],
                        "score": [1.0, 1.0, 0.5, 0.5, 0.5, 2.0, 2.0], "rank": [2, 1, 3, 5, 4, 1, 2]})
    qrels = pd.DataFrame({"query_id": ["q", "q", "q", "r"], "doc_id": ["a", "d", "e", "b"], "relevance": [2, 1, 3, 1]})
    measures = ["nDCG@2", "nDCG@4", "DCG@3", "CG@2", "IDCG@2"] + (["AP", "RR"] if ties == "rank" else [])
    want = rankkit.evaluate(qrels, run, measures, per_query=True, ties=ties)
    _assert_engines_agree(_spark_rows(spark, qrels, run, measures, True, ties=ties), want)


PACK_MEASURES = ["nDCG@5", "AP@5", "P@5", "R@5", "HitRate@5"]


@cache
def _users() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seeded interactions and two recommenders' top 6: u5 is in the run alone (queries='run' scores it by the
    pack's empty rule), u4 holds no relevant item, tied and non-positive scores in both systems."""
    import numpy as np

    draw = np.random.default_rng(35)
    qrels = pd.DataFrame([(f"u{u}", f"i{i}", 0.0 if u == 4 else float(draw.integers(1, 4)))
                          for u in range(5) for i in draw.choice(12, 4, replace=False)],
                         columns=["query_id", "doc_id", "relevance"])
    run = pd.DataFrame([(system, f"u{u}", f"i{i}", float(draw.choice([-1.0, 0.0, 0.5, 1.0, 2.0])))
                        for system in ("a", "b") for u in range(6) for i in draw.choice(12, 6, replace=False)],
                       columns=["system", "query_id", "doc_id", "score"])
    return qrels, run


# the packs of trec_eval's conventions differ from one another by their measures' parameters alone: one statement
# computes their labels (AP(denom=min)@5 ...); the packs of queries='run' each take a statement
SAME_CONVENTIONS = tuple(sorted(name for name, pack in PACKS.items() if not pack.conventions))


@pytest.mark.parametrize("packs", [SAME_CONVENTIONS, *[(name,) for name in PACKS if PACKS[name].conventions]],
                         ids="+".join)
def test_every_pack_agrees_between_the_engines(spark, packs):
    """Issue 35: each pack on Spark, queries='run' (torchmetrics, lenskit) included, to 1e-9."""
    qrels, run = _users()
    wanted = {pack: rankkit.evaluate(qrels, run, PACK_MEASURES, per_query=True, conventions=pack) for pack in packs}
    conventions = {"conventions": packs[0]} if len(packs) == 1 else {}
    labels = sorted({label for want in wanted.values() for label in want["measure"]}) if not conventions else None
    got = _spark_rows(spark, qrels, run, labels or PACK_MEASURES, True, **conventions)
    for pack, want in wanted.items():
        assert ("u5" in set(want["query_id"])) == ((PACKS[pack].conventions or {}).get("queries") == "run")
        _assert_engines_agree(got[got["measure"].isin(set(want["measure"]))].reset_index(drop=True), want)
