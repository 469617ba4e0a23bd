"""What the explorer shows, computed in SQL and cached: per-query values per setting, traces, ranks.

Nothing here draws: :class:`ExplorerData` reads the inputs once into one DuckDB connection and
answers the explorer's questions with the engine's macros. The runs are ranked once
(``rankkit.ranks``, kept in a temp table); per-query values come from that table, in the statement
rankkit.compose writes (as evaluate's), for the measure asked for and a few common ones (BATCH) of the
same setting (cutoff, gain, relevance level) in one SQL call, and are cached. Measures are parsed by
rankkit.specs.measure_specs and named by rankkit.measures.label, nowhere else; traces come from
``rankkit.trace``, other systems' ranks from ``rankkit.ranked``.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping

import duckdb

from rankkit._sql import connect
from rankkit.compose import compose
from rankkit.dialect import DUCKDB, LOADED
from rankkit.trace_fields import trace_params
from rankkit.errors import RankkitError, RankkitWarning
from rankkit.input_checks import compare_inputs
from rankkit.inputs import load_runs
from rankkit.io import Source, load, release
from rankkit.measures import Measure, default, label, params, registry, spec_value, written
from rankkit.progress import Progress
from rankkit.running import run_numpy, run_query
from rankkit.slices import query_table_view
from rankkit.specs import measure_specs
from rankkit.tracing import trace_sources

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ExplorerData", "Setting", "parse_measure"]

# The measures computed with whichever one the view asks for, in the same SQL call: a call's cost is
# mostly fixed (planning the engine's statement), each of these adds little to it, and a change among
# them then reads the cache. The other measures are computed when asked for.
BATCH = ("ndcg", "ap", "rr", "p", "r")

_tables = itertools.count(1)

# The explorer's controls: the spec fields it sets beside the measure's own parameters
CONTROLS = ("k", "gain", "rel")


@dataclass(frozen=True)
class Setting:
    """One measure as the explorer's controls set it: a parsed spec (rankkit.specs.measure_specs),
    the measure with its own parameters (``ideal``, ``p``, IPrec's recall, ...) and the cutoff, gain
    and relevance level controls. It is named by the registry (rankkit.measures.label), which the
    parser reads back to the same spec, and computed by rankkit.compose from that spec."""

    spec: Mapping

    @property
    def metric(self) -> str:
        return self.spec["metric"]

    @property
    def measure(self) -> Measure:
        return registry()[self.metric]

    @property
    def k(self) -> int | None:
        return self.spec["k"]

    @property
    def gain(self) -> str:
        return self.spec["gain"]

    @property
    def rel(self) -> float:
        return float(self.spec["rel"])

    @property
    def name(self) -> str:
        """The measure's name as evaluate() takes it: ``nDCG(gain=exp)@10``."""
        return label(self.spec)

    @property
    def base(self) -> str:
        """The name of the measure with its own parameters, the controls left at their defaults
        (``nDCG(ideal=run)``): what the explorer's measure control holds."""
        return label({**self.spec, **{name: default(name) for name in CONTROLS}})

    def spec_value(self, name: str):
        """A parameter's value in this setting (IPrec's recall level included)."""
        return spec_value(self.spec, name)

    def controlled(self, k: int | None, gain: str, rel: float) -> Setting:
        """This measure at the controls' cutoff, gain and level, each where the measure takes it (a
        control the measure does not take keeps the parser's default, as a name would)."""
        wanted = {"k": k, "gain": gain, "rel": float(rel)}
        spec = {**self.spec, **{name: wanted[name] for name in CONTROLS if name in self.measure.params}}
        return Setting({**spec, "measure": label(spec)})

    def options(self) -> dict:
        """The keyword arguments of rankkit.trace for this setting: each parameter of the traced measures
        (the trace takes those), the measure's value where it takes it, else the declared default (the
        trace of AP shows linear gains, as its gain control is off); a spec value made of text (gains) as
        that text."""
        found = {}
        for name in trace_params():
            value = self.spec_value(name) if name in self.measure.params or name in CONTROLS else default(name)
            found[name] = written(value) if params()[name].made and value is not None else value
        return found


def parse_measure(con: duckdb.DuckDBPyConnection, name: str) -> Setting:
    """A measure name (``nDCG(gain=exp)@10``, ``ndcg_cut_20``, ``IPrec@0.5``) as a Setting; a bad name
    raises MeasureError, as evaluate does."""
    spec = measure_specs(con, [name])[0]
    return Setting({**spec, "measure": label(spec)})


class ExplorerData:
    """The explorer's inputs, read and checked once, and the values computed from them."""

    def __init__(self, qrels, runs, *, queries=None, docs=None, con: duckdb.DuckDBPyConnection | None = None,
                 ties: str = "trec", scores: str = "double", depth: int | None = None,
                 progress: Callable | None = None, split_by_tag: bool = False, second_qrels=None):
        # an own connection unless given one: the explorer's temp tables live as long as it does
        self.con = connect(con) if con is not None else connect()
        self.ties, self.scores, self.depth = ties, scores, depth
        self.progress = progress
        self.qrels = load(self.con, qrels, "qrels")
        self.run = self._load_runs(runs, split_by_tag)
        self.systems = [str(name) for name in self.run.systems]
        # a second judgment table (B): the run is shown under both, its documents' two labels side by side
        self.second = load(self.con, second_qrels, "qrels") if second_qrels is not None else None
        if self.second is not None:
            # the two tables paired once, now: two tables with no query in common are refused as agree refuses them
            self._pairs(count=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RankkitWarning)
            compare_inputs(self.con, self.qrels, self.run, ties=ties)
            if self.second is not None:
                compare_inputs(self.con, self.second, self.run, ties=ties)
        self.warnings = [str(w.message) for w in caught]
        self.queries = _query_table(self.con, queries)
        self.docs = _doc_table(self.con, docs)
        self.grades = [g for (g,) in self.con.execute(
            f"SELECT DISTINCT grade FROM rankkit.qrels_rows('{self.qrels.table}') WHERE grade > 0 ORDER BY grade"
        ).fetchall()]
        self._values: dict[str, pd.DataFrame] = {}
        self._overall: dict[str, dict[str, float]] = {}  # per setting name: each system's aggregate
        self._keys: pd.DataFrame | None = None  # the (system, query_id) pairs every measure is evaluated on
        self._ranks_table: str | None = None
        self._second_values: dict[str, pd.DataFrame] = {}  # per setting name, under the second judgment table
        self._second_overall: dict[str, dict[str, float]] = {}
        self._second_ranks: str | None = None
        self._batched: list[Setting] | None = None

    def _load_runs(self, runs, split_by_tag: bool):
        source = load_runs(self.con, runs, split_by_tag=split_by_tag)
        if None in source.systems and not isinstance(runs, (list, tuple, dict)):
            # one run without a system column: name it as a list of one names it (by file stem)
            release(self.con, source)
            source = load_runs(self.con, [runs])
        return source

    def values(self, setting: Setting, batch: bool = True) -> pd.DataFrame:
        """Per-query values of one setting: ``system, query_id, value``, sorted by system and query id;
        cached, and computed with the BATCH measures of the same cutoff, gain and relevance level in
        one SQL call. ``batch=False`` computes the setting alone once a first setting is known: the
        explorer computes the rest while it draws."""
        if setting.name not in self._values:
            wanted = {setting.name: setting}
            if (batch or self._keys is None) and self.ties != "average":  # that rule scores gains only
                for base in self._batch():
                    other = base.controlled(setting.k, setting.gain, setting.rel)
                    wanted.setdefault(other.name, other)
            new = [(name, other) for name, other in wanted.items() if name not in self._values]
            specs = [{**other.spec, "i": i, "measure": name} for i, (name, other) in enumerate(new, 1)]
            with Progress(self.con, "computing per-query values", enabled=self.progress is not None, delay=0.5,
                          bar=self.progress):
                self._values.update(self._compute(specs))
        return self._values[setting.name]

    def _batch(self) -> list[Setting]:
        """The BATCH measures, parsed once (their names are the registry's)."""
        if self._batched is None:
            names = [registry()[m].name for m in BATCH if m in registry()]
            self._batched = [Setting(spec) for spec in measure_specs(self.con, names)]
        return self._batched

    def _compute(self, specs: list[dict]) -> dict[str, pd.DataFrame]:
        """Each spec's per-query values, sorted by system and query id. Every measure is evaluated on
        the same (system, query) pairs, so after the first call only the values are fetched, as one
        numpy array, and laid beside the pairs kept from it: turning 70,000 rows of strings into a
        frame cost more than computing them."""
        import numpy as np

        # the composer's statement over the kept ranks: the same definitions and path as evaluate's
        query = compose(specs, qrels=DUCKDB.literal(self.qrels.table, "VARCHAR"), ranks=self._ranks(), ties=self.ties,
                        dialect=LOADED)
        if self._keys is None:
            # sorted in SQL: sorting each measure's frame of strings in pandas cost more than the query
            frame = run_query(self.con, f"SELECT i, system, query_id, value FROM ({query}) ORDER BY i, system, query_id",
                              [])
            found = {i: rows.drop(columns="i").reset_index(drop=True) for i, rows in frame.groupby("i", sort=False)}
            self._keys = next(iter(found.values()), frame.iloc[0:0].drop(columns="i"))[["system", "query_id"]]
        else:
            values = run_numpy(self.con, f"SELECT value FROM ({query}) ORDER BY i, system, query_id", [])["value"]
            values = np.ma.filled(np.ma.asarray(values, dtype=float), np.nan)  # NULL (empty := 'skip') is NaN
            size = len(self._keys)
            if len(values) != size * len(specs):
                raise AssertionError(f"{len(values)} values for {len(specs)} measures of {size} queries")
            found = {spec["i"]: self._keys.assign(value=values[n * size:(n + 1) * size])
                     for n, spec in enumerate(sorted(specs, key=lambda spec: spec["i"]))}
        empty = self._keys.iloc[0:0].assign(value=np.zeros(0))
        return {spec["measure"]: found.get(spec["i"], empty) for spec in specs}

    def overall(self, setting: Setting) -> dict[str, float]:
        """Each system's value of a setting over its queries, as evaluate gives it: rankkit.over_values,
        the measure's own aggregate (a mean, a sum for counts, a geometric mean for gm_map) added in
        query order. Cached: a system's aggregate does not depend on which others are shown. (Folding
        it into the values' statement cost more than this second statement.)"""
        if setting.name not in self._overall:
            self._overall[setting.name] = self._aggregate(setting, self.values(setting))
        return self._overall[setting.name]

    def _aggregate(self, setting: Setting, values: pd.DataFrame) -> dict[str, float]:
        """Each system's aggregate of per-query values, by SQL's rankkit.over_values."""
        table = f"rankkit_explore_values_{next(_tables)}"
        self.con.register(table, values[["system", "query_id", "value"]].assign(
            i=1, measure=setting.name, agg=setting.measure.aggregate))
        try:
            rows = run_query(self.con, "SELECT system, value FROM rankkit.over_values($values)", {"values": table})
        finally:
            self.con.unregister(table)
        return dict(zip(rows["system"], rows["value"]))

    # ---- under the second judgment table ------------------------------------------------------

    def _needs_second(self) -> Source:
        if self.second is None:
            raise RankkitError("no second judgment table: give one with explore(..., second_qrels=...)")
        return self.second

    def second_values(self, setting: Setting) -> pd.DataFrame:
        """Per-query values of one setting under the second judgment table: ``system, query_id, value``,
        sorted by system and query id, from the composer's statement over the runs ranked against it
        (as values() under the first); cached."""
        second = self._needs_second()
        if setting.name not in self._second_values:
            if self._second_ranks is None:
                self._second_ranks = self._ranked(second)
            spec = {**setting.spec, "i": 1, "measure": setting.name}
            query = compose([spec], qrels=DUCKDB.literal(second.table, "VARCHAR"), ranks=self._second_ranks,
                            ties=self.ties, dialect=LOADED)  # read as the first table is: a checked, loaded input
            frame = run_query(self.con, f"SELECT system, query_id, value FROM ({query}) ORDER BY system, query_id", [])
            self._second_values[setting.name] = frame.astype({"value": float})
        return self._second_values[setting.name]

    def second_overall(self, setting: Setting) -> dict[str, float]:
        """Each system's aggregate of a setting under the second judgment table (see overall)."""
        if setting.name not in self._second_overall:
            self._second_overall[setting.name] = self._aggregate(setting, self.second_values(setting))
        return self._second_overall[setting.name]

    def second_trace(self, query_id: str, setting: Setting) -> pd.DataFrame:
        """rankkit.trace of one query for every system under the second judgment table."""
        return trace_sources(self.con, self._needs_second(), self.run, query_id, ties=self.ties, scores=self.scores,
                             depth=self.depth, **setting.options())

    def labels(self, query_id: str) -> pd.DataFrame:
        """Every document either table judges for one query, with both grades: ``doc_id, grade_a,
        grade_b, side`` (``a`` or ``b``: judged by that table only), from SQL's rankkit.label_pairs."""
        self._needs_second()
        return self._pairs(query_id)

    def _pairs(self, query_id: str | None = None, count: bool = False) -> pd.DataFrame:
        """rankkit.label_pairs of the two tables: one query's rows, or how many pairs there are."""
        what = "count(*) AS pairs" if count else "doc_id, grade_a, grade_b, side"
        where = "" if query_id is None else "WHERE query_id = ? ORDER BY doc_id"
        return run_query(self.con, f"SELECT {what} FROM rankkit.label_pairs(?, qrels_b := ?, labels := ?::VARCHAR[]) "
                                   f"{where}",
                         [self.qrels.table, self.second.table, [self.qrels.label, self.second.label],
                          *([] if query_id is None else [query_id])])

    def _ranks(self) -> str:
        """The temp table of rankkit.ranks: the judged documents of the ranked runs, made once. Ranking
        the runs is most of an evaluation (on workload A, 14M rows); every setting (measure, cutoff,
        gain, level) is computed from this table, a few rows per query."""
        if self._ranks_table is None:
            self._ranks_table = self._ranked(self.qrels)
        return self._ranks_table

    def _ranked(self, qrels: Source) -> str:
        """A new temp table of rankkit.ranks of the runs against one judgment table."""
        name = f"rankkit_explore_ranks_{next(_tables)}"
        with Progress(self.con, "ranking the runs", enabled=self.progress is not None, delay=0.5, bar=self.progress):
            run_query(self.con, f"CREATE TEMP TABLE {name} AS FROM rankkit.ranks(?, ?, ties := ?, scores := ?, "
                                "depth := ?, keyed := ?)",
                      [qrels.table, self.run.engine, self.ties, self.scores, self.depth, bool(self.run.keyed)],
                      fetch=False)
        return name

    def trace(self, query_id: str, setting: Setting) -> pd.DataFrame:
        """rankkit.trace of one query for every system, with the setting's options."""
        return trace_sources(self.con, self.qrels, self.run, query_id, ties=self.ties, scores=self.scores,
                             depth=self.depth, **setting.options())

    def ranks(self, query_id: str) -> pd.DataFrame:
        """Every system's rank of every document it retrieved for one query: ``system, doc_id, rank``
        (the run is loaded: rankkit.ranked_loaded, nothing matched again)."""
        return run_query(self.con, "SELECT system, doc_id, rank FROM rankkit.ranked_loaded(?, ties := ?, scores := ?, "
                                   "depth := ?, for_queries := [?])",
                         [self.run.engine, self.ties, self.scores, self.depth, query_id])

    def doc_texts(self, doc_ids: list[str]) -> dict[str, str]:
        if self.docs is None or not doc_ids:
            return {}
        rows = self.con.execute(f"SELECT doc_id, text FROM {self.docs} WHERE list_contains(?, doc_id)",
                                [list(doc_ids)]).fetchall()
        return {doc_id: text for doc_id, text in rows}

    def close(self) -> None:
        for table in (self._ranks_table, self._second_ranks):
            if table is not None:
                self.con.execute(f"DROP TABLE IF EXISTS {table}")
        self._ranks_table = self._second_ranks = None
        release(self.con, self.run)
        release(self.con, self.qrels)
        if self.second is not None:
            release(self.con, self.second)


def _query_table(con, queries) -> pd.DataFrame | None:
    """The queries table as a frame indexed by query id (ids as strings): text and attribute columns."""
    if queries is None:
        return None
    frame = con.execute(f"SELECT * FROM {query_table_view(con, queries)}").df()
    if "query_id" not in frame.columns:
        raise RankkitError(f"queries needs a query_id column; it has {', '.join(map(str, frame.columns))}")
    frame = frame.assign(query_id=frame["query_id"].astype(str))
    repeated = frame["query_id"][frame["query_id"].duplicated()]
    if len(repeated):
        raise RankkitError(f"queries lists query {repeated.iloc[0]!r} twice: one row per query expected")
    return frame.set_index("query_id")


def _doc_table(con, docs) -> str | None:
    """The documents table (``doc_id`` and ``text`` or ``title``) as a temp table of con."""
    if docs is None:
        return None
    source = query_table_view(con, docs, "doc_id")  # the same kinds of input as a query table
    columns = [row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()]
    text = next((c for c in ("text", "title", "body", "contents") if c in columns), None)
    if "doc_id" not in columns or text is None:
        raise RankkitError(f"docs needs doc_id and text (or title) columns; it has {', '.join(columns)}")
    table = "rankkit_explore_docs"
    con.execute(f'CREATE OR REPLACE TEMP TABLE {table} AS SELECT doc_id::VARCHAR AS doc_id, "{text}"::VARCHAR AS text '
                f"FROM {source}")
    return table
