"""evaluate(): measure names in, pandas frames out; every number is computed by the SQL macros."""

from __future__ import annotations

import itertools
import re
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping

from rankkit import _engine as duckdb

from rankkit._files import named_inputs, refuse_inputs, replacing
from rankkit._paths import sql_dir
from rankkit._sql import connect, store, stored
from rankkit.compose import DUCKDB, LOADED, compose, query_side
from rankkit.conventions import Conventions, resolve_conventions
from rankkit.errors import InputError, MeasureError, RankkitError, RankkitWarning, warn
from rankkit.io import (Source, default_connection, holder, is_frame, is_table, load, load_run_files, release,
                        run_name, temp_name)
from rankkit.io.catalog import ident, quote
from rankkit.io.files import run_glob_files
from rankkit.measures import AGGREGATIONS, label, needs_subtopics, registry, spec_type
from rankkit.names import ALIASES
from rankkit.progress import Progress
from rankkit.trec import expand, family_of

if TYPE_CHECKING:  # pandas loads with the first frame: the command line's path never needs it
    import pandas as pd

__all__ = ["evaluate", "measure_specs", "resolve", "run_query", "run_numpy", "slice_source", "listed_run_name",
           "run_files", "engine_query", "load_runs", "unique_name", "compare_inputs"]

_views = itertools.count(1)


SPEC_TYPE = spec_type()  # the measure spec's SQL type, from sql/00_prelude.sql
# result columns an attribute column (by=) must not shadow
RESERVED = ("measure", "system", "query_id", "value", "queries", "ci_low", "ci_high")
# The largest run ranked by rankkit.window_ranks, and rankkit.ranks' most judged documents a query
# still counted (rankkit.judged_counted in sql/20_engine.sql, read from there): see ranks_by_window.
WINDOW_ROWS = 1_000_000
JUDGED_COUNTED = int(re.search(r"MACRO rankkit\.judged_counted\(\) AS (\d+);",
                               (sql_dir() / "20_engine.sql").read_text(encoding="utf-8")).group(1))
OUTPUT_FORMATS = {".parquet": "(FORMAT parquet)", ".csv": "(FORMAT csv, HEADER true)",
                  ".tsv": "(FORMAT csv, HEADER true, DELIMITER '\t')", ".json": "(FORMAT json, ARRAY true)",
                  ".jsonl": "(FORMAT json)", ".ndjson": "(FORMAT json)"}


def evaluate(qrels, run, measures: str | Iterable[str], per_query: bool = False, *,
             con: duckdb.DuckDBPyConnection | None = None, rel: float = 1, ties: str = "trec",
             scores: str = "double", depth: int | None = None, queries: str = "both",
             judged_only: bool = False, docs: int = 0, by: str | None = None, query_table=None,
             ci: float | None = None, seed: int | None = 0,
             resamples: int = 10000, columns: Mapping[str, str | None] | None = None,
             duplicates: str = "error", output: str | Path | None = None, relation: bool = False,
             progress: bool | None = None, split_by_tag: bool = False,
             conventions: Conventions | None = None, subtopics=None) -> pd.DataFrame | Path | duckdb.DuckDBPyRelation:
    """Evaluate a run (or several systems in one run table, or a list or dict of runs) against qrels.

    Parameters
    ----------
    qrels, run:
        A path (TREC text, CSV/TSV with a header, Parquet file, glob or folder; text may be gzipped),
        a pandas DataFrame, a DuckDB relation, or the name of a table or view in ``con``. Qrels
        columns: ``query_id, doc_id, relevance``; run columns: ``query_id, doc_id, score`` and
        optionally ``system`` and ``rank``; common other names (``qid``, ``docno``, ``rel``, ``sim``,
        ``run_id`` ...) are recognised. ``run`` may also be a list of runs (named by file stem, made
        unique when stems collide, or ``run1``, ``run2`` ...) or a dict ``{name: run}``; each becomes
        a ``system`` (``name/system`` for one that holds several). What a system is: a TREC run file
        is one run (its tags are ignored, as trec_eval ignores them), a table with a ``system``
        column holds several (see :func:`rankkit.read_run`).
    measures:
        Names such as ``"nDCG@10"``, ``"AP"``, ``"P(rel=2)@5"`` or trec_eval's ``"ndcg_cut_10"``.
    per_query:
        One row per query instead of the aggregate.
    rel, ties, scores, depth, queries:
        The relevance level for measures that do not set their own (trec_eval ``-l``), the tie
        rule (``trec``, ``rank``, or ``average``: the expected value over the orderings of tied
        scores, for CG, DCG, IDCG and nDCG), score precision (``double`` or ``float32``),
        documents kept per query (trec_eval ``-M``), and the query set (``both`` or ``qrels``,
        trec_eval ``-c``).
    judged_only, docs:
        trec_eval's ``-J`` (only the documents the qrels judge, ranked among themselves) and ``-N``
        (documents in the collection, for ``utility``).
    by, query_table:
        Slices: ``query_table`` (a path to CSV/TSV/Parquet, a DataFrame, a relation or a table
        name) has a ``query_id`` column and attribute columns; the aggregate is computed (in SQL)
        per value of the attribute named ``by``, in a column of that name. Queries missing from
        the query table, or with no value, form the slice NaN.
    ci, seed, resamples:
        With ``ci=0.95``, add ``ci_low, ci_high`` to the aggregate: the percentile bootstrap
        interval of the mean over queries (of the sum for counts), ``resamples`` draws from
        ``numpy.random.default_rng(seed)``; the same interval ``rankkit.report`` shows.

    columns:
        Your column names to rankkit's, as pandas' ``rename``: ``{"clicks": "relevance",
        "qid": "query_id"}``; applied to the qrels and the run wherever such a column exists.
    duplicates:
        ``"error"`` (default, as trec_eval) or ``"first"``: keep a document's first occurrence.
    conventions:
        A :class:`rankkit.Conventions` holding ``rel, ties, scores, depth, queries, duplicates`` in
        one object, in place of those keywords (giving both, differently, is an error).
    output:
        Write the result to this file (``.parquet``, ``.csv``, ``.tsv``, ``.json``, ``.jsonl``)
        with DuckDB's ``COPY``, streaming, and return its path instead of a DataFrame.
    relation:
        Keep the result in DuckDB: return a relation over a temp table of ``con`` (the same columns
        and order as the DataFrame) instead of a frame, without importing pandas. Take it out with
        ``.fetchall()``, ``.df()``, ``.pl()`` or ``.arrow()``, or query it by its ``.alias``.
    progress:
        Show a progress bar on steps longer than two seconds; default: when stderr is a terminal
        or in a notebook.
    split_by_tag:
        Make each tag of a TREC run file a system (by default a file is one run, as in trec_eval).
    subtopics:
        Subtopic judgments for the diversity measures (alpha-nDCG, ERR-IA, nERR-IA, NRBP, P-IA, AP-IA,
        S-recall): TREC's ``query subtopic doc grade`` lines (ndeval's qrels), or a CSV/TSV, Parquet,
        DataFrame, relation or table with a ``subtopic`` column (or ``iteration``, as ir_measures has
        it). ``qrels`` may then be None: the qrels are the subtopic judgments' own, a document graded
        by its best grade over the subtopics, and the queries evaluated are theirs, as in ndeval.

    Returns
    -------
    pandas.DataFrame, pathlib.Path (with ``output``) or duckdb.DuckDBPyRelation (with ``relation``)
        Aggregate: ``measure, system, [by,] value, queries [, ci_low, ci_high]``; per query:
        ``measure, system, [by,] query_id, value``: the columns of SQL's ``rankkit.evaluate`` and
        ``rankkit.evaluate_queries``. ``system`` names the run (a file's stem, a dict's key) and is
        missing (None) for one table that has no ``system`` column, as in SQL.

    Checks run first: a bad row or duplicate raises :class:`InputError` naming the place; queries
    judged but not retrieved (or retrieved but not judged) and fractional grades give a
    :class:`RankkitWarning`. The connection's ``memory_limit`` and ``temp_directory``
    (``rankkit.connect(memory_limit="2GB")``) hold throughout: DuckDB spills rather than fails.

    Examples
    --------
    >>> import pandas as pd, rankkit
    >>> qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "relevance": [1, 0]})
    >>> run = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]})
    >>> rankkit.evaluate(qrels, run, ["RR", "P@2"])[["measure", "system", "value"]].to_dict("records")
    [{'measure': 'RR', 'system': None, 'value': 0.5}, {'measure': 'P@2', 'system': None, 'value': 0.5}]
    """
    if per_query and ci is not None:
        raise RankkitError("ci is an interval over queries: it applies to the aggregate, not to per_query")
    if ci is not None and (output is not None or relation):
        raise RankkitError("ci is computed in Python over a frame: it does not go with output= or relation=True")
    if output is not None:  # never written over what it reads
        refuse_inputs([("output", output)], named_inputs(qrels=qrels, run=run, subtopics=subtopics,
                                                         query_table=query_table))
    conventions = resolve_conventions(conventions, rel=rel, ties=ties, scores=scores, depth=depth, queries=queries,
                                      duplicates=duplicates, judged_only=judged_only, docs=docs)
    con = connect(con) if con is not None else default_connection()
    specs = measure_specs(con, measures, rel=conventions.rel, docs=conventions.docs)
    with subtopic_judgments(con, qrels, subtopics, specs, conventions, columns) as (qrels, subtopics_table), \
            checked_sources(con, qrels, run, columns, conventions.duplicates, progress, split_by_tag) as (qrels_source,
                                                                                                         run_source):
        return _evaluate(con, qrels_source, run_source, specs, per_query, conventions=conventions, by=by, columns=columns,
                         query_table=query_table, ci=ci, seed=seed, resamples=resamples, output=output,
                         relation=relation, progress=progress, subtopics=subtopics_table)


