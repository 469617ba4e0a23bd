"""The diversity measures over subtopic judgments (issue 25): alpha-nDCG, ERR-IA, nERR-IA, NRBP, P-IA,
AP-IA and S-recall, as ndeval (the TREC Web track's) computes them, against pyndeval (ndeval's code,
ir_measures' provider) on its own example and on generated judgments and runs; the subtopic judgments
read from every kind of source, with errors naming the place; refusals where they are missing."""

from __future__ import annotations

import gzip
import math
import re
import warnings

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankkit
from rankkit.errors import InputError, MeasureError

pyndeval = pytest.importorskip("pyndeval")

# rankkit's name -> pyndeval's
NAMES = {"alpha-nDCG": "alpha-nDCG", "alpha-DCG": "alpha-DCG", "ERR-IA": "ERR-IA", "nERR-IA": "nERR-IA", "P-IA": "P-IA",
         "S-recall": "strec", "NRBP": "NRBP", "nNRBP": "nNRBP", "AP-IA": "MAP-IA"}
CUT = ("alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA", "P-IA", "S-recall")

# pyndeval's README example: subtopics a, b, c; D relevant to b, E unjudged, C not retrieved
README_QRELS = [("0", "a", "A", 1), ("0", "b", "B", 1), ("0", "b", "D", 1), ("0", "c", "C", 1)]
README_RUN = [("0", "A", 9.3), ("0", "D", 8.4), ("0", "E", 8.1), ("0", "B", 7.6)]


def frames(qrels, run):
    return (pd.DataFrame(qrels, columns=["query_id", "subtopic", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=["query_id", "doc_id", "score"]))


def names(cutoffs):
    return [f"{m}@{k}" for m in CUT for k in cutoffs] + ["NRBP", "nNRBP", "AP-IA"]


def theirs(name: str) -> str:
    """pyndeval's name for one of rankkit's, whose parameters pyndeval takes as arguments."""
    base, _, k = re.sub(r"\(.*?\)", "", name).partition("@")
    return NAMES[base] + (f"@{k}" if k else "")


def ours_per_query(qrels, run, measures, **options) -> dict:
    sub, ranked = frames(qrels, run)
    found = rankkit.evaluate(None, ranked, measures, per_query=True, subtopics=sub, **options)
    return {(row.measure, row.query_id): row.value for row in found.itertuples()}


def ours_per_system(qrels, runs: dict, measures) -> dict:
    """ours_per_query of several runs in one evaluation, a system each (an evaluation costs a tenth of a
    second whatever its size, and the generated test evaluates two runs 40 times): {system: values}."""
    sub = frames(qrels, [])[0]
    ranked = pd.concat([frames([], run)[1].assign(system=name) for name, run in runs.items()], ignore_index=True)
    found = rankkit.evaluate(None, ranked, measures, per_query=True, subtopics=sub)
    values: dict = {name: {} for name in runs}
    for row in found.itertuples():
        values[row.system][(row.measure, row.query_id)] = row.value
    return values


def compare(qrels, run, measures, alpha=0.5, beta=0.5, rel=1, ours=None):
    """rankkit's per-query values (``ours``, computed here if not given) are pyndeval's, to 1e-9, query by
    query (the queries are the same)."""
    ours = ours_per_query(qrels, run, measures) if ours is None else ours
    reference = pyndeval.RelevanceEvaluator(qrels, sorted({theirs(m) for m in measures}), relevance_level=rel,
                                            alpha=alpha, beta=beta).evaluate(run)
    # nNRBP of a query with no relevant subtopic: ndeval divides 0 by 0 (nan), rankkit says 0, as for nDCG
    expected = {(m, query_id): 0.0 if math.isnan(values[theirs(m)]) and m.startswith("nNRBP") else values[theirs(m)]
                for query_id, values in reference.items() for m in measures}
    assert ours.keys() == expected.keys()
    wrong = {key: (ours[key], expected[key]) for key in expected
             if not math.isclose(ours[key], expected[key], abs_tol=1e-9)}
    assert not wrong, wrong


def test_pyndeval_readme_example():
    compare(README_QRELS, README_RUN, names([1, 2, 3, 5, 10, 20]))


def test_pyndeval_readme_example_by_hand():
    """A is relevant to a, D to b, B to b again: alpha-nDCG@5 = (1 + 1/log2(3) + 0.5/log2(5)) over the
    greedy ideal A, B (or D), C, then D (or B) at half gain: (1 + 1/log2(3) + 1/log2(4) + 0.5/log2(5))."""
    ours = ours_per_query(README_QRELS, README_RUN, ["alpha-nDCG@5", "S-recall@5", "P-IA@5"])
    dcg = 1 + 1 / math.log2(3) + 0.5 / math.log2(5)
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4) + 0.5 / math.log2(5)
    assert ours[("alpha-nDCG@5", "0")] == pytest.approx(dcg / ideal, abs=1e-12)
    assert ours[("S-recall@5", "0")] == pytest.approx(2 / 3)
    assert ours[("P-IA@5", "0")] == pytest.approx(3 / (5 * 3))


