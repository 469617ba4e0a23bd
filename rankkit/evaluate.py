"""evaluate(): measure names in, pandas frames out; every number is computed by the SQL macros. The
command line's evaluations (evaluate_rows, evaluate_file) share its steps: reading the inputs
(rankkit.inputs), checking them (rankkit.input_checks), the statement (rankkit.statement)."""

from __future__ import annotations

from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping

from rankkit import _engine as duckdb

from rankkit._files import named_inputs, refuse_inputs
from rankkit._sql import connect
from rankkit.beyond import SideTables, refuse_missing, rows, spec, split, system_intervals, top_tables
from rankkit.conventions import Conventions, resolve_conventions
from rankkit.copying import copy_options, copy_result
from rankkit.errors import InputError, RankkitError
from rankkit.input_checks import compare_inputs, warn_unjudged_subtopics
from rankkit.inputs import checked_sources, load_runs, subtopic_judgments
from rankkit.io import Source, as_checked, default_connection, load, release, temp_name
from rankkit.progress import Progress
from rankkit.measures import top_k_read
from rankkit.running import run_query, run_rows
from rankkit.specs import measure_specs, packed
from rankkit.statement import evaluation_query, kept_query_side, long_query, ranks_by_window

if TYPE_CHECKING:  # pandas loads with the first frame: the command line's path never needs it
    import pandas as pd

__all__ = ["evaluate", "evaluate_rows", "evaluate_file", "beyond_rows"]


def evaluate(qrels, run, measures: str | Iterable[str], per_query: bool = False, *,
             con: duckdb.DuckDBPyConnection | None = None, rel: float = 1, ties: str = "trec",
             scores: str = "double", depth: int | None = None, queries: str = "both",
             judged_only: bool = False, docs: int = 0, by: str | None = None, query_table=None,
             ci: float | None = None, seed: int | None = 0,
             resamples: int = 10000, columns: Mapping[str, str | None] | None = None,
             duplicates: str = "error", output: str | Path | None = None, relation: bool = False,
             progress: bool | None = None, split_by_tag: bool = False,
             conventions: Conventions | str | None = None, subtopics=None, items=None,
             interactions=None) -> pd.DataFrame | Path | duckdb.DuckDBPyRelation:
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
    items, interactions:
        The side tables of the beyond-accuracy measures (``Coverage@k``, ``Entropy@k``, ``Gini@k``,
        ``Novelty@k``, ``ARP@k``, ``TailShare@k``, ``ILD@k``; sql/metrics/beyond/): ``items`` the catalog
        (an ``item_id`` column, optionally ``features``, a list of numbers, or ``category``),
        ``interactions`` the training log that defines popularity (``user_id, item_id``); each a path
        (Parquet, CSV, TSV), a DataFrame, a relation or a table name. A measure whose table is missing is
        refused naming it; ``qrels`` may be None when only these are asked for. Their rows follow the
        others'; with ``ci`` a system-level one (Coverage, Entropy, Gini) is computed again on each
        resample of the users.

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
    conventions = resolve_conventions(conventions, rel=rel, ties=ties, scores=scores, depth=depth, queries=queries,
                                      duplicates=duplicates, judged_only=judged_only, docs=docs)
    # the names parsed once: the composer below finds them parsed
    others, beyond = split(measures, rel=conventions.rel, docs=conventions.docs, pack=conventions.pack)
    if beyond:
        if output is not None or relation or by is not None or query_table is not None:
            raise RankkitError(f"{beyond[0]}: the beyond-accuracy measures do not go with output=, relation=, by= "
                               f"or query_table= yet")
        return _with_beyond(qrels, run, others, beyond, per_query, con=con, items=items, interactions=interactions,
                            ci=ci, seed=seed, resamples=resamples, columns=columns, split_by_tag=split_by_tag,
                            progress=progress, subtopics=subtopics, conventions=conventions)
    if ci is not None and (output is not None or relation):
        raise RankkitError("ci is computed in Python over a frame: it does not go with output= or relation=True")
    if output is not None:  # never written over what it reads
        refuse_inputs([("output", output)], named_inputs(qrels=qrels, run=run, subtopics=subtopics,
                                                         query_table=query_table))
    con = connect(con) if con is not None else default_connection()
    specs = packed(measure_specs(con, measures, rel=conventions.rel, docs=conventions.docs), conventions.pack)
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
                  docs: int = 0, subtopics=None, pack: str | None = None) -> tuple[list[str | None], list[dict], list[dict] | None]:
    """evaluate() without pandas, for the command line: the systems (in the order given), the
    aggregate rows and, with ``per_query``, the per-query rows, as dicts (``measure, system,
    [query_id,] value ...``) in evaluate()'s order; a NULL value is None. One reading of the inputs."""
    conventions = resolve_conventions(pack, rel=rel, ties=ties, depth=depth, queries=queries, duplicates=duplicates,
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
                  docs: int = 0, subtopics=None, pack: str | None = None) -> Path:
    """The command line's ``-o FILE``: the table it prints in csv and json (see long_query), the
    same fields, written by DuckDB's COPY (streamed; the suffix says the format). One reading of
    the inputs."""
    path = Path(output)
    copy_options(path)  # a wrong suffix is said before the inputs are read
    refuse_inputs([("output", path)], named_inputs(qrels=qrels, run=run, subtopics=subtopics))  # nor replaced
    conventions = resolve_conventions(pack, rel=rel, ties=ties, depth=depth, queries=queries, duplicates=duplicates,
                                      judged_only=judged_only, docs=docs)
    with prepared(qrels, run, measures, conventions, con=con, columns=columns, split_by_tag=split_by_tag,
                  subtopics=subtopics) as (con, specs, qrels_source, run_source):
        _, inputs = evaluation_query(qrels_source, run_source, specs, True, None, conventions,
                                     getattr(qrels_source, "subtopics", None))
        inputs.update(systems=[str(s) for s in run_source.systems], measures=[spec["measure"] for spec in specs])
        window = ranks_by_window(qrels_source, run_source, conventions.ties)
        query = long_query(specs, per_query, summary, digits, conventions, window=window,
                           keyed=bool(run_source.keyed) and not window)
        return copy_result(con, query, inputs, path, None, ["measure", "system", "query_id"])