def evaluate_rows(qrels, run, measures: str | Iterable[str], per_query: bool = False, *,
                  con: duckdb.DuckDBPyConnection | None = None, rel: float = 1, ties: str = "trec",
                  depth: int | None = None, queries: str = "both", columns=None, duplicates: str = "error",
                  split_by_tag: bool = False, judged_only: bool = False,
                  docs: int = 0, subtopics=None) -> tuple[list[str | None], list[dict], list[dict] | None]:
    """evaluate() without pandas, for the command line: the systems (in the order given), the
    aggregate rows and, with ``per_query``, the per-query rows, as dicts (``measure, system,
    [query_id,] value ...``) in evaluate()'s order; a NULL value is None. One reading of the inputs."""
    conventions = Conventions(rel=rel, ties=ties, depth=depth, queries=queries, duplicates=duplicates,
                              judged_only=judged_only, docs=docs)
    with prepared(qrels, run, measures, conventions, con=con, columns=columns, split_by_tag=split_by_tag,
                  subtopics=subtopics) as (con, specs, qrels_source, run_source):
        found = []
        for each in (False, True) if per_query else (False,):
            query, inputs = evaluation_query(qrels_source, run_source, specs, each, None, conventions,
                                             getattr(qrels_source, "subtopics", None))
            with Progress(con, "evaluating"):
                found.append(run_rows(con, query, inputs))
    if per_query:  # evaluate()'s order: measure as asked, then system and query_id, NULLs last
        found[1].sort(key=lambda row: [(row[key] is None, row[key]) for key in ("i", "system", "query_id")])
    return run_source.systems, found[0], found[1] if per_query else None


def evaluate_file(qrels, run, measures: str | Iterable[str], output: str | Path, per_query: bool = False, *,
                  summary: bool = True, digits: int | None = None, con: duckdb.DuckDBPyConnection | None = None,
                  rel: float = 1, ties: str = "trec", depth: int | None = None, queries: str = "both", columns=None,
                  duplicates: str = "error", split_by_tag: bool = False, judged_only: bool = False,
                  docs: int = 0, subtopics=None) -> Path:
    """The command line's ``-o FILE``: the table it prints in csv and json (see long_query), the
    same fields, written by DuckDB's COPY (streamed; the suffix says the format). One reading of
    the inputs."""
    path = Path(output)
    _copy_options(path)  # a wrong suffix is said before the inputs are read
    refuse_inputs([("output", path)], named_inputs(qrels=qrels, run=run, subtopics=subtopics))  # nor replaced
    conventions = Conventions(rel=rel, ties=ties, depth=depth, queries=queries, duplicates=duplicates,
                              judged_only=judged_only, docs=docs)
    with prepared(qrels, run, measures, conventions, con=con, columns=columns, split_by_tag=split_by_tag,
                  subtopics=subtopics) as (con, specs, qrels_source, run_source):
        _, inputs = evaluation_query(qrels_source, run_source, specs, True, None, conventions,
                                     getattr(qrels_source, "subtopics", None))
        inputs.update(systems=[str(s) for s in run_source.systems], measures=[spec["measure"] for spec in specs])
        window = ranks_by_window(qrels_source, run_source, conventions.ties)
        query = long_query(specs, per_query, summary, digits, conventions, window=window,
                           keyed=bool(run_source.keyed) and not window)
        return _copy(con, query, inputs, path, None, ["measure", "system", "query_id"])


