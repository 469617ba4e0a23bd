"""Conformance with trec_eval 10.0 on every qrels/run pair and probe under ../shared.

For each pair listed in ``shared/data/*/expected/PAIRS.tsv`` and
``shared/conformance/trec_eval/expected/PAIRS.tsv``, every measure rankkit shares with trec_eval is
compared per query and in aggregate with trec_eval's full-precision (``%.17g``) output (the same
double, not merely within 1e-9: rankkit adds the same terms in the same order), and with its printed
``-q``, ``-c`` and ``-l 2`` outputs as text. The hand-made probes pin the edge
cases (ties, rank column, negative and fractional grades, ``-c``, ``-l``, ``-M``, duplicates).

A run file is read as one run (``system=`` the pair's name), as trec_eval reads it: trec_eval
ignores the tag column, which varies by line in the trectools unittest runs. Grades are truncated
to integers (``integer_grades=True``) as trec_eval truncates them; rankkit's default keeps them.
"""

from __future__ import annotations

import csv
import gzip
import re
from functools import cache
from pathlib import Path

import pytest

import rankkit
from rankkit.errors import InputError
from support import SHARED, shared_path

# trec_eval measures rankkit offers, by trec_eval's name; set_P and set_recall are P and R without
# a cutoff.
SHARED_MEASURE = re.compile(
    r"(ndcg|ndcg_cut_\d+|map|map_cut_\d+|recip_rank|P_\d+|recall_\d+|Rprec|bpref|success_\d+"
    r"|num_ret|num_rel|num_rel_ret|set_P|set_recall)"
)
RANKKIT_NAME = {"set_P": "P", "set_recall": "R"}
NUM_Q = re.compile("num_q")
HIGH_PRECISION = 1e-9
# Queries on one side only are the point here: rankkit warns about them, as it should.
pytestmark = pytest.mark.filterwarnings("ignore::rankkit.errors.RankkitWarning")


# ---- reading trec_eval's outputs ----------------------------------------------------------------

def read_trec_eval(path: Path, pattern: re.Pattern = SHARED_MEASURE) -> dict[tuple[str, str], str]:
    """(measure, query) -> the value as trec_eval printed it, for the measures rankkit shares."""
    opener = gzip.open if path.suffix == ".gz" else open
    found = {}
    with opener(path, "rt") as lines:
        for line in lines:
            parts = line.split()
            if len(parts) == 3 and pattern.fullmatch(parts[0]):
                found[(parts[0], parts[1])] = parts[2]
    return found


def measures_of(expected: dict[tuple[str, str], str]) -> list[str]:
    return sorted({measure for measure, _ in expected})


def evaluate(qrels: Path, run: Path, measures: list[str], **options) -> dict[tuple[str, str], float]:
    """(trec_eval measure, query or 'all') -> rankkit's value, per query and aggregate."""
    con = rankkit.connect()
    qrels_table = rankkit.read_qrels(qrels, con=con, integer_grades=True)
    run_table = rankkit.read_run(run, con=con, system=run.name)
    names = [RANKKIT_NAME.get(m, m) for m in measures]
    back = dict(zip(names, measures))
    got = {}
    for row in rankkit.evaluate(qrels_table, run_table, names, per_query=True, con=con, **options).itertuples():
        got[(back[row.measure], row.query_id)] = row.value
    for row in rankkit.evaluate(qrels_table, run_table, names, con=con, **options).itertuples():
        got[(back[row.measure], "all")] = row.value
    return got


def mismatches(expected: dict[tuple[str, str], str], got: dict[tuple[str, str], float], printed: bool) -> list[str]:
    """Every disagreement, worded for the failure message; empty when all agree."""
    problems = []
    for key, text in sorted(expected.items()):
        value = got.get(key)
        if value is None:
            problems.append(f"{key[0]} query {key[1]}: trec_eval {text}, rankkit has no value")
        elif not agrees(text, value, printed):
            problems.append(f"{key[0]} query {key[1]}: trec_eval {text}, rankkit {value!r}")
    for key in sorted(set(got) - set(expected)):
        if any(m == key[0] for m, _ in expected):
            problems.append(f"{key[0]} query {key[1]}: rankkit {got[key]!r}, trec_eval evaluates no such query")
    return problems


