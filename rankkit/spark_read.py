"""The inputs of the Spark engine (``rankkit eval --engine spark``, ``rankkit report --engine spark``)
read by Spark: TREC text by Spark's text reader and a split on runs of spaces and tabs, CSV/TSV and
Parquet by ``spark.read``, into rankkit's columns, found as the DuckDB readers find them
(rankkit.io.columns.match_columns) and named as they name them (a file's system is its name,
rankkit.io.run_name; ``{name: path}`` names each).

What a reader refuses is said in the DuckDB reader's words: a TREC line trec_eval would refuse names
its file and line (``qrels.txt:7: expected 4 fields (...), found 3``), an empty file says so; the rows
(NULL ids, numbers that are not finite, duplicates) are checked inside the statement
(rankkit.spark_dialect.checks), under the file's name. The warnings the DuckDB engine gives before
evaluating (queries on one side only, fractional grades, grades above ERR's scale) are counted by
Spark and said by the same code (rankkit.input_checks.checked_counts).
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from rankkit.errors import InputError
from rankkit.names import QRELS_FIELDS, RUN_FIELDS
from rankkit.io.columns import NUMBER, decimal_comma
from rankkit.io.lists import list_column, refuse_list_types

__all__ = ["Read", "read_qrels", "read_runs", "counts", "column_types", "unnest_lists"]


@dataclass
class Read:
    """A source read by Spark: its frame (rankkit's columns), how messages name it, and for a run
    its systems in the DuckDB engine's order; for qrels, what the grade warnings need."""

    frame: object
    label: str
    systems: list = field(default_factory=list)
    runs: dict = field(default_factory=dict)  # several runs: each system's, as messages name it (rankkit.io.Source's)
    top_grade: float | None = None
    fractional: tuple | None = None


def read_qrels(spark, path, columns=None) -> Read:
    frame, label, _ = _read(spark, path, "qrels", columns or {}, None)
    top, fractional = _grades(frame)
    return Read(frame, label, top_grade=top, fractional=fractional)


def read_runs(spark, runs, columns=None, split_by_tag: bool = False) -> Read:
    """One path (its systems: the file's name, or a table's system column), a glob of TREC run files (each
    file a run named by its stem, as evaluate names them), or ``{name: path}``: one
    frame whose ``system`` names each run (``name/system`` for a table that holds several)."""
    from functools import reduce

    from rankkit.inputs import listed_run_name, run_files, unique_name

    files = run_files(runs)
    if isinstance(files, list):  # a glob of TREC run files: each a run, named as if listed one by one
        runs = {}
        for position, path in enumerate(files):
            runs[unique_name(listed_run_name(path, position), list(runs))] = path
    if not isinstance(runs, dict):
        frame, label, _ = _read(spark, runs, "run", columns or {}, None, split_by_tag)
        systems = _systems(frame)
        return Read(frame, label, systems=systems,
                    runs={s: f"{label} (system {s})" for s in systems} if len(systems) > 1 else {})
    from pyspark.sql import functions as F

    read = {name: _read(spark, path, "run", columns or {}, name, split_by_tag) for name, path in runs.items()}
    systems = _systems_of(read)
    frames, labels, named = [], [], {}
    for name, (frame, label, _) in read.items():
        inner = systems.get(name, [])
        if len(inner) > 1:  # as load_runs names them
            frame = frame.withColumn("system", F.concat(F.lit(f"{name}/"), F.col("system")))
            named.update({f"{name}/{system}": f"{label} (system {system})" for system in inner})
        else:
            frame = frame.withColumn("system", F.lit(name))
            named[name] = label
        frames.append(frame.select("system", "query_id", "doc_id", "rank", "score"))
        labels.append(label)
    return Read(reduce(lambda a, b: a.unionAll(b), frames), ", ".join(labels), systems=list(named), runs=named)


def _read(spark, path, kind: str, columns, system: str | None, split_by_tag: bool = False):
    """The frame of one file (or DataFrame) in rankkit's columns, its label (the path as given), and
    whether its system is ``system`` on every row (a run without a system column or tags read)."""
    from rankkit.io import default_connection
    from rankkit.io.files import file_format, is_glob, magic, run_name

    if hasattr(path, "createOrReplaceTempView") and hasattr(path, "schema"):  # a Spark DataFrame
        label = f"{kind} DataFrame" if system is None else f"{kind} DataFrame {system}"
        frame, one = _columns(path, kind, columns, label, system)
        return frame, label, one
    if not isinstance(path, (str, Path)):
        raise InputError(f"{kind}: the Spark engine reads files and Spark DataFrames; got {type(path).__name__}")
    label = str(path)
    fmt, found = file_format(default_connection(), path, None, kind)
    if is_glob(label) and not os.path.lexists(label) and not glob.glob(label, recursive=True):
        raise InputError(f"{label}: no file matches the glob")  # Spark's reader said so in a Java trace
    if fmt == "parquet" and os.path.isfile(label) and magic(Path(label), 4) != b"PAR1":
        raise InputError(f"{label}: cannot be read: not a Parquet file (it does not begin with PAR1)")  # as above
    named = system if system is not None else (
        None if is_glob(str(path)) or Path(str(path)).is_dir() else run_name(path))
    if fmt == "trec":
        tag = None if split_by_tag and system is None else named
        return _trec(spark, label, kind, tag), label, tag is not None
    reader = spark.read
    if fmt == "parquet":
        # a folder as it is: Spark reads it recursively, its partition folders as columns (DuckDB's hive)
        frame = reader.parquet(str(path) if Path(str(path)).is_dir() else hadoop_path(found))
    else:  # every field as text, cast below; a value that is not a number is refused naming its line
        # as DuckDB's reader (rankkit.io.files.csv_reader): RFC 4180's quoting, "" a quote inside quotes
        # (Spark's default escape, a backslash, kept "a""b" as it was) and a quoted field across lines
        frame = reader.csv(hadoop_path(found), header=True, sep="\t" if fmt == "tsv" else ",", inferSchema=False, quote='"',
                           escape='"', multiLine=True)
    read, one = _columns(frame, kind, columns, label, named)
    if fmt != "parquet":
        _refuse_text_numbers(frame, read, kind, columns, label)
    return read, label, one


def _columns(frame, kind: str, columns, label: str, named: str | None):
    """rankkit's columns of a table, matched by name as the DuckDB readers match them, and whether the
    system is ``named`` on every row (a run without a system column)."""
    from pyspark.sql import functions as F

    from rankkit.io.columns import match_columns

    names = column_types(frame)
    found = match_columns(names, kind, columns, label)
    if kind == "run" and list_column(names, found) is not None:
        refuse_bad_lists(frame, names, found, label)
        frame = unnest_lists(frame, names, found, label)
        found = match_columns(column_types(frame), kind, columns, label)
    # try_cast: a text that is no number is NULL here, and named with its line by _refuse_text_numbers
    column = lambda ours, type_: F.expr(f"try_cast(`{found[ours]}` AS {type_})").alias(ours)  # noqa: E731
    if kind == "qrels":
        return frame.select(column("query_id", "string"), column("doc_id", "string"), column("relevance", "double")), False
    system = column("system", "string") if found.get("system") else F.lit(named).cast("string").alias("system")
    rank = column("rank", "bigint") if found.get("rank") else F.lit(None).cast("bigint").alias("rank")
    # a run by its rank alone scores minus its rank, as the DuckDB readers (rankkit.io.columns.RANK_SCORE)
    score = column("score", "double") if found.get("score") else (-rank.cast("double")).alias("score")
    return frame.select(system, column("query_id", "string"), column("doc_id", "string"), rank, score), \
        not found.get("system") and named is not None


def column_types(frame) -> list[tuple[str, str]]:
    """A frame's columns and their types, an array's as DuckDB writes it (``array<bigint>`` is ``BIGINT[]``):
    rankkit.io.lists reads the list columns of both engines, and names their type in DuckDB's words."""
    return [(f.name, _duckdb_array(f.dataType.simpleString())) for f in frame.schema.fields]


_ELEMENTS = {"string": "VARCHAR", "int": "INTEGER", "bigint": "BIGINT", "smallint": "SMALLINT", "tinyint": "TINYINT"}


def _duckdb_array(type_: str) -> str:
    if type_.startswith("array<") and type_.endswith(">"):
        inner = type_[len("array<"):-1]
        return (_duckdb_array(inner) if inner.startswith("array<") else _ELEMENTS.get(inner, inner.upper())) + "[]"
    return type_


def _list_problem(found):
    """The first thing wrong with a row of item lists, in rankkit.io.lists.unnest_lists' words (NULL if none):
    a NULL user id, a NULL list, a NULL item."""
    from pyspark.sql import functions as F

    column = found["doc_id"]
    user, items = F.col(quoted_column(found["query_id"])), F.col(quoted_column(column))
    return (F.when(user.isNull(), F.lit(f"column {found['query_id']} (query_id) is NULL"))
            .when(items.isNull(), F.concat(F.lit(f"column {column} (doc_id) is NULL for query "), user.cast("string")))
            .when(F.exists(items, lambda item: item.isNull()),
                  F.concat(F.lit(f"column {column} (doc_id) holds a NULL item for query "), user.cast("string"))))


def refuse_bad_lists(frame, names, found, label: str) -> None:
    """Item lists the run cannot be read from, refused as the DuckDB reader refuses them, before reading."""
    refuse_list_types(names, found, label)
    bad = frame.select(_list_problem(found).alias("problem")).where("problem IS NOT NULL").limit(1).collect()
    if bad:
        raise InputError(f"{label}: {bad[0][0]}")


def unnest_lists(frame, names, found, label: str):
    """A run of one row per user holding a list of items as a row per item, ranked by its position (1 first),
    as the DuckDB reader (rankkit.io.lists); a row the lists cannot be read from fails the query that reads
    it, naming its column (rankkit.spark.collected says it as an InputError)."""
    from pyspark.sql import functions as F

    refuse_list_types(names, found, label)
    column = found["doc_id"]
    problem = _list_problem(found)
    checked = F.when(problem.isNull(), F.col(quoted_column(column))).otherwise(
        F.raise_error(F.concat(F.lit(f"rankkit: {label}: "), problem)))
    kept = [F.col(quoted_column(name)) for name, _ in names if name != column]
    exploded = frame.select(*kept, F.posexplode(checked).alias("rankkit_position", column))
    return exploded.withColumn("rank", F.col("rankkit_position") + 1).drop("rankkit_position")


def quoted_column(name: str) -> str:
    """A column name as pyspark's col() reads it (a dot or a backquote in it would read otherwise)."""
    return "`" + name.replace("`", "``") + "`"


def _refuse_text_numbers(frame, read, kind: str, columns, label: str) -> None:
    """A CSV value in the score (relevance) column that is not a number: an error naming its line, as
    the DuckDB reader's (the header is line 1; a row per line)."""
    from pyspark.sql import functions as F

    from rankkit.io.columns import match_columns

    number = NUMBER[kind]
    theirs = match_columns([(f.name, "VARCHAR") for f in frame.schema.fields], kind, columns, label).get(number)
    if theirs is None:  # a run by its rank alone: a rank that is no integer reads as none, as in DuckDB
        return
    given = frame.select(F.monotonically_increasing_id().alias("n"), F.col(f"`{theirs}`").alias("given"))
    bad = F.col("given").isNotNull() & F.expr("try_cast(given AS DOUBLE)").isNull()
    first = given.agg(F.min(F.when(bad, F.col("n")))).collect()[0][0]
    if first is not None:
        row = given.where(F.col("n") <= first).agg(
            F.count("*"), F.max(F.when(F.col("n") == first, F.col("given")))).collect()[0]
        raise InputError(f"{label}:{row[0] + 1}: the {number} '{row[1]}' is not a number{decimal_comma(row[1])}")


def hadoop_path(path) -> str:
    """A path for Spark's readers, which read ``*?[]{}`` as a glob: one that names a file is escaped
    (``q[1].csv`` would read ``q1.csv``), a glob is left as it is (DuckDB's: rankkit.io.catalog.path_literal)."""
    text = str(path)
    return re.sub(r"([*?\[\]{}\\])", r"\\\1", text) if os.path.lexists(text) else text


def _trec(spark, path: str, kind: str, system: str | None):
    """TREC text split as trec_eval splits it; the first line it would refuse is an error naming the
    file and line. ``system``: the run's name (None: each line's tag, --split-by-tag)."""
    from pyspark.sql import functions as F

    fields = QRELS_FIELDS if kind == "qrels" else RUN_FIELDS
    width, at = len(fields), fields.index(NUMBER[kind])
    lines = spark.read.text(hadoop_path(path)).select(
        F.monotonically_increasing_id().alias("n"),  # increasing in the file's order: a line's number is counted
        F.split(F.regexp_replace("value", r"^[ \t\r]+|[ \t\r]+$", ""), "[ \t]+").alias("fields"))
    # try_element_at: past the end is NULL (ANSI Spark raises on fields[i]); it counts from 1
    number = F.expr(f"try_cast(try_element_at(fields, {at + 1}) AS DOUBLE)")
    content = (F.col("fields")[0] != "") & ~F.col("fields")[0].startswith("#")
    wrong = (F.size("fields") < width) | (F.size("fields") > width if kind == "qrels" else F.lit(False))
    bad = content & (wrong | number.isNull() | F.isnan(number) | (F.abs(number) == float("inf")))
    first = lines.agg(F.min(F.when(bad, F.col("n"))).alias("bad"), F.sum(content.cast("int")).alias("content"),
                      F.sum((F.col("fields")[0] != "").cast("int")).alias("lines")).collect()[0]
    layout = " ".join(fields)
    if not first["content"]:
        comments = first["lines"] or 0
        problem = (f"the file holds only comment lines ({comments} line{'s' * (comments > 1)} starting with #)"
                   if comments else "the file is empty")
        raise InputError(f"{path}: {problem}, expected TREC {kind} lines ({layout})")
    if first["bad"] is not None:
        row = lines.where(F.col("n") <= first["bad"]).agg(
            F.count("*").alias("line"), F.max(F.when(F.col("n") == first["bad"], F.col("fields"))).alias("fields")
        ).collect()[0]
        given = row["fields"]
        if len(given) < width or (kind == "qrels" and len(given) > width):
            raise InputError(f"{path}:{row['line']}: expected {width} fields ({layout}), found {len(given)}")
        raise InputError(f"{path}:{row['line']}: the {NUMBER[kind]} '{given[at]}' is not a finite number"
                         f"{decimal_comma(given[at])}")
    kept = lines.where(content)
    if kind == "qrels":
        return kept.select(F.col("fields")[0].alias("query_id"), F.col("fields")[2].alias("doc_id"),
                           number.alias("relevance"))
    tag = F.lit(system) if system is not None else F.col("fields")[5]
    return kept.select(tag.cast("string").alias("system"), F.col("fields")[0].alias("query_id"),
                       F.col("fields")[2].alias("doc_id"), F.expr("try_cast(try_element_at(fields, 4) AS BIGINT)").alias("rank"),
                       number.alias("score"))


def _systems(frame) -> list:
    """The run's systems in the DuckDB engine's order (by name, a NULL first)."""
    rows = frame.select("system").distinct().collect()
    return sorted((row["system"] for row in rows), key=lambda name: (name is not None, name or ""))


def _systems_of(read: dict) -> dict:
    """Each run's systems (``{name: (frame, label, one)}``), in _systems' order: a run whose system is its
    name (``one``) without asking Spark, the others' in one Spark job."""
    from functools import reduce

    from pyspark.sql import functions as F

    found: dict = {name: [name] for name, (_, _, one) in read.items() if one}
    tagged = [frame.select(F.lit(name).alias("rankkit_run"), "system")
              for name, (frame, _, one) in read.items() if not one]
    for row in reduce(lambda a, b: a.unionAll(b), tagged).distinct().collect() if tagged else []:
        found.setdefault(row[0], []).append(row[1])
    return {name: sorted(inner, key=lambda system: (system is not None, system or "")) for name, inner in found.items()}


def _grades(frame) -> tuple[float | None, tuple | None]:
    """The top grade, and a fractional grade (its query, document and grade) if there is one."""
    from pyspark.sql import functions as F

    top = frame.agg(F.max("relevance")).collect()[0][0]
    fractional = (frame.where(F.col("relevance") != F.floor("relevance"))
                  .orderBy("query_id", "doc_id").select("query_id", "doc_id", "relevance").limit(1).collect())
    return top, tuple(fractional[0]) if fractional else None


def counts(qrels: Read, run: Read, ties: str) -> dict:
    """What rankkit.input_checks.compare_inputs counts (queries on each side and in common, examples of
    each, rows without a rank), counted by Spark over the two frames."""
    from pyspark.sql import functions as F

    runs = run.frame.select("query_id").distinct().alias("r")
    judged = qrels.frame.select("query_id").distinct().alias("q")
    joined = runs.join(judged, F.col("r.query_id") == F.col("q.query_id"), "full")
    r, q = F.col("r.query_id"), F.col("q.query_id")
    three = lambda column, where: F.slice(F.array_sort(F.collect_set(F.when(where, column))), 1, 3)  # noqa: E731
    row = joined.agg(F.count(r), F.count(q), F.count(F.when(q.isNotNull(), r)), F.count(F.when(q.isNull(), r)),
                     three(r, q.isNull()), F.count(F.when(r.isNull(), q)), three(q, r.isNull()),
                     three(r, F.lit(True)), three(q, F.lit(True))).collect()[0]
    # a run of its own only when the tie rule reads the ranks
    no_rank = run.frame.where(F.col("rank").isNull()).count() if ties == "rank" else 0
    names = ("run_queries", "qrels_queries", "common", "run_only", "run_only_examples", "qrels_only",
             "qrels_only_examples", "run_examples", "qrels_examples")
    found = {**dict(zip(names, [list(v) if isinstance(v, list) else v for v in row])), "no_rank": no_rank}
    if len(run.runs) > 1:
        found["runs"] = _run_counts(qrels, run, found["qrels_queries"], three)
    return found


def _run_counts(qrels: Read, run: Read, judged: int, three) -> list[dict]:
    """counts' queries on one side only per run, as rankkit.evaluate counts them for several runs."""
    from pyspark.sql import functions as F

    pairs = run.frame.select("system", "query_id").distinct()
    ids = qrels.frame.select("query_id").distinct()
    marked = pairs.join(ids.withColumn("judged", F.lit(True)), "query_id", "left")
    unjudged = F.col("judged").isNull()
    per = {r[0]: r for r in marked.groupBy("system").agg(F.count(F.lit(1)), F.count(F.when(unjudged, 1)),
                                                          three(F.col("query_id"), unjudged),
                                                          F.count("judged")).collect()}
    lacking = dict(pairs.select("system").distinct().crossJoin(ids).join(pairs, ["system", "query_id"], "left_anti")
                   .groupBy("system").agg(three(F.col("query_id"), F.lit(True))).collect())
    return [{"run": label, "run_queries": per[system][1], "run_only": per[system][2],
             "run_only_examples": list(per[system][3]) or None, "qrels_only": judged - per[system][4],
             "qrels_only_examples": list(lacking.get(system) or []) or None}  # None, as DuckDB's min(x, 3) of none
            for system, label in run.runs.items() if system in per]
