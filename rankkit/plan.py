"""The plan of one lean statement for the measures asked: its columns, and the statement they make.

From measure specs (as :func:`rankkit.specs.measure_specs` gives them) it writes one SQL statement
over a ranks table (the columns of ``rankkit.ranks``) and the qrels, holding only the features those
measures need: it walks the declarations of ``sql/features.sql`` and ``sql/metrics/*.sql`` (read by
:mod:`rankkit.measures`) from each measure's value down to the inputs, fills the parameters in as
literals and keeps each feature once, as a column, however many measures read it (nDCG@5 and
nDCG@20 share their gains and the ideal). There is no struct of all features, no CASE over measure
names and no macro taking a feature as an argument used twice: DuckDB substitutes a macro's argument
at each use, so nested macros multiply the expression tree it binds and optimises (duckdb issue
18997). The result has rankkit.per_query_ranked's columns: i, measure, agg, system, query_id, value.

A feature that only reads the qrels is computed once per query, before the join with the run; the
others per system and query. Features are laid in layers, one CTE per depth of their dependencies,
so that each column reads columns of the layer below.

The few pieces that are DuckDB's own are the dialect's (:mod:`rankkit.dialect`); the plans of the
macros, which read their parameters elsewhere, are :mod:`rankkit.macro_plans`'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from rankkit.conditions import declarations, matches, variants
from rankkit.dialect import DUCKDB, DuckDB
from rankkit.errors import RankkitError
from rankkit.measures import (REFERENCE, TIE_RULES, Feature, Measure, inputs, needs_subtopics, registry, spec_types,
                              subtopic_inputs)

__all__ = ["QUERY_SETS", "Column", "Plan", "plan", "layers"]

QUERY_SETS = ("both", "qrels", "run")


@dataclass
class Column:
    """One feature as a column of the statement: its SQL, whether it is per query (of the qrels) or per
    system and query (run), and its layer (1 + the deepest layer of the same scope it reads)."""

    name: str
    sql: str
    scope: str
    depth: int
    feature: str
    metrics: set[str] = field(default_factory=set)  # the measures that read it


@dataclass
class Plan:
    """The columns a list of specs needs, each distinct expression once, and each spec's value."""

    ties: str = "trec"
    queries: str = "both"
    dialect: DuckDB = DUCKDB
    columns: dict[str, Column] = field(default_factory=dict)  # by SQL text
    inputs: set[str] = field(default_factory=set)
    values: list[tuple[int, str, str, str]] = field(default_factory=list)  # i, measure, agg, value column
    _metric: str = ""  # the measure being planned

    def add(self, spec: Mapping) -> None:
        """Plan ``spec``'s value and everything it reads."""
        measure = registry()[spec["metric"]]
        if measure.value is None:
            raise RankkitError(f"measure {spec['measure']} is text, not a number: the composer computes numbers")
        self.values.append((spec["i"], spec["measure"], spec["agg"], self._value_column(spec, measure)))

    def _value_column(self, spec: Mapping, measure: Measure) -> str:
        """The column of ``spec``'s value, planned with everything it reads."""
        self._metric = measure.metric
        sql, scope, depth = self._render(measure.value, spec, measure)
        # a value is per system and query, even one that reads the qrels only (NumRel)
        return self._column("value", f"CAST({sql} AS DOUBLE)", "run", depth if scope == "run" else 1).name

    def features(self) -> set[str]:
        """The declared names of the features planned (inputs excluded)."""
        return {column.feature for column in self.columns.values() if column.feature != "value"}

    def _resolve(self, name: str, spec: Mapping, measure: Measure) -> tuple[str, str, int]:
        """A feature or input's column name, scope and layer, planning it first if new (the registry
        has checked that no feature reads itself)."""
        if name in inputs():
            self.inputs.add(name)
            return name, inputs()[name], 0
        sql, scope, depth = self._render(self._variant(name, spec, measure), spec, measure)
        column = self._column(name, sql, scope, depth)
        return column.name, column.scope, column.depth

    def _render(self, feature: Feature, spec: Mapping, measure: Measure) -> tuple[str, str, int]:
        """The declaration's SQL: features by their columns, parameters as literals; its scope and layer."""
        found = {name: self._resolve(name, spec, measure) for name in feature.features}
        scope = "run" if any(scope == "run" for _, scope, _ in found.values()) else "query"
        depth = 1 + max((d for _, s, d in found.values() if s == scope), default=0)

        def fill(match: re.Match) -> str:
            return self._param(match.group(2), spec) if match.group(1) else found[match.group(2)][0]

        return REFERENCE.sub(fill, feature.expr), scope, depth

    def _param(self, name: str, spec: Mapping) -> str:
        """A parameter in an expression: the spec's value as a literal."""
        return self.dialect.literal(spec[name], spec_types()[name])

    def _column(self, name: str, sql: str, scope: str, depth: int) -> Column:
        if sql not in self.columns:
            self.columns[sql] = Column(f"{name}_{len(self.columns) + 1}", sql, scope, depth, name)
        self.columns[sql].metrics.add(self._metric)
        return self.columns[sql]

    def _variant(self, name: str, spec: Mapping, measure: Measure) -> Feature:
        """The declaration of ``name`` for this spec: the measure's own, else the shared one; the variant
        whose condition holds, else the plain one. A surface that knows the spec only as its SQL runs
        (a macro) writes the conditions instead (its _condition)."""
        written = self._condition()
        if written is not None:
            return variants(name, measure, written)
        declared = declarations(name, measure)
        for feature in declared:
            if feature.when and matches(self._setting(feature.when[0], spec), feature.when[1]):
                return feature
        plain = [f for f in declared if f.when is None]
        if not plain:
            raise RankkitError(f"{declared[0].where}: feature {name} has no plain declaration, and no variant "
                               f"for {spec['measure']}")
        return plain[0]

    def _condition(self):
        """How a variant's condition is written in SQL (see condition); None: chosen here, by the spec."""
        return None

    def _setting(self, key: str, spec: Mapping):
        return {"ties": self.ties, "queries": self.queries}.get(key, spec.get(key))

    def statement(self, qrels: str, ranks: str, before: Iterable[tuple[str, str]] = (), kept: str | None = None, *,
                  subtopics: str | None = None, subtopic_ranks: str | None = None) -> str:
        """The composed statement (see compose); ``before``: (name, SQL) of CTEs to put first (the inputs
        and ranks of a statement that stands alone); ``kept``: a table or CTE holding query_side's rows,
        read instead of computing them. ``subtopics`` (for rankkit.subtopic_rows) and ``subtopic_ranks``
        (a table or CTE in rankkit.subtopic_ranks' columns): the subtopic judgments, for the diversity
        measures only."""
        d = self.dialect
        ctes = [(name, sql, False) for name, sql in before]
        ctes.append(("rankkit_judged", d.judged(ranks, self.ties == "average", **self._positive()), False))
        if self.subtopic_scope():
            self._refuse_without(subtopics, subtopic_ranks)
        query = kept or self._querylayers(ctes, qrels, subtopics)
        if kept is None:
            ctes[-1] = (ctes[-1][0], ctes[-1][1], True)  # once per query, whatever the number of systems
        if self.subtopic_scope():
            ctes.append(("rankkit_subtopic_lists", d.subtopic_lists(subtopics, subtopic_ranks), False))
        if "cum" in self.inputs:
            ctes.append(("rankkit_discounts", d.discount_sums(ranks), False))
        ctes.append(("rankkit_evaluated", self._evaluated(query), False))
        last = layers(ctes, "rankkit_evaluated", "rankkit_r", self._by_layer("run"), lambda c: d.expression(c.sql))
        body = ",\n".join(f"{name} AS {d.materialized if materialized else ''}({sql})"
                          for name, sql, materialized in ctes)
        return f"WITH\n{body}\nSELECT {d.unpivot(self.values)} FROM {last}"

    def query_side(self, qrels: str) -> str:
        """What the statement computes once per query of the qrels, whatever the run: each query's grades
        and the query features planned. A caller that evaluates many runs against qrels read once
        keeps its rows (statement's ``kept``). Not for the diversity measures (their subtopics)."""
        if self.subtopic_scope():
            self._refuse_without(None, None)
        ctes: list = []
        last = self._querylayers(ctes, qrels)
        return "WITH " + ",\n".join(f"{name} AS ({sql})" for name, sql, _ in ctes) + f"\nSELECT * FROM {last}"

    def _querylayers(self, ctes: list, qrels: str, subtopics: str | None = None) -> str:
        d = self.dialect
        judgments = d.judgments(qrels)
        if self.subtopic_scope():
            # the query's subtopic judgments beside its qrels grades, for the features of the query layer
            ctes.append(("rankkit_subtopic_judgments", d.subtopic_judgments(subtopics), False))
            judgments = (f"SELECT j.*, coalesce(t.sub_qrels, []) AS sub_qrels, coalesce(t.sub_docs, []) AS sub_docs "
                         f"FROM ({judgments}) j LEFT JOIN rankkit_subtopic_judgments t USING (query_id)")
        if self.queries == "run":
            judgments = f"{judgments} UNION ALL {run_only(d, qrels)}"
        ctes.append(("rankkit_judgments", judgments, False))
        return layers(ctes, "rankkit_judgments", "rankkit_q", self._by_layer("query"), lambda c: d.expression(c.sql))

    def subtopic_scope(self) -> bool:
        """Whether the planned measures read the subtopic judgments (the third scope)."""
        return bool(self.inputs & subtopic_inputs())

    def subtopic_measures(self) -> list[str]:
        return sorted({m for c in self.columns.values() for m in c.metrics if needs_subtopics(m)})

    def _refuse_without(self, subtopics: str | None, subtopic_ranks: str | None) -> None:
        """A diversity measure planned without subtopic judgments: refused, saying what to give."""
        if subtopics is not None and subtopic_ranks is not None:
            return
        names = [registry()[m].name for m in self.subtopic_measures()]
        macro = registry()[self.subtopic_measures()[0]].macro
        raise RankkitError(f"{', '.join(names)} need{'s' * (len(names) == 1)} subtopic judgments (query subtopic doc "
                           "grade, as ndeval reads them): give subtopics= to evaluate (rankkit eval --subtopics FILE), "
                           f"or in SQL the measure's table macro (FROM {macro}('subtopics', 'run'))")

    def _positive(self) -> dict:
        """The judged() argument for the positives input, given only where a measure reads it (scored=positive),
        so that another dialect's judged() need not know it."""
        return {"positive": True} if "positives" in self.inputs else {}

    def _by_layer(self, scope: str) -> list[list[Column]]:
        columns = [c for c in self.columns.values() if c.scope == scope]
        deepest = max((c.depth for c in columns), default=0)
        layers = [[c for c in columns if c.depth == depth] for depth in range(1, deepest + 1)]
        return [layer for layer in layers if layer]

    def _evaluated(self, query: str) -> str:
        """Per system and evaluated query: the run's lists beside the query's qrels features."""
        d = self.dialect
        ties = ", j.tie_firsts, j.tie_sizes" if self.ties == "average" else ""
        ties += f", coalesce(j.positives, {d.empty_list()}) AS positives" if "positives" in self.inputs else ""
        per_query = "".join(f", q.{c.name}" for c in self.columns.values() if c.scope == "query")
        lists = (f"j.num_ret IS NOT NULL AS retrieved, coalesce(j.num_ret, 0) AS num_ret, "
                 f"coalesce(j.ranks, {d.empty_list()}) AS ranks, coalesce(j.grades, {d.empty_list()}) AS grades{ties}, "
                 f"q.qrels_grades{per_query}")
        discounts = " CROSS JOIN rankkit_discounts" if "cum" in self.inputs else ""
        cum = ", rankkit_discounts.cum" if "cum" in self.inputs else ""
        if self.queries != "qrels":
            return (f"SELECT j.system, j.query_id, {lists}{cum}{self._subtopic_columns()} "
                    f"FROM rankkit_judged j JOIN {query} q USING (query_id){discounts}{self._subtopic_join('j')}")
        return (f"SELECT s.system, q.query_id, {lists}{cum}{self._subtopic_columns()} "
                f"FROM (SELECT DISTINCT system FROM rankkit_judged) s CROSS JOIN {query} q "
                "LEFT JOIN rankkit_judged j ON j.system IS NOT DISTINCT FROM s.system "
                f"AND j.query_id = q.query_id{discounts}{self._subtopic_join('s')}")

    def _subtopic_columns(self) -> str:
        """The subtopic inputs beside the run's lists (nothing when no measure reads them)."""
        if not self.subtopic_scope():
            return ""
        return (", coalesce(st.sub_ranks, []) AS sub_ranks, coalesce(st.sub_grades, []) AS sub_grades, "
                "q.sub_qrels, q.sub_docs")

    def _subtopic_join(self, system: str) -> str:
        if not self.subtopic_scope():
            return ""
        return (" LEFT JOIN rankkit_subtopic_lists st ON st.system IS NOT DISTINCT FROM "
                f"{system}.system AND st.query_id = q.query_id")


