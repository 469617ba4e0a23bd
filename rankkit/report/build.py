"""report(): the inputs read once, then ``evaluate`` and ``compare`` on them; nothing is computed here
that those two do not compute, only gathered, with the record of how."""

from __future__ import annotations

import datetime
import hashlib
import platform
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterable, Mapping

import duckdb
import pandas as pd

import rankkit

from rankkit._sql import connect
from rankkit.beyond import split
from rankkit.compare import check_options, compare_values
from rankkit.conventions import Conventions, asked_conventions, resolve_conventions
from rankkit.errors import InputError, RankkitError
# a run's name from its file, and a name made unique: evaluate's own rule (one rule for naming runs)
from rankkit.evaluate import evaluate, prepared
from rankkit.inputs import listed_run_name, run_files, unique_name
from rankkit.intervals import with_ci
from rankkit.io import default_connection, forget, is_frame, read_qrels, read_run
from rankkit.report import beyond as side
from rankkit.report.model import Report, in_system_order
from rankkit.report.sweep import swept, sweep_options
from rankkit.slices import slice_source
from rankkit.specs import directions, measure_specs, packed
from rankkit.stats import AGGREGATE_INTERVAL, difference_interval

__all__ = ["report", "build", "fingerprint", "run_names", "shown_measures", "named_runs"]

_CHUNK = 1 << 20


