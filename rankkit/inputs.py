"""The inputs of an evaluation read and checked: the qrels, the run (a list, dict or glob of runs made
one source whose ``system`` names each), the subtopic judgments; what was made to read them dropped at
the end."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from rankkit import _engine as duckdb

from rankkit.conventions import Conventions
from rankkit.errors import InputError, MeasureError
from rankkit.input_checks import refuse_without_subtopics
from rankkit.io import Source, load, load_run_files, release, run_name, temp_name
from rankkit.io.catalog import quote
from rankkit.io.files import run_glob_files
from rankkit.measures import needs_subtopics
from rankkit.progress import Progress


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
        tag = f"{quote(name)} || '/' || system" if len(named) > 1 else quote(name)
        tags.append(tag)
        names.append(name)
    view = temp_name("run_list")
    keyed = all(source.keyed for source in sources)  # the engine joins on the key only if every row has it
    con.execute(f"CREATE TEMP VIEW {view} AS " + " UNION ALL ".join(
        f"SELECT {tag} AS system, query_id, doc_id, rank, score{', rankkit_key' if keyed else ''} FROM {source.engine}"
        for tag, source in zip(tags, sources)))
    counts = f"{view}_queries"
    con.execute(
        f"CREATE TEMP TABLE {counts} AS " + " UNION ALL ".join(
            f"SELECT {tag} AS system, query_id, n, docs, no_rank FROM {s.queries}" for tag, s in zip(tags, sources))
    )
    runs = {}  # each system, and how messages name its run: its file (and its system there)
    for name, src in zip(names, sources):
        for inner in src.systems if len(src.systems) > 1 else [None]:
            several = inner is not None and len([x for x in src.systems if x is not None]) > 1
            runs[f"{name}/{inner}" if several else name] = f"{src.label} (system {inner})" if several else src.label
    systems = list(runs)
    label = ", ".join(s.label for s in sources)
    owned = [("view", view), ("table", counts)] + [item for source in sources for item in source.owned]
    return Source(table=view, label=label, kind="run", queries=counts, systems=systems, owned=owned,
                  keyed=view if keyed else "", rows=sum(source.rows for source in sources),
                  lists=sum(source.lists for source in sources), runs=runs)


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
