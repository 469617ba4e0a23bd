"""Conformance with trec_eval 10.0 on every qrels/run pair and probe under ../shared.

For each pair listed in ``shared/data/*/expected/PAIRS.tsv`` and
``shared/conformance/trec_eval/expected/PAIRS.tsv``, every measure of trec_eval's ``all_trec``
(``-q``, ``-J -q`` and the recorded parameter line) is compared per query and in aggregate with
trec_eval's full-precision (``%.17g``) output at 1e-9, and ``rankkit eval`` with trec_eval's options
prints trec_eval's 4-decimal files line for line (on any number of threads: rankkit adds the same
terms in the same order). trec_eval's own test suite (``make quicktest``) is run the same way. The
hand-made probes pin the edge cases (ties, rank column, negative and fractional grades, ``-c``,
``-l``, ``-M``, duplicates).

A run file is read as one run (``system=`` the pair's name), as trec_eval reads it: trec_eval
ignores the tag column, which varies by line in the trectools unittest runs. Grades are truncated
to integers (``integer_grades=True``) as trec_eval truncates them; rankkit's default keeps them.
"""

from __future__ import annotations

import csv
import gzip
import re
import shlex
from functools import cache
from pathlib import Path

import pytest

import rankkit
from rankkit.cli import main
from rankkit.errors import InputError
from rankkit.trec import family_of
from support import SHARED, shared_path

# Every measure trec_eval prints is rankkit's too, by trec_eval's name; runid and relstring are text
# (the command-line tests below print them).
TEXT = ("runid", "relstring")
# trec_eval 9.0.8 (the reference where 10.0 aborts) turns recall levels into ranks by adding 0.9 and
# truncating; 10.0, and rankkit, round.
ROUNDED_IN_V10 = ("iprec_at_recall", "11pt_avg")
# The measures rankkit offered before all_trec, by trec_eval's name: the thread-count test reads these.
SHARED_MEASURE = re.compile(
    r"(ndcg|ndcg_cut_\d+|map|map_cut_\d+|recip_rank|P_\d+|recall_\d+|Rprec|bpref|success_\d+"
    r"|num_ret|num_rel|num_rel_ret|set_P|set_recall)"
)
NUM_Q = re.compile("num_q")
HIGH_PRECISION = 1e-9
# Queries on one side only are the point here: rankkit warns about them, as it should.
pytestmark = pytest.mark.filterwarnings("ignore::rankkit.errors.RankkitWarning")


# ---- reading trec_eval's outputs ----------------------------------------------------------------

def read_trec_eval(path: Path, pattern: re.Pattern | None = None) -> dict[tuple[str, str], str]:
    """(measure, query) -> the value as trec_eval printed it: the measures ``pattern`` matches, or
    every one whose value is a number (9.0.8's recall levels left out: 10.0 computes them otherwise)."""
    opener = gzip.open if path.suffix == ".gz" else open
    older = "v9.0.8" in path.parts
    found = {}
    with opener(path, "rt") as lines:
        for line in lines:
            parts = line.split()
            if len(parts) == 3 and (pattern.fullmatch(parts[0]) if pattern is not None else
                                    not parts[0].startswith(TEXT) and not (older and parts[0].startswith(ROUNDED_IN_V10))):
                found[(parts[0], parts[1])] = parts[2]
    return found


def measures_of(expected: dict[tuple[str, str], str]) -> list[str]:
    return sorted({measure for measure, _ in expected})


@cache
def loaded(qrels: Path, run: Path):
    """A connection holding a pair's qrels and run as read_qrels and read_run read them, kept for every
    evaluation of the pair (reading a large run takes longer than evaluating all_trec on it; the
    command-line tests below read the files themselves)."""
    con = rankkit.connect()
    return con, rankkit.read_qrels(qrels, con=con, integer_grades=True), rankkit.read_run(run, con=con, system=run.name)


@pytest.fixture(scope="module", autouse=True)
def _forget_loaded():
    yield
    loaded.cache_clear()


def evaluate(qrels: Path, run: Path, measures: list[str], **options) -> dict[tuple[str, str], float]:
    """(trec_eval measure, query or 'all') -> rankkit's value, per query and aggregate."""
    con, qrels_table, run_table = loaded(qrels, run)
    got = {}
    for row in rankkit.evaluate(qrels_table, run_table, measures, per_query=True, con=con, **options).itertuples():
        if family_of(row.measure) is None or family_of(row.measure).per_query:  # gm_map, num_q: the summary only
            got[(row.measure, row.query_id)] = row.value
    for row in rankkit.evaluate(qrels_table, run_table, measures, con=con, **options).itertuples():
        got[(row.measure, "all")] = row.value
    return got