def report(qrels, runs, measures: str | Iterable[str], *, baseline: str | None = None, test: str = "t",
           correction: str = "holm", alpha: float = 0.05, ci: float | None = 0.95, seed: int | None = 0,
           resamples: int = 10000, by: str | None = None, queries=None, title: str | None = None,
           con: duckdb.DuckDBPyConnection | None = None, columns: Mapping[str, str | None] | None = None,
           rel: float = 1, ties: str = "trec", scores: str = "double", depth: int | None = None,
           duplicates: str = "error", conventions: Conventions | str | None = None, second_qrels=None,
           values=None, sweep=None, items=None, interactions=None) -> Report:
    """Evaluate and compare systems, and gather it all in a :class:`Report`.

    Parameters
    ----------
    qrels:
        As for :func:`rankkit.evaluate`.
    runs:
        A dict ``{name: run}``, a list of runs (files named by file stem, others ``run1``, ``run2``
        ...), or one run (a file is one run named by its stem; a table's ``system`` column may
        hold several). A run given as a file is one system, whatever its tag column says.
    measures:
        Measure names, as for :func:`rankkit.evaluate`.
    baseline, test, correction, alpha, seed, resamples:
        As for :func:`rankkit.compare`; with one system there is no comparison.
    ci:
        Confidence level of the interval of each aggregate (``None``: no interval): the percentile
        bootstrap interval, evaluate's ``ci``, the same numbers for the same seed.
    by, queries:
        Slices: ``queries`` is a query table (path, DataFrame, relation or table name) with
        ``query_id`` and attribute columns; ``by`` names the attribute to split the aggregate by.
    title:
        The report's title (default: the measures and systems).
    columns, rel, ties, scores, depth, duplicates, conventions:
        As for :func:`rankkit.evaluate`. The query set (trec_eval ``-c``) is
        ``conventions=rankkit.Conventions(queries="qrels")``: here ``queries`` is the query table.
    values:
        Per-query values computed elsewhere, of these qrels and runs: a Spark DataFrame from
        ``rankkit.spark.evaluate(..., per_query=True)`` (or a list, one per run) of the measures and
        their coverage (``Judged@k`` at each cutoff: the error names any missing). The report takes
        its numbers from them and records the conventions they carry (the call's must be the same);
        the inputs are still read, to record and count them, and :func:`rankkit.verify` recomputes
        the report from them with DuckDB.
    items, interactions:
        The side tables of the beyond-accuracy measures (``Coverage@k``, ``Novelty@k`` ...), as for
        :func:`rankkit.evaluate`; recorded as inputs (path and sha256) like the qrels and runs. A
        per-user one (Novelty, ARP, TailShare, ILD) is shown like any measure; a system-level one
        (Coverage, Entropy, Gini) has its value and bootstrap interval over users, no per-query values
        and no comparison.
    second_qrels:
        A second judgment table (another judge, an LLM): the report gains an agreement section,
        :func:`rankkit.agreement` of the two tables and, for two systems or more,
        :func:`rankkit.leaderboard_agreement` under the first measure.
    sweep:
        A fusion method (``"wsum"``, ``"wmnz"``, ``"rrf"``) or a dict of :func:`rankkit.fusion_sweep`'s
        options (``method, measure, norm, step, grid, holdout``; the measure by default the first):
        the report gains a section judging a fusion grid of the runs under the report's test,
        correction, interval and seed, drawn as a line (one weight, or k) or a heat map (two).

    Returns
    -------
    Report
        ``aggregate`` (``measure, system, value, queries, ci_low, ci_high``), ``comparison``
        (:func:`rankkit.compare`'s table), ``per_query`` (``measure, system, query_id, value``),
        ``coverage`` (``Judged@k`` per system at each cutoff of the measures), ``slices`` (the
        aggregate per value of ``by``) and ``record``. Warnings raised while computing are
        raised again and kept in the record.

    Examples
    --------
    >>> import pandas as pd, rankkit
    >>> qrels = pd.DataFrame({"query_id": ["1", "2", "3"], "doc_id": ["a", "a", "a"], "relevance": [1, 1, 1]})
    >>> run = pd.DataFrame({"system": ["x"] * 6 + ["y"] * 6, "query_id": ["1", "1", "2", "2", "3", "3"] * 2,
    ...                     "doc_id": ["a", "b"] * 6, "score": [2.0, 1.0] * 3 + [1.0, 2.0] * 3})
    >>> made = rankkit.report(qrels, run, ["RR", "P@1"], baseline="y")
    >>> made
    <rankkit Report 'RR, P@1 of x, y': 2 systems, 2 measures, 3 queries>
    >>> made.aggregate[["measure", "system", "value", "queries"]].to_dict("records")[:2]
    [{'measure': 'RR', 'system': 'x', 'value': 1.0, 'queries': 3},
     {'measure': 'RR', 'system': 'y', 'value': 0.5, 'queries': 3}]
    >>> made.record["coverage"]
    ['Judged@1', 'Judged']
    >>> print(made.to_markdown().splitlines()[6])
    | (a) x | **1.0000**<sup>b</sup> [1.0000, 1.0000] | **1.0000**<sup>b</sup> [1.0000, 1.0000] | 3 |
    >>> print(made.table("markdown", caption="Three queries").split("\\n\\n")[0])  # the table for a paper
    | system | RR | P@1 | queries |
    |:---|---:|---:|---:|
    | (a) x | **1.0000**<sup>b</sup> | **1.0000**<sup>b</sup> | 3 |
    | (b) y | 0.5000 | 0.0000 | 3 |
    >>> [line for line in made.table("latex", label="tab:mrr").splitlines() if line.startswith(("\\\\cap", "\\\\lab"))]
    ['\\\\caption{RR, P@1 of x, y}', '\\\\label{tab:mrr}']
    """
    engine = None
    if values is None:
        conventions = resolve_conventions(conventions, rel=rel, ties=ties, scores=scores, depth=depth,
                                          duplicates=duplicates)
    else:  # the conventions the values carry, which the call may repeat but not change
        from rankkit.spark_values import engine_name, per_query_values

        engine = engine_name()
        values, conventions = per_query_values(values, asked_conventions(
            conventions, rel=rel, ties=ties, scores=scores, depth=depth, duplicates=duplicates))
    options = dict(baseline=baseline, test=test, correction=correction, alpha=alpha, ci=ci, seed=seed,
                   resamples=resamples, by=by, **({"sweep": sweep} if sweep is not None else {}))
    # a glob of TREC run files is the files it matches now: the call records them, which verify reads
    # again whatever the folder holds by then
    runs = run_files(runs)
    call = _call_text(qrels, runs, measures, queries, title, conventions,
                      {**options, **({"second_qrels": second_qrels} if second_qrels is not None else {}),
                       **({"values": "<Spark DataFrame>"} if engine else {}),
                       **{side: source for side, source in (("items", items), ("interactions", interactions))
                          if source is not None}})
    return build(qrels, runs, measures, queries=queries, title=title, con=con, columns=columns,
                 conventions=conventions, call=call, second_qrels=second_qrels, values=values, engine=engine,
                 items=items, interactions=interactions, **options)


