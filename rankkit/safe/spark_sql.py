"""Names pasted into a Spark SQL statement (``rankkit sql --dialect spark``, the Spark engine): each
part of a table name between backticks, a backtick within doubled, as Spark's parser reads a quoted
identifier. What no quoting makes one plain name is refused: an empty part, a control character
(the statement is printed, and a name is not a line break), a part with an unbalanced backtick: a
ValueError, which the Spark engine raises as rankkit's error (rankkit.spark_dialect.quoted). Like every
module of rankkit.safe, this one imports nothing of rankkit's outside it."""

from __future__ import annotations

import re

from rankkit.safe.terminal import CONTROL

__all__ = ["identifier", "table_name"]

# a part as the user may give it: `quoted` (backticks doubled within) or plain (no dot, no backtick)
_PART = re.compile(r"`((?:[^`]|``)*)`|([^.`]*)")


def identifier(name: str) -> str:
    """One identifier (a column, a part of a table name), quoted."""
    if name == "" or CONTROL.search(name):
        raise ValueError(f"Spark SQL name '{name}': expected a non-empty name without control characters")
    return "`" + name.replace("`", "``") + "`"


def table_name(text: str) -> str:
    """A table name as given (``db.runs``, ``catalog.db.runs``, `` `my runs` ``), each part quoted."""
    parts, at = [], 0
    while True:
        found = _PART.match(text, at)
        quoted, plain = found.group(1), found.group(2)
        parts.append(quoted.replace("``", "`") if quoted is not None else plain)
        at = found.end()
        if at == len(text):
            break
        if text[at] != ".":
            raise ValueError(f"table name '{text}': a backtick at {at + 1} neither quotes a part nor is doubled "
                               f"within one; quote a part as `my table` (a backtick within as ``)")
        at += 1
    if any(part == "" for part in parts):
        raise ValueError(f"table name '{text}': an empty part; expected NAME or SCHEMA.NAME (quote a part holding "
                           f"a dot: `my.table`)")
    return ".".join(identifier(part) for part in parts)
