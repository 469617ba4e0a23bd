"""One lean statement for the measures asked: the composer.

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

The few pieces that are DuckDB's own (the table macros, list aggregation, MATERIALIZED, unnest) are
methods of :class:`DuckDB`: another dialect is another such object.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from rankkit.errors import RankkitError
from rankkit.measures import (CONVENTIONS, REFERENCE, TIE_RULES, Feature, Measure, default, inputs, needs_subtopics,
                              registry, shared_features, spec_fields, spec_types, subtopic_inputs)

__all__ = ["compose", "query_side", "plan", "Plan", "Generic", "PerRank", "Arguments", "DuckDB", "DUCKDB", "LOADED",
           "default_literal", "checked_argument", "condition", "variants", "trace_params"]

QUERY_SETS = ("both", "qrels")


class DuckDB:
    """What the composed statement says in DuckDB's own words."""

    name = "duckdb"
    materialized = "MATERIALIZED "

    def literal(self, value, type_: str) -> str:
        """A spec's parameter as a literal of its type (``type_``, as in rankkit.measures.spec_type())."""
        if value is None:
            return f"NULL::{type_}"
        if type_.endswith("[]"):
            element = type_[:-2]
            items = ", ".join(self.literal(item, element) for item in value)
            return f"[{items}]" if items else f"([]::{type_})"
        if type_.startswith("STRUCT("):
            fields = _fields(type_[len("STRUCT("):-1])
            return "{" + ", ".join(f"'{name}': {self.literal(value[name], t)}" for name, t in fields.items()) + "}"
        if type_ == "DOUBLE":
            text = repr(float(value))
            text = text if "e" in text else text + "E0"
            return f"({text})" if text.startswith("-") else text
        if type_ in ("BIGINT", "INTEGER"):
            return f"({int(value)})" if int(value) < 0 else str(int(value))
        return "'" + str(value).replace("'", "''") + "'"

    def qrels_rows(self, qrels: str) -> str:
        return f"rankkit.qrels_rows({qrels})"

    def expression(self, sql: str) -> str:
        """A definition's expression (DuckDB's list idiom, parameters filled in) in this dialect."""
        return sql

    def judged(self, ranks: str, ties: bool) -> str:
        """Per system and query: the ranks and grades of its judged documents in rank order (and their
        tie groups), sorted once as one list of structs by rank, cheaper than an ordered list per column."""
        tie_fields = ", 'tie_first': tie_first, 'tie_size': tie_size" if ties else ""
        tie_lists = (", list_transform(docs, lambda d: d.tie_first) AS tie_firsts, "
                     "list_transform(docs, lambda d: d.tie_size) AS tie_sizes") if ties else ""
        return ("SELECT system, query_id, num_ret, "
                "coalesce(list_transform(docs, lambda d: d.rank), []) AS ranks, "
                f"coalesce(list_transform(docs, lambda d: d.grade), []) AS grades{tie_lists} "
                "FROM (SELECT system, query_id, any_value(num_ret) AS num_ret, "
                f"list_sort(list({{'rank': rank, 'grade': grade{tie_fields}}}) FILTER (WHERE rank IS NOT NULL)) "
                "AS docs "
                f"FROM {ranks} GROUP BY system, query_id)")

    def judgments(self, qrels: str) -> str:
        """Per query: its qrels grades, in no order."""
        return (f"SELECT query_id, list(grade) AS qrels_grades FROM {self.qrels_rows(qrels)} "
                "GROUP BY query_id")

    def discount_sums(self, ranks: str, where: str = "true") -> str:
        """cum[r]: the discounts of ranks 1..r added up, as scikit-learn adds them (ties := 'average'),
        over the rows of ``ranks`` where ``where`` holds."""
        return ("SELECT list(cum ORDER BY r) AS cum FROM ("
                "SELECT r, sum(1.0E0 / rankkit.discount(r)) OVER (ORDER BY r ROWS UNBOUNDED PRECEDING) AS cum "
                f"FROM (SELECT unnest(range(1, max(tie_first + tie_size - 1) + 1)) AS r FROM {ranks} WHERE {where}))")

    def empty_list(self) -> str:
        return "[]"

    def subtopic_judgments(self, subtopics: str) -> str:
        """Per query: its subtopic judgments as sub_qrels (per subtopic, its grades) and sub_docs (per
        document, ids descending as ndeval breaks the ideal's ties, its grade for each subtopic or NULL),
        both in subtopic order."""
        rows = f"rankkit.subtopic_rows({subtopics})"
        return ("SELECT query_id, list(grades ORDER BY subtopic) AS sub_qrels, any_value(sub_docs) AS sub_docs FROM ("
                f"SELECT query_id, subtopic, list(grade) AS grades FROM {rows} GROUP BY query_id, subtopic) "
                "JOIN (SELECT query_id, list(grades ORDER BY doc_id DESC) AS sub_docs FROM ("
                "SELECT d.query_id, d.doc_id, list(g.grade ORDER BY t.subtopic) AS grades "
                f"FROM (SELECT DISTINCT query_id, doc_id FROM {rows}) d "
                f"JOIN (SELECT DISTINCT query_id, subtopic FROM {rows}) t USING (query_id) "
                f"LEFT JOIN {rows} g ON g.query_id = d.query_id AND g.doc_id = d.doc_id AND g.subtopic = t.subtopic "
                "GROUP BY d.query_id, d.doc_id) GROUP BY query_id) USING (query_id) GROUP BY query_id")

    def subtopic_lists(self, subtopics: str, subtopic_ranks: str) -> str:
        """Per system and query of the run: sub_ranks and sub_grades, an element per subtopic the query
        is judged for (subtopic order), from ``subtopic_ranks`` (system, query_id, subtopic, rank, grade)."""
        return ("SELECT j.system, j.query_id, list(coalesce(r.ranks, []) ORDER BY t.subtopic) AS sub_ranks, "
                "list(coalesce(r.grades, []) ORDER BY t.subtopic) AS sub_grades "
                "FROM (SELECT DISTINCT system, query_id FROM rankkit_judged) j "
                f"JOIN (SELECT DISTINCT query_id, subtopic FROM rankkit.subtopic_rows({subtopics})) t USING (query_id) "
                "LEFT JOIN (SELECT system, query_id, subtopic, list(rank ORDER BY rank) AS ranks, "
                f"list(grade ORDER BY rank) AS grades FROM {subtopic_ranks} GROUP BY system, query_id, subtopic) r "
                "ON r.system IS NOT DISTINCT FROM j.system AND r.query_id = j.query_id AND r.subtopic = t.subtopic "
                "GROUP BY j.system, j.query_id")

    def unpivot(self, rows: list[tuple[int, str, str, str]]) -> str:
        """The select list turning one row per system and query, a column per measure, into one row per
        measure (unnest zips lists of equal length): ``rows`` are (i, measure, agg, value column)."""
        i = ", ".join(str(row[0]) for row in rows)
        measures = ", ".join(self.literal(row[1], "VARCHAR") for row in rows)
        aggs = ", ".join(self.literal(row[2], "VARCHAR") for row in rows)
        values = ", ".join(row[3] for row in rows)
        if len(rows) == 1:
            return f"{i} AS i, {measures} AS measure, {aggs} AS agg, system, query_id, {values} AS value"
        return (f"unnest([{i}]) AS i, unnest([{measures}]) AS measure, unnest([{aggs}]) AS agg, "
                f"system, query_id, unnest([{values}]) AS value")