@contextmanager
def prepared(qrels, run, measures: str | Iterable[str], conventions: Conventions, *, con=None, columns=None,
             split_by_tag: bool = False, subtopics=None) -> Iterator[tuple[duckdb.DuckDBPyConnection, list, Source, Source]]:
    """What the command line's evaluations do before their statement (evaluate_rows, evaluate_file, the
    Spark engine's): the connection, the measures parsed, and the inputs read, checked and compared. The
    subtopic judgments' table, if any, rides on the qrels source as ``subtopics``."""
    con = connect(con) if con is not None else default_connection()
    specs = measure_specs(con, measures, rel=conventions.rel, docs=conventions.docs)
    with subtopic_judgments(con, qrels, subtopics, specs, conventions, columns) as (qrels, subtopics_table), \
            checked_sources(con, qrels, run, columns, conventions.duplicates, None, split_by_tag) as (qrels_source,
                                                                                                    run_source):
        compare_inputs(con, qrels_source, run_source, specs, queries=conventions.queries, ties=conventions.ties)
        warn_unjudged_subtopics(con, qrels_source, run_source, subtopics_table, specs)
        qrels_source.subtopics = subtopics_table
        yield con, specs, qrels_source, run_source


def warn_unjudged_subtopics(con, qrels: Source, run: Source, subtopics: str | None, specs) -> None:
    """Queries evaluated (in the qrels and the run) that the subtopic judgments lack score 0 on the
    diversity measures: said, not left silent."""
    if subtopics is None or not any(needs_subtopics(spec["metric"]) for spec in specs):
        return
    missing, examples, evaluated = con.execute(
        f"SELECT count(*) FILTER (WHERE s.query_id IS NULL), min(q.query_id, 3) FILTER (WHERE s.query_id IS NULL), "
        f"count(*) FROM (SELECT query_id FROM {qrels.queries} SEMI JOIN (SELECT query_id FROM {run.queries}) "
        f"USING (query_id)) q LEFT JOIN (SELECT DISTINCT query_id FROM {subtopics}) s USING (query_id)").fetchall()[0]
    if missing:
        warn(f"{missing} of {evaluated} queries evaluated have no subtopic judgments (such as {_examples(examples)}): "
             f"the diversity measures score them 0")


@contextmanager
def subtopic_judgments(con, qrels, subtopics, specs, conventions: Conventions,
                       columns=None) -> Iterator[tuple[object, str | None]]:
    """The qrels to read (the subtopic judgments' own when ``qrels`` is None) and the checked table of
    subtopic judgments (None without them, read with the caller's ``columns`` as the qrels are); a
    diversity measure without them is refused here, before anything is read."""
    diverse = [spec["measure"] for spec in specs if needs_subtopics(spec["metric"])]
    if subtopics is None:
        refuse_without_subtopics(specs)
    if diverse and conventions.judged_only:
        raise MeasureError(f"judged_only does not apply to {', '.join(diverse)}: they rank the documents of the "
                           "subtopic judgments among the whole run")
    if subtopics is None:
        if qrels is None:
            raise InputError("qrels: none given; give qrels, or subtopics= to evaluate against subtopic judgments")
        yield qrels, None
        return
    from rankkit.io.subtopics import load_subtopics, qrels_of_subtopics

    table = load_subtopics(con, subtopics, columns=columns)
    view = qrels_of_subtopics(con, table) if qrels is None else None
    # read and checked here under a name that says what they are (messages would say 'table rankkit_...')
    derived = load(con, view, "qrels", label="the qrels of the subtopic judgments") if view is not None else None
    try:
        yield (derived.table if derived is not None else qrels), table
    finally:
        if derived is not None:
            release(con, derived)
            con.execute(f"DROP VIEW IF EXISTS {view}")
        con.execute(f"DROP TABLE IF EXISTS {table}")


@contextmanager
def checked_sources(con, qrels, run, columns, duplicates: str, progress,
                    split_by_tag: bool = False) -> Iterator[tuple[Source, Source]]:
    """The checked qrels and run; what was made here to read them goes at the end (read_qrels/read_run
    results stay)."""
    with Progress(con, "reading", enabled=progress):
        qrels_source = load(con, qrels, "qrels", columns=columns, duplicates=duplicates)
        try:
            run_source = load_runs(con, run, columns=columns, duplicates=duplicates, split_by_tag=split_by_tag)
        except BaseException:
            release(con, qrels_source)
            raise
    try:
        yield qrels_source, run_source
    finally:
        release(con, run_source)
        release(con, qrels_source)


def refuse_without_subtopics(specs) -> None:
    """A diversity measure asked where no subtopic judgments were given: refused, saying what to give."""
    diverse = [spec["measure"] for spec in specs if needs_subtopics(spec["metric"])]
    if diverse:
        raise MeasureError(f"{', '.join(diverse)} need{'s' * (len(diverse) == 1)} subtopic judgments (TREC's 'query "
                           "subtopic doc grade', ndeval's qrels): give subtopics= (rankkit eval --subtopics FILE)")


def evaluation_query(qrels_source: Source, run_source: Source, specs, per_query: bool, slices,
                     conventions: Conventions, subtopics: str | None = None, kept: str | None = None) -> tuple[str, dict]:
    """The SQL evaluating the sources (see engine_query), and its parameters; ``subtopics``: the table of
    subtopic judgments, read only where a diversity measure is asked; ``kept``: the table
    kept_query_side made for these qrels and specs."""
    inputs = {"qrels": qrels_source.table, "run": run_source.engine}
    if subtopics is None:
        refuse_without_subtopics(specs)  # compare, report: they take no subtopic judgments (yet)
    elif any(needs_subtopics(spec["metric"]) for spec in specs):
        inputs["subtopics"] = subtopics
    if slices:
        inputs.update(slices=slices[0], attribute=slices[1])
    window = ranks_by_window(qrels_source, run_source, conventions.ties)
    return engine_query(per_query, bool(slices), specs, conventions, window=window,
                        keyed=bool(run_source.keyed) and not window, kept=kept), inputs