def test_parameters_alpha_beta_rel():
    qrels = README_QRELS + [("0", "c", "D", 2), ("0", "a", "E", 2)]
    measures = ["alpha-nDCG(alpha=0.2)@5", "ERR-IA(alpha=0.2)@5", "nERR-IA(alpha=0.2)@3", "NRBP(alpha=0.2,patience=0.8)"]
    compare(qrels, README_RUN, measures, alpha=0.2, beta=0.8)
    compare(qrels, README_RUN, ["alpha-nDCG(rel=2)@5", "P-IA(rel=2)@2", "AP-IA(rel=2)", "S-recall(rel=2)@3"], rel=2)


@st.composite
def judgments(draw):
    """Subtopic judgments (grades 0..2, so some subtopics and some queries have no relevant document) and
    a run whose scores tie often, retrieving unjudged documents, and queries nobody judged."""
    docs = [f"d{i}" for i in range(8)]
    qrels = []
    queries = [f"q{i}" for i in range(draw(st.integers(1, 4)))]
    for query in queries:
        for subtopic in range(draw(st.integers(1, 4))):
            for doc in draw(st.lists(st.sampled_from(docs), min_size=1, max_size=5, unique=True)):
                qrels.append((query, str(subtopic), doc, draw(st.integers(0, 2))))
    run = []
    for query in draw(st.lists(st.sampled_from(queries + ["q9"]), min_size=1, max_size=5, unique=True)):
        for doc in draw(st.lists(st.sampled_from(docs + ["x1", "x2"]), min_size=1, max_size=10, unique=True)):
            run.append((query, doc, draw(st.integers(0, 4)) / 4))
    return qrels, run


