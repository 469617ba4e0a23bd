"""DuckDB's list idiom, as the measure definitions write it, in Spark SQL's words.

The definitions (``-- value:`` and ``-- feature:`` lines of ``sql/``) and the scalar macros they call
(``rankkit.gain``, ``rankkit.ratio`` ... of ``sql/00_prelude.sql`` and ``sql/20_engine.sql``) are
written once, in DuckDB SQL. This module writes such an expression, read into a small tree by
rankkit.spark_parse, for Spark, where the same words mean something else or do not exist
(``../shared/SPARK-NOTES.md``):

- a list lambda's index is 1-based in DuckDB and 0-based in Spark: ``lambda x, i: ...`` becomes
  ``(x, i) -> ...`` with every ``i`` of the body read as ``(i + 1)``;
- ``x[i]`` is NULL out of range in DuckDB and an error in ANSI Spark (an index 0 even in
  ``try_element_at``): it becomes ``try_element_at(x, nullif(i, 0))``;
- ``x[a:b]`` (1-based, inclusive) becomes ``slice(x, start, length)``, ``range(a, b)`` (end excluded,
  empty when b <= a) a ``sequence`` that cannot run backwards;
- ``log(x)`` is log10 in DuckDB and ln in Spark: it becomes ``log10``; a decimal literal (``0.5``,
  a DECIMAL in Spark, 6 digits after a division) becomes a DOUBLE (``0.5E0``);
- a ``rankkit.*`` scalar macro has no Spark equivalent on 3.5: its body, read from its one
  definition in the SQL files, is inlined with the arguments in place of its parameters
  (rankkit.spark_macros);
- strings are escaped as Spark reads them (``'a''b'`` would be two literals run together there).

Anything else it does not know is an error naming it, never passed through: a DuckDB function that
Spark spells the same is listed in ``SAME``. Python composes and translates; no measure is written
twice.
"""

from __future__ import annotations

import re

from rankkit.errors import RankkitError
from rankkit.spark_macros import SIMPLE, inline, let, macros, restart_names, substitute
from rankkit.spark_parse import Node, parse

__all__ = ["to_spark", "parse", "render", "macros", "spark_type"]

# DuckDB functions that Spark has under the same name, with the same meaning on the types the
# definitions give them (greatest/least skip NULLs in both; floor gives BIGINT in Spark, DOUBLE in
# DuckDB, which only ever meets a comparison or a division here).
SAME = {"coalesce", "greatest", "least", "floor", "ceil", "round", "exp", "ln", "log2", "log10", "abs",
        "sqrt", "nullif", "isnan", "pow", "power", "lower", "upper",
        # aggregates (the fusion methods'): Spark's median is exact, the mean of the middle two as DuckDB's
        "sum", "count", "min", "max", "median", "any_value"}


def to_spark(text: str) -> str:
    """A DuckDB expression of the definitions' idiom as Spark SQL (an error naming what has no translation)."""
    restart_names()
    return render(parse(text))


def render(node: Node) -> str:
    """A tree as Spark SQL: every operation in parentheses, so that no precedence rule differs."""
    handler = _RENDER.get(node.kind)
    return handler(*node.parts)


def _number(text: str) -> str:
    if "." in text and not re.search("[eE]", text):
        return text + "E0"  # a DOUBLE: a decimal literal is a DECIMAL in Spark
    return text


def _string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _case(operand, whens, otherwise) -> str:
    text = "CASE" + (f" {render(operand)}" if operand is not None else "")
    text += "".join(f" WHEN {render(c)} THEN {render(v)}" for c, v in whens)
    return text + (f" ELSE {render(otherwise)}" if otherwise is not None else "") + " END"


def _index(items: Node, index: Node) -> str:
    # try_element_at: NULL beyond the end as DuckDB; nullif: index 0 (NULL in DuckDB) raises even there
    return f"try_element_at({render(items)}, CAST(nullif({render(index)}, 0) AS INT))"


