"""The translation of the definitions' DuckDB idiom into Spark SQL, construct by construct, as text
(no Spark needed: tests/test_spark.py runs what these write), and `rankkit sql`."""

from __future__ import annotations

import re

import duckdb
import pytest

import rankkit
from rankkit.cli import main
from rankkit.compose import compose
from rankkit.dialect import DUCKDB
from rankkit.errors import RankkitError
from rankkit.specs import measure_specs
from rankkit.measures import needs_subtopics, registry, shared_features
from rankkit.spark_dialect import duckdb_statement, statement
from rankkit.spark_sql import macros, spark_type, to_spark


@pytest.mark.parametrize("duck, spark", [
    # a list lambda's index counts from 1 in DuckDB, from 0 in Spark
    ("list_transform(l, lambda x, i: x * i)", "transform(l, (x, i) -> (x * (i + 1)))"),
    ("list_filter(l, lambda x: x > 0)", "filter(l, x -> (x > 0))"),
    # an inner lambda rebinding the index name keeps its own
    ("list_transform(l, lambda x, i: list_transform(m, lambda i: i))", "transform(l, (x, i) -> transform(m, i -> i))"),
    # DuckDB's log is log10, Spark's is ln
    ("log(100)", "log10(100)"),
    ("log2(8) + ln(2)", "(log2(8) + ln(2))"),
    # a decimal literal is a DECIMAL in Spark (1 / 3.0 = 0.333333): a DOUBLE instead
    ("1 / 3.0", "(1 / 3.0E0)"),
    ("1.0E0 / 0.5e1", "(1.0E0 / 0.5e1)"),
    # subscripts: NULL out of range, NULL at 0, as DuckDB (ANSI Spark raises on both with element_at)
    ("x[i]", "try_element_at(x, CAST(nullif(i, 0) AS INT))"),
    ("x[:n]", "slice(x, 1, greatest(CAST(n AS INT) - 1 + 1, 0))"),
    ("len(x)", "array_size(x)"),
    ("list_reverse_sort(x)", "sort_array(x, false)"),
    ("list_position(x, 3)", "nullif(array_position(x, 3), 0)"),
    ("NULL::INTEGER", "CAST(NULL AS INT)"),
    ("([]::DOUBLE[])", "CAST(array() AS ARRAY<DOUBLE>)"),
    ("[1, 2]", "array(1, 2)"),
    ("{'level': 1.0E0, 'gain': 2}", "named_struct('level', 1.0E0, 'gain', 2)"),
    # Spark reads 'a''b' as two literals run together: escape with a backslash
    ("'it''s'", "'it\\'s'"),
    ("a IS NOT DISTINCT FROM b", "(a IS NOT DISTINCT FROM b)"),
    ("[x.g FOR x IN l IF x.v = 1]", "transform(filter(l, x -> (x.v = 1)), x -> x.g)"),
    ("list_reduce(l, lambda a, b: a + b, 0.0E0)", "aggregate(l, 0.0E0, (a, b) -> (a + b))"),
    # a definition's own refusal: DuckDB's error is Spark's raise_error
    ("error('rankkit: no')", "raise_error('rankkit: no')"),
    # the aggregates of the fusion methods (rankkit.fused_score)
    ("sum(x) * count(*)", "(sum(x) * count(*))"),
    ("median(x)", "median(x)"),
])
def test_construct(duck, spark):
    assert to_spark(duck) == spark


def test_precedence_is_kept_by_parentheses():
    assert to_spark("a + b * c - d") == "((a + (b * c)) - d)"
    assert to_spark("NOT a AND b OR c") == "(((NOT a) AND b) OR c)"
    assert to_spark("x IS NULL OR -y > 1") == "((x IS NULL) OR ((- y) > 1))"


def test_scalar_macros_are_inlined_from_their_one_definition():
    # the prelude's text, not a copy: rankkit.ratio's body with the arguments in place
    assert macros()["ratio"].body.startswith("CASE WHEN denominator > 0")
    assert to_spark("rankkit.ratio(a, b)") == "CASE WHEN (b > 0) THEN ((a * 1.0E0) / b) ELSE 0.0E0 END"
    assert to_spark("rankkit.ratio(a, b, NULL)") == "CASE WHEN (b > 0) THEN ((a * 1.0E0) / b) ELSE NULL END"
    # a parameter left out takes its default
    assert to_spark("rankkit.discount(r)") == ("CASE WHEN ('log2' = 'original') THEN log2(greatest(r, 2.0E0)) "
                                               "ELSE log2((r + 1.0E0)) END")


