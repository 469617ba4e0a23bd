"""The composed statement in Spark SQL: the Spark dialect of rankkit.dialect, and the whole statement
(inputs, ranks, values, aggregate) that runs in ``spark-sql`` over two tables, no Python needed.

Measures are never written here: their definitions (sql/features.sql, sql/metrics/*.sql) are composed
as for DuckDB and translated by rankkit.spark_sql. What is Spark's own is the plumbing around them,
as DuckDB's is rankkit.dialect.DuckDB's and the table macros': reading the two tables under the
columns found, ranking the run (trec_eval's tie rule, depth, judged_only), the lists per query, the
unpivot and the mean in query order. Where Spark and DuckDB differ silently, it says so explicitly:
``NULLS LAST`` in every ascending order (Spark puts NULLs first), DOUBLE literals, guarded division,
no table macros (the inputs are CTEs over the tables named).
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

from rankkit.dialect import DUCKDB
from rankkit.plan import plan
from rankkit.errors import RankkitError
from rankkit.io.catalog import ident
from rankkit.measures import AGGREGATIONS
from rankkit.safe import spark_sql as safe_spark_sql
from rankkit.spark_sql import _string, to_spark

__all__ = ["Spark", "SPARK", "statement", "duckdb_statement", "quoted", "refuse_beyond"]

RUN_COLUMNS = ("system", "query_id", "doc_id", "score", "rank")
QRELS_COLUMNS = ("query_id", "doc_id", "relevance")


class Spark:
    """What the composed statement says in Spark SQL's words (see rankkit.dialect.DuckDB)."""

    name = "spark"
    materialized = ""  # Spark has no MATERIALIZED; it plans the CTE once per reference

    def literal(self, value, type_: str) -> str:
        # parameters are written as DuckDB literals and translated with the expression that holds them
        return DUCKDB.literal(value, type_)

    def expression(self, sql: str) -> str:
        return to_spark(sql)

    def qrels_rows(self, qrels: str) -> str:
        return qrels  # the statement's own CTE, in rankkit's columns (see statement)

    def judged(self, ranks: str, ties: bool, positive: bool = False) -> str:
        """Per system and query: its judged documents' ranks and grades in rank order (with ``positive``,
        whether each was scored above 0), sorted once as one array of structs by rank (collect_list keeps
        no order; it skips the NULL of a query without any)."""
        tie_fields = ", 'tie_first', tie_first, 'tie_size', tie_size" if ties else ""
        tie_lists = (", transform(docs, d -> d.tie_first) AS tie_firsts, "
                     "transform(docs, d -> d.tie_size) AS tie_sizes") if ties else ""
        if positive:
            tie_fields += ", 'positive', positive"
            tie_lists += ", transform(docs, d -> d.positive) AS positives"
        return ("SELECT system, query_id, num_ret, transform(docs, d -> d.rank) AS ranks, "
                f"transform(docs, d -> d.grade) AS grades{tie_lists} "
                "FROM (SELECT system, query_id, max(num_ret) AS num_ret, "
                f"array_sort(collect_list(CASE WHEN rank IS NOT NULL THEN named_struct('rank', rank, 'grade', grade"
                f"{tie_fields}) END)) AS docs FROM {ranks} GROUP BY system, query_id)")

    def judgments(self, qrels: str) -> str:
        return f"SELECT query_id, sort_array(collect_list(grade), false) AS qrels_grades FROM {qrels} GROUP BY query_id"

    def discount_sums(self, ranks: str, where: str = "true") -> str:
        """cum[r]: the discounts of ranks 1..r, added left to right by rankkit.running_sum, over the rows of
        ``ranks`` where ``where`` holds."""
        cum = to_spark("rankkit.running_sum(list_transform(range(1, rankkit_last + 1), "
                       "lambda r: 1.0E0 / rankkit.discount(r)))")
        return (f"SELECT {cum} AS cum FROM (SELECT coalesce(max(tie_first + tie_size - 1), 0) AS rankkit_last "
                f"FROM {ranks} WHERE {where})")

    def empty_list(self) -> str:
        return "array()"

    def unpivot(self, rows: list[tuple[int, str, str, str]]) -> str:
        """One row per measure, system and query: stack's columns come last (the statement reorders)."""
        items = ", ".join(f"{i}, {_string(measure)}, {_string(agg)}, {value}" for i, measure, agg, value in rows)
        return f"system, query_id, stack({len(rows)}, {items}) AS (i, measure, agg, value)"