def mismatches(expected: dict[tuple[str, str], str], got: dict[tuple[str, str], float], printed: bool) -> list[str]:
    """Every disagreement, worded for the failure message; empty when all agree."""
    problems = []
    for key, text in sorted(expected.items()):
        value = got.get(key)
        if value is None:
            problems.append(f"{key[0]} query {key[1]}: trec_eval {text}, rankkit has no value")
        elif not agrees(text, value, printed, key[0]):
            problems.append(f"{key[0]} query {key[1]}: trec_eval {text}, rankkit {value!r}")
    for key in sorted(set(got) - set(expected)):
        if any(m == key[0] for m, _ in expected):
            problems.append(f"{key[0]} query {key[1]}: rankkit {got[key]!r}, trec_eval evaluates no such query")
    return problems


def agrees(text: str, value: float, printed: bool, measure: str = "") -> bool:
    """trec_eval's full-precision text (%.17g) reads back as its double: for the measures rankkit had
    before all_trec, rankkit's must be that double, as it adds the same terms in the same order; the
    others (some formulas arranged otherwise, such as rbp_resid's closed form) agree to 1e-9. Printed
    text must be the text rankkit prints."""
    if not printed:
        exact = not measure or SHARED_MEASURE.fullmatch(measure)
        return float(text) == value if exact else abs(float(text) - value) <= HIGH_PRECISION
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
    "ndcg_fractional_gain_bug": "trec_eval sorts gains with a comparator that truncates differences "
                                "below 1 (ndcg.1=0.5,2=0.7 gives 0); rankkit sorts them",
    "sci_negative_scores": "relstring only: test_probe_ranking_as_relstring checks it",
}
# Values a probe holds that trec_eval computes from uninitialised memory: m_rbp.c's min and max.
# With -m ndcg -m rbp, g.qrels gives 0.1102; with -m rbp alone, 0.145 (the grade over the top grade,
# as the all_trec references agree to 1e-9 on every pair): rankkit gives 0.145.
UNSTABLE = {"ndcg_default_gain": ("rbp",)}


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
    shared_path("conformance", "probes", "expected", "MANIFEST.tsv")  # without it: a skip that says why
    rows = {r["trec_eval"]: r for r in PROBES if r["probe"] == probe}
    ten = rows["v10.0-hiprec"]
    return rows["v9.0.8-hiprec"] if ten["exit_code"] != "0" and "not found in qrels" in ten["stderr"] else ten


VALUE_PROBES = sorted({r["probe"] for r in PROBES if r["probe"] not in NOT_SHARED and not r["probe"].startswith("dup_")})


@pytest.mark.parametrize("probe", VALUE_PROBES or ["absent"])
def test_probe_values(probe):
    folder = shared_path("conformance", "probes")
    row = probe_reference(probe)
    wanted = {key: value for key, value in read_trec_eval(folder / row["output"]).items()
              if key[0] not in UNSTABLE.get(probe, ())}
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


# ---- -J and the parameter line, to 1e-9 ------------------------------------------------------------

@cache
def manifest(expected: Path) -> dict[str, dict]:
    """trec_eval's command for each reference file: output name -> its MANIFEST.tsv row."""
    with open(expected / "MANIFEST.tsv", newline="") as handle:
        return {row["output"]: row for row in csv.DictReader(handle, delimiter="\t")}


def options_of(text: str) -> dict:
    """rankkit's evaluate() options for trec_eval's -c, -J, -l and -M."""
    return {**probe_options(text), **({"judged_only": True} if "-J" in text.split() else {})}


def artefacts(wanted: dict, qrels: Path, run: Path, options: str) -> set:
    """trec_eval values that are no measure, left out (with the mean over them) where they occur.

    - trec_eval -c scores a query missing from the run on a made-up ranking of one unjudged
      document, then zeroes num_ret and the measures named exactly utility, unj*, rbp_resid and
      relstring. A parameterised utility (utility_2,-1,0,0) keeps that document's worth (-1);
      rankkit scores the missing query on nothing retrieved.
    - With -J that document, and any ranking of unjudged documents only, leaves nothing retrieved:
      iprec_at_recall and 11pt_avg divide 0 by 0 and print nan where rankkit gives 0.
    """
    found = {key for key, value in wanted.items() if "nan" in value}
    if "-c" in options.split():
        con, _, run_table = loaded(qrels, run)
        ran = {row[0] for row in con.execute(f"SELECT DISTINCT query_id FROM {run_table.alias}").fetchall()}
        found |= {key for key in wanted if key[0].startswith("utility_") and key[1] not in ran}
    return found | {(measure, "all") for measure, _ in found}


MORE_KINDS = ["all_trec.J.q.hp.txt.gz", "params.q.hp.txt.gz"]


@pytest.mark.parametrize("kind", MORE_KINDS)
@pytest.mark.parametrize("name", PAIR_IDS)
def test_judged_only_and_parameter_line_per_query_and_aggregate_to_1e9(name, kind):
    expected, qrels, run = pair(name)
    short = name.split("/", 1)[1]
    row = manifest(expected).get(f"{short}.{kind}")
    if row is None or row["exit_code"] != "0":
        pytest.skip(f"no trec_eval {kind} output for {name}")
    wanted = read_trec_eval(expected / f"{short}.{kind}")
    got = evaluate(qrels, run, measures_of(wanted), **options_of(row["options"]))
    left_out = artefacts(wanted, qrels, run, row["options"])
    assert_agree({key: value for key, value in wanted.items() if key not in left_out},
                 {key: value for key, value in got.items() if key not in left_out})