# kept_query_side's tables per connection, by the SQL that made them (it names the qrels table)
_kept: "weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, dict[str, str]]" = weakref.WeakKeyDictionary()


def kept_query_side(con: duckdb.DuckDBPyConnection, qrels_source: Source, specs, conventions: Conventions) -> str | None:
    """A temp table of what the statement computes once per query of the qrels (rankkit.compose.query_side),
    for qrels read once and evaluated again and again (a read_qrels result in a notebook loop, a sweep):
    made by their first evaluation with these measures, dropped with them (rankkit.forget), not made
    again by each later call. None for qrels read for this call alone (kept, they would cost more)."""
    held = holder(qrels_source)
    if held is None or any(needs_subtopics(spec["metric"]) for spec in specs):  # (their subtopics are not kept)
        return None
    sql = query_side(specs, qrels=DUCKDB.literal(held.table, "VARCHAR"), ties=conventions.ties,
                     queries=conventions.queries, dialect=LOADED)
    tables = _kept.setdefault(con, {})
    if sql not in tables:
        table = temp_name("qrels_features")
        with _errors():
            con.execute(f"CREATE TEMP TABLE {table} AS {sql}")
        held.owned.append(("table", table))
        tables[sql] = table
    return tables[sql]


def ranks_by_window(qrels: Source, run: Source, ties: str) -> bool:
    """Whether the run is ranked by rankkit.window_ranks (sorting every row) rather than rankkit.ranks
    (counting): for a run of at most WINDOW_ROWS rows against qrels judging more than JUDGED_COUNTED
    documents a query on average. rankkit.ranks counts the ranks of a query only where it retrieved
    at most that many judged documents and sorts the others; where most queries are sorted anyway,
    its counting joins and their planning cost more than one window. Sparse
    judgments (MS MARCO's one a query) are counted, cheaper at every size. 0 rows: not counted."""
    return (ties != "average" and 0 < run.rows <= WINDOW_ROWS
            and qrels.rows > JUDGED_COUNTED * max(qrels.lists, 1))


def engine_query(per_query: bool, sliced: bool, specs: Iterable[Mapping], conventions: Conventions = Conventions(), *,
                 window: bool = False, keyed: bool = False, kept: str | None = None) -> str:
    """What rankkit.per_query and rankkit.aggregate (or their _by forms) compute, for inputs that
    load() checked: rankkit.ranks (rankkit.window_ranks_loaded with ``window``, for a small run), then the
    statement rankkit.compose writes for ``specs`` (only their features, each once as a column,
    parameters as literals), then rankkit.over_values (or slice_values, over_slices). Binding
    rankkit.input_checks, and rankkit.per_query_ranked with a CASE over every measure, was most of
    the time of a small evaluation and bought nothing here. The values are
    MATERIALIZED: the aggregate reads them once.
    Parameters by name: qrels, run, and slices, attribute when ``sliced``."""
    query = _stages(specs, conventions, window=window, keyed=keyed, kept=kept)
    if sliced:
        query += ", rankkit_sliced AS (FROM rankkit.slice_values('rankkit_values', $slices, $attribute))"
        return query + (" FROM rankkit_sliced" if per_query else " FROM rankkit.over_slices('rankkit_sliced')")
    return query + (" FROM rankkit_values" if per_query else " FROM rankkit.over_values('rankkit_values')")


def _stages(specs: Iterable[Mapping], conventions: Conventions, *, window: bool, keyed: bool,
            kept: str | None = None) -> str:
    """engine_query's common part: the ranks (by rankkit.window_ranks_loaded with ``window``), then the
    per-query values as ``rankkit_values``; with a diversity measure, the run ranked against the
    subtopic judgments too (rankkit.subtopic_ranks, parameter ``subtopics``). The conventions are
    literals: DuckDB folds what they decide (the tie rule's sort keys, the judged_only branch) as it
    plans, where a parameter is bound and kept as an expression."""
    ties, scores, depth, queries, judged_only = conventions.sql_arguments()
    diverse = any(needs_subtopics(spec["metric"]) for spec in specs)
    subtopic_inputs = {"subtopics": "$subtopics", "subtopic_ranks": "rankkit_subtopic_ranked"} if diverse else {}
    values = compose(specs, qrels="$qrels", ranks="rankkit_ranked_run", ties=ties, queries=queries, dialect=LOADED,
                     kept=kept, **subtopic_inputs)
    literal = DUCKDB.literal
    ranking = f"ties := {literal(ties, 'VARCHAR')}, scores := {literal(scores, 'VARCHAR')}, depth := {literal(depth, 'BIGINT')}"
    arguments = f"{ranking}, judged_only := {'true' if judged_only else 'false'}"
    subtopic_ranks = (f", rankkit_subtopic_ranked AS (FROM rankkit.subtopic_ranks($subtopics, $run, {ranking}))"
                      if diverse else "")
    # load() checked the columns (rankkit.window_ranks would bind that check again)
    ranks = (f"rankkit.window_ranks_loaded($qrels, $run, {arguments})" if window else
             f"rankkit.ranks($qrels, $run, {arguments}, keyed := {'true' if keyed else 'false'})")
    return f"WITH rankkit_ranked_run AS (FROM {ranks}){subtopic_ranks}, rankkit_values AS MATERIALIZED ({values})"