def agrees(text: str, value: float, printed: bool) -> bool:
    """trec_eval's full-precision text (%.17g) reads back as its double: rankkit's must be that double,
    as it adds the same terms in the same order. Printed text must be the text rankkit prints."""
    if not printed:
        return float(text) == value
    if "." not in text:  # counts are printed as integers
        return float(text) == value
    return f"{value:.4f}" == text


def assert_agree(expected, got, printed: bool = False) -> None:
    problems = mismatches(expected, got, printed)
    assert not problems, f"{len(problems)} disagreements with trec_eval:\n" + "\n".join(problems[:40])


# ---- the pairs ----------------------------------------------------------------------------------

def _pair_rows() -> list[tuple[str, Path, dict]]:
    tables = sorted(SHARED.glob("data/*/expected/PAIRS.tsv")) + sorted(SHARED.glob("conformance/trec_eval/expected/PAIRS.tsv"))
    rows = []
    for table in tables:
        with open(table, newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                rows.append((f"{table.parent.parent.name}/{row['name']}", table.parent, row))
    return rows


PAIRS = _pair_rows()
PAIR_IDS = [name for name, _, _ in PAIRS] or ["absent"]


def pair(name: str) -> tuple[Path, Path, Path]:
    """The expected/ folder, qrels and run of one pair (a skip when ../shared is absent)."""
    shared_path("data")
    expected, row = next((e, r) for n, e, r in PAIRS if n == name)
    return expected, expected.parent / row["qrels"], expected.parent / row["run"]


def reference(expected: Path, name: str, kind: str) -> Path | None:
    """trec_eval 10.0's file, or 9.0.8's where 10.0 aborted (a qrels topic missing from the run)."""
    short = name.split("/", 1)[1]
    for folder in (expected, expected / "v9.0.8"):
        path = folder / f"{short}.all_trec.{kind}"
        if path.exists():
            return path
    return None


@cache
def full_precision(name: str):
    expected, qrels, run = pair(name)
    wanted = read_trec_eval(reference(expected, name, "q.hp.txt.gz"))
    return wanted, evaluate(qrels, run, measures_of(wanted))


@pytest.mark.parametrize("name", PAIR_IDS)
def test_every_shared_measure_per_query_and_aggregate_is_trec_evals_double(name):
    wanted, got = full_precision(name)
    assert len(measures_of(wanted)) >= 40 and len(wanted) > 40
    assert_agree(wanted, got)


@pytest.mark.parametrize("name", PAIR_IDS)
def test_complete_mode_aggregate_as_trec_eval_c(name):
    """-c averages over every qrels topic. Where the run has them all, -c changes nothing and the
    values of the default evaluation are reused (one evaluation fewer of the large runs)."""
    expected, qrels, run = pair(name)
    wanted = read_trec_eval(expected / f"{name.split('/', 1)[1]}.all_trec.c.txt")
    row = next(r for n, _, r in PAIRS if n == name)
    if row["qrels_topics_missing_from_run"] == "0":
        got = full_precision(name)[1]
    else:
        got = evaluate(qrels, run, measures_of(wanted), queries="qrels")
    assert_agree(wanted, {key: value for key, value in got.items() if key[1] == "all"}, printed=True)


CQ_PAIRS = [name for name, expected, _ in PAIRS if reference(expected, name, "cq.txt")]


@pytest.mark.parametrize("name", CQ_PAIRS or ["absent"])
def test_complete_mode_per_query_as_trec_eval_cq(name):
    """Qrels topics missing from the run: trec_eval -c -q prints them with zeros and averages them in."""
    expected, qrels, run = pair(name)
    wanted = read_trec_eval(reference(expected, name, "cq.txt"))
    assert_agree(wanted, evaluate(qrels, run, measures_of(wanted), queries="qrels"), printed=True)


@pytest.mark.parametrize("name", ["rank_llm/dl19.BM25", "rank_llm/dl20.BM25"])
def test_relevance_level_2_as_trec_eval_l2(name):
    """-l 2: num_rel and the binary measures change; ndcg keeps the raw grades as gains."""
    expected, qrels, run = pair(name)
    wanted = read_trec_eval(shared_path(*expected.relative_to(SHARED).parts, f"{name.split('/')[1]}.all_trec.l2.q.txt"))
    assert_agree(wanted, evaluate(qrels, run, measures_of(wanted), rel=2), printed=True)


# ---- trec_eval's own test suite outputs ---------------------------------------------------------

def test_trec_eval_quicktest_aql_relevance_level_2():
    """out.test.aql: -q -l2 on the graded qrels.rel_level, whose -1 grades are pool-but-unjudged."""
    folder = shared_path("conformance", "trec_eval")
    wanted = read_trec_eval(folder / "out.test.aql")
    got = evaluate(folder / "qrels.rel_level", folder / "results.test", measures_of(wanted), rel=2)
    assert_agree(wanted, got, printed=True)


def test_trec_eval_quicktest_aqcM_complete_and_depth_100():
    """out.test.aqcM: -q -c -M100 on the run that lacks topic 302."""
    folder = shared_path("conformance", "trec_eval")
    wanted = read_trec_eval(folder / "out.test.aqcM")
    got = evaluate(folder / "qrels.test", folder / "results.trunc", measures_of(wanted), queries="qrels", depth=100)
    assert_agree(wanted, got, printed=True)


# ---- the probes ---------------------------------------------------------------------------------

# Probes whose output holds no measure rankkit offers.
NOT_SHARED = {
    "ndcg_custom_gain": "trec_eval's ndcg with a gain map (-m ndcg.1=5,2=3); rankkit has no gain map",
    "ndcg_fractional_gain_bug": "the same, showing a trec_eval bug",
    "sci_negative_scores": "relstring only: test_probe_ranking_as_relstring checks it",
}


def _probe_rows() -> list[dict]:
    manifest = SHARED / "conformance" / "probes" / "expected" / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    with open(manifest, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


PROBES = _probe_rows()


def probe_options(text: str) -> dict:
    """rankkit's options for trec_eval's -c, -l N and -M N."""
    options = {}
    if re.search(r"(^| )-c( |$)", text):
        options["queries"] = "qrels"
    if found := re.search(r"-l ?(\d+)", text):
        options["rel"] = int(found.group(1))
    if found := re.search(r"-M ?(\d+)", text):
        options["depth"] = int(found.group(1))
    return options


def probe_reference(probe: str) -> dict:
    """The 10.0 row of a probe, or 9.0.8's where 10.0 aborted on a qrels topic missing from the run."""
    rows = {r["trec_eval"]: r for r in PROBES if r["probe"] == probe}
    ten = rows["v10.0-hiprec"]
    return rows["v9.0.8-hiprec"] if ten["exit_code"] != "0" and "not found in qrels" in ten["stderr"] else ten


VALUE_PROBES = sorted({r["probe"] for r in PROBES if r["probe"] not in NOT_SHARED and not r["probe"].startswith("dup_")})


@pytest.mark.parametrize("probe", VALUE_PROBES or ["absent"])
def test_probe_values(probe):
    folder = shared_path("conformance", "probes")
    row = probe_reference(probe)
    wanted = read_trec_eval(folder / row["output"])
    assert wanted, f"{probe}: trec_eval printed no measure rankkit shares"
    got = evaluate(folder / row["qrels"], folder / row["run"], measures_of(wanted), **probe_options(row["options"]))
    assert_agree(wanted, got)


def test_probe_without_c_averages_only_queries_in_both():
    """complete_no_c: 10.0 aborts (exit 4), 9.0.8 averages over q1 only; rankkit's default is 9.0.8's."""
    row = probe_reference("complete_no_c")
    assert row["trec_eval"] == "v9.0.8-hiprec"


@pytest.mark.parametrize("probe", ["tie_docno", "rank_ignored", "float32_tie", "sci_negative_scores", "neg_zero_rel"])
def test_probe_ranking_as_relstring(probe):
    """trec_eval's relstring (grade by rank; '.' negative, '-' unjudged) shows its order: rankkit's
    rankkit.ranked must give the same order."""
    folder = shared_path("conformance", "probes")
    row = probe_reference(probe)
    wanted = {}
    for line in (folder / row["output"]).read_text().splitlines():
        measure, query, value = line.split()
        if measure == "relstring":
            wanted[query] = value.strip("'")
    con = rankkit.connect()
    qrels = rankkit.read_qrels(folder / row["qrels"], con=con, integer_grades=True)
    run = rankkit.read_run(folder / row["run"], con=con)
    got = dict(con.execute(f"""
        SELECT r.query_id, string_agg(CASE WHEN q.relevance IS NULL THEN '-' WHEN q.relevance < 0 THEN '.'
                                           ELSE q.relevance::INTEGER::VARCHAR END, '' ORDER BY r.rank)
        FROM rankkit.ranked('{run.alias}') r
        JOIN (SELECT DISTINCT query_id FROM {qrels.alias}) USING (query_id)
        LEFT JOIN {qrels.alias} q USING (query_id, doc_id)
        WHERE r.rank <= 10 GROUP BY r.query_id""").fetchall())
    assert got == wanted


def test_float32_tie_as_trec_eval_9_with_float32_scores():
    """9.0.8 (and pytrec_eval) read scores as float: 1.00000002 and 1.00000001 tie, RR = 0.5."""
    folder = shared_path("conformance", "probes")
    for version, scores in (("v10", "double"), ("v9.0.8", "float32")):
        wanted = read_trec_eval(folder / "expected" / f"float32_tie.{version}.txt")
        got = evaluate(folder / "f32.qrels", folder / "f32.run", measures_of(wanted), scores=scores)
        assert_agree(wanted, got)
    assert wanted[("recip_rank", "q1")] == "0.5"


def test_probe_query_order_is_strcmp_order():
    folder = shared_path("conformance", "probes")
    order = [line.split()[1] for line in (folder / "expected" / "qid_order.v10.txt").read_text().splitlines()]
    frame = rankkit.evaluate(folder / "ord.qrels", folder / "ord.run", ["map"], per_query=True)
    assert list(frame["query_id"]) + ["all"] == order == ["1", "10", "2", "all"]


@pytest.mark.parametrize("qrels, run", [("dup.qrels", "tie.run"), ("tie.qrels", "dup.run")])
def test_duplicate_document_is_an_error_naming_query_and_document(qrels, run):
    """trec_eval exits 4 with 'duplicate docs docA'; rankkit names the query and document too."""
    folder = shared_path("conformance", "probes")
    assert all(r["exit_code"] == "4" and "duplicate docs docA" in r["stderr"]
               for r in PROBES if r["probe"] in ("dup_run", "dup_qrels"))
    with pytest.raises(InputError, match=r"duplicate document docA for query q1"):
        rankkit.evaluate(folder / qrels, folder / run, ["map"])


@pytest.mark.parametrize("qrels, run", [("dup.qrels", "tie.run"), ("tie.qrels", "dup.run")])
def test_duplicate_document_in_frames_is_an_error_in_sql(qrels, run):
    """The same check inside SQL, for inputs that did not come through the readers."""
    import pandas as pd

    folder = shared_path("conformance", "probes")
    q = pd.read_csv(folder / qrels, sep=" ", names=["query_id", "it", "doc_id", "relevance"], dtype=str)
    r = pd.read_csv(folder / run, sep=" ", names=["query_id", "q0", "doc_id", "rank", "score", "tag"], dtype=str)
    q["relevance"] = q["relevance"].astype(float)
    r["score"] = r["score"].astype(float)
    with pytest.raises(rankkit.RankkitError, match=r"duplicate document docA for query q1"):
        rankkit.evaluate(q[["query_id", "doc_id", "relevance"]], r[["query_id", "doc_id", "score"]], ["map"])


def test_fractional_grade_kept_by_default_and_truncated_on_request():
    """neg.qrels grades d5 1.9: trec_eval reads 1 (atol); rankkit keeps 1.9 unless asked."""
    folder = shared_path("conformance", "probes")
    con = rankkit.connect()
    kept = rankkit.read_qrels(folder / "neg.qrels", con=con)
    truncated = rankkit.read_qrels(folder / "neg.qrels", con=con, integer_grades=True)
    grade = "SELECT relevance FROM {} WHERE query_id = 'q1' AND doc_id = 'd5'"
    assert con.execute(grade.format(kept.alias)).fetchall()[0][0] == 1.9
    assert con.execute(grade.format(truncated.alias)).fetchall()[0][0] == 1.0
    run = rankkit.read_run(folder / "neg.run", con=con)
    ndcg = [rankkit.evaluate(q, run, ["ndcg"], con=con)["value"][0] for q in (kept, truncated)]
    assert ndcg[0] != pytest.approx(ndcg[1])
    wanted = read_trec_eval(folder / "expected" / "neg_zero_rel.v10.txt")
    assert ndcg[1] == pytest.approx(float(wanted[("ndcg", "all")]), abs=HIGH_PRECISION)


# ---- the command line prints what trec_eval prints ---------------------------------------------

@pytest.mark.parametrize("output, options, qrels, run", [
    ("out.test.aqcM", ["-q", "-c", "-M", "100"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-q", "-l", "2"], "qrels.rel_level", "results.test"),
])
def test_cli_prints_trec_eval_lines_byte_for_byte(capsys, output, options, qrels, run):
    """rankkit eval with trec_eval's options prints trec_eval's lines for the shared measures, in
    trec_eval's order (per query by strcmp of the id, then 'all')."""
    from rankkit.cli import main

    folder = shared_path("conformance", "trec_eval")
    wanted = [line for line in (folder / output).read_text().splitlines()
              if (SHARED_MEASURE.fullmatch(line.split()[0]) and line.split()[0] not in RANKKIT_NAME)
              or line.split()[0] == "num_q"]
    measures = list(dict.fromkeys(line.split()[0] for line in wanted if line.split()[0] != "num_q"))
    args = ["eval", *options, *[arg for m in measures for arg in ("-m", m)], str(folder / qrels), str(folder / run)]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines() == wanted


# ---- the printed text, on any number of threads -------------------------------------------------

def printed_reference(name: str) -> tuple[Path, list[str]]:
    """trec_eval 10.0's printed -q output of a pair and the options that made it: the plain run, or
    -c where 10.0 aborted on a qrels topic missing from the run (it prints the -c -q run then)."""
    expected, _, _ = pair(name)
    short = name.split("/", 1)[1]
    if (expected / f"{short}.all_trec.q.txt").exists():
        return expected / f"{short}.all_trec.q.txt", []
    return shared_path(*expected.relative_to(SHARED).parts, f"{short}.all_trec.cq.txt"), ["-c"]


def cli_printed(args: list[str], capsys) -> dict[tuple[str, str], str]:
    """(measure, query) -> the text rankkit eval printed."""
    from rankkit.cli import main

    assert main(args) == 0
    found = {}
    for line in capsys.readouterr().out.splitlines():
        measure, query, value = line.split()
        found[(measure, query)] = value
    return found


@pytest.mark.parametrize("threads", [1, 4])
@pytest.mark.parametrize("name", PAIR_IDS)
def test_cli_prints_trec_eval_text_on_every_pair_whatever_the_thread_count(name, threads, capsys):
    """Every value rankkit shares with trec_eval, per query and 'all', printed as trec_eval prints it
    (4 decimals, counts as integers): the same text, not merely values within 1e-9. Means add the
    per-query values in trec_eval's order, so the thread count changes no digit."""
    reference, options = printed_reference(name)
    _, qrels, run = pair(name)
    wanted = read_trec_eval(reference)
    measures = measures_of(wanted)
    wanted.update(read_trec_eval(reference, pattern=NUM_Q))  # and the number of queries averaged
    args = ["eval", "-q", *options, "--threads", str(threads), *[a for m in measures for a in ("-m", m)],
            str(qrels), str(run)]
    got = cli_printed(args, capsys)
    problems = [f"{m} {q}: trec_eval {text}, rankkit {got.get((m, q))}"
                for (m, q), text in sorted(wanted.items()) if got.get((m, q)) != text]
    extra = sorted(set(got) - set(wanted))
    assert not problems and not extra, f"{len(problems)} lines differ:\n" + "\n".join(problems[:40]) + f"\nextra: {extra[:5]}"