def build(qrels, runs, measures, *, baseline, test, correction, alpha, ci, seed, resamples, by, queries, title,
          con, columns, conventions: Conventions, call: str, second_qrels=None, values=None,
          engine: str | None = None, sweep=None, items=None, interactions=None) -> Report:
    """report() with its call already written down (the command line gives its own). ``values``: the
    per-query values (pandas, as rankkit.spark.per_query_values brings them) computed by ``engine``."""
    names, beyond = side.named([measures] if isinstance(measures, str) else list(measures), conventions.pack)
    sides = {"items": items, "interactions": interactions}
    side.refuse(beyond, sides, by=by, given=values)
    sweep = sweep_options(sweep, names)
    if sweep is not None and conventions != Conventions():
        # fusion_sweep evaluates under trec_eval's conventions: a report's others would judge the grid unlike its tables
        raise RankkitError("sweep: a fusion sweep is evaluated under the default conventions (trec_eval's); "
                           "this report asks for others: make the sweep's report without them")
    if values is not None and by is not None:
        raise RankkitError("by: slices are evaluated from the inputs; a report of given values has none")
    if by is not None and queries is None:
        raise RankkitError("by names a column of the query table: give queries= (a table with query_id and "
                           f"the column {by!r}) too")
    check_options(test, correction, alpha)
    con = connect(con) if con is not None else default_connection()
    # each measure under the name evaluate gives it (AP asked with rel=2 is AP(rel=2), under recbole AP(denom=min))
    names = [spec["measure"] for spec in packed(measure_specs(con, names, rel=conventions.rel), conventions.pack)
             ] if names else []
    names += beyond
    with ThreadPoolExecutor(max_workers=1) as hashing, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        inputs = _inputs(qrels, runs, queries, second_qrels, sides)
        hashes = hashing.submit(lambda: [fingerprint(item["source"]) for item in inputs])
        counted = side.side_rows(con, sides)
        for item in inputs:
            if item["role"] in counted:
                item.update(rows=counted[item["role"]], queries=None)
        qrels_table, run_tables = _read(con, inputs, columns, conventions)
        try:
            results = _compute(con, inputs, qrels_table, run_tables, names, test=test, correction=correction,
                               alpha=alpha, ci=ci, seed=seed, resamples=resamples, by=by, conventions=conventions,
                               baseline=baseline, given=values, columns=columns, sides=sides)
            fused = (swept(con, qrels_table, run_tables, sweep, dict(test=test, correction=correction, alpha=alpha,
                                                                      ci=ci, seed=seed, resamples=resamples), columns)
                     if sweep is not None else None)
        finally:
            for table in [qrels_table, *(run_tables.values() if isinstance(run_tables, dict) else [run_tables])]:
                forget(con, table)
        agreed = {}
        if second_qrels is not None:
            agreed = _agreement(con, qrels, second_qrels, runs, names[0], results[4], test=test, correction=correction,
                                alpha=alpha, seed=seed, resamples=resamples, conventions=conventions, columns=columns)
            judged = agreed["agreement_per_query"].pairs + agreed["agreement_per_query"].only_b
            inputs[1].update(rows=int(judged.sum()), queries=int((judged > 0).sum()))
        for item, (sha, files) in zip(inputs, hashes.result()):
            item.update(sha256=sha, files=files)
    specs, judged, asked, aggregate, systems, comparison, slices = results
    said = _raise_again(caught)
    record = {
        "rankkit": rankkit.__version__, "duckdb": duckdb.__version__, "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "call": call,
        "conventions": conventions.as_dict(),
        "measures": [_measure_record(spec) for spec in specs] + [side.measure_record(name) for name in beyond],
        "coverage": judged,
        "statistics": {"test": test, "correction": correction, "alpha": alpha,
                       "ci": ci, "interval": AGGREGATE_INTERVAL if ci is not None else None,
                       "difference_interval": difference_interval(test),
                       "seed": seed, "resamples": resamples, "baseline": baseline},
        "by": by,
        "columns": dict(columns or {}),
        "systems": systems,
        "inputs": [{key: value for key, value in item.items() if key != "source"} for item in inputs],
        "warnings": said,
    }
    if fused is not None:
        record["sweep"] = fused[1]
    if engine:  # values computed elsewhere (the DuckDB engine's reports say nothing: the default)
        record["engine"] = engine
    per_query = asked[["measure", "system", "query_id", "value"]].reset_index(drop=True)
    return Report(title=title or _title(names, systems), record=record,
                  aggregate=aggregate[aggregate["measure"].isin(names)].reset_index(drop=True),
                  comparison=comparison, per_query=per_query, coverage=_coverage(aggregate, judged), slices=slices,
                  **agreed, **({"sweep": fused[0]} if fused is not None else {}))