DUCKDB = DuckDB()


class Loaded(DuckDB):
    """DuckDB, for qrels in rankkit's own columns, as its readers load them (rankkit.evaluate, the explorer)."""

    def qrels_rows(self, qrels: str) -> str:
        return f"rankkit.loaded_qrels_rows({qrels})"


LOADED = Loaded()


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
        declared = tuple(f for f in measure.features if f.name == name) or shared_features()[name]
        for feature in declared:
            if feature.when and _matches(self._setting(feature.when[0], spec), feature.when[1]):
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
        ctes.append(("rankkit_judged", d.judged(ranks, self.ties == "average"), False))
        if self.subtopic_scope():
            self._refuse_without(subtopics, subtopic_ranks)
        query = kept or self._query_layers(ctes, qrels, subtopics)
        if kept is None:
            ctes[-1] = (ctes[-1][0], ctes[-1][1], True)  # once per query, whatever the number of systems
        if self.subtopic_scope():
            ctes.append(("rankkit_subtopic_lists", d.subtopic_lists(subtopics, subtopic_ranks), False))
        if "cum" in self.inputs:
            ctes.append(("rankkit_discounts", d.discount_sums(ranks), False))
        ctes.append(("rankkit_evaluated", self._evaluated(query), False))
        last = _layers(ctes, "rankkit_evaluated", "rankkit_r", self._by_layer("run"), lambda c: d.expression(c.sql))
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
        last = self._query_layers(ctes, qrels)
        return "WITH " + ",\n".join(f"{name} AS ({sql})" for name, sql, _ in ctes) + f"\nSELECT * FROM {last}"

    def _query_layers(self, ctes: list, qrels: str, subtopics: str | None = None) -> str:
        d = self.dialect
        judgments = d.judgments(qrels)
        if self.subtopic_scope():
            # the query's subtopic judgments beside its qrels grades, for the features of the query layer
            ctes.append(("rankkit_subtopic_judgments", d.subtopic_judgments(subtopics), False))
            judgments = (f"SELECT j.*, coalesce(t.sub_qrels, []) AS sub_qrels, coalesce(t.sub_docs, []) AS sub_docs "
                         f"FROM ({judgments}) j LEFT JOIN rankkit_subtopic_judgments t USING (query_id)")
        ctes.append(("rankkit_judgments", judgments, False))
        return _layers(ctes, "rankkit_judgments", "rankkit_q", self._by_layer("query"), lambda c: d.expression(c.sql))

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

    def _by_layer(self, scope: str) -> list[list[Column]]:
        columns = [c for c in self.columns.values() if c.scope == scope]
        deepest = max((c.depth for c in columns), default=0)
        layers = [[c for c in columns if c.depth == depth] for depth in range(1, deepest + 1)]
        return [layer for layer in layers if layer]

    def _evaluated(self, query: str) -> str:
        """Per system and evaluated query: the run's lists beside the query's qrels features."""
        d = self.dialect
        ties = ", j.tie_firsts, j.tie_sizes" if self.ties == "average" else ""
        per_query = "".join(f", q.{c.name}" for c in self.columns.values() if c.scope == "query")
        lists = (f"j.num_ret IS NOT NULL AS retrieved, coalesce(j.num_ret, 0) AS num_ret, "
                 f"coalesce(j.ranks, {d.empty_list()}) AS ranks, coalesce(j.grades, {d.empty_list()}) AS grades{ties}, "
                 f"q.qrels_grades{per_query}")
        discounts = " CROSS JOIN rankkit_discounts" if "cum" in self.inputs else ""
        cum = ", rankkit_discounts.cum" if "cum" in self.inputs else ""
        if self.queries == "both":
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