def long_query(specs: Iterable[Mapping], per_query: bool, summary: bool, digits: int | None,
               conventions: Conventions, *, window: bool = False, keyed: bool = False) -> str:
    """The command line's table in SQL, as rankkit.output writes it in csv and json: ``measure,
    system, query_id, value, queries``, the per-query values (with ``per_query``), then the
    aggregate as query ``all`` with its query count (with ``summary``), per system in the order
    of ``$systems`` and per measure in the order of ``$measures``. ``digits``: rounded, else full
    precision. Parameters as engine_query's, and systems, measures."""
    value = "value" if digits is None else f"round(value, {int(digits)})"
    parts = ["SELECT 0 AS part, measure, system, query_id, value, NULL::BIGINT AS queries FROM rankkit_values"] * per_query
    parts += ["SELECT 1 AS part, measure, system, 'all' AS query_id, value, queries "
              "FROM rankkit.over_values('rankkit_values')"] * summary
    if not parts:  # -n without -q: nothing to write but the header
        parts = ["SELECT 0 AS part, NULL::VARCHAR AS measure, NULL::VARCHAR AS system, NULL::VARCHAR AS query_id, "
                 "NULL::DOUBLE AS value, NULL::BIGINT AS queries WHERE false"]
    return (f"{_stages(specs, conventions, window=window, keyed=keyed)} SELECT measure, system, query_id, {value} AS value, queries "
            f"FROM ({' UNION ALL '.join(parts)}) ORDER BY list_position($systems, system), part, "
            f"list_position($measures, measure), query_id")


def _evaluate(con, qrels_source: Source, run_source: Source, specs, per_query: bool, *, conventions: Conventions,
              by, query_table, columns, ci, seed, resamples, output, relation,
              progress, subtopics: str | None = None) -> pd.DataFrame | Path | duckdb.DuckDBPyRelation:
    compare_inputs(con, qrels_source, run_source, specs, queries=conventions.queries, ties=conventions.ties)
    warn_unjudged_subtopics(con, qrels_source, run_source, subtopics, specs)
    slices = slice_source(con, query_table, by, columns) if by is not None or query_table is not None else None
    kept = kept_query_side(con, qrels_source, specs, conventions)
    query, inputs = evaluation_query(qrels_source, run_source, specs, per_query, slices, conventions, subtopics, kept)
    select = _result_select(query, per_query, slices)
    if output is not None:
        return _copy(con, select, inputs, Path(output), progress, ["measure", "system", "query_id", *slices[1:2]]
                     if slices else ["measure", "system", "query_id"])
    if relation:
        return _relation(con, select, inputs, progress)
    with Progress(con, "evaluating", enabled=progress):
        frame = run_query(con, select, inputs)
    if ci is not None:
        with Progress(con, "bootstrapping", enabled=progress):
            values = run_query(con, evaluation_query(qrels_source, run_source, specs, True, slices, conventions,
                                                     subtopics, kept)[0], inputs)
        frame = with_ci(con, frame, values, ci, seed, resamples, by)
    return frame


def _result_select(query: str, per_query: bool, slices) -> str:
    """The result's columns and row order, as evaluate's DataFrame has them, in SQL: always with
    ``system``, as rankkit.evaluate has it in SQL (NULL for a table that names none)."""
    by = f'slice AS "{slices[1]}", ' if slices else ""
    if per_query:
        return f"SELECT measure, system, {by}query_id, value FROM ({query}) ORDER BY i, system, {by and 'slice, '}query_id"
    return f"SELECT measure, system, {by}value, queries FROM ({query})"


def _relation(con, select: str, params: list, progress) -> duckdb.DuckDBPyRelation:
    """The result in a temp table: the inputs' temp tables go when evaluate returns, the result stays."""
    name = f"rankkit_result_{next(_views)}"
    with Progress(con, "evaluating", enabled=progress):
        run_query(con, f"CREATE TEMP TABLE {name} AS {select}", params, fetch=False)
    return duckdb.table(con, name)


def _copy(con, select: str, params: list, path: Path, progress, text: list[str] = ()) -> Path:
    """Stream the result into a file with DuckDB's COPY (per-query output may not fit in memory),
    written whole (see rankkit._files). In CSV and TSV, the ``text`` columns' cells are quoted
    against spreadsheet formulas (rankkit.safe.csv); Parquet and JSON are typed and need nothing."""
    options = _copy_options(path)
    if text and path.suffix.lower() in (".csv", ".tsv"):
        from rankkit.safe.csv import sql_cell

        cells = ", ".join(f"{sql_cell(ident(name))} AS {ident(name)}" for name in text)
        select = f"SELECT * REPLACE ({cells}) FROM ({select})"
    with replacing(path) as partial, Progress(con, f"writing {path.name}", enabled=progress):
        target = str(partial).replace("'", "''")
        run_query(con, f"COPY ({select}) TO '{target}' {options}", params, fetch=False)
    return path


def _copy_options(path: Path) -> str:
    """COPY's options for the file's format, read from its suffix."""
    options = OUTPUT_FORMATS.get(path.suffix.lower())
    if options is None:
        raise InputError(f"{path}: output must end in {', '.join(OUTPUT_FORMATS)}")
    return options


def with_ci(con: duckdb.DuckDBPyConnection, frame: pd.DataFrame, values: pd.DataFrame, level: float, seed: int | None,
            resamples: int, by: str | None) -> pd.DataFrame:
    """The aggregate with its interval over queries (the sum's for counts): the percentile bootstrap
    (rankkit.stats.AGGREGATE_INTERVAL), the one interval every surface shows for an aggregate. It
    stays inside the values' range, so inside a bounded measure's bounds, where Student's t does not."""
    import pandas as pd

    from rankkit.stats import bootstrap_ci

    if not 0 < level < 1:
        raise RankkitError(f"ci must be a confidence level between 0 and 1, such as 0.95, got {level!r}")
    keys = ["measure", "system"] + (["slice"] if "slice" in values.columns else [])
    # queries in a fixed order: the same seed must draw the same queries whatever order SQL returned
    values = values.drop_duplicates(keys + ["query_id"]).sort_values(keys + ["query_id"], kind="stable")
    rows = []
    for key, group in values.groupby(keys, sort=False, dropna=False):
        agg, found = group["agg"].iloc[0], group["value"].dropna()
        combined = AGGREGATIONS[agg]  # a geometric mean's terms are the logs of the values, from SQL
        terms = geometric_terms(con, found) if combined.log else found
        low, high = bootstrap_ci(terms, combined.of_terms, level, seed, resamples)
        rows.append({**dict(zip(keys, key)), "ci_low": low, "ci_high": high})
    intervals = pd.DataFrame(rows, columns=keys + ["ci_low", "ci_high"]).rename(columns={"slice": by})
    shared = list(intervals.columns[:-2])
    # the frame's types for the keys: a system column of None (a table naming none) reads back as NaN
    intervals = intervals.astype({key: frame[key].dtype for key in shared})
    return frame.merge(intervals, on=shared, how="left")


