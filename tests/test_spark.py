"""The Spark dialect on Spark local[2]: each pitfall of ../shared/SPARK-NOTES.md pinned, the statement
`rankkit sql --dialect spark` prints run as it is, and rankkit.spark.evaluate. One session for every
Spark module (tests/conftest.py's), ANSI on (Spark 4's default, where a division by zero raises)."""

from __future__ import annotations

import math
import os
import shutil
import struct

import pandas as pd
import pytest

pytest.importorskip("pyspark", reason="pyspark is absent: pip install 'rankkit-duckdb[spark]'")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("Java is absent: Spark needs a JVM (Debian: openjdk-17-jre-headless)", allow_module_level=True)

import duckdb

import rankkit
from rankkit.cli import main
from rankkit.errors import RankkitError
from rankkit.specs import measure_specs
from rankkit.spark_dialect import statement
from rankkit.spark_sql import to_spark

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning",
                                        "ignore::rankkit.errors.RankkitWarning")


def spark_values(spark, expressions: list[str]) -> list:
    """Each DuckDB expression translated and evaluated by Spark, in one statement."""
    row = spark.sql("SELECT " + ", ".join(f"{to_spark(e)} AS c{n}" for n, e in enumerate(expressions))).collect()[0]
    return [row[f"c{n}"] for n in range(len(expressions))]


def duckdb_values(expressions: list[str]) -> list:
    con = rankkit.connect()
    return list(con.execute("SELECT " + ", ".join(expressions)).fetchone())


CONSTRUCTS = [
    "list_transform([10, 20, 30], lambda x, i: i)",          # 0-based index in Spark, 1-based in DuckDB
    "list_filter([5, 6, 7, 8], lambda x, i: i % 2 = 0)",
    "log(100)",                                              # log10 in DuckDB, ln in Spark
    "1 / 3.0",                                               # a 6-digit DECIMAL in Spark
    "[1, 2, 3][0]", "[1, 2, 3][5]", "[1, 2, 3][-1]",          # NULL in DuckDB, an error in ANSI Spark
    "[1, 2, 3][:0]", "[1, 2, 3][:2]", "[1, 2, 3][2:]", "[1, 2, 3][:9]", "[1, 2, 3][2:2]",
    "range(1, 1)", "range(1, 4)", "range(3, 1)",             # Spark's sequence(3, 0) counts down
    "len(NULL::INTEGER[])", "len([]::INTEGER[])",             # size(NULL) is -1 on Spark 3.5
    "list_reverse_sort([2, 3, 1])",
    "list_reduce(list_prepend(1.0E0, [0.5E0, 0.25E0]), lambda a, b: a * b)",
    "rankkit.running_sum([1.0E0, 2.0E0, 3.5E0])", "rankkit.running_sum([]::DOUBLE[])",
    "rankkit.ordered_sum([0.1E0, 0.2E0, 0.3E0])",
    "rankkit.ratio(1, 0)", "rankkit.ratio(3, 4)",             # ANSI Spark raises on a bare 1 / 0
    "rankkit.gain(2, 'exp', NULL::STRUCT(level DOUBLE, gain DOUBLE)[])", "rankkit.gain(2, 'linear', [{'level': 2.0E0, 'gain': 9.0E0}])",
    "rankkit.stop_probability(3, 4)",
    "list_sum([x * 2 FOR x IN [1, 2, 3] IF x > 1])",
    "rankkit.interpolated_precision([0.5E0, 0.25E0], 0.5E0, 4)",
    "greatest(1, NULL)", "'it''s'",
    "list_position([5, 6], 6)", "list_position([5, 6], 7)",   # absent: NULL in DuckDB, 0 in Spark
]


def test_each_construct_gives_duckdbs_value(spark):
    assert spark_values(spark, CONSTRUCTS) == duckdb_values(CONSTRUCTS)


def test_pitfalls_as_measured(spark):
    # what the untranslated text gives on Spark: each would be silently wrong, or fail
    raw = spark.sql("SELECT transform(array(10, 20), (x, i) -> i) AS index, log(100) AS log, 1 / 3.0 AS decimal, "
                    "typeof(1 / 3.0) AS decimal_type").collect()[0]
    assert raw["index"] == [0, 1] and raw["log"] == pytest.approx(math.log(100))
    assert raw["decimal_type"].startswith("decimal") and raw["decimal"] != 1 / 3
    with pytest.raises(Exception, match="DIVIDE_BY_ZERO"):
        spark.sql("SELECT 1 / 0 AS x").collect()
    # NULLs sort first in ascending Spark order, last in DuckDB's
    assert [r.x for r in spark.sql("SELECT x FROM VALUES (1), (NULL) t(x) ORDER BY x").collect()] == [None, 1]