def _slice(items: Node, low: Node | None, high: Node | None) -> str:
    if low is not None and high is None and items.kind not in SIMPLE:
        return render(let(items, lambda bound: Node("slice", (bound, low, high))))
    text = render(items)
    start = "1" if low is None else f"greatest(CAST({render(low)} AS INT), 1)"
    end = f"array_size({text})" if high is None else f"CAST({render(high)} AS INT)"
    return f"slice({text}, {start}, greatest({end} - {start} + 1, 0))"


def _lambda(params, body: Node, index_base_shift: bool = True) -> str:
    """A lambda; its second parameter, an index, counts from 1 in DuckDB and from 0 in Spark."""
    if len(params) == 2 and index_base_shift:
        index = params[1]
        body = substitute(body, {index: Node("binary", ("+", Node("column", (index,)), Node("number", ("1",))))})
    names = params[0] if len(params) == 1 else "(" + ", ".join(params) + ")"
    return f"{names} -> {render(body)}"


def _list_function(name: str, args: tuple[Node, ...]) -> str | None:
    """The list functions, or None for any other name."""
    if name in ("list_filter", "list_transform"):
        items, function = _two(name, args)
        if function.kind != "lambda":
            raise RankkitError(f"{name} for Spark needs a lambda, got {function.kind}")
        spark = "filter" if name == "list_filter" else "transform"
        return f"{spark}({render(items)}, {_lambda(*function.parts)})"
    if name in ("len", "length", "array_length") and len(args) == 1:
        return f"array_size({render(args[0])})"  # NULL for NULL, as DuckDB; size() gives -1 on Spark 3.5
    if name == "list_reverse_sort":
        return f"sort_array({render(args[0])}, false)"
    if name == "list_sort":
        return f"sort_array({render(args[0])}, true)"
    if name == "list_position" and len(args) == 2:
        # 1-based in both; absent: NULL in DuckDB, 0 in Spark
        return f"nullif(array_position({render(args[0])}, {render(args[1])}), 0)"
    if name == "list_max":
        return f"array_max({render(args[0])})"
    if name == "list_min":
        return f"array_min({render(args[0])})"
    if name == "list_prepend":
        return f"concat(array({render(args[0])}), {render(args[1])})"
    if name == "list_append":
        return f"concat({render(args[0])}, array({render(args[1])}))"
    if name == "list_sum":
        return f"aggregate({render(args[0])}, CAST(0 AS DOUBLE), (rankkit_total, rankkit_x) -> rankkit_total + rankkit_x)"
    if name == "list_reduce":
        return _reduce(args)
    if name == "range":
        low, high = (Node("number", ("0",)), args[0]) if len(args) == 1 else args
        if low.kind not in SIMPLE or high.kind not in SIMPLE:
            return render(let(low, lambda a: let(high, lambda b: Node("call", ("range", (a, b), ())))))
        first, past = render(low), render(high)
        # sequence(a, b) counts down when b < a: DuckDB's range is then empty
        return f"filter(sequence({first}, greatest({first}, {past} - 1)), rankkit_n -> rankkit_n < {past})"
    return None


def _two(name: str, args: tuple[Node, ...]) -> tuple[Node, Node]:
    if len(args) != 2:
        raise RankkitError(f"{name} for Spark takes 2 arguments, got {len(args)}")
    return args[0], args[1]


def _reduce(args: tuple[Node, ...]) -> str:
    """list_reduce(list, lambda acc, x: ..., [initial]) as Spark's aggregate(list, initial, (acc, x) -> ...);
    without an initial value the first element is, and the rest are reduced."""
    if len(args) not in (2, 3) or args[1].kind != "lambda" or len(args[1].parts[0]) != 2:
        raise RankkitError("list_reduce for Spark takes a list, a two-parameter lambda and an optional initial value")
    function = _lambda(*args[1].parts, index_base_shift=False)
    if len(args) == 3:
        return f"aggregate({render(args[0])}, {render(args[2])}, {function})"
    if args[0].kind not in SIMPLE:
        return render(let(args[0], lambda bound: Node("call", ("list_reduce", (bound, args[1]), ()))))
    items = render(args[0])
    return f"aggregate(slice({items}, 2, greatest(array_size({items}) - 1, 0)), try_element_at({items}, 1), {function})"


