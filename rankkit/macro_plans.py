"""The plans of the macros, written from the same declarations as compose's statements; what differs
is where a parameter comes from: :class:`Generic` (rankkit.per_query_ranked, any specs), :class:`PerRank`
(the trace's values at every cutoff) and :class:`Arguments` (a measure's table macro)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from rankkit.conditions import checked_argument, condition, default_literal
from rankkit.measures import Feature, Measure, needs_subtopics, registry
from rankkit.plan import Column, Plan, layers, run_only
from rankkit.trace_fields import CONTRIBUTION, RANK_FEATURE, trace_columns, trace_option, traced

__all__ = ["Generic", "PerRank", "Arguments"]


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
                ("rankkit_judged", d.judged(ranks, True, positive=True), False),
                ("rankkit_judgments", f"{d.judgments(qrels)} UNION ALL {run_only(d, qrels)} AND queries = 'run'", True),
                ("rankkit_query", "SELECT sp.i, sp.metric, sp.s, j.query_id, j.qrels_grades "
                                  "FROM rankkit_judgments j CROSS JOIN rankkit_spec sp", False)]
        query = layers(ctes, "rankkit_query", "rankkit_q", self._by_layer("query"), self._guarded)
        ctes[-1] = (ctes[-1][0], ctes[-1][1], True)  # per spec and query, whatever the number of systems
        ctes.append(("rankkit_discounts", d.discount_sums(ranks, "ties = 'average'"), False))
        ctes.append(("rankkit_evaluated", self._evaluated(query), False))
        last = layers(ctes, "rankkit_evaluated", "rankkit_r", self._by_layer("run"), self._guarded)
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
                    f"j.tie_firsts, j.tie_sizes, coalesce(j.positives, []) AS positives, rankkit_discounts.cum FROM {joined} "
                    f"CROSS JOIN rankkit_discounts CROSS JOIN rankkit_checks WHERE rankkit_checks.ok AND {where}")

        # the query-set check sits in a condition: one on a constant false would be planned away, check and all
        every = ("CASE WHEN queries = 'qrels' THEN true WHEN queries IN ('both', 'run') THEN false "
                 "ELSE error('rankkit: queries must be both, qrels or run, got ''' || queries || '''') END")
        return (rows("j.system", f"rankkit_judged j JOIN {query} q USING (query_id)", "queries <> 'qrels'")
                + " UNION ALL "
                + rows("sy.system", f"(SELECT DISTINCT system FROM rankkit_judged) sy CROSS JOIN {query} q "
                                    "LEFT JOIN rankkit_judged j ON j.system IS NOT DISTINCT FROM sy.system "
                                    "AND j.query_id = q.query_id", every))


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
        ctes += [("rankkit_judged", d.judged(ranks, True, positive=True), False),
                ("rankkit_judgments", d.judgments(qrels), False)]
        query = layers(ctes, "rankkit_judgments", "rankkit_q", self._by_layer("query"))
        ctes.append(("rankkit_discounts", d.discount_sums(ranks, "ties = 'average'"), False))
        ctes.append(("rankkit_evaluated",
                     f"SELECT j.system, j.query_id, j.num_ret IS NOT NULL AS retrieved, coalesce(j.num_ret, 0) AS num_ret, "
                     f"coalesce(j.ranks, []) AS ranks, coalesce(j.grades, []) AS grades, j.tie_firsts, j.tie_sizes, "
                     f"coalesce(j.positives, []) AS positives, q.* EXCLUDE (query_id), rankkit_discounts.cum, c.rankkit_cutoff FROM rankkit_judged j JOIN {query} q USING (query_id) "
                     "CROSS JOIN rankkit_discounts CROSS JOIN (SELECT unnest(range(1, kmax + 1)) AS rankkit_cutoff) c",
                     False))
        last = layers(ctes, "rankkit_evaluated", "rankkit_r", self._by_layer("run"))
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
