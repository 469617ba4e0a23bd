"""One lean statement for the measures asked: the composer.

From measure specs (as :func:`rankkit.evaluate.measure_specs` gives them) it writes one SQL statement
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
from functools import cache
from typing import Iterable, Mapping

from rankkit.errors import RankkitError
from rankkit.measures import TIE_RULES, Feature, Measure, inputs, registry, shared_features

__all__ = ["compose", "Plan", "DuckDB", "DUCKDB"]

_REFERENCE = re.compile(r"\{(s\.)?(\w+)\}")
QUERY_SETS = ("both", "qrels")


class DuckDB:
    """What the composed statement says in DuckDB's own words."""

    name = "duckdb"
    materialized = "MATERIALIZED "

    def literal(self, value, type_: str) -> str:
        """A spec's parameter as a literal of its type (``type_``, as in rankkit.evaluate.SPEC_TYPE)."""
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
        """Per query: its qrels grades, best first."""
        return (f"SELECT query_id, list(grade ORDER BY grade DESC) AS qrels_grades FROM {self.qrels_rows(qrels)} "
                "GROUP BY query_id")

    def discount_sums(self, ranks: str) -> str:
        """cum[r]: the discounts of ranks 1..r added up, as scikit-learn adds them (ties := 'average')."""
        return ("SELECT list(cum ORDER BY r) AS cum FROM ("
                "SELECT r, sum(1.0E0 / rankkit.discount(r)) OVER (ORDER BY r ROWS UNBOUNDED PRECEDING) AS cum "
                f"FROM (SELECT unnest(range(1, max(tie_first + tie_size - 1) + 1)) AS r FROM {ranks}))")

    def empty_list(self) -> str:
        return "[]"

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


@dataclass
class Column:
    """One feature as a column of the statement: its SQL, whether it is per query (of the qrels) or per
    system and query (run), and its layer (1 + the deepest layer of the same scope it reads)."""

    name: str
    sql: str
    scope: str
    depth: int
    feature: str


@dataclass
class Plan:
    """The columns a list of specs needs, each distinct expression once, and each spec's value."""

    ties: str = "trec"
    queries: str = "both"
    dialect: DuckDB = DUCKDB
    columns: dict[str, Column] = field(default_factory=dict)  # by SQL text
    inputs: set[str] = field(default_factory=set)
    values: list[tuple[int, str, str, str]] = field(default_factory=list)  # i, measure, agg, value column

    def add(self, spec: Mapping) -> None:
        """Plan ``spec``'s value and everything it reads."""
        measure = registry()[spec["metric"]]
        if measure.value is None:
            raise RankkitError(f"measure {spec['measure']} is text, not a number: the composer computes numbers")
        sql, scope, depth = self._render(measure.value, spec, measure)
        # a value is per system and query, even one that reads the qrels only (NumRel)
        column = self._column("value", f"CAST({sql} AS DOUBLE)", "run", depth if scope == "run" else 1)
        self.values.append((spec["i"], spec["measure"], spec["agg"], column.name))

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
            if match.group(1):
                return self.dialect.literal(spec[match.group(2)], spec_types()[match.group(2)])
            return found[match.group(2)][0]

        return _REFERENCE.sub(fill, feature.expr), scope, depth

    def _column(self, name: str, sql: str, scope: str, depth: int) -> Column:
        if sql not in self.columns:
            self.columns[sql] = Column(f"{name}_{len(self.columns) + 1}", sql, scope, depth, name)
        return self.columns[sql]

    def _variant(self, name: str, spec: Mapping, measure: Measure) -> Feature:
        """The declaration of ``name`` for this spec: the measure's own, else the shared one; the variant
        whose condition holds, else the plain one."""
        own = tuple(f for f in measure.features if f.name == name)
        variants = own or shared_features()[name]
        for feature in variants:
            if feature.when and _matches(self._setting(feature.when[0], spec), feature.when[1]):
                return feature
        plain = [f for f in variants if f.when is None]
        if not plain:
            raise RankkitError(f"{variants[0].where}: feature {name} has no plain declaration, and no variant "
                               f"for {spec['measure']}")
        return plain[0]

    def _setting(self, key: str, spec: Mapping):
        return {"ties": self.ties, "queries": self.queries}.get(key, spec.get(key))

    def statement(self, qrels: str, ranks: str, before: Iterable[tuple[str, str]] = ()) -> str:
        """The composed statement (see compose); ``before``: (name, SQL) of CTEs to put first (the inputs
        and ranks of a statement that stands alone)."""
        d = self.dialect
        ctes = [(name, sql, False) for name, sql in before]
        ctes += [("rankkit_judged", d.judged(ranks, self.ties == "average"), False),
                ("rankkit_judgments", d.judgments(qrels), False)]
        query = _layers(ctes, "rankkit_judgments", "rankkit_q", self._by_layer("query"), d)
        ctes[-1] = (ctes[-1][0], ctes[-1][1], True)  # once per query, whatever the number of systems
        if "cum" in self.inputs:
            ctes.append(("rankkit_discounts", d.discount_sums(ranks), False))
        ctes.append(("rankkit_evaluated", self._evaluated(query), False))
        last = _layers(ctes, "rankkit_evaluated", "rankkit_r", self._by_layer("run"), d)
        body = ",\n".join(f"{name} AS {d.materialized if materialized else ''}({sql})"
                          for name, sql, materialized in ctes)
        return f"WITH\n{body}\nSELECT {d.unpivot(self.values)} FROM {last}"

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
            return (f"SELECT j.system, j.query_id, {lists}{cum} "
                    f"FROM rankkit_judged j JOIN {query} q USING (query_id){discounts}")
        return (f"SELECT s.system, q.query_id, {lists}{cum} "
                f"FROM (SELECT DISTINCT system FROM rankkit_judged) s CROSS JOIN {query} q "
                "LEFT JOIN rankkit_judged j ON j.system IS NOT DISTINCT FROM s.system "
                f"AND j.query_id = q.query_id{discounts}")


def _layers(ctes: list, first: str, prefix: str, layers: list[list[Column]], dialect: DuckDB) -> str:
    """Append one CTE per layer over ``first``, each adding its columns to the one below; the last name."""
    last = first
    for n, columns in enumerate(layers, 1):
        name = f"{prefix}{n}"
        select = ", ".join(f"{dialect.expression(c.sql)} AS {c.name}" for c in columns)
        ctes.append((name, f"SELECT *, {select} FROM {last}", False))
        last = name
    return last


def compose(specs: Iterable[Mapping], *, qrels: str, ranks: str, ties: str = "trec", queries: str = "both",
            dialect: DuckDB = DUCKDB) -> str:
    """One statement computing ``specs``' per-query values: i, measure, agg, system, query_id, value.

    ``qrels`` is the SQL naming the qrels table for rankkit.qrels_rows (``'my_qrels'`` or ``$qrels``),
    ``ranks`` a table or CTE in the columns of rankkit.ranks (made with the same ties, depth and
    judged_only); ``ties`` and ``queries`` are rankkit.per_query's conventions."""
    return plan(specs, ties=ties, queries=queries, dialect=dialect).statement(qrels, ranks)


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


@cache
def spec_types() -> dict[str, str]:
    """Each spec field's SQL type, from rankkit.evaluate.SPEC_TYPE (imported here: evaluate will import
    this module)."""
    from rankkit.evaluate import SPEC_TYPE

    return _fields(SPEC_TYPE[len("STRUCT("):-1])


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