def _agreement(con, qrels, second_qrels, runs, measure: str, systems: list, **options) -> dict:
    """The agreement section's tables: the labels of the two judgment tables and, for two systems or
    more, the leaderboards under the first measure, as rankkit.agreement and leaderboard_agreement make them."""
    from rankkit.agreement import agreement, leaderboard_agreement

    labels = agreement(qrels, second_qrels, seed=options["seed"], resamples=options["resamples"], con=con,
                       columns=options["columns"])
    tables = {"agreement": labels.aggregate, "agreement_per_query": labels.per_query}
    if len(systems) >= 2:
        boards = leaderboard_agreement(qrels, second_qrels, runs, measure, con=con, **options)
        # top None (every system) as JSON keeps it, so that verify matches a recomputed row to the saved one
        correlations = boards.correlations.assign(top=[None if pd.isna(t) else int(t) for t in boards.correlations.top])
        tables.update(leaderboards=boards.leaderboards.assign(measure=measure), correlations=correlations,
                      swaps=boards.swaps)
    return tables


def _compute(con, inputs: list[dict], qrels_table, run_tables, names: list[str], *, test, correction, alpha, ci, seed,
             resamples, by, conventions: Conventions, baseline, given=None, columns=None, sides=None) -> tuple:
    """One evaluation of every measure and Judged@k (or the values ``given``, computed elsewhere): the
    aggregate, its intervals and the comparison all come from these per-query values; slices are a
    second evaluation, grouped in SQL. The beyond-accuracy measures among ``names`` come from evaluate
    with the ``sides`` tables: per user, or (system-level) as an aggregate with its interval."""
    others, beyond = split(names)
    specs = measure_specs(con, others, rel=conventions.rel) if others else []
    judged = _judged_names(specs)
    every = measure_specs(con, others + judged, rel=conventions.rel) if others else []
    wanted = shown_measures(con, others, conventions.rel, conventions.pack) if others else []
    per_user, system_level = side.values(con, run_tables, beyond, conventions=conventions, sides=sides or {},
                                         ci=ci, seed=seed, resamples=resamples)
    if given is None:
        per_query = evaluate(qrels_table, run_tables, wanted, per_query=True, con=con,
                             conventions=conventions) if wanted else per_user.iloc[:0]
    else:
        # values computed elsewhere (Spark): the inputs still say what evaluating them says, so that the
        # record's warnings are those verify's DuckDB recomputation gives
        with prepared(qrels_table, run_tables, wanted, conventions, con=con):
            per_query = _given(given, wanted, run_tables)
    values = _values(pd.concat([per_query, per_user], ignore_index=True) if len(per_user) else per_query,
                     run_tables, every, beyond)
    aggregate = _aggregate(con, values)
    if ci is not None:  # evaluate's interval: the same numbers for the same seed
        aggregate = with_ci(con, aggregate, values, ci, seed, resamples, None)
    if len(system_level):  # in the order asked, after the measures with per-query values
        system_level = _with_system(system_level, run_tables)
        aggregate = pd.concat([aggregate, system_level[[c for c in aggregate.columns if c in system_level]]],
                              ignore_index=True)
        order = {name: i for i, name in enumerate(names + judged)}
        aggregate = aggregate.sort_values("measure", key=lambda m: m.map(order), kind="stable", ignore_index=True)
    systems = list(run_tables) if isinstance(run_tables, dict) else sorted(aggregate["system"].dropna().unique())
    aggregate, values = in_system_order(aggregate, systems), in_system_order(values, systems)
    asked = values[values["measure"].isin(names)]  # none when every measure is system-level (Coverage@k ...)
    comparison = (compare_values(asked, systems, baseline, test=test, correction=correction, alpha=alpha, seed=seed,
                                 resamples=resamples, better=directions(specs, beyond))
                  if len(systems) > 1 and len(asked) else pd.DataFrame())
    slices = pd.DataFrame()
    if by is not None:
        slices = in_system_order(_with_system(evaluate(qrels_table, run_tables, names, by=by,
                                                       query_table=inputs[-1]["source"], con=con,
                                                       conventions=conventions, columns=columns), run_tables), systems)
    _count_rows(con, inputs, qrels_table, run_tables, by, columns)
    return specs, judged, asked, aggregate, systems, comparison, slices