def trec_ordered(run):
    """The run with its ties broken as trec_eval (and ndeval -traditional) break them, by document id
    descending, written into the scores: pyndeval breaks them by id ascending, which is not a rule
    rankkit offers (ties='trec' is every measure's default)."""
    ordered = sorted(run, key=lambda row: (row[0], -row[2], [-ord(c) for c in row[1]]))
    return [(query, doc, -float(n)) for n, (query, doc, _) in enumerate(ordered)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(judgments(), st.sampled_from([0.5, 0.25, 1.0]), st.sampled_from([0.5, 0.8]), st.sampled_from([1, 2]))
def test_generated_judgments_agree_with_pyndeval(data, alpha, beta, rel):
    qrels, run = data
    if not {q for q, *_ in run} & {q for q, *_ in qrels}:
        return  # no query in common: an error (tests/test_inputs_errors.py), as for every measure
    strict = trec_ordered(run)
    measures = ([f"{m}(alpha={alpha})@{k}" for m in ("alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA") for k in (1, 2, 5, 20)]
                + [f"{m}@{k}" for m in ("P-IA", "S-recall") for k in (1, 3, 20)]
                + [f"NRBP(alpha={alpha},patience={beta})", f"nNRBP(alpha={alpha},patience={beta})", "AP-IA"])
    measures = [m.replace("(", f"(rel={rel},") if "(" in m else m.replace("@", f"(rel={rel})@", 1)
                if "@" in m else f"{m}(rel={rel})" for m in measures]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = ours_per_system(qrels, {"given": run, "strict": strict}, measures)
        compare(qrels, strict, measures, alpha=alpha, beta=beta, rel=rel, ours=ours["strict"])
        # ties: the run as given, ranked by rankkit's rule, is the strictly ordered run
        assert ours["given"] == ours["strict"]


def test_a_diversity_measure_without_subtopic_judgments_is_refused():
    sub, run = frames(README_QRELS, README_RUN)
    qrels = sub.drop(columns="subtopic").drop_duplicates(["query_id", "doc_id"])
    with pytest.raises(MeasureError, match=r"alpha-nDCG@10, NRBP need subtopic judgments .*subtopics="):
        rankkit.evaluate(qrels, run, ["AP", "alpha-nDCG@10", "NRBP"])


def test_err_ia_and_p_ia_need_a_cutoff():
    sub, run = frames(README_QRELS, README_RUN)
    for name in ("ERR-IA", "P-IA"):
        with pytest.raises(rankkit.RankkitError, match=f"{name} needs a cutoff, as in ndeval"):
            rankkit.evaluate(None, run, [name], subtopics=sub)


def test_the_other_measures_see_a_document_relevant_to_any_subtopic():
    """With qrels=None the qrels are the subtopic judgments' own: a document's best grade over them."""
    sub, run = frames(README_QRELS + [("0", "c", "A", 0)], README_RUN)
    found = rankkit.evaluate(None, run, ["NumRel", "NumRelRet", "P@4"], subtopics=sub)
    assert found["value"].tolist() == [4, 3, 0.75]


def test_given_qrels_set_the_queries(tmp_path):
    """With qrels given, the queries evaluated are theirs, as for every measure: a query without subtopic
    judgments scores 0 on the diversity measures."""
    sub, run = frames(README_QRELS, README_RUN + [("1", "A", 1.0)])
    qrels = pd.DataFrame([("0", "A", 1), ("1", "A", 1)], columns=["query_id", "doc_id", "relevance"])
    with pytest.warns(rankkit.RankkitWarning, match=r"1 of 2 queries evaluated have no subtopic judgments \(such "
                                                     r"as '1'\): the diversity measures score them 0"):
        found = rankkit.evaluate(qrels, run, ["alpha-nDCG@5"], per_query=True, subtopics=sub)
    by_query = found.set_index("query_id")["value"].to_dict()
    assert by_query["0"] == pytest.approx(ours_per_query(README_QRELS, README_RUN, ["alpha-nDCG@5"])[("alpha-nDCG@5", "0")])
    assert by_query["1"] == 0.0


# ---- reading the subtopic judgments -----------------------------------------------------------------

def test_every_kind_of_source_reads_the_same(tmp_path):
    sub, run = frames(README_QRELS, README_RUN)
    expected = rankkit.evaluate(None, run, names([5]), subtopics=sub)["value"].tolist()
    text = tmp_path / "div.qrels"
    text.write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in README_QRELS))
    zipped = tmp_path / "div.qrels.gz"
    zipped.write_bytes(gzip.compress(text.read_bytes()))
    sub.rename(columns={"subtopic": "iteration"}).to_csv(tmp_path / "div.csv", index=False)
    sub.rename(columns={"query_id": "qid", "doc_id": "docno", "relevance": "rel"}).to_csv(
        tmp_path / "div.tsv", sep="\t", index=False)
    sub.to_parquet(tmp_path / "div.parquet")
    con = rankkit.connect()
    con.register("div_table", sub)
    for source in (text, str(zipped), tmp_path / "div.csv", tmp_path / "div.tsv", tmp_path / "div.parquet",
                   sub.rename(columns={"subtopic": "intent"})):
        assert rankkit.evaluate(None, run, names([5]), subtopics=source)["value"].tolist() == expected, source
    assert rankkit.evaluate(None, run, names([5]), subtopics="div_table", con=con)["value"].tolist() == expected