def _call(name: str, args: tuple[Node, ...], named: tuple) -> str:
    if name.startswith("rankkit."):
        return render(inline(name[len("rankkit."):], args, named))
    if named:
        raise RankkitError(f"{name} for Spark: named arguments ({', '.join(k for k, _ in named)}) are DuckDB's only")
    listed = _list_function(name, args)
    if listed is not None:
        return listed
    if name == "log":
        if len(args) != 1:
            raise RankkitError("log with a base for Spark: write log2, ln or log10")
        return f"log10({render(args[0])})"  # DuckDB's log is log10; Spark's is ln
    if name == "error":  # a definition's own refusal (a scale that does not rise): Spark's raise_error
        if len(args) != 1:
            raise RankkitError("error for Spark: one message, as DuckDB's error takes")
        return f"raise_error({render(args[0])})"
    if name in SAME:
        return f"{name}({', '.join(render(a) for a in args)})"
    raise RankkitError(f"the DuckDB function {name} has no Spark translation in rankkit.spark_sql "
                       f"(translated: list_filter, list_transform, len, list_reduce, range, ... and {', '.join(sorted(SAME))})")


def _comprehension(expr: Node, variable: str, source: Node, condition: Node | None) -> str:
    items = render(source)
    if condition is not None:
        items = f"filter({items}, {variable} -> {render(condition)})"
    return f"transform({items}, {variable} -> {render(expr)})"


def spark_type(duckdb_type: str) -> str:
    """A DuckDB type name as Spark writes it: INTEGER -> INT, VARCHAR -> STRING, T[] -> ARRAY<T>,
    STRUCT(a T) -> STRUCT<a: T>."""
    text = duckdb_type.strip()
    if text.endswith("[]"):
        return f"ARRAY<{spark_type(text[:-2])}>"
    upper = text.upper()
    if upper.startswith("STRUCT("):
        from rankkit.dialect import struct_fields

        fields = struct_fields(text[len("STRUCT("):-1])
        return "STRUCT<" + ", ".join(f"{name}: {spark_type(t)}" for name, t in fields.items()) + ">"
    simple = {"INTEGER": "INT", "INT": "INT", "BIGINT": "BIGINT", "DOUBLE": "DOUBLE", "FLOAT": "FLOAT",
              "VARCHAR": "STRING", "TEXT": "STRING", "BOOLEAN": "BOOLEAN", "UBIGINT": "DECIMAL(20, 0)"}
    if upper not in simple:
        raise RankkitError(f"the DuckDB type {text} has no Spark translation")
    return simple[upper]


def _cast(inner: Node, type_: str) -> str:
    if inner.kind == "list" and not inner.parts:
        return f"CAST(array() AS {spark_type(type_)})"
    return f"CAST({render(inner)} AS {spark_type(type_)})"


_RENDER = {
    "number": _number,
    "string": _string,
    "constant": lambda token: token,
    "star": lambda: "*",
    "column": lambda name: name if re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*", name) else "`" + name.replace("`", "``") + "`",
    "field": lambda base, name: f"{render(base)}.{name}",
    "binary": lambda op, left, right: f"({render(left)} {'<>' if op == '!=' else op} {render(right)})",
    "not": lambda inner: f"(NOT {render(inner)})",
    "negate": lambda inner: f"(- {render(inner)})",
    "isnull": lambda negated, inner: f"({render(inner)} IS {'NOT ' if negated else ''}NULL)",
    "distinct": lambda negated, left, right: f"({render(left)} IS {'NOT ' if negated else ''}DISTINCT FROM {render(right)})",
    "case": _case,
    "cast": _cast,
    "index": _index,
    "slice": _slice,
    "list": lambda *items: f"array({', '.join(render(i) for i in items)})",
    "struct": lambda *fields: "named_struct(" + ", ".join(f"{_string(k)}, {render(v)}" for k, v in fields) + ")",
    "comprehension": _comprehension,
    "call": _call,
    "lambda": lambda params, body: _lambda(params, body),
    "let": lambda name, value, body: f"element_at(transform(array({render(value)}), {name} -> {render(body)}), 1)",
}