def test_log2_differs_from_c_in_the_last_bit_at_most(spark):
    # Spark's log2 is ln(x) / ln(2): a DCG discount may be one ulp from C's (DuckDB's, trec_eval's)
    got = [r[0] for r in spark.sql(f"SELECT {to_spark('rankkit.discount(id)')} FROM range(1, 2001)").collect()]
    ulps = [abs(struct.unpack("<q", struct.pack("<d", g))[0] - struct.unpack("<q", struct.pack("<d", math.log2(r + 1)))[0])
            for r, g in enumerate(got, 1)]
    assert max(ulps) <= 1


def frames(spark, qrels: pd.DataFrame, run: pd.DataFrame):
    spark.createDataFrame(qrels).createOrReplaceTempView("qrels")
    spark.createDataFrame(run).createOrReplaceTempView("run")


def test_tie_break_is_byte_order_and_negative_zero_ties(spark):
    docs = ["D5", "Z", "d", "d#1", "d10", "d5", "é1", "Ａ1", "\uffff", "\U00010000", "😀1"]
    run = pd.DataFrame({"query_id": "q", "doc_id": docs + ["n0", "p0"],
                        "score": [1.0] * len(docs) + [-0.0, 0.0]})
    qrels = pd.DataFrame({"query_id": "q", "doc_id": docs + ["n0", "p0"], "relevance": range(len(docs) + 2)})
    frames(spark, qrels, run)
    specs = measure_specs(rankkit.connect(), ["nDCG@5", "RR", "AP", "ERR@3"])
    got = spark.sql(statement(specs, qrels="qrels", run="run", per_query=True,
                              run_columns={"query_id": "query_id", "doc_id": "doc_id", "score": "score"})).toPandas()
    want = rankkit.evaluate(qrels, run, ["nDCG@5", "RR", "AP", "ERR@3"], per_query=True)
    assert list(got["value"]) == list(want["value"])


def test_the_printed_statement_runs_on_spark_as_it_is(spark, capsys, tmp_path):
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2", "q3"], "doc_id": ["a", "b", "c", "z"],
                          "relevance": [2, 0, 1, 1]})
    run = pd.DataFrame({"system": ["s", "s", "s", "t", "t"], "query_id": ["q1", "q1", "q2", "q1", "q4"],
                        "doc_id": ["a", "b", "x", "b", "y"], "score": [1.0, 2.0, 1.0, 1.0, 1.0],
                        "rank": [1, 2, 1, 1, 1]})  # s's ranks order q1 otherwise than its scores
    frames(spark, qrels, run)
    for options in ([], ["-q"], ["-c"], ["-J", "-M", "1"], ["-l", "2"], ["-q", "--ties", "rank"]):
        assert main(["sql", "--dialect", "spark", "-m", "nDCG@10", "-m", "AP", "-m", "gm_map", "--qrels", "qrels",
                     "--run", "run", *options]) == 0
        text = capsys.readouterr().out.rstrip().rstrip(";")
        assert "rankkit." not in text  # no macro: nothing but Spark's own functions
        got = spark.sql(text).toPandas()
        conventions = dict(per_query="-q" in options, queries="qrels" if "-c" in options else "both",
                           judged_only="-J" in options, depth=1 if "-M" in options else None,
                           rel=2 if "-l" in options else 1, ties="rank" if "rank" in options else "trec")
        want = rankkit.evaluate(qrels, run, ["nDCG@10", "AP", "gm_map"], **conventions)
        assert list(got.columns) == list(want.columns)
        pd.testing.assert_frame_equal(got.astype(object), want.astype(object), check_exact=False, rtol=1e-12)


