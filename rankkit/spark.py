"""rankkit on Apache Spark: the same measures, composed from the same definitions, as one Spark SQL
statement (rankkit.spark_dialect), for judgments and runs that live where Spark reads them.

    from rankkit.spark import evaluate
    evaluate(spark, "lake.qrels", "lake.runs", ["nDCG@10", "AP"]).write.saveAsTable("lake.scores")

pyspark is imported by the caller's session: this module needs it only through the session passed in.
"""

from __future__ import annotations

import logging
import uuid
import warnings
from contextlib import contextmanager
from typing import Iterable, Mapping

from rankkit.conventions import Conventions, resolve_conventions
from rankkit.errors import RankkitError
from rankkit.spark_dialect import refuse_beyond, refuse_diversity
from rankkit.spark_values import INSTALL, METADATA, engine_name, per_query_values, require_pyspark

__all__ = ["evaluate", "session", "compare", "per_query_values", "engine_name", "INSTALL"]


def require_java() -> None:
    """A JVM for the session started here, or one line saying what to install (pyspark's own word is a
    traceback ending in JAVA_GATEWAY_EXITED, which names neither Java nor a fix)."""
    import os
    import shutil

    if not os.environ.get("JAVA_HOME") and shutil.which("java") is None:
        raise RankkitError("rankkit's Spark engine starts Spark, which needs Java 17, and there is no java on PATH "
                           "and no JAVA_HOME: install it (Debian/Ubuntu: apt-get install openjdk-17-jre-headless) "
                           "or set JAVA_HOME")


def session(master: str = "local[2]", memory: str = "1g", config: Mapping[str, str] | None = None):
    """A local SparkSession bound to 127.0.0.1 (the command line's --engine spark, the tests): quiet, small.
    ``config``: more settings, or these replaced (the benchmarks turn the UI on for its status API)."""
    import os

    require_pyspark()
    require_java()
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    # pyspark's word about pandas 3 at every conversion: the frames it converts here are plain
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
    settings = {"spark.driver.memory": memory, "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
                "spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1",
                "spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2",
                # C1 only starts sooner; its default 48 MB code cache fills in a long session (50 evaluations
                # of the shared pairs: 'CodeCache is full. Compiler has been disabled'), then all runs interpreted
                "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m "
                                                 f"-XX:+UseSerialGC {_quiet_logs()}",
                **(config or {})}
    builder = SparkSession.builder.master(master).appName("rankkit")
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    # a failed query's JSON record on stderr, beside the exception that says the same
    logging.getLogger("SQLQueryContextLogger").disabled = True
    return spark


def _quiet_logs() -> str:
    """The JVM option that reads rankkit's log4j2 settings (spark_log4j2.properties): without it Spark says
    its default profile and log level at start, and a refused row prints the executor's stack trace
    before rankkit's one-line message."""
    from pathlib import Path

    return f"-Dlog4j2.configurationFile={(Path(__file__).parent / 'spark_log4j2.properties').as_uri()}"


def evaluate(spark, qrels, run, measures: str | Iterable[str], per_query: bool = False, *,
             columns: Mapping[str, str | None] | None = None, rel: float = 1, ties: str = "trec",
             scores: str = "double", depth: int | None = None, queries: str = "both", judged_only: bool = False,
             docs: int = 0, duplicates: str = "error", conventions: Conventions | str | None = None,
             labels: tuple[str, str] | None = None):
    """rankkit.evaluate on Spark: a lazy Spark DataFrame (write it to a table, or ``toPandas()``) with
    evaluate's columns, ``measure, system, value, queries`` or, ``per_query``, ``measure, system,
    query_id, value``, computed by one Spark SQL statement composed from the measures' definitions.

    ``qrels`` and ``run`` are Spark DataFrames or table names; their columns are found as
    rankkit.evaluate finds them (``query_id``/``qid``/``topic`` ..., see rankkit.names), with
    ``columns`` mapping yours to rankkit's. The conventions are evaluate's; ``duplicates`` must be
    ``"error"``, and the rows are checked as the statement runs (a NULL id, a NULL, NaN or infinite
    score or grade, a duplicate document: the query fails naming it), not before. ``labels``: how
    those messages name the qrels and the run (default: ``qrels DataFrame``, ``run table NAME`` ...)."""
    from rankkit.specs import measure_specs, packed
    from rankkit.io import default_connection
    from rankkit.spark_dialect import statement

    refuse_beyond(measures)
    conventions = resolve_conventions(conventions, rel=rel, ties=ties, scores=scores, depth=depth, queries=queries,
                                      duplicates=duplicates, judged_only=judged_only, docs=docs)
    if conventions.duplicates != "error":
        raise RankkitError("Spark: duplicates='first' keeps a document's first occurrence, and a Spark table has no "
                           "order to say which is first; remove duplicates before evaluating")
    specs = packed(measure_specs(default_connection(), measures, rel=conventions.rel, docs=conventions.docs), conventions.pack)
    refuse_diversity(specs)
    qrels_name, qrels_columns, qrels_label = _source(spark, qrels, "qrels", columns or {})
    run_name, run_columns, run_label = _source(spark, run, "run", columns or {})
    _analyse_deeper(spark)
    text = statement(specs, qrels=qrels_name, run=run_name, qrels_columns=qrels_columns, run_columns=run_columns,
                     per_query=per_query, ties=conventions.ties, scores=conventions.scores, depth=conventions.depth,
                     queries=conventions.queries, judged_only=conventions.judged_only, check=True,
                     labels=labels or (qrels_label, run_label))
    # the conventions travel with the values (into a table too: Spark keeps a column's metadata), so
    # that rankkit.compare and rankkit.report record what computed them
    return spark.sql(text).withMetadata("value", {METADATA: {"conventions": conventions.as_dict()}})