def _layers(ctes: list, first: str, prefix: str, layers: list[list[Column]], sql=lambda column: column.sql) -> str:
    """Append one CTE per layer over ``first``, each adding its columns (as ``sql`` writes them) to the one
    below; the last name."""
    last = first
    for n, columns in enumerate(layers, 1):
        name = f"{prefix}{n}"
        ctes.append((name, f"SELECT *, {', '.join(f'{sql(c)} AS {c.name}' for c in columns)} FROM {last}", False))
        last = name
    return last


@dataclass
class Generic(Plan):
    """Every measure at once, for a list of specs known only when the statement runs: the body of the
    rankkit.per_query_ranked macro, which the plain duckdb shell calls with any measures. It is written
    from the same declarations as compose's statements; what differs is where a parameter comes from.
    A parameter is read from each row's spec (the column ``s``), a variant is chosen by a CASE on its
    condition, each feature is computed only on the rows of the measures that read it, and the value
    is a CASE over the measures. The rows are one per spec, system and query; a feature of the qrels
    is computed per spec and query, once whatever the number of systems."""

    by_metric: dict[str, str] = field(default_factory=dict)  # metric -> its value column

    def add(self, spec: Mapping) -> None:
        measure = registry()[spec["metric"]]
        self.by_metric[measure.metric] = self._value_column(spec, measure)

    def _param(self, name: str, spec: Mapping) -> str:
        return f"s.{name}"

    def _condition(self):
        """A convention is the macro's argument, a parameter the spec's (compared as a number where it is one)."""
        return condition(typed=True, dialect=self.dialect)

    def _guarded(self, column: Column) -> str:
        metrics = ", ".join(self.dialect.literal(m, "VARCHAR") for m in sorted(column.metrics))
        return f"CASE WHEN metric IN ({metrics}) THEN {column.sql} END"

    def statement(self, qrels: str, ranks: str, specs: str = "specs", before: Iterable[tuple[str, str]] = ()) -> str:
        """The statement over ``ranks`` (a table or CTE in rankkit.ranks' columns), ``qrels`` (for
        rankkit.qrels_rows) and ``specs`` (a list of rankkit.spec), reading the arguments ``ties`` and
        ``queries`` by name: i, measure, agg, system, query_id, value."""
        d = self.dialect
        ctes = [(name, sql, False) for name, sql in before]
        ctes += [("rankkit_spec", f"SELECT s.i, s.metric, s FROM (SELECT unnest({specs}) AS s)", False),
                ("rankkit_checks", self._checks(), False),
                ("rankkit_judged", d.judged(ranks, True), False),
                ("rankkit_judgments", d.judgments(qrels), True),
                ("rankkit_query", "SELECT sp.i, sp.metric, sp.s, j.query_id, j.qrels_grades "
                                  "FROM rankkit_judgments j CROSS JOIN rankkit_spec sp", False)]
        query = _layers(ctes, "rankkit_query", "rankkit_q", self._by_layer("query"), self._guarded)
        ctes[-1] = (ctes[-1][0], ctes[-1][1], True)  # per spec and query, whatever the number of systems
        ctes.append(("rankkit_discounts", d.discount_sums(ranks, "ties = 'average'"), False))
        ctes.append(("rankkit_evaluated", self._evaluated(query), False))
        last = _layers(ctes, "rankkit_evaluated", "rankkit_r", self._by_layer("run"), self._guarded)
        body = ",\n".join(f"{name} AS {d.materialized if materialized else ''}({sql})"
                          for name, sql, materialized in ctes)
        cases = " ".join(f"WHEN {d.literal(metric, 'VARCHAR')} THEN {column}" for metric, column in self.by_metric.items())
        return (f"WITH\n{body}\nSELECT i, s.measure AS measure, s.agg AS agg, system, query_id, "
                f"CASE metric {cases} END AS value FROM {last}")

    def _checks(self) -> str:
        """ties := 'average' refused for a measure that takes no such rule."""
        average = [m for m in registry().values() if "average" in m.ties]
        allowed = ", ".join(self.dialect.literal(m.metric, "VARCHAR") for m in average)
        names = ", ".join(m.name for m in average)
        return (f"SELECT CASE WHEN ties = 'average' AND EXISTS (SELECT 1 FROM rankkit_spec WHERE metric NOT IN ({allowed})) "
                f"THEN error('rankkit: ties=average applies to the gain-based measures ({names}) only, not ' "
                f"|| (SELECT string_agg(s.measure, ', ' ORDER BY i) FROM rankkit_spec WHERE metric NOT IN ({allowed}))) "
                f"{self._subtopic_check()}ELSE true END AS ok")

    def _subtopic_check(self) -> str:
        """The diversity measures refused, naming their table macros: they read subtopic judgments, which
        the macro's two tables do not hold (left out, they would be NULL)."""
        diverse = [m for m in registry().values() if needs_subtopics(m.metric)]
        if not diverse:
            return ""
        listed = ", ".join(self.dialect.literal(m.metric, "VARCHAR") for m in diverse)
        macros = ", ".join(m.macro for m in diverse)
        return (f"WHEN EXISTS (SELECT 1 FROM rankkit_spec WHERE metric IN ({listed})) "
                "THEN error('rankkit: ' || (SELECT string_agg(s.measure, ', ' ORDER BY i) FROM rankkit_spec "
                f"WHERE metric IN ({listed})) || ' read subtopic judgments (query subtopic doc grade), which these two "
                f"tables do not hold: their table macros take them as the qrels ({macros}), as in "
                "FROM rankkit.alpha_ndcg(''subtopics'', ''run'', k := 10)') ")

    def _evaluated(self, query: str) -> str:
        """Per spec, system and evaluated query: the run's lists beside the query's features."""
        def rows(system: str, joined: str, where: str) -> str:
            return (f"SELECT q.*, {system} AS system, j.num_ret IS NOT NULL AS retrieved, "
                    "coalesce(j.num_ret, 0) AS num_ret, coalesce(j.ranks, []) AS ranks, coalesce(j.grades, []) AS grades, "
                    f"j.tie_firsts, j.tie_sizes, rankkit_discounts.cum FROM {joined} "
                    f"CROSS JOIN rankkit_discounts CROSS JOIN rankkit_checks WHERE rankkit_checks.ok AND {where}")

        # the query-set check sits in a condition: one on a constant false would be planned away, check and all
        every = ("CASE WHEN queries = 'qrels' THEN true WHEN queries = 'both' THEN false "
                 "ELSE error('rankkit: queries must be both or qrels, got ''' || queries || '''') END")
        return (rows("j.system", f"rankkit_judged j JOIN {query} q USING (query_id)", "queries = 'both'")
                + " UNION ALL "
                + rows("sy.system", f"(SELECT DISTINCT system FROM rankkit_judged) sy CROSS JOIN {query} q "
                                    "LEFT JOIN rankkit_judged j ON j.system IS NOT DISTINCT FROM sy.system "
                                    "AND j.query_id = q.query_id", every))