def test_the_printed_statement_reads_a_system_column_only_where_there_is_one(spark, capsys):
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "relevance": [2, 0, 1]})
    run = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "x"], "score": [1.0, 2.0, 1.0]})
    assert main(["sql", "--dialect", "spark", "-m", "AP", "-m", "P@2", "-q", "--qrels", "qrels", "--run", "run"]) == 0
    text = capsys.readouterr().out.rstrip().rstrip(";")
    for table in (run, run.assign(system=["s", "s", "t"])):  # one text for both, as DuckDB's macros
        frames(spark, qrels, table)
        want = rankkit.evaluate(qrels, table, ["AP", "P@2"], per_query=True)
        got, want = (frame.astype(object).where(frame.notna(), None) for frame in (spark.sql(text).toPandas(), want))
        pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)


def test_evaluate_matches_columns_and_refuses_what_it_cannot(spark):
    from rankkit.spark import evaluate

    qrels = spark.createDataFrame(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "label": [1, 0]}))
    run = spark.createDataFrame(pd.DataFrame({"topic": ["1", "1"], "pid": ["a", "b"], "sim": [1.0, 2.0]}))
    got = evaluate(spark, qrels, run, ["RR", "P@2"])
    assert got.columns == ["measure", "system", "value", "queries"]  # lazy: nothing has run yet
    # Spark 3.5's analyser stops at 100 passes, too few for every trec_eval measure in one statement
    # (test_spark_differential fails there without more)
    assert int(spark.conf.get("spark.sql.analyzer.maxIterations")) >= 1000
    # a long session compiles many statements: C1's default code cache (48 MB) filled in 50 evaluations
    assert "-XX:ReservedCodeCacheSize=256m" in spark.sparkContext.getConf().get("spark.driver.extraJavaOptions")
    assert [tuple(r) for r in got.collect()] == [("RR", None, 0.5, 1), ("P@2", None, 0.5, 1)]
    with pytest.raises(RankkitError, match="run DataFrame: missing column score"):
        evaluate(spark, qrels, run.withColumnRenamed("sim", "s"), "RR")
    with pytest.raises(RankkitError, match="duplicates='first'"):
        evaluate(spark, qrels, run, "RR", duplicates="first")
    # a recommender's run by its rank alone, its timestamp left alone: a (rank 1) first, as on DuckDB
    ranked = spark.createDataFrame(pd.DataFrame({"user_id": ["1", "1"], "item_id": ["b", "a"], "rank": [2, 1],
                                                 "timestamp": [0, 0]}))
    assert [tuple(r) for r in evaluate(spark, qrels, ranked, ["RR"]).collect()] == [("RR", None, 1.0, 1)]


def test_the_cwl_measures_bottom_runs_and_a_falling_scale_is_refused_as_on_duckdb(spark):
    # bottom's scale check is a definition's error(): Spark's raise_error, the same words
    from rankkit.spark import evaluate

    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["a", "b", "c", "d"],
                          "relevance": [3, 1, 0, 2]})
    run = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["c", "a", "b", "x", "d"],
                        "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    measures = ["SDCG(bottom=1)@10", "INST(T=0.5, bottom=1)", "INSQ(bottom=1, max=3)"]
    got = evaluate(spark, spark.createDataFrame(qrels), spark.createDataFrame(run), measures, per_query=True)
    want = rankkit.evaluate(qrels, run, measures, per_query=True)
    got, want = (frame.astype(object).where(frame.notna(), None) for frame in (got.toPandas(), want))
    pd.testing.assert_frame_equal(got, want, check_exact=False, rtol=1e-12)
    falling = evaluate(spark, spark.createDataFrame(qrels), spark.createDataFrame(run), "SDCG(bottom=4, max=4)@10")
    with pytest.raises(Exception, match=r"the grading scale must rise: max \(4.0\) must be above bottom \(4.0\)"):
        falling.collect()
    with pytest.raises(RankkitError, match=r"the grading scale must rise: max \(4.0\) must be above bottom \(4.0\)"):
        rankkit.evaluate(qrels, run, "SDCG(bottom=4, max=4)@10")


@pytest.mark.parametrize("rows, said", [
    ("('1', 'a', double('NaN'))", "rankkit: run DataFrame: the score of document a for query 1 is NaN; expected a finite"),
    ("('1', 'a', double('-infinity'))", "the score of document a for query 1 is -Infinity; expected a finite number"),
    ("('1', CAST(NULL AS STRING), 1.0E0)", "rankkit: run DataFrame: a NULL document id for query 1"),
    ("('1', 'a', 1.0E0), ('1', 'a', 2.0E0)", "rankkit: duplicate document a for query 1 in the run"),
])
def test_bad_rows_stop_the_statement_naming_them(spark, rows, said):
    from rankkit.spark import evaluate

    qrels = spark.createDataFrame(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}))
    run = spark.sql(f"SELECT * FROM VALUES {rows} AS t(query_id, doc_id, score)")
    with pytest.raises(Exception, match=said):
        evaluate(spark, qrels, run, "AP").collect()