@pytest.mark.parametrize(("text", "error"), [
    ("0 a A 1\n0 b B\n", r"div\.qrels:2: expected 'query subtopic doc grade' \(4 fields, as ndeval reads them\), "
                         r"got 3 fields: '0 b B'"),
    ("# judged\n0 a A 1\n\n0 b B high\n", r"div\.qrels:4: column 4, the grade, is 'high'; expected a number"),
    ("0 a A nan\n", r"div\.qrels:1: column 4, the grade, is 'nan'; expected a finite number"),
    ("0 a A 1\n0 a A 0\n", r"div\.qrels: document A is judged 2 times for query 0, subtopic a; expected once"),
    ("# nothing\n", r"div\.qrels: no judgments; expected lines of 'query subtopic doc grade'"),
])
def test_a_bad_text_file_is_refused_naming_the_line(tmp_path, text, error):
    path = tmp_path / "div.qrels"
    path.write_text(text)
    _, run = frames(README_QRELS, README_RUN)
    with pytest.raises(InputError, match=error):
        rankkit.evaluate(None, run, ["alpha-nDCG@5"], subtopics=path)


def test_a_bad_table_is_refused_naming_the_column_or_row(tmp_path):
    sub, run = frames(README_QRELS, README_RUN)
    with pytest.raises(InputError, match=r"the subtopics DataFrame: missing column subtopic \(also recognised: "
                                         r"subtopic_id, .*iteration"):
        rankkit.evaluate(None, run, ["alpha-nDCG@5"], subtopics=sub.drop(columns="subtopic"))
    sub.loc[2, "relevance"] = None
    with pytest.raises(InputError, match=r"the subtopics DataFrame: row 3: the relevance of document D for query 0, "
                                         r"subtopic b, is missing; expected a finite number"):
        rankkit.evaluate(None, run, ["alpha-nDCG@5"], subtopics=sub)
    (tmp_path / "div.csv").write_text("query_id,subtopic,doc_id,relevance\n0,a,A,1\n0,b,B,x\n")
    with pytest.raises(InputError, match=r"div\.csv: line 3: the relevance of document B for query 0, subtopic b, "
                                         r"is x; expected a finite number"):
        rankkit.evaluate(None, run, ["alpha-nDCG@5"], subtopics=tmp_path / "div.csv")


# ---- the other surfaces -----------------------------------------------------------------------------