def compose(specs: Iterable[Mapping], *, qrels: str, ranks: str, ties: str = "trec", queries: str = "both",
            dialect: DuckDB = DUCKDB, kept: str | None = None, subtopics: str | None = None,
            subtopic_ranks: str | None = None) -> str:
    """One statement computing ``specs``' per-query values: i, measure, agg, system, query_id, value.

    ``qrels`` is the SQL naming the qrels table for rankkit.qrels_rows (``'my_qrels'`` or ``$qrels``),
    ``ranks`` a table or CTE in the columns of rankkit.ranks (made with the same ties, depth and
    judged_only); ``ties`` and ``queries`` are rankkit.per_query's conventions. ``kept``: a table or
    CTE holding query_side's rows for the same specs and qrels, read instead of computing them. The
    diversity measures read ``subtopics`` (SQL naming the subtopic judgments for rankkit.subtopic_rows)
    and ``subtopic_ranks`` (a table or CTE in rankkit.subtopic_ranks' columns); without them they are
    refused."""
    return _kept_text("statement", specs, (qrels, ranks, kept, subtopics, subtopic_ranks), ties, queries, dialect,
                      lambda planned: planned.statement(qrels, ranks, kept=kept, subtopics=subtopics,
                                                        subtopic_ranks=subtopic_ranks))