def test_a_table_name_is_read_as_a_table(spark):
    from rankkit.spark import evaluate

    frames(spark, pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}),
           pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["b", "a"], "score": [2.0, 1.0]}))
    assert [tuple(r) for r in evaluate(spark, "qrels", "run", "RR", per_query=True).collect()] == [("RR", None, "1", 0.5)]
    assert duckdb.__version__  # the DuckDB side stays the reference


@pytest.mark.parametrize("pair, options", [
    (("ir_measures", "compat.qrels", "compat.run"), ["-q"]),
    (("trectools", "unittests/qrel1.txt", "unittests/r1.run"), ["-q", "-c", "-J", "-m", "ndcg_cut.10", "-m", "map",
                                                               "-m", "gm_map", "-m", "P.5"]),
])
def test_eval_engine_spark_prints_what_duckdb_prints(spark, capsys, pair, options):
    from support import shared_path

    qrels, run = shared_path("data", pair[0], pair[1]), shared_path("data", pair[0], pair[2])
    assert main(["eval", *options, str(qrels), str(run)]) == 0
    duck = capsys.readouterr()
    # the module's session: getOrCreate in --engine spark finds it
    assert main(["eval", "--engine", "spark", *options, str(qrels), str(run)]) == 0
    got = capsys.readouterr()
    assert got.out == duck.out and got.out.count("\n") > 10
    assert got.err == duck.err  # the same warnings (queries on one side only ...)


def test_spark_counts_each_runs_queries_on_one_side_as_duckdb_does(spark, tmp_path):
    """Queries on one side only are said of the runs concerned, each with its count (issue 33): Spark counts
    them per run as the DuckDB engine does (the warnings are written from the counts by the same code)."""
    from rankkit import spark_read
    from rankkit.input_checks import compare_inputs
    from rankkit.inputs import load_runs
    from rankkit.io import load

    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq2 0 c 1\nq3 0 d 1\n")
    runs = {"good": "q1 Q0 a 1 2 x\nq2 Q0 c 1 1 x\nq3 Q0 d 1 1 x\n", "bad": "q1 Q0 a 1 2 x\nq9 Q0 c 1 1 x\n"}
    for name, text in runs.items():
        (tmp_path / f"{name}.run").write_text(text)
    given = {name: str(tmp_path / f"{name}.run") for name in runs}
    got = spark_read.counts(spark_read.read_qrels(spark, str(tmp_path / "qrels.txt")),
                            spark_read.read_runs(spark, given), "trec")["runs"]
    con = rankkit.connect()
    duck = compare_inputs(con, load(con, str(tmp_path / "qrels.txt"), "qrels"), load_runs(con, given))["runs"]
    assert got == duck and [(run["run_only"], run["qrels_only"]) for run in got] == [(0, 0), (1, 2)]
    # a glob of TREC run files: each file a run named by its stem, sorted, as evaluate reads it (issue 33)
    pattern = str(tmp_path / "*.run")
    globbed = spark_read.read_runs(spark, pattern)
    assert globbed.systems == ["bad", "good"]
    duck = compare_inputs(con, load(con, str(tmp_path / "qrels.txt"), "qrels"), load_runs(con, pattern))["runs"]
    assert spark_read.counts(spark_read.read_qrels(spark, str(tmp_path / "qrels.txt")), globbed, "trec")["runs"] == duck


def test_eval_engine_spark_refuses_what_runs_on_duckdb(capsys, tmp_path):
    assert main(["eval", "--engine", "spark", "-o", str(tmp_path / "x.csv"), "q", "r"]) == 2
    assert "--engine spark prints the evaluation: -o and --baseline run on DuckDB" in capsys.readouterr().err


# ---- compare and report take Spark's per-query values ----------------------------------------------

REPORTED = ["nDCG@10", "AP", "P@5"]