# Spark 3.5's analyser resolves the statement's nested lambdas a level per pass and stops at 100 passes
# (every trec_eval measure in one statement needs more); Spark 4 resolves them in fewer
ANALYSER_PASSES = 1000


def _analyse_deeper(spark) -> None:
    """Let the analyser run as many passes as the statement needs (never fewer than the session allows)."""
    key = "spark.sql.analyzer.maxIterations"
    if int(spark.conf.get(key, "100")) < ANALYSER_PASSES:
        spark.conf.set(key, str(ANALYSER_PASSES))


def _source(spark, source, kind: str, columns: Mapping[str, str | None]) -> tuple[str, dict[str, str | None], str]:
    """The SQL name of a DataFrame (as a temp view) or table, rankkit's columns -> its columns, and how
    messages name it."""
    from rankkit.io.columns import match_columns
    from rankkit.io.lists import list_column
    from rankkit.spark_read import column_types, unnest_lists

    if isinstance(source, str):
        from rankkit.spark_dialect import quoted

        name = quoted(source, table=True)
        frame, label = spark.table(source), f"{kind} table {source}"
    elif hasattr(source, "createOrReplaceTempView") and hasattr(source, "schema"):
        name = f"rankkit_{kind}_{uuid.uuid4().hex[:12]}"
        source.createOrReplaceTempView(name)
        frame, label = source, f"{kind} DataFrame"
    else:
        raise RankkitError(f"{kind}: expected a Spark DataFrame or a table name, got {type(source).__name__}")
    names = column_types(frame)
    found = match_columns(names, kind, columns, label)
    if kind == "run" and list_column(names, found) is not None:
        name = f"rankkit_{kind}_{uuid.uuid4().hex[:12]}"
        frame = unnest_lists(frame, names, found, label)
        frame.createOrReplaceTempView(name)
        found = match_columns(column_types(frame), kind, columns, label)
    return name, found, label


def evaluate_rows(spark, qrels, run, measures: str | Iterable[str], per_query: bool = False, *,
                  rel: float = 1, ties: str = "trec", depth: int | None = None, queries: str = "both", columns=None,
                  duplicates: str = "error", split_by_tag: bool = False, judged_only: bool = False,
                  docs: int = 0, subtopics=None, pack: str | None = None) -> tuple[list, list[dict], list[dict] | None]:
    """rankkit.evaluate.evaluate_rows computed by Spark (the command line's ``--engine spark``): the input
    files read by Spark as the DuckDB engine reads them (see read), evaluated by the composed statement."""
    from rankkit.specs import measure_specs
    from rankkit.io import default_connection

    refuse_beyond(measures)
    refuse_diversity(measure_specs(default_connection(), measures, rel=rel, docs=docs))  # subtopics too
    conventions = resolve_conventions(pack, rel=rel, ties=ties, depth=depth, queries=queries, duplicates=duplicates,
                                      judged_only=judged_only, docs=docs)
    systems, frames, labels = read(spark, qrels, run, measures, conventions, columns=columns,
                                   split_by_tag=split_by_tag)
    found = []
    for each in (False, True) if per_query else (False,):
        result = evaluate(spark, *frames, measures, per_query=each, conventions=conventions, duplicates="error",
                          labels=labels)
        found.append([{k: (None if v != v else v) if isinstance(v, float) else v for k, v in row.asDict().items()}
                      for row in collected(result)])
    return systems, found[0], found[1] if per_query else None