def query_side(specs: Iterable[Mapping], *, qrels: str, ties: str = "trec", queries: str = "both",
               dialect: DuckDB = DUCKDB) -> str:
    """The statement of what compose's statement computes once per query of the qrels (Plan.query_side)."""
    return _kept_text("query side", specs, (qrels,), ties, queries, dialect,
                      lambda planned: planned.query_side(qrels))


def _kept_text(what: str, specs: Iterable[Mapping], tables: tuple, ties: str, queries: str, dialect: DuckDB,
               write) -> str:
    # a loop, a sweep or the explorer asks for the same measures again and again: planning them again
    # was a cost of each small evaluation. The key is all the text is made from (the specs' repr: a spec
    # holds numbers, words, None and lists of them).
    specs = list(specs)
    key = (what, repr(specs), tables, ties, queries, dialect)
    found = _composed.get(key)
    if found is None:
        if len(_composed) >= COMPOSED:
            _composed.clear()
        found = _composed[key] = write(plan(specs, ties=ties, queries=queries, dialect=dialect))
    return found


_composed: dict[tuple, str] = {}
COMPOSED = 256  # texts kept


def plan(specs: Iterable[Mapping], *, ties: str = "trec", queries: str = "both", dialect: DuckDB = DUCKDB) -> Plan:
    """The columns and values of the statement for ``specs`` (compose writes it)."""
    specs = list(specs)
    if not specs:
        raise RankkitError("no measure to compose; name at least one")
    if ties not in TIE_RULES:
        raise RankkitError(f"ties must be {', '.join(TIE_RULES[:-1])} or {TIE_RULES[-1]}, got {ties!r}")
    if queries not in QUERY_SETS:
        raise RankkitError(f"queries must be both or qrels, got {queries!r}")
    refused = [spec["measure"] for spec in specs if ties not in registry()[spec["metric"]].ties]
    if refused:
        takes = ", ".join(m.name for m in registry().values() if ties in m.ties)
        raise RankkitError(f"ties={ties} applies to the gain-based measures ({takes}) only, not {', '.join(refused)}")
    planned = Plan(ties=ties, queries=queries, dialect=dialect)
    for spec in specs:
        planned.add(spec)
    return planned