SPARK = Spark()


def quoted(name: str, table: bool = False) -> str:
    """A column name (``table``: a table name, ``db.runs``) pasted into the statement, each part quoted
    (rankkit.safe.spark_sql), or refused as rankkit's error."""
    try:
        return safe_spark_sql.table_name(name) if table else safe_spark_sql.identifier(name)
    except ValueError as error:
        raise RankkitError(str(error)) from None


def inputs(qrels: str, run: str, qrels_columns: Mapping[str, str], run_columns: Mapping[str, str | None],
           scores: str, ties: str, optional_system: bool = False) -> list[tuple[str, str]]:
    """The two tables in rankkit's columns (ids as strings, scores and grades as DOUBLE), with the run's
    sort keys: rank_key (ties='rank': the given rank), score_key (at 32-bit precision if asked).

    ``optional_system``: the run's ``system`` column is read if the table has one, else every row's
    system is NULL, as DuckDB's macros match columns by name. A statement printed for tables it never
    sees cannot ask; SQL's scoping answers: the run is read in a LATERAL subquery beside a one-row
    table whose column ``system`` is NULL, and a name the run lacks resolves to that outer column."""
    def column(mapping, name, type_):
        found = mapping.get(name)
        return f"CAST({quoted(found) if found else 'NULL'} AS {type_}) AS {name}"

    if ties == "rank" and not run_columns.get("rank"):
        raise RankkitError("ties='rank' reads the run's rank column, and the run has none")
    score = "CAST(CAST(score AS FLOAT) AS DOUBLE)" if scores == "float32" else "score"
    rank_key = "try_cast(try_cast(given_rank AS DOUBLE) AS BIGINT)" if ties == "rank" else "CAST(NULL AS BIGINT)"
    qrels_select = (f"SELECT {column(qrels_columns, 'query_id', 'STRING')}, {column(qrels_columns, 'doc_id', 'STRING')}, "
                    f"CAST({quoted(qrels_columns['relevance'])} AS DOUBLE) AS grade FROM {qrels}")
    # a run by its rank alone scores minus its rank, as the DuckDB readers (rankkit.io.columns.RANK_SCORE)
    by_rank = f"-CAST(try_cast({quoted(run_columns['rank'])} AS BIGINT) AS DOUBLE) AS score" \
        if run_columns.get("rank") and not run_columns.get("score") else column(run_columns, 'score', 'DOUBLE')
    read = (f"SELECT {column(run_columns, 'system', 'STRING')}, {column(run_columns, 'query_id', 'STRING')}, "
            f"{column(run_columns, 'doc_id', 'STRING')}, {by_rank}, "
            f"{quoted(run_columns['rank']) if run_columns.get('rank') else 'NULL'} AS given_rank FROM {run}")
    if optional_system:
        if run_columns.get("system") != "system":
            raise RankkitError("optional_system reads a column named system; the run's system is mapped to "
                               f"{run_columns.get('system')!r}")
        read = (f"SELECT rankkit_run_read.* FROM (SELECT CAST(NULL AS STRING) AS system) rankkit_no_system, "
                f"LATERAL ({read}) rankkit_run_read")
    run_select = (f"SELECT system, query_id, doc_id, score, {rank_key} AS rank_key, {score} AS score_key FROM ("
                  f"{read})")
    return [("rankkit_qrels", qrels_select), ("rankkit_run", run_select)]