def test_command_line_subtopics(tmp_path, capsys):
    from rankkit.cli import main

    sub = tmp_path / "div.qrels"
    sub.write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in README_QRELS))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{q} Q0 {d} {n} {score} sys\n" for n, (q, d, score) in enumerate(README_RUN, 1)))
    expected = ours_per_query(README_QRELS, README_RUN, ["alpha-nDCG@5", "NRBP"])
    # ndeval's usage: the subtopic judgments are the qrels too
    assert main(["eval", "--subtopics", str(sub), "-m", "alpha-nDCG@5", "-m", "NRBP", "-m", "P@2", str(sub),
                 str(run)]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    values = {name.strip(): float(value) for name, query, value in lines if query == "all"}
    assert values["alpha-nDCG@5"] == pytest.approx(expected[("alpha-nDCG@5", "0")], abs=1e-4)
    assert values["NRBP"] == pytest.approx(expected[("NRBP", "0")], abs=1e-4)
    assert values["P@2"] == 1.0
    assert main(["eval", "-m", "alpha-nDCG@5", str(sub), str(run)]) == 2
    assert "alpha-nDCG@5 needs subtopic judgments" in capsys.readouterr().err


def test_spark_refuses_the_diversity_measures_saying_why():
    """Refused before Spark is asked anything (no session needed)."""
    from rankkit import spark

    with pytest.raises(rankkit.RankkitError, match=r"Spark: alpha-nDCG@10 read subtopic judgments, which the Spark "
                                                   r"engine does not take .*greedy"):
        spark.evaluate(None, "qrels", "run", ["AP", "alpha-nDCG@10"])
    with pytest.raises(rankkit.RankkitError, match=r"Spark: NRBP read subtopic judgments"):
        spark.evaluate_rows(None, "qrels", "run", ["NRBP"], subtopics="div.qrels")


def test_ir_measures_objects_give_ir_measures_values():
    """ir_measures' diversity measures (its pyndeval provider, subtopics in the iteration column), as
    objects and as strings, give ir_measures' values."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = README_QRELS + [("1", "x", "A", 1), ("1", "y", "B", 2), ("1", "y", "C", 1)]
    run = README_RUN + [("1", "C", 3.0), ("1", "A", 2.0), ("1", "Z", 1.0)]
    frame = pd.DataFrame(qrels, columns=["query_id", "iteration", "doc_id", "relevance"])
    ranked = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    M = ir_measures
    measures = [M.alpha_nDCG @ 10, M.alpha_nDCG(alpha=0.3) @ 5, M.alpha_DCG @ 10, M.ERR_IA @ 20, M.nERR_IA @ 5, M.NRBP,
                M.NRBP(alpha=0.2, beta=0.7), M.nNRBP(beta=0.7), M.P_IA @ 5, M.AP_IA, M.StRecall @ 10,
                M.StRecall(rel=2) @ 10]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for measure in measures:
            # one at a time: the provider keeps alpha and beta in global state, and two measures of different
            # alphas in one call spoil each other (alpha_nDCG(alpha=0.3)@5 beside alpha_nDCG@10 gives 0)
            expected = ir_measures.calc_aggregate([measure], frame, ranked)[measure]
            for given in (measure, str(measure)):
                found = rankkit.evaluate(None, ranked, [given], subtopics=frame)["value"].iloc[0]
                assert found == pytest.approx(expected, abs=1e-9), (given, found, expected)
    with pytest.raises(MeasureError, match="ir_measures' BPM .* is not in rankkit yet"):
        rankkit.evaluate(None, ranked, ["BPM(max_rel=3)@10"], subtopics=frame)


def test_sql_evaluate_refuses_them_naming_their_table_macros(con):
    """rankkit.evaluate's two tables hold no subtopic judgments: refused, not NULL."""
    con.execute("CREATE TABLE q AS SELECT * FROM (VALUES ('0', 'A', 1)) t(query_id, doc_id, relevance)")
    con.execute("CREATE TABLE r AS SELECT * FROM (VALUES ('0', 'A', 1.0)) t(query_id, doc_id, score)")
    assert con.execute("SELECT value FROM rankkit.evaluate('q', 'r', ['AP'])").fetchall() == [(1.0,)]
    with pytest.raises(Exception, match=r"alpha-nDCG@10, NRBP read subtopic judgments .* rankkit\.alpha_ndcg"):
        con.execute("FROM rankkit.evaluate('q', 'r', ['AP', 'alpha-nDCG@10', 'NRBP'])").fetchall()


def test_compare_refuses_them_saying_what_is_missing():
    sub, run = frames(README_QRELS, README_RUN)
    qrels = sub.drop(columns="subtopic").drop_duplicates(["query_id", "doc_id"])
    with pytest.raises(MeasureError, match=r"alpha-nDCG@10 needs subtopic judgments"):
        rankkit.compare(qrels, {"a": run, "b": run}, ["alpha-nDCG@10"])


def test_ties_rank_is_ndevals_default_order():
    """ndeval (not -traditional) ranks by the run's rank column: ties='rank' reads it, as for every measure."""
    sub, _ = frames(README_QRELS, README_RUN)
    run = pd.DataFrame([("0", "B", 1, 1.0), ("0", "E", 2, 1.0), ("0", "A", 3, 1.0), ("0", "D", 4, 1.0)],
                       columns=["query_id", "doc_id", "rank", "score"])
    by_rank = rankkit.evaluate(None, run, names([2, 5]), per_query=True, subtopics=sub, ties="rank")
    strict = [("0", doc, -float(rank)) for _, doc, rank, _ in run.itertuples(index=False)]
    reference = pyndeval.ndeval(README_QRELS, strict, [theirs(m) for m in names([2, 5])])["0"]
    for row in by_rank.itertuples():
        assert row.value == pytest.approx(reference[theirs(row.measure)], abs=1e-9), row.measure
    by_score = rankkit.evaluate(None, run, ["alpha-nDCG@2"], subtopics=sub)["value"].iloc[0]
    assert by_score != by_rank.set_index("measure").loc["alpha-nDCG@2", "value"]  # ties by id: E, D, B, A


def test_command_line_spark_refuses_before_spark_starts(tmp_path, capsys):
    from rankkit.cli import main

    sub = tmp_path / "div.qrels"
    sub.write_text("".join(f"{q} {s} {d} {g}\n" for q, s, d, g in README_QRELS))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{q} Q0 {d} {n} {score} sys\n" for n, (q, d, score) in enumerate(README_RUN, 1)))
    assert main(["eval", "--engine", "spark", "--master", "no-such-master", "--subtopics", str(sub), "-m", "NRBP",
                 str(sub), str(run)]) == 2
    assert "Spark: NRBP read subtopic judgments" in capsys.readouterr().err


def test_rankkit_measures_lists_them(capsys):
    from rankkit.cli import main

    assert main(["measures"]) == 0
    listed = {line.split()[0]: line for line in capsys.readouterr().out.splitlines() if line.strip()}
    for name in ("alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA", "NRBP", "nNRBP", "P-IA", "AP-IA", "S-recall"):
        assert "over subtopic judgments (eval --subtopics FILE)" in listed[name], name
    assert "alpha_nDCG" in listed["alpha-nDCG"] and "StRecall" in listed["S-recall"]


def test_the_explorer_does_not_offer_them():
    """The explorer is given qrels and runs, no subtopic judgments: its measure control leaves them out."""
    from rankkit.explore.model import offered_measures

    offered = offered_measures(None, None)
    assert "nDCG" in offered and not {"alpha-nDCG", "ERR-IA", "NRBP", "S-recall"} & set(offered)


def test_the_composer_refuses_them_without_subtopic_judgments(con):
    from rankkit.compose import compose
    from rankkit.specs import measure_specs

    with pytest.raises(rankkit.RankkitError, match=r"nERR-IA, S-recall need subtopic judgments .*subtopics= .*"
                                                   r"FROM rankkit\.nerr_ia\('subtopics', 'run'\)"):
        compose(measure_specs(con, ["AP", "S-recall@5", "nERR-IA@5"]), qrels="'q'", ranks="rk")


def test_columns_maps_the_subtopic_judgments_too():
    sub, run = frames(README_QRELS, README_RUN)
    expected = rankkit.evaluate(None, run, ["alpha-nDCG@5"], subtopics=sub)["value"].iloc[0]
    renamed = sub.rename(columns={"subtopic": "nugget", "relevance": "clicks"})
    found = rankkit.evaluate(None, run, ["alpha-nDCG@5"], subtopics=renamed,
                             columns={"nugget": "subtopic", "clicks": "relevance"})
    assert found["value"].iloc[0] == expected


def test_the_table_macros_give_evaluate_s_values_bit_for_bit(con):
    """One definition, two paths: each measure's table macro (the plain duckdb shell's) and evaluate."""
    import random

    rng = random.Random(5)
    qrels = [(f"q{q}", str(s), f"d{d}", rng.randint(0, 2)) for q in range(4) for s in range(rng.randint(1, 4))
             for d in rng.sample(range(12), 6)]
    run = [(f"q{q}", f"d{d}", rng.randint(0, 6) / 2) for q in range(4) for d in rng.sample(range(15), 10)]
    sub, ranked = frames(qrels, run)
    con.register("subtopics_frame", sub)
    con.register("run_frame", ranked)
    calls = {"alpha-nDCG(alpha=0.3)@5": "alpha_ndcg('subtopics_frame', 'run_frame', k := 5, alpha := 0.3)",
             "ERR-IA@10": "err_ia('subtopics_frame', 'run_frame', k := 10)",
             "nERR-IA(rel=2)@3": "nerr_ia('subtopics_frame', 'run_frame', k := 3, rel := 2)",
             "NRBP(patience=0.8)": "nrbp('subtopics_frame', 'run_frame', patience := 0.8)",
             "P-IA@5": "p_ia('subtopics_frame', 'run_frame', k := 5)",
             "AP-IA": "ap_ia('subtopics_frame', 'run_frame')",
             "S-recall@3": "s_recall('subtopics_frame', 'run_frame', k := 3)"}
    found = rankkit.evaluate(None, ranked, list(calls), per_query=True, subtopics=sub, con=con)
    for name, call in calls.items():
        macro = dict(con.execute(f"SELECT query_id, value FROM rankkit.{call}").fetchall())
        python = {row.query_id: row.value for row in found[found["measure"] == name].itertuples()}
        assert macro == python, name


def test_the_sql_reader_reads_subtopic_judgments_as_python_does(con, tmp_path):
    """rankkit.read_trec_subtopics, the plain duckdb shell's reader of TREC's 'query subtopic doc grade':
    spaces and tabs mixed, comments and blank lines skipped, .gz read; its table given to a table macro
    gives evaluate's values for the same file; a bad line is refused naming the file and line."""
    text = tmp_path / "div.qrels"
    text.write_text("# pyndeval's example\n" + "".join(f"{q}\t{s} {d}\t {g}\n" for q, s, d, g in README_QRELS) + "\n")
    zipped = tmp_path / "div.qrels.gz"
    zipped.write_bytes(gzip.compress(text.read_bytes()))
    _, run = frames(README_QRELS, README_RUN)
    con.register("run_frame", run)
    expected = rankkit.evaluate(None, run, ["alpha-nDCG@3", "NRBP"], subtopics=text)["value"].tolist()
    for path in (text, zipped):
        rows = con.execute(f"FROM rankkit.read_trec_subtopics('{path}')").fetchall()
        assert rows == [(q, s, d, float(g)) for q, s, d, g in README_QRELS]
        con.execute(f"CREATE OR REPLACE TABLE subtopics AS FROM rankkit.read_trec_subtopics('{path}')")
        found = [con.execute(f"SELECT avg(value) FROM rankkit.{call}").fetchall()[0][0]
                 for call in ("alpha_ndcg('subtopics', 'run_frame', k := 3)", "nrbp('subtopics', 'run_frame')")]
        assert found == pytest.approx(expected, abs=1e-15)
    for bad, said in [("0 a A 1\n0 b B\n", r"div\.bad:2: expected 4 fields \(query_id subtopic doc_id relevance\), found 3"),
                      ("0 a A 1 9\n", r"div\.bad:1: expected 4 fields \(query_id subtopic doc_id relevance\), found 5"),
                      ("0 a A high\n", r"div\.bad:1: the relevance 'high' is not a finite number")]:
        (tmp_path / "div.bad").write_text(bad)
        with pytest.raises(Exception, match="rankkit: .*" + said):
            con.execute(f"FROM rankkit.read_trec_subtopics('{tmp_path / 'div.bad'}')").fetchall()