def trectools_pair(spark):
    """The trectools pair: its files, and the same rows as Spark DataFrames (three runs in one table)."""
    from support import shared_path

    folder = shared_path("data", "trectools", "unittests")
    runs = {name: str(folder / f"{name}.run") for name in ("r1", "r2", "r3")}
    qrels = pd.read_csv(folder / "qrel1.txt", sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "relevance"],
                        dtype={"query_id": str, "doc_id": str})
    run = pd.concat([pd.read_csv(path, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                                 dtype={"query_id": str, "doc_id": str}).assign(system=name)
                     for name, path in runs.items()])
    frames = (spark.createDataFrame(qrels[["query_id", "doc_id", "relevance"]]),
              spark.createDataFrame(run[["system", "query_id", "doc_id", "score"]]))
    return str(folder / "qrel1.txt"), runs, frames


def assert_same_numbers(made, duck):
    for table in ("aggregate", "per_query", "comparison", "coverage"):
        pd.testing.assert_frame_equal(getattr(made, table), getattr(duck, table), check_exact=False, rtol=1e-12)


def test_a_report_of_spark_values_is_the_duckdb_report(spark, tmp_path):
    from rankkit.report.build import shown_measures
    from rankkit.spark import evaluate

    qrels, runs, frames = trectools_pair(spark)
    conventions = rankkit.Conventions(queries="qrels")
    duck = rankkit.report(qrels, runs, REPORTED, baseline="r1", conventions=conventions)
    wanted = shown_measures(rankkit.connect(), REPORTED, 1)
    values = evaluate(spark, *frames, wanted, per_query=True, conventions=conventions)
    made = rankkit.report(qrels, runs, REPORTED, baseline="r1", values=values)  # the conventions come with them
    assert made.record["conventions"] == duck.record["conventions"] == conventions.as_dict()
    assert made.record["engine"].startswith("spark (pyspark ") and "engine" not in duck.record
    assert "values='<Spark DataFrame>'" in made.record["call"]
    assert_same_numbers(made, duck)
    made.save(tmp_path / "spark.json")
    assert rankkit.verify(tmp_path / "spark.json").holds  # recomputed from the files by DuckDB
    compared = rankkit.compare(values=values, measures=REPORTED, baseline="r1")
    pd.testing.assert_frame_equal(compared, duck.comparison, check_exact=False, rtol=1e-12)
    assert compared.attrs["conventions"] == conventions.as_dict()


def test_spark_values_are_refused_when_they_cannot_be_a_report(spark, tmp_path):
    from rankkit.spark import evaluate, per_query_values

    qrels, runs, frames = trectools_pair(spark)
    with pytest.raises(RankkitError, match="values: no column query_id: per-query values have the columns measure, "
                                           "system, query_id, value"):
        rankkit.compare(values=evaluate(spark, *frames, ["AP"]))  # the aggregate, not per query
    both = evaluate(spark, *frames, ["AP"], per_query=True)
    complete = evaluate(spark, *frames, ["AP"], per_query=True, queries="qrels")
    with pytest.raises(RankkitError, match="values computed under different conventions: queries 'both' in values.0., "
                                           "'qrels' in values.1."):
        rankkit.compare(values=[both, complete])
    with pytest.raises(RankkitError, match="other conventions than the call's: queries 'qrels' in values, 'both' in"):
        rankkit.compare(values=complete, conventions=rankkit.Conventions())
    complete.write.parquet(str(tmp_path / "values.parquet"))  # a table keeps them
    assert per_query_values(spark.read.parquet(str(tmp_path / "values.parquet")))[1].queries == "qrels"
    bare = spark.createDataFrame(both.toPandas())  # the metadata is gone
    with pytest.raises(RankkitError, match="values carry no conventions"):
        rankkit.compare(values=bare)
    assert len(rankkit.compare(values=bare, conventions=rankkit.Conventions(), baseline="r1")) == 2
    with pytest.raises(RankkitError, match=r"no per-query values of P@5, Judged@5, Judged; a report needs every measure"):
        rankkit.report(qrels, runs, ["AP", "P@5"], values=both)
    with pytest.raises(RankkitError, match="give qrels and runs, or values="):
        rankkit.compare(qrels, runs, "AP", values=both)