# ---- inputs ---------------------------------------------------------------------------------------

def _inputs(qrels, runs, queries, second_qrels=None, sides=None) -> list[dict]:
    """One entry per input, in the record's order: qrels, the second judgment table, each run, the
    side tables of the beyond-accuracy measures (items, interactions), the query table."""
    items = [_describe("qrels", None, qrels)]
    if second_qrels is not None:
        items.append(_describe("second_qrels", None, second_qrels))
    if isinstance(runs, Mapping):
        named = [(str(name), run) for name, run in runs.items()]
    elif isinstance(runs, (list, tuple)):
        named = list(zip(run_names(runs), runs))
    elif isinstance(runs, (str, Path)) and Path(str(runs)).is_file() and not _is_table_file(runs):
        named = [(listed_run_name(runs, 1), runs)]  # a TREC file is one run, named by its stem
    else:
        named = [(None, runs)]  # one table: its system column names the systems
    items += [_describe("run", name, run) for name, run in named]
    items += [_describe(role, None, source) for role, source in (sides or {}).items() if source is not None]
    if queries is not None:
        items.append(_describe("queries", None, queries))
    return items


def _is_table_file(path) -> bool:
    """Parquet, CSV or TSV: a table, whose system column (if any) names its systems."""
    name = str(path).lower().removesuffix(".gz")
    return name.endswith((".parquet", ".pq", ".csv", ".tsv"))


def run_names(runs: list) -> list[str]:
    """The names of a list of runs: files by their stem, others run1, run2 ...; made unique."""
    if not runs:
        raise InputError("runs: the list of runs is empty")
    taken: list[str] = []
    for position, run in enumerate(runs, 1):
        taken.append(unique_name(listed_run_name(run, position), taken))
    return taken


def _describe(role: str, name: str | None, source) -> dict:
    if is_frame(source):
        kind, path = "DataFrame", None
    elif isinstance(source, duckdb.DuckDBPyRelation):
        kind, path = "relation", None
    elif isinstance(source, (str, Path)) and (Path(str(source)).exists() or _is_glob(str(source))):
        kind, path = "file", str(Path(str(source)).resolve()) if Path(str(source)).exists() else str(source)
    elif isinstance(source, str):
        kind, path = "table", None
    else:
        kind, path = type(source).__name__, None
    return {"role": role, "name": name, "kind": kind, "path": path, "given": str(source) if kind in ("file", "table")
            else None, "source": source}


def _read(con, inputs: list[dict], columns, conventions: Conventions):
    """Read every input once; evaluate and compare then find them already checked."""
    qrels = read_qrels(inputs[0]["source"], con=con, columns=columns, duplicates=conventions.duplicates)
    runs = [item for item in inputs if item["role"] == "run"]
    read: dict = {}
    try:
        if runs[0]["name"] is None:
            return qrels, read_run(runs[0]["source"], con=con, columns=columns, duplicates=conventions.duplicates)
        # a run given by name is one system, whatever its tag column says (trec_eval reads a file so)
        for item in runs:
            read[item["name"]] = read_run(item["source"], con=con, columns=columns, duplicates=conventions.duplicates,
                                          system=item["name"])
        return qrels, read
    except BaseException:
        for table in [qrels, *read.values()]:
            forget(con, table)
        raise