def _matches(value, wanted: str) -> bool:
    if wanted == "NULL":
        return value is None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value) == float(wanted)
        except ValueError:
            return False
    return str(value) == wanted


def _fields(text: str) -> dict[str, str]:
    """``name TYPE, name TYPE ...`` (types may hold parentheses) as a dict."""
    found, depth, start = {}, 0, 0
    for n, char in enumerate(text + ","):
        depth += char == "("
        depth -= char == ")"
        if char == "," and depth == 0:
            name, type_ = text[start:n].strip().split(" ", 1)
            found[name] = type_.strip()
            start = n + 1
    return found


def trace_option(name: str) -> str:
    """A parameter as the trace's values read it from the trace macro's argument (rankkit.trace checks
    them): the cutoff is each row's rank; a spec value made of a parameter (gains) is made as the spec
    makes it, its messages naming the trace; any other is its argument as the spec's type."""
    if name == "k":
        return "rankkit_cutoff"
    field_ = spec_fields()[name]
    if field_.make:
        return re.sub(r"\bmeasure\b", "'trace'", field_.make)
    return f"CAST({name} AS {field_.type})"
# A trace column that is not a measure's value: the feature rank_NAME (sql/features.sql), or what each
# rank adds to a measure's value (NAME_contribution)
RANK_FEATURE = "rank_"
CONTRIBUTION = "_contribution"


def traced() -> dict[str, str]:
    """The measures rankkit.trace shows at every rank (those whose header has ``trace:``), by metric id,
    and the column each goes in."""
    return {m.metric: m.trace[0] for m in registry().values() if m.trace is not None}


def trace_params() -> list[str]:
    """The parameters the trace takes: every parameter of the traced measures, the cutoff first."""
    return list(dict.fromkeys(p for metric in traced() for p in registry()[metric].params))


def trace_columns() -> list[str]:
    """Every column the measures' headers show beside their values, in the order first named: a value
    column of another traced measure, a rank feature or a contribution, else an error naming the file."""
    values = set(traced().values())
    found: dict[str, None] = {}
    for measure in registry().values():
        for column in measure.trace[1] if measure.trace else ():
            known = (column in values or RANK_FEATURE + column in shared_features()
                     or (column.endswith(CONTRIBUTION) and column[:-len(CONTRIBUTION)] in values))
            if not known:
                raise RankkitError(f"{measure.path}: trace: unknown column {column}; expected a traced measure's "
                                   f"column ({', '.join(sorted(values))}), a feature's (rank_NAME in sql/features.sql) "
                                   f"or VALUE{CONTRIBUTION}")
            if column not in values:
                found[column] = None
    return list(found)