def test_report_engine_spark_writes_the_duckdb_report(spark, tmp_path, capsys):
    from support import shared_path

    folder = shared_path("data", "trectools", "unittests")
    given = [str(folder / "qrel1.txt"), str(folder / "r1.run"), str(folder / "r2.run"), "-m", "RR", "-m", "P@5",
             "--baseline", "r1", "-c"]
    assert main(["report", *given, "-o", str(tmp_path / "duck.json")]) == 0
    assert main(["report", "--engine", "spark", *given, "-o", str(tmp_path / "spark.json")]) == 0
    duck, made = (rankkit.Report.load(tmp_path / name) for name in ("duck.json", "spark.json"))
    assert made.record["conventions"] == duck.record["conventions"] and made.record["conventions"]["queries"] == "qrels"
    assert "--engine spark --master 'local[2]'" in made.record["call"]
    assert_same_numbers(made, duck)
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "spark.json")]) == 0
    assert "holds" in capsys.readouterr().out


# ---- --engine spark reads the files with Spark ---------------------------------------------------------

GOOD_QRELS, GOOD_RUN = "1 0 a 1\n1 0 b 0\n2 0 c 2\n", "1 Q0 a 1 1.0 t\n1 Q0 b 2 0.5 t\n2 Q0 c 1 3 t\n"


@pytest.mark.parametrize("qrels, run", [
    (GOOD_QRELS, "1 Q0 a 1 1.0 t\n\n# a comment\n1 Q0 b 2 inf t\n"),     # line 4: the score is not finite
    ("1 0 a 1\n1\t0  b\n", GOOD_RUN),                                     # too few fields, mixed whitespace
    ("1 0 a 1 extra\n", GOOD_RUN),
    (GOOD_QRELS, "# only a comment\n\n"),
])
def test_eval_engine_spark_refuses_a_bad_file_in_the_duckdb_readers_words(spark, tmp_path, capsys, qrels, run):
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "bm25.run").write_text(run)
    given = ["eval", str(tmp_path / "qrels.txt"), str(tmp_path / "bm25.run")]
    assert main(given) == 2
    duck = capsys.readouterr().err
    assert main([given[0], "--engine", "spark", *given[1:]]) == 2
    assert capsys.readouterr().err == duck and str(tmp_path) in duck