def fingerprint(source) -> tuple[str | None, int | None]:
    """sha256 of a file (of every file's name and sha256, for a Parquet folder or glob) and the file count."""
    if not isinstance(source, (str, Path)):
        return None, None
    path = Path(str(source))
    if path.is_file():
        return _sha256(path), 1
    if path.exists() and not path.is_dir():  # a FIFO, <(...) or device: its lines are there to be read once
        raise InputError(f"{path} is a pipe or device: a report records each input's sha256 for rankkit verify, "
                         f"which reads it again; save it to a file first")
    if path.is_dir():
        base, files = path, sorted(p for p in path.rglob("*") if p.is_file())
    else:  # a glob: names relative to its fixed leading folders
        import glob

        fixed = [part for part in path.parts[: next(i for i, part in enumerate(path.parts) if _is_glob(part))]]
        base = Path(*fixed) if fixed else Path(".")
        files = sorted(Path(p) for p in glob.glob(str(source), recursive=True) if Path(p).is_file())
    if not files:
        return None, 0
    listing = "".join(f"{_relative(p, base)}\t{_sha256(p)}\n" for p in files)
    return hashlib.sha256(listing.encode()).hexdigest(), len(files)


def _is_glob(text: str) -> bool:
    return any(c in text for c in "*?[")


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _count_rows(con, inputs: list[dict], qrels, runs, by, columns) -> None:
    """Rows and queries of each input as rankkit read it."""
    def counts(relation) -> tuple[int, int]:
        return relation.aggregate("count(*), count(DISTINCT query_id)").fetchall()[0]

    tables = [qrels] + (list(runs.values()) if isinstance(runs, dict) else [runs])
    if inputs[-1]["role"] == "queries":
        tables.append(con.table(slice_source(con, inputs[-1]["source"], by, columns)[0]))
    # the second judgment table is read by rankkit.agreement: build counts it from what that found
    counted = [item for item in inputs if item["role"] not in ("second_qrels", *side.SIDES)]  # counted elsewhere
    for item, table in zip(counted, tables, strict=True):
        item["rows"], item["queries"] = (int(n) for n in counts(table))


# ---- tables ---------------------------------------------------------------------------------------

def shown_measures(con, names: list[str], rel: float, pack: str | None = None) -> list[str]:
    """Every measure a report shows, as evaluate names them: the measures, then their coverage (Judged@k)."""
    specs = measure_specs(con, names, rel=rel)
    return [spec["measure"] for spec in packed(measure_specs(con, names + _judged_names(specs), rel=rel), pack)]


def named_runs(runs):
    """The runs as the report names them: ``{name: run}``, or one table as it is (its system column
    names its systems)."""
    named = [(item["name"], item["source"]) for item in _inputs(None, runs, None) if item["role"] == "run"]
    return named[0][1] if named[0][0] is None else dict(named)


def _given(values: pd.DataFrame, wanted: list[str], runs) -> pd.DataFrame:
    """The per-query values given of every measure the report shows (its coverage included), of the
    systems the runs name."""
    missing = [name for name in wanted if name not in set(values["measure"])]
    if missing:
        raise RankkitError(f"values: no per-query values of {', '.join(missing)}; a report needs every measure it "
                           f"shows and their coverage: evaluate {wanted} per query")
    found = _with_system(values[values["measure"].isin(wanted)], runs)
    if isinstance(runs, dict) and set(found["system"]) != set(runs):
        raise RankkitError(f"values: their systems ({', '.join(sorted(map(str, set(found['system']))))}) are not the "
                           f"runs' ({', '.join(map(str, runs))}): the values must be of the runs given")
    order = {name: i for i, name in enumerate(wanted)}  # evaluate's order: measure, system, query
    found = found.assign(i=found["measure"].map(order)).sort_values(["i", "system", "query_id"], kind="stable")
    return found[["measure", "system", "query_id", "value"]].reset_index(drop=True)


def _judged_names(specs: list[dict]) -> list[str]:
    """Judged@k at every cutoff the measures use (and over the whole list when one has none)."""
    asked = {spec["k"] for spec in specs if spec["metric"] == "judged"}
    cutoffs = sorted({spec["k"] for spec in specs if spec["k"] is not None} - asked)
    names = [f"Judged@{k}" for k in cutoffs]
    if any(spec["k"] is None for spec in specs) and None not in asked:
        names.append("Judged")
    return names


