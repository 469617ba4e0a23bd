"""The composed statement's dialect: what it says in DuckDB's own words (the table macros, list
aggregation, MATERIALIZED, unnest), as methods of :class:`DuckDB`; another dialect is another such
object (rankkit.spark_dialect)."""

from __future__ import annotations

__all__ = ["DuckDB", "DUCKDB", "Loaded", "LOADED", "struct_fields"]


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
            fields = struct_fields(type_[len("STRUCT("):-1])
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

    def judged(self, ranks: str, ties: bool, positive: bool = False) -> str:
        """Per system and query: the ranks and grades of its judged documents in rank order (and their
        tie groups, and with ``positive`` whether each was scored above 0), sorted once as one list of
        structs by rank, cheaper than an ordered list per column."""
        fields = ", 'tie_first': tie_first, 'tie_size': tie_size" if ties else ""
        lists = (", list_transform(docs, lambda d: d.tie_first) AS tie_firsts, "
                 "list_transform(docs, lambda d: d.tie_size) AS tie_sizes") if ties else ""
        if positive:
            fields += ", 'positive': positive"
            lists += ", coalesce(list_transform(docs, lambda d: d.positive), []) AS positives"
        return ("SELECT system, query_id, num_ret, "
                "coalesce(list_transform(docs, lambda d: d.rank), []) AS ranks, "
                f"coalesce(list_transform(docs, lambda d: d.grade), []) AS grades{lists} "
                "FROM (SELECT system, query_id, any_value(num_ret) AS num_ret, "
                f"list_sort(list({{'rank': rank, 'grade': grade{fields}}}) FILTER (WHERE rank IS NOT NULL)) "
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


def struct_fields(text: str) -> dict[str, str]:
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
