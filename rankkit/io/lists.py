"""A run kept as a recommender keeps its top-k: one row per user holding a list of items (a DuckDB or
Parquet LIST column, ``(user_id, items)`` or ``(user_id, item_id VARCHAR[])``), read as ranked lists:
one row per item, ranked by its position (1 first)."""

from __future__ import annotations

import re

from rankkit.errors import InputError
from rankkit.io.catalog import ident, quote, temp_name

# The element types of a list of ids: strings or integers (as the ids of a row each)
_ID_LIST = re.compile(r"(VARCHAR|U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?|UUID)\[\]", re.I)


def list_column(names: list[tuple[str, str]], found: dict[str, str]) -> str | None:
    """The run's doc_id column when it holds lists (of any element type), else None."""
    doc = found.get("doc_id")
    return doc if doc is not None and dict(names)[doc].endswith("]") else None


def refuse_list_types(names: list[tuple[str, str]], found: dict[str, str], label: str) -> None:
    """A list column of other elements than ids (types as DuckDB writes them, ``DOUBLE[]``), or a score or
    rank beside the lists: one line naming the column (the DuckDB and the Spark readers)."""
    column, types = found["doc_id"], dict(names)
    if not _ID_LIST.fullmatch(types[column]):
        raise InputError(f"{label}: column {column} (the run's lists of doc_id) is {types[column]}; expected a "
                         f"list of strings or integers (VARCHAR[], BIGINT[]), item 1 ranked first")
    given = [found[c] for c in ("score", "rank") if c in found]
    if given:
        raise InputError(f"{label}: column {column} holds lists of doc_id, ranked by their position; the "
                         f"column {given[0]} beside it would rank them again: drop it, or give a row per item")


def unnest_lists(con, raw: str, names: list[tuple[str, str]], found: dict[str, str], label: str) -> str:
    """A view of ``raw`` with a row per item of its list column and the item's position as its rank;
    a list of the wrong type, a score or rank beside the lists, a NULL user id, a NULL list or a NULL
    item: one line naming the column."""
    refuse_list_types(names, found, label)
    column = found["doc_id"]
    user, items = ident(found["query_id"]), ident(column)
    bad = con.execute(
        f"SELECT CASE WHEN {user} IS NULL THEN 'column ' || {quote(found['query_id'])} || ' (query_id) is NULL' "
        f"WHEN {items} IS NULL THEN 'column ' || {quote(column)} || ' (doc_id) is NULL for query ' || {user} "
        f"ELSE 'column ' || {quote(column)} || ' (doc_id) holds a NULL item for query ' || {user} END "
        f"FROM {raw} WHERE {user} IS NULL OR {items} IS NULL OR list_count({items}) < len({items}) LIMIT 1").fetchall()
    if bad:
        raise InputError(f"{label}: {bad[0][0]}")
    view = temp_name("run_lists")
    con.execute(f"CREATE TEMP VIEW {view} AS SELECT * EXCLUDE ({items}), unnest({items}) AS {items}, "
                f"generate_subscripts({items}, 1) AS rank FROM {raw}")
    return view