@dataclass
class PerRank(Generic):
    """The traced measures at every cutoff: rows per system, query and cutoff r (the column
    ``rankkit_cutoff``, 1 to kmax), a column per measure, each measure's value at cutoff r, and a column
    per rank feature the headers show (the gain at rank r, the ideal's). The other options are the trace
    macro's arguments; a variant is chosen by CASE, as in Generic, but no measure is guarded: every row
    computes every traced measure. A feature that reads the cutoff is per row, even one of the qrels
    only (the ideal DCG at r)."""

    shown: list[tuple[str, str]] = field(default_factory=list)  # (trace column, its feature's column)

    def add(self, spec: Mapping) -> None:
        Plan.add(self, spec)

    def add_feature(self, column: str, measure: Measure) -> None:
        """The rank feature rank_<column> as the trace's column ``column``."""
        self._metric = measure.metric
        name, _, _ = self._resolve(RANK_FEATURE + column, {"metric": measure.metric}, measure)
        self.shown.append((column, name))

    def _param(self, name: str, spec: Mapping) -> str:
        return trace_option(name)

    def _render(self, feature: Feature, spec: Mapping, measure: Measure) -> tuple[str, str, int]:
        sql, scope, depth = super()._render(feature, spec, measure)
        if "k" in feature.params and scope == "query":
            found = [self._resolve(name, spec, measure) for name in feature.features]
            return sql, "run", 1 + max((d for _, s, d in found if s == "run"), default=0)
        return sql, scope, depth

    def statement(self, qrels: str, ranks: str, specs: str = "", before: Iterable[tuple[str, str]] = ()) -> str:
        d = self.dialect
        ctes = [(name, sql, False) for name, sql in before]
        ctes += [("rankkit_judged", d.judged(ranks, True), False),
                ("rankkit_judgments", d.judgments(qrels), False)]
        query = _layers(ctes, "rankkit_judgments", "rankkit_q", self._by_layer("query"))
        ctes.append(("rankkit_discounts", d.discount_sums(ranks, "ties = 'average'"), False))
        ctes.append(("rankkit_evaluated",
                     f"SELECT j.system, j.query_id, j.num_ret IS NOT NULL AS retrieved, coalesce(j.num_ret, 0) AS num_ret, "
                     f"coalesce(j.ranks, []) AS ranks, coalesce(j.grades, []) AS grades, j.tie_firsts, j.tie_sizes, "
                     f"q.* EXCLUDE (query_id), rankkit_discounts.cum, c.rankkit_cutoff FROM rankkit_judged j JOIN {query} q USING (query_id) "
                     "CROSS JOIN rankkit_discounts CROSS JOIN (SELECT unnest(range(1, kmax + 1)) AS rankkit_cutoff) c",
                     False))
        last = _layers(ctes, "rankkit_evaluated", "rankkit_r", self._by_layer("run"))
        body = ",\n".join(f"{name} AS ({sql})" for name, sql, _ in ctes)
        columns = ", ".join([self._value(metric, column) for _, metric, _, column in self.values]
                            + [f"{name} AS {column}" for column, name in self.shown])
        # what a rank adds to a value: the value at r less the value at r - 1
        values = [(column, column.removesuffix(CONTRIBUTION)) for column in trace_columns() if column.endswith(CONTRIBUTION)]
        adds = "".join(f", {value} - coalesce(lag({value}) OVER down, 0.0E0) AS {column}" for column, value in values)
        return (f"WITH\n{body}\nSELECT *{adds} FROM (SELECT system, query_id, rankkit_cutoff AS rank, {columns} "
                f"FROM {last}) WINDOW down AS (PARTITION BY system, query_id ORDER BY rank)")

    def _value(self, metric: str, column: str) -> str:
        """A measure's column, NULL under ties := 'average' where the measure takes no such rule."""
        if "average" in registry()[metric].ties:
            return f"{column} AS {traced()[metric]}"
        return f"CASE WHEN ties = 'average' THEN NULL ELSE {column} END AS {traced()[metric]}"