# ---- the command line prints what trec_eval prints, line for line --------------------------------

CLI_KINDS = ["all_trec.q.txt", "all_trec.c.txt", "all_trec.J.q.txt", "params.q.txt"]


def cli_lines(capsys, options: list[str], qrels: Path, run: Path) -> list[str]:
    assert main(["eval", *options, str(qrels), str(run)]) == 0
    return capsys.readouterr().out.splitlines()


@cache
def cli_output(name: str, options: tuple[str, ...]) -> list[str]:
    """rankkit eval's lines for a pair (kept: the -c check of a complete run reuses -q's)."""
    import contextlib
    import io

    _, qrels, run = pair(name)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["eval", *options, str(qrels), str(run)]) == 0
    return out.getvalue().splitlines()


@pytest.mark.parametrize("name, kind", [(name, kind) for name in PAIR_IDS for kind in CLI_KINDS])
def test_cli_prints_trec_eval_output_line_for_line(name, kind):
    """rankkit eval with the options trec_eval was run with prints its file: every line, runid,
    num_q, relstring and the summary included, in trec_eval's order and spelling."""
    expected, qrels, run = pair(name)
    short = name.split("/", 1)[1]
    row = manifest(expected).get(f"{short}.{kind}")
    if row is None or row["exit_code"] != "0":
        pytest.skip(f"trec_eval 10.0 made no {kind} for {name} (it stops on a qrels topic the run lacks without -c)")
    wanted = (expected / f"{short}.{kind}").read_text().splitlines()
    pair_row = next(r for n, _, r in PAIRS if n == name)
    if kind == "all_trec.c.txt" and pair_row["qrels_topics_missing_from_run"] == "0":
        # every qrels topic is in the run, so -c changes nothing: the summary of -q, printed once
        got = [line for line in cli_output(name, ("-q", "-m", "all_trec")) if line.split("\t")[1] == "all"]
    else:
        got = cli_output(name, tuple(shlex.split(row["options"])))
    left_out = artefacts({tuple(line.split()[:2]): line.split()[2] for line in wanted}, qrels, run,
                          row["options"])
    assert len(got) == len(wanted)
    assert [line for line in got if tuple(line.split()[:2]) not in left_out] == [
        line for line in wanted if tuple(line.split()[:2]) not in left_out]


# trec_eval's make quicktest: (expected output, options, qrels, run) as its Makefile runs them
QUICKTEST = [
    ("out.test", [], "qrels.test", "results.test"),
    ("out.test", [], "qrels.test.with-comments", "results.test"),
    ("out.comment.test", [], "qrels.comment.test", "results.comment.test"),
    ("out.test.a", ["-m", "all_trec"], "qrels.test", "results.test"),
    ("out.test.aq", ["-m", "all_trec", "-q"], "qrels.test", "results.test"),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc"),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2"], "qrels.rel_level", "results.test"),
    ("out.test.meas_params", ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
                              "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
                              "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20"],
     "qrels.test", "results.test"),
]
# The rest of quicktest needs what rankkit does not offer: preference judgments (-R prefs,
# -R qrels_prefs), judgment groups (-R qrels_jg) and z-scores (-Z).
NOT_IN_RANKKIT = ["out.test.prefs", "out.test.qrels_prefs", "out.test.qrels_jg", "out.test.aqZ"]


@pytest.mark.parametrize("output, options, qrels, run", QUICKTEST, ids=[f"{q[0]}:{q[2]}" for q in QUICKTEST])
def test_trec_eval_quicktest_line_for_line(capsys, output, options, qrels, run):
    folder = shared_path("conformance", "trec_eval")
    assert cli_lines(capsys, options, folder / qrels, folder / run) == (folder / output).read_text().splitlines()


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
    wanted = read_trec_eval(reference, SHARED_MEASURE)
    measures = measures_of(wanted) + ["num_q"]
    wanted.update(read_trec_eval(reference, pattern=NUM_Q))  # and the number of queries averaged
    args = ["eval", "-q", *options, "--threads", str(threads), *[a for m in measures for a in ("-m", m)],
            str(qrels), str(run)]
    got = cli_printed(args, capsys)
    problems = [f"{m} {q}: trec_eval {text}, rankkit {got.get((m, q))}"
                for (m, q), text in sorted(wanted.items()) if got.get((m, q)) != text]
    extra = sorted(set(got) - set(wanted))
    assert not problems and not extra, f"{len(problems)} lines differ:\n" + "\n".join(problems[:40]) + f"\nextra: {extra[:5]}"