def run_only(dialect: DuckDB, qrels: str) -> str:
    """queries := 'run': the queries of the run (rankkit_judged) the qrels lack, as judgments of none, so that
    the measures of relevant items score them by their empty rule (torchmetrics and LensKit score every user
    they are given)."""
    return (f"SELECT DISTINCT r.query_id, {dialect.empty_list()} AS qrels_grades FROM rankkit_judged r "
            f"WHERE NOT EXISTS (SELECT 1 FROM {dialect.qrels_rows(qrels)} q WHERE q.query_id = r.query_id)")


def layers(ctes: list, first: str, prefix: str, layers: list[list[Column]], sql=lambda column: column.sql) -> str:
    """Append one CTE per layer over ``first``, each adding its columns (as ``sql`` writes them) to the one
    below; the last name."""
    last = first
    for n, columns in enumerate(layers, 1):
        name = f"{prefix}{n}"
        ctes.append((name, f"SELECT *, {', '.join(f'{sql(c)} AS {c.name}' for c in columns)} FROM {last}", False))
        last = name
    return last


def plan(specs: Iterable[Mapping], *, ties: str = "trec", queries: str = "both", dialect: DuckDB = DUCKDB) -> Plan:
    """The columns and values of the statement for ``specs`` (compose writes it)."""
    specs = list(specs)
    if not specs:
        raise RankkitError("no measure to compose; name at least one")
    if ties not in TIE_RULES:
        raise RankkitError(f"ties must be {', '.join(TIE_RULES[:-1])} or {TIE_RULES[-1]}, got {ties!r}")
    if queries not in QUERY_SETS:
        raise RankkitError(f"queries must be both, qrels or run, got {queries!r}")
    refused = [spec["measure"] for spec in specs if ties not in registry()[spec["metric"]].ties]
    if refused:
        takes = ", ".join(m.name for m in registry().values() if ties in m.ties)
        raise RankkitError(f"ties={ties} applies to the gain-based measures ({takes}) only, not {', '.join(refused)}")
    planned = Plan(ties=ties, queries=queries, dialect=dialect)
    for spec in specs:
        planned.add(spec)
    return planned