@contextmanager
def prepared(qrels, run, measures: str | Iterable[str], conventions: Conventions, *, con=None, columns=None,
             split_by_tag: bool = False, subtopics=None) -> Iterator[tuple[duckdb.DuckDBPyConnection, list, Source, Source]]:
    """What the command line's evaluations do before their statement (evaluate_rows, evaluate_file): the
    connection, the measures parsed, and the inputs read, checked and compared. The
    subtopic judgments' table, if any, rides on the qrels source as ``subtopics``."""
    con = connect(con) if con is not None else default_connection()
    specs = packed(measure_specs(con, measures, rel=conventions.rel, docs=conventions.docs), conventions.pack)
    with subtopic_judgments(con, qrels, subtopics, specs, conventions, columns) as (qrels, subtopics_table), \
            checked_sources(con, qrels, run, columns, conventions.duplicates, None, split_by_tag) as (qrels_source,
                                                                                                    run_source):
        compare_inputs(con, qrels_source, run_source, specs, queries=conventions.queries, ties=conventions.ties)
        warn_unjudged_subtopics(con, qrels_source, run_source, subtopics_table, specs)
        qrels_source.subtopics = subtopics_table
        yield con, specs, qrels_source, run_source


def _evaluate(con, qrels_source: Source, run_source: Source, specs, per_query: bool, *, conventions: Conventions,
              by, query_table, columns, ci, seed, resamples, output, relation,
              progress, subtopics: str | None = None) -> pd.DataFrame | Path | duckdb.DuckDBPyRelation:
    from rankkit.intervals import with_ci  # (rankkit eval asks for neither: not imported for it)
    from rankkit.slices import slice_source

    compare_inputs(con, qrels_source, run_source, specs, queries=conventions.queries, ties=conventions.ties)
    warn_unjudged_subtopics(con, qrels_source, run_source, subtopics, specs)
    slices = slice_source(con, query_table, by, columns) if by is not None or query_table is not None else None
    kept = kept_query_side(con, qrels_source, specs, conventions)
    query, inputs = evaluation_query(qrels_source, run_source, specs, per_query, slices, conventions, subtopics, kept)
    select = _result_select(query, per_query, slices)
    if output is not None:
        return copy_result(con, select, inputs, Path(output), progress, ["measure", "system", "query_id", *slices[1:2]]
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


def _with_beyond(qrels, run, others: list[str], beyond: list[str], per_query: bool, *, con, items, interactions, ci,
                 seed, resamples, columns, split_by_tag, progress, subtopics, conventions: Conventions) -> pd.DataFrame:
    """evaluate() of the beyond-accuracy measures (rankkit.beyond) beside the others: the run read once,
    the others evaluated on it as usual, these from its top k and the side tables; their rows after."""
    import pandas as pd

    refuse_missing(beyond, {side for side, given in (("items", items), ("interactions", interactions)) if given is not None})
    con = connect(con) if con is not None else default_connection()
    if others and qrels is None:
        raise InputError(f"qrels: none given; {others[0]} needs them (the beyond-accuracy measures alone do not)")
    with _beyond_inputs(con, run, items, interactions, columns, conventions.duplicates, split_by_tag,
                        qrels) as (run, sides, qrels):
        keys = ["measure", "system", "query_id", "value"] if per_query else ["measure", "system", "value", "queries"]
        with beyond_tops(con, run, others if subtopics is None else [], beyond, conventions) as (ranked, tops):
            frames = [evaluate(qrels, ranked, others, per_query, con=con, conventions=conventions, ci=ci, seed=seed,
                               resamples=resamples, progress=progress, subtopics=subtopics)] if others else []
            found = pd.DataFrame([row[:4] for row in rows(con, beyond, sides, run, conventions.ties, per_query, tops)],
                                 columns=keys)
            if ci is not None:
                found = _beyond_intervals(con, found, beyond, sides, run, conventions.ties, ci, seed, resamples, tops)
        frames.append(found.astype({"value": "float64"}))
        return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


@contextmanager
def _beyond_inputs(con, run, items, interactions, columns, duplicates: str, split_by_tag: bool,
                   qrels=None) -> Iterator[tuple[str, SideTables, str | None]]:
    """The run and the qrels read once, with the column mapping (their checked tables' names), and the
    side tables; all gone at the end."""
    read = [load_runs(con, run, columns=columns, duplicates=duplicates, split_by_tag=split_by_tag)]
    try:
        if qrels is not None:
            read.append(load(con, qrels, "qrels", columns=columns, duplicates=duplicates))
        sides = SideTables(con, items, interactions)
        try:
            yield read[0].table, sides, read[1].table if qrels is not None else None
        finally:
            sides.close()
    finally:
        for source in read:
            release(con, source)


def _beyond_intervals(con, found: pd.DataFrame, beyond: list[str], sides: SideTables, run: str, ties: str, ci: float,
                      seed, resamples: int, tops: dict) -> pd.DataFrame:
    """The beyond-accuracy measures' aggregate with ci_low, ci_high: a per-user one's the interval of its
    mean over users (with_ci, as any measure's), a system-level one's from its macro on each resample."""
    import pandas as pd

    from rankkit.intervals import with_ci

    values = pd.DataFrame([row[:4] for row in rows(con, beyond, sides, run, ties, True, tops) if row[4] == "user"],
                          columns=["measure", "system", "query_id", "value"])
    found = with_ci(con, found, values.assign(agg="mean"), ci, seed, resamples, None)
    for name in (name for name in beyond if spec(name)["level"] == "system"):
        top = tops.get(spec(name)["k"], run)  # the same users and lists, fewer rows to rank
        for system, (low, high) in system_intervals(con, name, sides, top, ties, ci, seed, resamples).items():
            at = (found.measure == name) & (found.system.isna() if system is None else found.system == system)
            found.loc[at, ["ci_low", "ci_high"]] = [low, high]
    return found.astype({"ci_low": "float64", "ci_high": "float64"})  # object when no per-user one had any


def beyond_rows(run, measures: list[str], per_query: bool, *, con, items=None, interactions=None, ties: str = "trec",
                columns=None, duplicates: str = "error", split_by_tag: bool = False,
                tops: dict | None = None) -> tuple[list[dict], list[dict] | None]:
    """The command line's rows of the beyond-accuracy measures (rankkit.beyond), as evaluate_rows gives
    the others': the aggregate's (``measure, system, value, queries``) and, with ``per_query``, the
    per-user ones (``measure, system, query_id, value``; a system-level measure has none), else None;
    the side tables read and the top k ranked once for both (or ``tops``, beyond_tops' tables)."""
    with _beyond_inputs(con, run, items, interactions, columns, duplicates, split_by_tag) as (run, sides, _), \
            (nullcontext(tops) if tops is not None else top_tables(con, measures, run, ties)) as tops:
        aggregate = [dict(zip(("measure", "system", "value", "queries"), row[:4]))
                     for row in rows(con, measures, sides, run, ties, False, tops)]
        if not per_query:
            return aggregate, None
        return aggregate, [dict(zip(("measure", "system", "query_id", "value"), row[:4]))
                           for row in rows(con, measures, sides, run, ties, True, tops)]


@contextmanager
def beyond_tops(con, run: str, others: list[str], beyond: list[str],
                conventions: Conventions) -> Iterator[tuple[str, dict]]:
    """The beyond-accuracy measures' top tables (rankkit.beyond.top_tables) of the checked run ``run``, and
    the run the ``others`` read: where each of them reads only the top k ranks (top_k_cutoff), a top table
    of k or more ranks taken as the checked run, so that their pass ranks k rows a user, not every row
    (at 1M users x 100 items, 10M rows of 100M: bench/README.md, recsys); else ``run``."""
    k = top_k_cutoff(con, others, conventions)
    with top_tables(con, beyond, run, conventions.ties, cutoff=k) as tops:
        part = None
        if k is not None:
            part = as_checked(con, tops[min(c for c in tops if c >= k)], run)
        try:
            yield (run if part is None else part.table), tops
        finally:
            if part is not None:
                release(con, part)


def top_k_cutoff(con, measures: list[str], conventions: Conventions) -> int | None:
    """The largest cutoff of ``measures`` when each reads only a run's top k ranks (rankkit.measures.top_k_read,
    from the measure files' top_k: headers; num_q counts the queries, which a top k has as the whole run
    has them) ranked by trec_eval's rule at double precision on whole lists; else None."""
    if not measures or (conventions.ties, conventions.scores, conventions.depth, conventions.judged_only,
                        conventions.docs) != ("trec", "double", None, False, 0):
        return None
    specs = packed(measure_specs(con, measures, rel=conventions.rel, docs=conventions.docs), conventions.pack)
    cutoffs = [0 if spec["metric"] == "numq" else top_k_read(spec) for spec in specs]
    return None if None in cutoffs or not any(cutoffs) else max(cutoffs)


def _result_select(query: str, per_query: bool, slices) -> str:
    """The result's columns and row order, as evaluate's DataFrame has them, in SQL: always with
    ``system``, as rankkit.evaluate has it in SQL (NULL for a table that names none)."""
    by = f'slice AS "{slices[1]}", ' if slices else ""
    if per_query:
        return f"SELECT measure, system, {by}query_id, value FROM ({query}) ORDER BY i, system, {by and 'slice, '}query_id"
    return f"SELECT measure, system, {by}value, queries FROM ({query})"


def _relation(con, select: str, params: list, progress) -> duckdb.DuckDBPyRelation:
    """The result in a temp table: the inputs' temp tables go when evaluate returns, the result stays."""
    name = temp_name("result")
    with Progress(con, "evaluating", enabled=progress):
        run_query(con, f"CREATE TEMP TABLE {name} AS {select}", params, fetch=False)
    return duckdb.table(con, name)