def checked_argument(name: str, label: str, dialect=None) -> str:
    """A macro's argument ``name`` as rankkit.spec checks it (rankkit.checked_<name>, the prelude's
    check and message), or as given where the prelude declares no check: a list macro and a table
    macro refuse the same values (gain := 'exponential', max := -1) with the same words."""
    field_ = spec_fields().get(name)
    if field_ is None or field_.check is None:
        return name
    return f"rankkit.checked_{name}({name}, {(dialect or DUCKDB).literal(label, 'VARCHAR')})"


def default_literal(name: str, type_: str | None = None, dialect: DuckDB = DUCKDB) -> str:
    """A parameter's declared default as a literal of its spec type (or ``type_``); NULL where it has none."""
    value = default(name)
    return "NULL" if value is None else dialect.literal(value, type_ or spec_types()[name])


def condition(decided: Mapping[str, str] | None = None, *, argument: bool = False, typed: bool = False,
              dialect: DuckDB = DUCKDB):
    """The one rule a variant's condition ``[key=wanted]`` is written by where it is SQL (the macros:
    Generic, PerRank, Arguments and the list macros; compose's statements choose in Python), as the
    function ``holds(key, wanted)`` that variants() takes. A convention in ``decided`` (its setting,
    known as the SQL is written) gives True or False; one not decided is the macro's argument of its
    name. A parameter is its reference ``{s.key}``, filled as the surface fills parameters, or with
    ``argument`` the macro's argument of its name. The SQL: IS NULL for NULL, else equal to the wanted
    value, as a number with ``typed`` where the parameter's type is one."""
    def holds(key: str, wanted: str) -> str | bool:
        if key in CONVENTIONS and decided is not None:
            return decided[key] == wanted
        subject = key if key in CONVENTIONS or argument else f"{{s.{key}}}"
        if wanted == "NULL":
            return f"{subject} IS NULL"
        if typed and key not in CONVENTIONS and spec_types()[key] in ("DOUBLE", "BIGINT", "INTEGER"):
            return f"{subject} = {float(wanted)!r}"
        return f"{subject} = {dialect.literal(wanted, 'VARCHAR')}"

    return holds


def variants(name: str, measure: Measure, written) -> Feature:
    """The declaration of ``name`` with every variant: CASE WHEN its condition THEN it, the first
    declared first, ELSE the plain declaration (NULL if none). ``written(key, wanted)`` is SQL, or
    a bool where it is decided already."""
    declared = tuple(f for f in measure.features if f.name == name) or shared_features()[name]
    plain = [f.expr for f in declared if f.when is None]
    expr = plain[0] if plain else "NULL"
    for feature in reversed([f for f in declared if f.when]):
        holds = written(*feature.when)
        if holds is True:
            expr = feature.expr
        elif holds is not False:
            expr = f"CASE WHEN {holds} THEN {feature.expr} ELSE {expr} END"
    return Feature(name, expr, declared[0].where)


@dataclass
class Arguments(Plan):
    """One measure as the body of its table macro: each parameter is the macro's argument of that name,
    checked as rankkit.spec checks it, and a variant is chosen by a CASE on it (as in Generic). The
    diversity measures' table macros are written so (rankkit.macros.subtopic_macro); the others go through
    rankkit.per_query (rankkit.macros.table_macros_sql)."""

    def _param(self, name: str, spec: Mapping) -> str:
        if name not in registry()[spec["metric"]].params:  # not the macro's argument: its default (nNRBP's k)
            return default_literal(name, dialect=self.dialect)
        return checked_argument(name, spec["measure"], self.dialect)

    def _condition(self):
        """The conventions are decided (ties by score, the macro's query set); a parameter is the argument."""
        return condition({"ties": "trec", "queries": self.queries}, argument=True, dialect=self.dialect)
