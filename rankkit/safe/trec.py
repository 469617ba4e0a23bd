"""TREC run text (``qid Q0 docid rank score tag``): an id or tag is a field between runs of whitespace,
so one holding whitespace, a separator (``\\u2028``, a no-break space) or a control character would
split into other fields or lines in every reader. It cannot be escaped there: such a run is refused,
naming the id, and written in a typed format (Parquet) instead."""

from __future__ import annotations

__all__ = ["sql_unwritable"]


def sql_unwritable(text: str) -> str:
    """SQL, true where the text expression ``text`` cannot be a field of TREC text: empty, or holding
    whitespace, a Unicode separator or a control character."""
    return rf"({text} = '' OR regexp_matches({text}, '[\s\pZ\p{{Cc}}]'))"