def _with_system(frame: pd.DataFrame, runs) -> pd.DataFrame:
    """evaluate leaves ``system`` missing for one table that names none; a report names every system
    (the name a dict gave it, else ``run``)."""
    name = next(iter(runs)) if isinstance(runs, dict) else "run"
    return frame.assign(system=frame["system"].where(frame["system"].notna(), name))


def _values(per_query: pd.DataFrame, runs, specs: list[dict], beyond: list[str] = ()) -> pd.DataFrame:
    """evaluate's per-query values with what compare and the aggregate need: the measure's
    position ``i`` and how it combines over queries ``agg`` (a per-user beyond-accuracy measure's: the
    mean, after the others)."""
    per_query = _with_system(per_query, runs)
    position = {spec["measure"]: spec["i"] for spec in specs}
    combine = {spec["measure"]: spec["agg"] for spec in specs}
    position.update({name: len(specs) + i for i, name in enumerate(beyond, 1)})
    combine.update({name: "mean" for name in beyond})
    per_query.insert(0, "i", per_query["measure"].map(position))
    per_query["agg"] = per_query["measure"].map(combine)
    return per_query


def _aggregate(con, values: pd.DataFrame) -> pd.DataFrame:
    """evaluate's aggregate from per-query values, combined in SQL by the macro evaluate uses."""
    name = f"rankkit_report_values_{id(values)}"
    con.register(name, values)
    try:
        return con.execute(f"SELECT measure, system, rankkit.over_queries(agg, value, query_id) AS value, "
                           f"count(value) AS queries FROM {name} GROUP BY i, measure, system ORDER BY i, system").df()
    finally:
        con.unregister(name)


def _coverage(aggregate: pd.DataFrame, judged: list[str]) -> pd.DataFrame:
    """Judged@k per system: the share of the top k that has a judgment, mean over queries."""
    found = aggregate[aggregate["measure"].isin(judged)]
    return found[[c for c in ("measure", "system", "value", "queries", "ci_low", "ci_high") if c in found.columns]
                 ].reset_index(drop=True)


def _measure_record(spec: dict) -> dict:
    from rankkit import measures as registry

    measure = registry.registry()[spec["metric"]]
    # every parameter the measure takes, as its name writes it (None: unset, as k for the whole list)
    values = {name: registry.spec_value(spec, name) for name in measure.params}
    return {"name": spec["measure"], "label": registry.label(spec), "measure": measure.name, "metric": spec["metric"],
            "params": {name: None if value is None else registry.written(value) for name, value in values.items()},
            "aggregate": spec["agg"], "better": measure.better, "summary": measure.summary, "cite": measure.cite}


def _raise_again(caught) -> list[str]:
    """Each warning once, to the caller and into the record."""
    said: list[str] = []
    for item in caught:
        text = str(item.message)
        if text not in said:
            said.append(text)
            warnings.warn(text, item.category, stacklevel=4)
    return said


def _title(names: list[str], systems: list[str]) -> str:
    return f"{', '.join(names)} of {', '.join(systems)}"


def _call_text(qrels, runs, measures, queries, title, conventions: Conventions, options: dict) -> str:
    """The call, written as Python, with every option it used (frames shown by their shape)."""
    def shown(value) -> str:
        if is_frame(value):
            return f"<DataFrame {len(value)} rows>"
        if isinstance(value, duckdb.DuckDBPyRelation):
            return "<DuckDB relation>"
        if isinstance(value, Mapping):
            return "{" + ", ".join(f"{k!r}: {shown(v)}" for k, v in value.items()) + "}"
        if isinstance(value, (list, tuple)):
            return "[" + ", ".join(shown(v) for v in value) + "]"
        return repr(str(value) if isinstance(value, Path) else value)

    parts = [shown(qrels), shown(runs), shown(measures)]
    parts += [f"{key}={shown(value)}" for key, value in options.items()]
    if queries is not None:
        parts.append(f"queries={shown(queries)}")
    if title is not None:
        parts.append(f"title={title!r}")
    parts.append(f"conventions={conventions!r}")
    return f"rankkit.report({', '.join(parts)})"