def geometric_terms(con: duckdb.DuckDBPyConnection, values) -> list[float]:
    """Each value's term in a geometric mean (gm_map, gm_bpref), as rankkit.over_queries takes it:
    rankkit.geometric_term, the log of the value floored at trec_eval's 0.00001."""
    return con.execute("SELECT list_transform($values::DOUBLE[], lambda v: rankkit.geometric_term(v))",
                       {"values": [float(v) for v in values]}).fetchall()[0][0]


def slice_source(con: duckdb.DuckDBPyConnection, query_table, by: str | None,
                 columns: Mapping[str, str | None] | None = None) -> tuple[str, str]:
    """The table holding the query attributes and the attribute's column, checked; its query id
    column found as the readers find it (``qid``, ``topic`` ..., or mapped by ``columns``)."""
    if query_table is None or not isinstance(by, str):
        raise InputError("slices need both query_table (query_id plus attribute columns) and by (a column name)")
    if by in RESERVED:
        raise InputError(f"by: the attribute column cannot be called {by!r}; rename it in the query table")
    name = query_table_view(con, query_table, columns=columns, keep=by)
    present = _column_names(con, name)
    for needed in ("query_id", by):
        if needed not in present:
            also = f" (also recognised: {', '.join(ALIASES[needed][1:])})" if needed in ALIASES else ""
            raise InputError(f"query_table has no column {needed!r}{also}; its columns: {', '.join(present)}")
    return name, by


def query_table_view(con: duckdb.DuckDBPyConnection, query_table, id_column: str = "query_id",
                     columns: Mapping[str, str | None] | None = None, keep: str | None = None) -> str:
    """The name of a table or view in ``con`` holding a query table (a path to CSV/TSV/Parquet, a
    DataFrame, a relation or a table name), its id column named ``id_column``: found under the
    readers' names for it (rankkit.names.ALIASES) or the caller's ``columns`` mapping, never the
    column ``keep`` (the attribute sliced by); ids read from files stay strings."""
    if is_frame(query_table):
        name = f"rankkit_query_table_{next(_views)}"
        con.register(name, query_table)
    elif duckdb.is_relation(query_table):
        name = f"rankkit_query_table_{next(_views)}"
        query_table.create_view(name, replace=True)
    elif isinstance(query_table, str) and is_table(con, query_table):
        name = str(query_table)
    elif isinstance(query_table, (str, Path)) and Path(query_table).exists():
        name = f"rankkit_query_table_{next(_views)}"
        path = "'" + str(query_table).replace("'", "''") + "'"
        if str(query_table).endswith(".parquet"):
            reader = f"read_parquet({path})"
        else:  # ids are strings: "007" stays "007"
            key = _id_column(_column_names(con, f"read_csv({path})"), id_column, columns, keep)
            reader = f"read_csv({path}" + (f", types = {{{quote(key)}: 'VARCHAR'}})" if key else ")")
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM {reader}")
    else:
        raise InputError(f"query_table: expected a file path, a DataFrame, a DuckDB relation or a table name, "
                         f"got {query_table!r}")
    key = _id_column(_column_names(con, name), id_column, columns, keep)
    if key is None or key == id_column:
        return name
    renamed = f"rankkit_query_table_{next(_views)}"
    con.execute(f"CREATE OR REPLACE TEMP VIEW {renamed} AS SELECT * RENAME ({ident(key)} AS {ident(id_column)}) "
                f"FROM {name}")
    return renamed


def _column_names(con: duckdb.DuckDBPyConnection, source: str) -> list[str]:
    return [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()]


def _id_column(present: list[str], id_column: str, columns: Mapping[str, str | None] | None,
               keep: str | None) -> str | None:
    """The column of ``present`` that is the ``id_column``: itself, the one ``columns`` maps to it, or
    the one of its common names; None if none is (the caller says what is missing)."""
    by_lower = {name.lower(): name for name in present if name != keep}
    if id_column in by_lower:
        return by_lower[id_column]
    mapped = [by_lower[theirs.lower()] for theirs, ours in (columns or {}).items()
              if ours == id_column and theirs.lower() in by_lower]
    found = mapped or [by_lower[name] for name in ALIASES.get(id_column, ()) if name in by_lower]
    if len(found) > 1:
        raise InputError(f"query_table: columns {', '.join(found)} could each be the {id_column}; say which with "
                         f"columns={{{found[0]!r}: {id_column!r}}}")
    return found[0] if found else None


def load_runs(con: duckdb.DuckDBPyConnection, run, *, columns=None, duplicates: str = "error",
              split_by_tag: bool = False) -> Source:
    """One checked run source; a list or dict of runs becomes one view whose ``system`` names each
    (``name/system`` for a run that holds several systems); a glob of TREC run files is its files
    (see :func:`run_files`)."""
    run = run_files(run)
    if not isinstance(run, (list, tuple, dict)):
        return load(con, run, "run", columns=columns, duplicates=duplicates, split_by_tag=split_by_tag)
    items = list(run.items()) if isinstance(run, dict) else [(listed_run_name(r, i), r) for i, r in enumerate(run, 1)]
    if not items:
        raise InputError("run: the list of runs is empty")
    named: list[str] = []
    for name, _ in items:
        named.append(unique_name(str(name), named))
    items = list(zip(named, (one for _, one in items)))
    if len(items) > 1 and duplicates == "error" and not split_by_tag:
        # TREC files read together (a file is one system, its name): one read and one checking pass
        together = load_run_files(con, items)
        if together is not None:
            return together
    names: list[str] = []
    tags = []
    sources = []
    for name, one in items:
        try:
            source = load(con, one, "run", columns=columns, duplicates=duplicates, split_by_tag=split_by_tag)
        except BaseException:
            for done in sources:
                release(con, done)
            raise
        sources.append(source)
        named = [s for s in source.systems if s is not None]
        tag = f"{_quote(name)} || '/' || system" if len(named) > 1 else _quote(name)
        tags.append(tag)
        names.append(name)
    view = f"rankkit_run_list_{next(_views)}"
    keyed = all(source.keyed for source in sources)  # the engine joins on the key only if every row has it
    con.execute(f"CREATE TEMP VIEW {view} AS " + " UNION ALL ".join(
        f"SELECT {tag} AS system, query_id, doc_id, rank, score{', rankkit_key' if keyed else ''} FROM {source.engine}"
        for tag, source in zip(tags, sources)))
    counts = f"{view}_queries"
    con.execute(
        f"CREATE TEMP TABLE {counts} AS " + " UNION ALL ".join(
            f"SELECT {tag} AS system, query_id, n, docs, no_rank FROM {s.queries}" for tag, s in zip(tags, sources))
    )
    systems = [f"{name}/{s}" if len([x for x in src.systems if x is not None]) > 1 else name
               for name, src in zip(names, sources) for s in (src.systems if len(src.systems) > 1 else [None])]
    label = ", ".join(s.label for s in sources)
    owned = [("view", view), ("table", counts)] + [item for source in sources for item in source.owned]
    return Source(table=view, label=label, kind="run", queries=counts, systems=systems, owned=owned,
                  keyed=view if keyed else "", rows=sum(source.rows for source in sources),
                  lists=sum(source.lists for source in sources))