def test_a_macro_variable_does_not_capture_the_callers():
    # rankkit.gain's body iterates a variable x; a caller's x must stay the caller's
    text = to_spark("list_transform(l, lambda x: rankkit.gain(x, 'linear', NULL))")
    assert "rankkit_gain_x.level = x)" in text


@pytest.mark.parametrize("bad, said", [
    ("list_cosine_similarity(a, b)", "the DuckDB function list_cosine_similarity has no Spark translation"),
    ("log(2, x)", "write log2, ln or log10"),
    ("rankkit.nope(1)", "rankkit.nope has no scalar macro definition"),
    ("a +", "ends too soon"),
    ("a ? b", "cannot read the SQL expression at '? b'"),
    ("x::HUGEINT", "the DuckDB type HUGEINT has no Spark translation"),
])
def test_what_has_no_translation_is_an_error_naming_it(bad, said):
    with pytest.raises(RankkitError, match=said.replace("(", r"\(").replace("?", r"\?")):
        to_spark(bad)


def test_types():
    assert spark_type("STRUCT(level DOUBLE, gain DOUBLE)[]") == "ARRAY<STRUCT<level: DOUBLE, gain: DOUBLE>>"


def test_every_definition_translates():
    """Every declared feature and value, with its parameters filled in as the composer fills them."""
    con = rankkit.connect()
    names = [m.name for m in registry().values() if m.value is not None and not needs_subtopics(m.metric)]
    for ties in ("trec", "average"):
        specs = measure_specs(con, names if ties == "trec" else ["nDCG@10", "CG@5", "DCG", "IDCG"])
        text = statement(specs, qrels="q", run="r", ties=ties)
        assert "rankkit." not in text.replace("rankkit.q", "")  # no macro left: Spark has none
        assert "list_" not in text and "lambda" not in text.lower()
    assert shared_features()  # the features above were read


def test_the_diversity_measures_are_refused_saying_why():
    """Their greedy ideal ordering is a fold over structs the dialect does not translate: refused, not
    half-translated."""
    con = rankkit.connect()
    for name in [m.name for m in registry().values() if needs_subtopics(m.metric)]:
        example = f"{name}@10" if "k" in registry()[next(k for k, m in registry().items() if m.name == name)].params else name
        with pytest.raises(RankkitError, match=f"Spark: {re.escape(example)} read subtopic judgments, .*greedy"):
            statement(measure_specs(con, ["AP", example]), qrels="q", run="r")


def test_the_duckdb_statement_is_the_composers():
    con = rankkit.connect()
    specs = measure_specs(con, ["nDCG@10", "AP"])
    text = duckdb_statement(specs, qrels="qrels", run="run")
    assert compose(specs, qrels="'qrels'", ranks="rankkit_ranked_run").split("rankkit_judged AS", 1)[1] in text
    assert DUCKDB.expression("list_filter(x, lambda y: y > 0)") == "list_filter(x, lambda y: y > 0)"


def test_rankkit_sql_for_the_duckdb_shell_runs_after_the_macros(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["sql", "-m", "nDCG@10", "-m", "AP", "--qrels", "qrels", "--run", "run"]) == 0
    text = capsys.readouterr().out
    con = rankkit.connect()
    con.execute("CREATE TABLE qrels AS SELECT * FROM (VALUES ('q1', 'a', 1), ('q1', 'b', 0)) t(qid, docno, rel)")
    con.execute("CREATE TABLE run AS SELECT * FROM (VALUES ('q1', 'a', 1.0), ('q1', 'b', 2.0)) t(query_id, doc_id, score)")
    rows = con.sql(text).fetchall()
    assert [(r[0], r[1], r[3]) for r in rows] == [("nDCG@10", None, 1), ("AP", None, 1)]
    want = rankkit.evaluate(con.table("qrels").df(), con.table("run").df(), ["nDCG@10", "AP"])
    assert [r[2] for r in rows] == list(want["value"])