def test_eval_engine_spark_reads_csv_and_parquet_columns_by_name(spark, tmp_path, capsys):
    # two systems in one file given a name: dense/u and dense/v, as load_runs names them
    (tmp_path / "run.csv").write_text("qid,docno,sim,system\n1,a,1.5,u\n1,b,2.5,u\n3,z,1,v\n2,c,0.5,v\n1,a,1,v\n")
    pd.DataFrame({"topic": ["1", "1", "2", "4"], "docid": ["a", "b", "c", "d"], "label": [1, 0, 2, 1]}).to_parquet(
        tmp_path / "qrels.parquet")
    (tmp_path / "bm25.run").write_text(GOOD_RUN)
    given = ["-q", "-c", "-m", "ndcg_cut.10", "-m", "map", "-m", "P.5", str(tmp_path / "qrels.parquet"),
             f"dense={tmp_path / 'run.csv'}", str(tmp_path / "bm25.run")]
    assert main(["eval", *given]) == 0
    duck = capsys.readouterr()
    assert main(["eval", "--engine", "spark", *given]) == 0
    got = capsys.readouterr()
    assert (got.out, got.err) == (duck.out, duck.err) and "dense/v" in got.out and "missing from" in got.err
    (tmp_path / "titled.csv").write_text("qid,docno,sim,title\n1,a,1.5,x\n")
    assert main(["eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "titled.csv")]) == 0  # title left alone
    duck = capsys.readouterr()
    assert main(["eval", "--engine", "spark", str(tmp_path / "qrels.parquet"), str(tmp_path / "titled.csv")]) == 0
    got = capsys.readouterr()
    assert (got.out, got.err) == (duck.out, duck.err)
    (tmp_path / "ranked.csv").write_text("qid,docno,rank\n1,b,2\n1,a,1\n")  # by its rank alone: a first
    assert main(["eval", "-m", "P.1", str(tmp_path / "qrels.parquet"), str(tmp_path / "ranked.csv")]) == 0
    duck = capsys.readouterr()
    assert main(["eval", "--engine", "spark", "-m", "P.1", str(tmp_path / "qrels.parquet"),
                 str(tmp_path / "ranked.csv")]) == 0
    got = capsys.readouterr()
    assert (got.out, got.err) == (duck.out, duck.err) and got.out.split() == ["P_1", "all", "1.0000"]
    (tmp_path / "bad.csv").write_text("qid,docno,sim\n1,a,1.5\n1,b,abc\n")
    assert main(["eval", str(tmp_path / "qrels.parquet"), str(tmp_path / "bad.csv")]) == 2
    duck = capsys.readouterr().err
    assert main(["eval", "--engine", "spark", str(tmp_path / "qrels.parquet"), str(tmp_path / "bad.csv")]) == 2
    assert capsys.readouterr().err == duck and "bad.csv:3: the score 'abc' is not a number" in duck
    # a row the statement's checks refuse: rankkit's one line, not Spark's exception
    (tmp_path / "twice.csv").write_text("qid,docno,sim\n1,a,1.5\n1,a,2\n")
    assert main(["eval", "--engine", "spark", str(tmp_path / "qrels.parquet"), str(tmp_path / "twice.csv")]) == 2
    assert "rankkit eval: duplicate document a for query 1 in system twice in the run\n" in capsys.readouterr().err


def test_a_refused_row_is_one_line_on_stderr_not_the_jvms_stack_trace(tmp_path):
    # its own process: the JVM's logging is set when it starts (rankkit/spark_log4j2.properties)
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "qrels.txt").write_text("q1 0 a 1\n")
    (tmp_path / "dup.run").write_text("q1 Q0 a 1 2.0 dup\nq1 Q0 a 2 1.0 dup\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(Path(rankkit.__file__).parents[1]),
                                                                    os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", "rankkit.cli", "eval", "--engine", "spark", "-m", "AP",
                           str(tmp_path / "qrels.txt"), str(tmp_path / "dup.run")], env=env, text=True,
                          capture_output=True, timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    said = [line for line in done.stderr.splitlines() if not line.startswith("WARNING: Using incubator modules")]
    assert said == ["rankkit eval: duplicate document a for query q1 in system dup in the run"]


@pytest.mark.parametrize("suffix", [".txt", ".csv", ".parquet"])
def test_spark_reads_a_file_named_like_a_glob_as_itself(spark, tmp_path, suffix):
    """Spark's readers take *?[]{} as a glob (q[1].csv would read q1.csv): a path naming a file is that
    file, as on DuckDB (tests/test_hostile_names.py)."""
    from rankkit import spark_read

    for stem, docs in (("q[1]{a,b}", ["d1", "d2"]), ("q1a", ["d9"])):
        frame = pd.DataFrame({"query_id": "q1", "doc_id": docs, "relevance": 1})
        path = tmp_path / f"{stem}{suffix}"
        if suffix == ".parquet":
            frame.to_parquet(path)
        elif suffix == ".csv":
            frame.to_csv(path, index=False)
        else:
            path.write_text("".join(f"q1 0 {d} 1\n" for d in docs))
    read = spark_read.read_qrels(spark, str(tmp_path / f"q[1]{{a,b}}{suffix}"))
    assert sorted(row.doc_id for row in read.frame.select("doc_id").collect()) == ["d1", "d2"]


def test_spark_s_comparison_counts_a_lower_value_a_win_where_lower_is_better(monkeypatch):
    """rankkit compare --engine spark (and rankkit.spark.compare) count W/T/L as on DuckDB: under FallOut,
    where lower is better, a query the system is below the baseline is a win. Spark's values are stood in
    for (no session): they came home and were compared with every win counted as a higher value."""
    import rankkit.spark as spark
    from rankkit.conventions import Conventions

    values = pd.DataFrame({"i": [0] * 4 + [1] * 4, "measure": ["FallOut@10"] * 4 + ["P@10"] * 4,
                           "system": ["A", "A", "B", "B"] * 2, "query_id": ["q1", "q2"] * 4,
                           "value": [0.5, 0.5, 0.1, 0.2] * 2})
    monkeypatch.setattr(spark, "per_query_values", lambda frames: (values, Conventions()))
    frame = spark._compared(None, ["A", "B"], None, test="t", correction="holm", alpha=0.05, seed=0, resamples=100)
    wins = {row.measure: (row.wins, row.losses) for row in frame.itertuples()}
    assert wins == {"FallOut@10": (2, 0), "P@10": (0, 2)}  # B against A: lower FallOut, lower P