def ranks(ties: str, depth: int | None, judged_only: bool) -> list[tuple[str, str]]:
    """rankkit.ranks' rows for Spark: every row of the run ranked by one window, in rankkit.ranked's
    order (given rank, then score descending, then doc_id descending, byte-wise as trec_eval's strcmp;
    NULLS LAST said, Spark's ascending default is NULLS FIRST), cut at depth; the judged documents
    with their ranks and grades, and one row (rank NULL) keeping a query that retrieved none judged."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise RankkitError(f"depth must be a positive integer, got {depth!r}")
    if ties == "average" and judged_only:
        raise RankkitError("Spark: ties='average' with judged_only=True is not supported (the tie groups are "
                           "those of the whole run); use one or the other")
    window = "PARTITION BY system, query_id"
    tie_columns = ("min(rank) OVER (PARTITION BY system, query_id, score_key) AS tie_first, "
                   "count(*) OVER (PARTITION BY system, query_id, score_key) AS tie_size"
                   if ties == "average" else "CAST(NULL AS BIGINT) AS tie_first, CAST(NULL AS BIGINT) AS tie_size")
    ranked = ("SELECT system, query_id, doc_id, score_key, rank, num_rows, " + tie_columns + " FROM ("
              f"SELECT system, query_id, doc_id, score_key, row_number() OVER ({window} ORDER BY rank_key ASC NULLS LAST, "
              f"score_key DESC NULLS LAST, doc_id DESC NULLS LAST) AS rank, count(*) OVER ({window}) AS num_rows "
              "FROM rankkit_run)")
    depth_sql = "NULL" if depth is None else str(int(depth))
    cut = ("SELECT r.system, r.query_id, r.rank, r.tie_first, r.tie_size, r.score_key > 0 AS positive, "
           f"least(r.num_rows, coalesce({depth_sql}, r.num_rows)) AS num_rows, q.grade "
           "FROM rankkit_ranked r LEFT JOIN rankkit_qrels q ON q.query_id = r.query_id AND q.doc_id = r.doc_id "
           f"WHERE {'true' if depth is None else f'r.rank <= {int(depth)}'} AND (q.grade IS NOT NULL OR r.rank = 1)")
    if not judged_only:
        kept = ("SELECT system, query_id, num_rows AS num_ret, CASE WHEN grade IS NOT NULL THEN rank END AS rank, "
                "grade, tie_first, tie_size, positive FROM rankkit_cut")
    else:  # trec_eval -J: the documents judged >= 0 ranked among themselves (no FILTER on windows: Spark 3.5)
        judged = "CASE WHEN grade >= 0 THEN 1 ELSE 0 END"
        kept = ("SELECT * FROM (SELECT system, query_id, "
                f"sum({judged}) OVER ({window}) AS num_ret, "
                f"CASE WHEN grade >= 0 THEN sum({judged}) OVER ({window} ORDER BY rank ASC NULLS LAST) END AS rank, "
                "CASE WHEN grade >= 0 THEN grade END AS grade, tie_first, tie_size, positive FROM rankkit_cut) "
                "WHERE rank IS NOT NULL OR grade IS NULL")
    return [("rankkit_ranked", ranked), ("rankkit_cut", cut), ("rankkit_ranks", kept)]


def over_values(values: str) -> str:
    """rankkit.over_values for Spark: per measure and system, the mean over queries (the sum for counts,
    the geometric mean for gm_*) added in query order (byte-wise, as DuckDB's list ORDER BY query_id),
    so that it is DuckDB's double; NULL values (empty := 'skip') left out."""
    ordered = ("array_sort(collect_list(CASE WHEN value IS NOT NULL "
               "THEN named_struct('query_id', query_id, 'value', value) END))")
    mean, *others = AGGREGATIONS.values()

    def value(a) -> str:
        total = to_spark(f"rankkit.ordered_sum(list_transform(rankkit_sorted_values, lambda x: {a.term('x.value')}))")
        return a.combined(total.replace("rankkit_sorted_values", ordered), "count(value)")
    return ("SELECT measure, system, CASE WHEN count(value) = 0 THEN CAST(NULL AS DOUBLE) "
            + "".join(f"WHEN max(agg) = '{a.name}' THEN {value(a)} " for a in others)
            + f"ELSE {value(mean)} END AS value, count(value) AS queries "
            f"FROM {values} GROUP BY i, measure, system ORDER BY i, system ASC NULLS LAST")


def checks(qrels: str, run: str) -> str:
    """One row: ``problem``, the first thing wrong with the rows (NULL if none), in the words of rankkit's
    readers: a NULL id, a NULL, NaN or infinite score or grade, a duplicate document. Spark's NaN sorts
    above every number: it would rank first."""
    def bad(kind: str, table: str, number: str, what: str) -> str:
        said = ("CASE WHEN query_id IS NULL THEN concat('a NULL query id (document ', coalesce(doc_id, 'NULL'), ')') "
                "WHEN doc_id IS NULL THEN concat('a NULL document id for query ', query_id) "
                f"ELSE concat('the {what} of document ', doc_id, ' for query ', query_id, ' is ', "
                f"CASE WHEN {number} IS NULL THEN 'NULL' WHEN isnan({number}) THEN 'NaN' ELSE CAST({number} AS STRING) END, "
                "'; expected a finite number') END")
        return (f"SELECT concat({_string(f'{table}: ')}, {said}) AS problem FROM rankkit_{kind} "
                f"WHERE query_id IS NULL OR doc_id IS NULL OR {number} IS NULL OR isnan({number}) "
                f"OR abs({number}) = double('infinity')")
    duplicates = ("SELECT concat('duplicate document ', doc_id, ' for query ', query_id, "
                  "coalesce(concat(' in system ', system), ''), ' in the run') AS problem FROM rankkit_run "
                  "GROUP BY system, query_id, doc_id HAVING count(*) > 1 UNION ALL "
                  "SELECT concat('duplicate document ', doc_id, ' for query ', query_id, ' in the qrels') AS problem "
                  "FROM rankkit_qrels GROUP BY query_id, doc_id HAVING count(*) > 1")
    return (f"SELECT min(problem) AS problem FROM ({bad('run', run, 'score', 'score')} UNION ALL "
            f"{bad('qrels', qrels, 'grade', 'relevance')} UNION ALL {names(qrels, run)} UNION ALL {duplicates})")


# C0, DEL and C1, as rankkit.safe.terminal.CONTROL: what no query id or system name may hold
_CONTROL = _string(r"[\x00-\x1f\x7f-\x9f]")
NAMES_WHY = "refused: trec_eval's text (a TAB between fields, a line per value) and a terminal cannot show it"


def visible(expression: str) -> str:
    """Spark SQL: a string with each control character written visibly (\\n, \\x1b), as
    rankkit.safe.terminal.visible, for a message that quotes it."""
    # Spark's literals: '\n' is a newline, '\\n' a backslash and an n
    return (f"concat_ws('', transform(split({expression}, ''), rankkit_c -> CASE "
            r"WHEN rankkit_c = '\n' THEN '\\n' WHEN rankkit_c = '\t' THEN '\\t' WHEN rankkit_c = '\r' THEN '\\r' "
            f"WHEN rankkit_c RLIKE {_CONTROL} THEN concat('\\\\x', lpad(lower(hex(ascii(rankkit_c))), 2, '0')) "
            "ELSE rankkit_c END))")


def names(qrels: str, run: str) -> str:
    """The problems of the checks with query ids and system names, as rankkit's readers refuse them:
    a control character, an empty system name, NULL beside named systems; on the distinct values."""
    def control(table: str, what: str, column: str) -> str:
        return (f"SELECT concat({_string(f'{table}: the {what} ')}, {_string(chr(39))}, {visible(column)}, "
                f"{_string(chr(39) + ' holds a control character; ' + NAMES_WHY)}) AS problem")
    return (f"{control(run, 'query id', 'query_id')} FROM (SELECT DISTINCT query_id FROM rankkit_run) "
            f"WHERE query_id RLIKE {_CONTROL} UNION ALL "
            f"{control(qrels, 'query id', 'query_id')} FROM (SELECT DISTINCT query_id FROM rankkit_qrels) "
            f"WHERE query_id RLIKE {_CONTROL} UNION ALL "
            f"{control(run, 'system name', 'system')} FROM (SELECT DISTINCT system FROM rankkit_run) "
            f"WHERE system RLIKE {_CONTROL} UNION ALL "
            f"SELECT concat({_string(f'{run}: the system name ')}, {_string(chr(39))}, system, "
            f"{_string(chr(39) + ' is empty; name each system')}) AS problem "
            f"FROM (SELECT DISTINCT system FROM rankkit_run) WHERE trim(system) = '' UNION ALL "
            f"SELECT {_string(f'{run}: the system is NULL on some rows and named on others; name each system')} "
            f"AS problem FROM rankkit_run HAVING count(*) FILTER (WHERE system IS NULL) > 0 "
            f"AND count(*) FILTER (WHERE system IS NOT NULL) > 0")


def refuse_diversity(specs) -> None:
    """The diversity measures are DuckDB's only: refused, saying why, before Spark is asked anything (the
    statement and rankkit.spark's evaluations call this first)."""
    from rankkit.measures import needs_subtopics

    diverse = [spec["measure"] for spec in specs if needs_subtopics(spec["metric"])]
    if diverse:
        raise RankkitError(f"Spark: {', '.join(diverse)} read subtopic judgments, which the Spark engine does not "
                           "take (their ideal ordering is ndeval's greedy one, a fold over structs that the Spark "
                           "dialect does not translate); evaluate them with rankkit.evaluate(..., subtopics=) on DuckDB")


def refuse_beyond(measures) -> None:
    """The beyond-accuracy measures (Novelty@10, Gini@10 ...) are DuckDB's only: refused by name, saying why,
    before Spark is asked anything. Each is a table macro of sql/80_beyond.sql over the run's top k
    (rankkit.top_items) and a side table read by name (rankkit.catalog_rows, rankkit.item_popularity);
    the Spark dialect translates expressions and scalar macros, not table macros."""
    from rankkit.beyond import declared, split
    from rankkit.measures import beyond_params

    for name in split(measures)[1]:
        measure = declared()[re.match(r"\w+", name).group(0).lower()]  # split named it: Word(...)@k
        macro = f"rankkit.{measure.metric}"
        if "similarity" in measure.params:  # ILD's similarity picks its table macro (as rankkit.beyond calls it)
            picked = [value for value in beyond_params()["similarity"].values if value != "auto"]
            macro = ", ".join(f"{macro}_{value}" for value in picked[:-1]) + f" or {macro}_{picked[-1]}"
        over = "the run's top k" + (f" and the {' or the '.join(measure.needs)} table" if measure.needs else "")
        raise RankkitError(f"Spark: {name} is computed by its table macro {macro} over {over} (sql/80_beyond.sql), "
                           "and the Spark dialect translates expressions and scalar macros, not table macros; evaluate "
                           "it on DuckDB (without --engine spark; in SQL, its table macro in the duckdb shell)")


def statement(specs: Iterable[Mapping], *, qrels: str, run: str, qrels_columns: Mapping[str, str] | None = None,
              run_columns: Mapping[str, str | None] | None = None, per_query: bool = False, ties: str = "trec",
              scores: str = "double", depth: int | None = None, queries: str = "both",
              judged_only: bool = False, check: bool = False, labels: tuple[str, str] | None = None,
              optional_system: bool | None = None) -> str:
    """One Spark SQL statement computing ``specs`` over the tables ``qrels`` and ``run`` (SQL names,
    quoted as needed): evaluate's columns, ``measure, system, value, queries`` (aggregate) or
    ``measure, system, query_id, value`` (``per_query``), in evaluate's order. ``*_columns`` map
    rankkit's column names to the tables' (default: rankkit's own, the run's system column read if
    it has one: ``optional_system``, which defaults to true without ``run_columns``; see inputs).
    ``check``: the statement fails (raise_error) on a row rankkit's readers refuse (see checks), naming
    the tables by ``labels`` (default: 'qrels table NAME', 'run table NAME')."""
    qrels_columns = qrels_columns or {name: name for name in QRELS_COLUMNS}
    if optional_system is None:
        optional_system = run_columns is None
    run_columns = run_columns or {name: name for name in RUN_COLUMNS if name != "rank"}
    if scores not in ("double", "float32"):
        raise RankkitError(f"scores must be double or float32, got {scores!r}")
    refuse_diversity(specs)
    labels = labels or (f"qrels table {qrels}", f"run table {run}")
    # pasted into the statement: each part of a name quoted (rankkit.safe.spark_sql), or refused
    qrels, run = quoted(qrels, table=True), quoted(run, table=True)
    problems = checks(*labels) if check else None
    before = ranks(ties, depth, judged_only)
    composed = plan(specs, ties=ties, queries=queries, dialect=SPARK).statement("rankkit_qrels", "rankkit_ranks",
                                                                                before)
    ctes = inputs(qrels, run, qrels_columns, run_columns, scores, ties, optional_system)
    ctes.append(("rankkit_computed", f"SELECT i, measure, agg, system, query_id, value FROM ({composed})"))
    if problems:  # raise_error: the checks stay in the lazy plan, for a statement with no Python around it
        ctes += [("rankkit_problems", problems),
                 ("rankkit_values", "SELECT v.* FROM rankkit_computed v CROSS JOIN rankkit_problems "
                                    "WHERE CASE WHEN problem IS NULL THEN true ELSE raise_error(concat('rankkit: ', problem)) END")]
    else:
        ctes.append(("rankkit_values", "SELECT * FROM rankkit_computed"))
    values = "WITH\n" + ",\n".join(f"{name} AS ({sql})" for name, sql in ctes) + "\n"
    if per_query:
        return (values + "SELECT measure, system, query_id, value FROM rankkit_values "
                "ORDER BY i, system ASC NULLS LAST, query_id")
    return values + over_values("rankkit_values")


def duckdb_statement(specs: Iterable[Mapping], *, qrels: str, run: str, per_query: bool = False, ties: str = "trec",
                     scores: str = "double", depth: int | None = None, queries: str = "both",
                     judged_only: bool = False, columns: Mapping[str, str] | None = None) -> str:
    """The same for the duckdb shell after ``rankkit macros``: rankkit.ranks over the two tables (it checks
    their columns), the composed statement, rankkit.over_values. ``columns``: the tables' names for
    rankkit's columns (``{"clicks": "relevance"}``), renamed in a CTE over each table that holds such a
    column (an id column in both, as the Spark statement reads them)."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise RankkitError(f"depth must be a positive integer, got {depth!r}")
    lit = DUCKDB.literal
    tables, mapped = {"qrels": qrels, "run": run}, []
    for kind, names in (("qrels", QRELS_COLUMNS), ("run", RUN_COLUMNS)):
        renamed = _renamed(tables[kind], names, columns or {})
        if renamed is not None:
            tables[kind] = f"rankkit_mapped_{kind}"
            mapped.append((tables[kind], renamed))
    qrels, run = tables["qrels"], tables["run"]
    ranked = (f"FROM rankkit.ranks({lit(qrels, 'VARCHAR')}, {lit(run, 'VARCHAR')}, ties := {lit(ties, 'VARCHAR')}, "
              f"scores := {lit(scores, 'VARCHAR')}, depth := {'NULL' if depth is None else int(depth)}, "
              f"judged_only := {'true' if judged_only else 'false'})")
    composed = plan(specs, ties=ties, queries=queries).statement(lit(qrels, "VARCHAR"), "rankkit_ranked_run",
                                                                [*mapped, ("rankkit_ranked_run", ranked)])
    values = f"WITH rankkit_values AS MATERIALIZED ({composed})\n"
    if per_query:
        return values + "SELECT measure, system, query_id, value FROM rankkit_values ORDER BY i, system, query_id;"
    return values + "FROM rankkit.over_values('rankkit_values');"


def _renamed(table: str, names: tuple[str, ...], columns: Mapping[str, str]) -> str | None:
    """A SELECT over ``table`` (read as the macros read a table's name, by query_table) renaming the
    columns mapped to one of ``names``; None where none is."""
    renames = [f"{ident(theirs)} AS {ours}" for theirs, ours in columns.items() if ours in names]
    if not renames:
        return None
    return f"SELECT * RENAME ({', '.join(renames)}) FROM query_table({DUCKDB.literal(table, 'VARCHAR')})"