def test_rankkit_sql_computes_under_the_pack_asked(tmp_path, capsys, monkeypatch):
    """rankkit sql --conventions torchmetrics: the pack's parameters (scored=positive), float32 scores and
    its query set (the run's users), as rankkit.evaluate under it; the option was read and ignored."""
    monkeypatch.chdir(tmp_path)
    assert main(["sql", "--conventions", "torchmetrics", "-m", "P@1", "--qrels", "qrels", "--run", "run"]) == 0
    text = capsys.readouterr().out
    con = rankkit.connect()
    con.execute("CREATE TABLE qrels AS SELECT * FROM (VALUES ('q1', 'a', 1)) t(query_id, doc_id, relevance)")
    con.execute("CREATE TABLE run AS SELECT * FROM (VALUES ('q1', 'a', 1e-46), ('q1', 'b', -1.0), ('q2', 'c', 1.0)) "
                "t(query_id, doc_id, score)")
    want = rankkit.evaluate(con.table("qrels").df(), con.table("run").df(), "P@1", conventions="torchmetrics")
    assert [(r[0], r[2], r[3]) for r in con.sql(text).fetchall()] == [
        (want["measure"].item(), want["value"].item(), want["queries"].item())] == [("P(scored=positive)@1", 0.0, 2)]

def test_rankkit_sql_spark_names_the_columns(capsys):
    assert main(["sql", "--dialect", "spark", "-m", "AP", "--qrels", "lake.qrels", "--run", "runs",
                 "--column", "clicks=relevance", "--no-system"]) == 0
    text = capsys.readouterr().out
    assert "CAST(`clicks` AS DOUBLE) AS grade FROM `lake`.`qrels`" in text  # each part quoted (issue 32)
    assert "CAST(NULL AS STRING) AS system" in text and text.rstrip().endswith(";")
    assert main(["sql", "-m", "AP", "--qrels", "q", "--run", "r", "--no-system"]) == 2
    assert "--no-system is for --dialect spark" in capsys.readouterr().err
    assert main(["sql", "--dialect", "spark", "-m", "AP", "--qrels", "q", "--run", "r", "--column", "x=nope"]) == 2
    assert "expected one of" in capsys.readouterr().err


def test_conventions_spark_cannot_do_are_refused_naming_them():
    con = rankkit.connect()
    specs = measure_specs(con, ["nDCG@10"])
    with pytest.raises(RankkitError, match="ties='average' with judged_only=True is not supported"):
        statement(specs, qrels="q", run="r", ties="average", judged_only=True)
    with pytest.raises(RankkitError, match="reads the run's rank column, and the run has none"):
        statement(specs, qrels="q", run="r", ties="rank")
    with pytest.raises(RankkitError, match="depth must be a positive integer"):
        statement(specs, qrels="q", run="r", depth=0)


def test_duckdb_runs_the_definitions_unchanged():
    # the DuckDB dialect's expression hook is the identity: its statement is the composer's, bit for bit
    con = duckdb.connect()
    assert con.execute("SELECT " + DUCKDB.expression("list_transform([10, 20], lambda x, i: i)")).fetchone()[0] == [1, 2]


def _one_row_pair(folder) -> list[str]:
    """A qrels file and a run file of one row each: what the command line needs before it starts Spark."""
    (folder / "qrels.txt").write_text("q1 0 a 1\n")
    (folder / "a.run").write_text("q1 Q0 a 1 1.0 a\n")
    return [str(folder / "qrels.txt"), str(folder / "a.run")]


def test_without_pyspark_one_line_says_what_to_install(monkeypatch, capsys, tmp_path):
    import sys

    monkeypatch.setitem(sys.modules, "pyspark", None)  # import pyspark raises ImportError
    assert main(["eval", "--engine", "spark", *_one_row_pair(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "needs pyspark (3.5 or later) and Java 17: pip install 'rankkit-duckdb[spark]'" in err


def test_without_java_one_line_says_what_to_install(monkeypatch, capsys, tmp_path):
    import shutil

    pytest.importorskip("pyspark")
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)  # no java on PATH
    assert main(["eval", "--engine", "spark", *_one_row_pair(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "needs Java 17" in err and "openjdk-17-jre-headless" in err