def collected(frame) -> list:
    """The frame's rows; a row the statement's checks refused (raise_error) is an InputError saying what
    rankkit's message says, not Spark's exception and trace."""
    with said_by_rankkit():
        return frame.collect()


@contextmanager
def said_by_rankkit():
    """A Spark job's failure from the statement's checks (raise_error) as an InputError in rankkit's words."""
    import re

    from rankkit.errors import InputError

    try:
        yield
    except Exception as error:
        # (up to Spark's SQLSTATE, newlines included: an id's control characters are escaped by InputError)
        said = (re.search(r"rankkit: (.*?) SQLSTATE: \w+", str(error), re.DOTALL)
                or re.search(r"rankkit: (.*?)$", str(error), re.MULTILINE))
        if said is None:
            raise
        raise InputError(said.group(1).strip()) from None


def read(spark, qrels, run, measures, conventions: Conventions, *, columns=None, split_by_tag: bool = False):
    """The systems, the qrels and run files as Spark DataFrames in rankkit's columns, and how messages
    name them: read by Spark (rankkit.spark_read) as the DuckDB engine reads them (TREC text, CSV,
    Parquet; the same columns, systems, errors and warnings)."""
    from rankkit import spark_read
    from rankkit.input_checks import checked_counts
    from rankkit.io import default_connection
    from rankkit.specs import measure_specs, packed

    specs = packed(measure_specs(default_connection(), measures, rel=conventions.rel, docs=conventions.docs), conventions.pack)
    judged = spark_read.read_qrels(spark, qrels, columns)
    ranked = spark_read.read_runs(spark, run, columns, split_by_tag)
    checked_counts(spark_read.counts(judged, ranked, conventions.ties), judged, ranked, specs,
                   queries=conventions.queries, ties=conventions.ties)
    return ranked.systems, (judged.frame, ranked.frame), (judged.label, ranked.label)


def compare(spark, qrels, runs, measures: str | Iterable[str], baseline: str | None = None, *, test: str = "t",
            correction: str = "holm", alpha: float = 0.05, seed: int | None = 0, resamples: int = 10000,
            columns: Mapping[str, str | None] | None = None, conventions: Conventions | str | None = None, **given):
    """rankkit.compare of systems evaluated on Spark: the per-query values computed by Spark (one table
    whose ``system`` column holds the systems), brought home, and compared by the same code as
    rankkit.compare (the same tests, intervals and corrections). ``given``: evaluate's conventions."""
    from rankkit.compare import check_options

    check_options(test, correction, alpha)
    names = [measures] if isinstance(measures, str) else list(measures)
    values = evaluate(spark, qrels, runs, names, per_query=True, columns=columns, conventions=conventions, **given)
    return _compared(values, None, baseline, test=test, correction=correction, alpha=alpha, seed=seed,
                     resamples=resamples)


def compare_files(spark, qrels, runs, measures: list[str], baseline: str | None, conventions: Conventions, *,
                  columns=None, split_by_tag: bool = False, **options):
    """rankkit compare --engine spark: the files read by Spark as evaluate_rows reads them, the systems in
    the order given (the earlier one of a pair is its baseline, as on DuckDB), compared as rankkit.compare."""
    refuse_beyond(measures)
    systems, frames, labels = read(spark, qrels, runs, measures, conventions, columns=columns,
                                   split_by_tag=split_by_tag)
    values = evaluate(spark, *frames, measures, per_query=True, conventions=conventions, labels=labels)
    return _compared(values, [system for system in systems if system is not None], baseline, **options)


def _compared(values, systems: list | None, baseline: str | None, **options):
    """Spark's per-query values brought home and compared (``systems``: their order; default by name),
    the conventions that computed them recorded as rankkit.compare records them."""
    from rankkit.compare import compare_values
    from rankkit.specs import directions

    with said_by_rankkit(), warnings.catch_warnings():
        # pyspark's word (with Spark's trace) that Arrow met an error: the statement's check, said once below
        warnings.filterwarnings("ignore", message="toPandas attempted Arrow optimization", category=UserWarning)
        found, conventions = per_query_values(values)
    frame = compare_values(found, systems or sorted(found["system"].dropna().unique()), baseline,
                           better=directions([], list(dict.fromkeys(found["measure"]))), **options)
    frame.attrs["conventions"] = conventions.as_dict()
    return frame