def run_files(run):
    """The runs with each glob of TREC run files replaced by the files it matches, sorted
    (rankkit.io.files.run_glob_files): a list, each file a run named as if it were listed alone. A
    glob under a name (``{name: glob}``) is refused: its files are named by themselves."""
    if isinstance(run, dict):
        for name, one in run.items():
            if run_glob_files(one) is not None:
                raise InputError(f"run {name!r}: {one} is a glob of TREC run files, each a run named by its file: "
                                 f"give it without a name (alone or in a list)")
        return run
    if not isinstance(run, (list, tuple)):
        files = run_glob_files(run)
        return run if files is None else files
    expanded = []
    for one in run:
        files = run_glob_files(one)
        expanded += [one] if files is None else files
    return expanded


def listed_run_name(run, position: int) -> str:
    """The name of the ``position``-th run of a list: a file's stem, a table's name, else ``run<position>``."""
    if isinstance(run, (str, Path)) and not isinstance(run, str) or (isinstance(run, str) and ("/" in run or "." in run)):
        return run_name(run) or f"run{position}"
    if isinstance(run, str):
        return run
    return f"run{position}"


def unique_name(name: str, taken: list[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)`` ... when it is taken: two runs never share a name."""
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name} ({n})", n + 1
    return candidate


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


# compare_inputs' counts per connection and pair of checked sources: each source's table of queries
# is made once, by its checking pass, under a name used once, so the counts of a pair never change (a
# notebook loop evaluating one run again and again asked for them at every call)
_compared: "weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, dict]" = weakref.WeakKeyDictionary()


def compare_inputs(con: duckdb.DuckDBPyConnection, qrels: Source, run: Source, specs=(), *,
                   queries: str = "both", ties: str = "trec", warn: bool = True) -> dict:
    """Check a run against its qrels before evaluating: no query in common is an error; queries on
    one side only, fractional grades and grades above ERR's scale are warnings. Returns the counts."""
    found = _compared.setdefault(con, {}).get((qrels.queries, run.queries))
    if found is None:
        found = con.execute(
            f"SELECT count(r.query_id), count(q.query_id), count(r.query_id) FILTER (WHERE q.query_id IS NOT NULL), "
            f"count(r.query_id) FILTER (WHERE q.query_id IS NULL), min(r.query_id, 3) FILTER (WHERE q.query_id IS NULL), "
            f"count(q.query_id) FILTER (WHERE r.query_id IS NULL), min(q.query_id, 3) FILTER (WHERE r.query_id IS NULL), "
            f"min(r.query_id, 3), min(q.query_id, 3), (SELECT sum(no_rank) FROM {run.queries}) "
            f"FROM (SELECT DISTINCT query_id FROM {run.queries}) r FULL JOIN (SELECT query_id FROM {qrels.queries}) q "
            f"ON r.query_id = q.query_id"
        ).fetchall()[0]
        _compared[con][(qrels.queries, run.queries)] = found
    counts = dict(zip(("run_queries", "qrels_queries", "common", "run_only", "run_only_examples",
                       "qrels_only", "qrels_only_examples", "run_examples", "qrels_examples", "no_rank"), found))
    checked = checked_counts(counts, qrels, run, specs, queries=queries, ties=ties, warn=warn)
    if warn:
        _warn_no_relevant(con, qrels, specs)
    return checked


def _warn_no_relevant(con: duckdb.DuckDBPyConnection, qrels: Source, specs) -> None:
    """At a relevance level above 1 (a recommender's rating 4, say), judged queries with no document
    that high score 0 on R, AP, P, RR and Success, as trec_eval scores them; said, since at such a
    level they can be many. (At level 1 a query without a relevant document is TREC's rare case.)"""
    levels = sorted({spec["rel"] for spec in specs if _takes_rel(spec) and spec["rel"] > 1})
    for level in levels:
        none, queries, examples = con.execute(
            f"SELECT count(*) FILTER (WHERE top < $level), count(*), min(query_id, 3) FILTER (WHERE top < $level) "
            f"FROM {qrels.queries}", {"level": level}).fetchall()[0]
        if none:
            asked = ", ".join(dict.fromkeys(s["measure"] for s in specs if _takes_rel(s) and s["rel"] == level))
            warn(f"{qrels.label}: {none} of {queries} judged queries have no document graded {level:g} or above "
                 f"(such as {_examples(examples)}): {asked} score 0 there, as in trec_eval")


def checked_counts(counts: dict, qrels, run, specs=(), *, queries: str = "both", ties: str = "trec",
                   warn: bool = True) -> dict:
    """compare_inputs' errors and warnings from its counts (the Spark engine counts them itself);
    ``qrels`` and ``run`` need ``label``, the qrels ``fractional`` and ``top_grade`` too."""
    if counts["run_queries"] and not counts["common"]:
        raise InputError(
            f"{run.label} and {qrels.label} have no query in common: the run has {counts['run_queries']} "
            f"(such as {_examples(counts['run_examples'])}), the qrels {counts['qrels_queries']} "
            f"(such as {_examples(counts['qrels_examples'])}); ids are compared as strings"
        )
    if ties == "rank" and counts["no_rank"]:
        raise InputError(f"{run.label}: ties='rank' needs an integer rank on every row; "
                         f"{counts['no_rank']} rows have none")
    if warn:
        _warn_coverage(counts, qrels, run, queries)
        _warn_grades(qrels, specs)
    return counts


def _warn_coverage(counts: dict, qrels: Source, run: Source, queries: str) -> None:
    if counts["run_only"]:
        warn(
            f"{run.label}: {counts['run_only']} of {counts['run_queries']} queries have no judgments in "
            f"{qrels.label} (such as {_examples(counts['run_only_examples'])}) and are not evaluated")
    if counts["qrels_only"]:
        then = ("score 0 (queries='qrels')" if queries == "qrels"
                else "are left out of the mean (queries='qrels', trec_eval -c, counts them as 0)")
        warn(
            f"{qrels.label}: {counts['qrels_only']} of {counts['qrels_queries']} judged queries are missing "
            f"from {run.label} (such as {_examples(counts['qrels_only_examples'])}) and {then}")


def _warn_grades(qrels: Source, specs) -> None:
    if qrels.fractional:
        query_id, doc_id, grade = qrels.fractional
        warn(
            f"{qrels.label}: fractional grades (such as {grade:g} for document {doc_id} of query {query_id}); "
            f"rankkit keeps them for gain where trec_eval truncates them (integer_grades=True does too)")
    tops = sorted({s["max"] for s in specs if s["metric"] == "err"})
    if qrels.top_grade is not None and tops and qrels.top_grade > tops[0]:
        warn(
            f"{qrels.label}: grade {qrels.top_grade:g} is above ERR's scale (max={tops[0]:g}), where it counts "
            f"as {tops[0]:g}; say ERR(max={qrels.top_grade:g})@k to use the whole scale")


def _examples(values) -> str:
    return ", ".join(f"'{v}'" for v in (values or [])) or "none"


def measure_specs(con: duckdb.DuckDBPyConnection, measures: str | Iterable[str], rel: float = 1,
                  docs: int = 0) -> list[dict]:
    """Parse measure names with the SQL parser; a bad name raises MeasureError. trec_eval's
    nicknames (official, all_trec, set), its parameter forms (P.5,10) and family names (P, recall)
    expand to the measures they stand for, and an ir_measures measure object is read by its name."""
    names = expand(measures, text=False)
    if not names:
        raise MeasureError("no measure given; name at least one, such as nDCG@10 or AP")
    for name in names:
        if not isinstance(name, str):
            raise MeasureError(f"a measure name must be a string, got {name!r}")
    key = (tuple(names), rel, docs)
    if key not in _parsed:  # a loop over many runs asks for the same names: parsing them is slow
        _parsed[key] = _stored_specs(key) or _parse_specs(con, key)
    specs = [_labelled(dict(spec), rel) for spec in _parsed[key]]
    if float(rel) != 1 and not any(_takes_rel(spec) for spec in specs):
        # nDCG(rel=4) is refused as a name, so rel=4 beside nDCG alone must not pass unsaid either
        warn(f"rel={rel:g} changes none of the measures asked ({', '.join(s['measure'] for s in specs[:5])}"
             f"{', ...' if len(specs) > 5 else ''}): they take no relevance level")
    return specs


def _takes_rel(spec: Mapping) -> bool:
    return "rel" in registry()[spec["metric"]].params


def _labelled(spec: dict, rel: float) -> dict:
    """The spec named for the measure it computes: ``AP`` asked with ``rel=2`` computes
    ``AP(rel=2)`` and is labelled so, as when asked by that name. A trec_eval name keeps its
    spelling (trec_eval -l 2 prints ``map``), as does a name that sets its own level."""
    name = spec["measure"]
    if (float(rel) == 1 or "rel" not in registry()[spec["metric"]].params or family_of(name) is not None
            or "rel=" in name.replace(" ", "").lower()):
        return spec
    spec["measure"] = label(spec)
    return spec


_parsed: dict[tuple, list[dict]] = {}
# The SQL parser's answers are also kept on disk, per version of the SQL: planning its query was much
# of a fresh process's start (rankkit eval) before any file is read.
STORED_SPECS = 256  # lists of names kept; the oldest go first


def _parse_specs(con: duckdb.DuckDBPyConnection, key: tuple) -> list[dict]:
    names, rel, docs = key
    try:
        rows = con.execute("SELECT spec FROM rankkit.measure_specs(?::VARCHAR[], rel := ?, docs := ?)",
                           [list(names), rel, docs]).fetchall()
    except duckdb.Error as error:
        raise MeasureError(_message(error)) from None
    specs = [row[0] for row in rows]
    kept = stored("specs")
    kept[_spec_key(key)] = specs
    store("specs", dict(list(kept.items())[-STORED_SPECS:]))
    return specs


def _stored_specs(key: tuple) -> list[dict] | None:
    return stored("specs").get(_spec_key(key))


def _spec_key(key: tuple) -> str:
    import json

    return json.dumps([list(key[0]), *key[1:]])


def resolve(con: duckdb.DuckDBPyConnection, source, kind: str) -> tuple[str, bool]:
    """The name of a checked table or view in ``con`` holding ``source``, and True (it was checked)."""
    loaded = load_runs(con, source) if kind == "run" else load(con, source, kind)
    return loaded.table, True


def run_query(con: duckdb.DuckDBPyConnection, query: str, params: list, fetch: bool = True) -> pd.DataFrame | None:
    """Run a rankkit query; errors raised in SQL become RankkitError with their message."""
    with _errors():
        result = con.execute(query, params)
        return result.df() if fetch else None


def run_rows(con: duckdb.DuckDBPyConnection, query: str, params: list) -> list[dict]:
    """run_query's rows as dicts, without pandas."""
    with _errors():
        result = con.execute(query, params)
        names = [column[0] for column in result.description]
        return [dict(zip(names, row)) for row in result.fetchall()]


def run_numpy(con: duckdb.DuckDBPyConnection, query: str, params) -> dict:
    """run_query's columns as numpy arrays (no Python object per value)."""
    with _errors():
        return con.execute(query, params).fetchnumpy()


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    except duckdb.Error as error:
        message = _message(error)
        if "rankkit:" in str(error):
            raise RankkitError(message) from None
        raise InputError(message) from None


def _message(error: Exception) -> str:
    text = str(error)
    found = re.search(r"rankkit: (.*)", text)
    if not found:
        return text.strip().splitlines()[0]
    # the macros' hints name arguments as SQL does (judges := [a, b]); a Python caller writes judges=[a, b]
    return re.sub(r"\b(\w+) := ", r"\1=", found.group(1).strip())
