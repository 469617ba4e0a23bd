"""The scalar macros of sql/*.sql (``rankkit.gain``, ``rankkit.ratio`` ...) read from their one definition
and inlined into an expression tree, for Spark 3.5, which has no SQL functions: each parameter replaced
by its argument, an argument used more than once computed once (``let``), the macro's own lambda
variables renamed so that an argument does not capture them.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache

from rankkit._paths import sql_dir
from rankkit.errors import RankkitError
from rankkit.spark_parse import Node, parse

__all__ = ["macros", "inline", "let", "substitute", "restart_names", "SIMPLE"]

_MACRO = re.compile(r"CREATE\s+OR\s+REPLACE\s+MACRO\s+rankkit\.(\w+)\s*\(([^)]*)\)\s+AS\s+(?!TABLE\b)(.*?);\s*$",
                    re.DOTALL | re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class Macro:
    name: str
    params: tuple[str, ...]
    defaults: tuple[tuple[str, str], ...]
    body: str


@cache
def macros() -> dict[str, Macro]:
    """The scalar macros of sql/*.sql (table macros excluded), by name: read from their one definition."""
    found = {}
    for path in sorted(sql_dir().glob("*.sql")):
        text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                         if not line.lstrip().startswith("--"))
        for statement in re.split(r";\s*\n", text):
            match = _MACRO.search(statement.strip() + ";")
            if match:
                params, defaults = _params(match.group(2))
                found[match.group(1).lower()] = Macro(match.group(1), params, defaults, match.group(3).strip())
    return found


def _params(text: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    names, defaults = [], []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, _, default = part.partition(":=")
        names.append(name.strip())
        if default:
            defaults.append((name.strip(), default.strip()))
    return tuple(names), tuple(defaults)


def inline(name: str, args: tuple[Node, ...], named: tuple[tuple[str, Node], ...]) -> Node:
    """A rankkit macro call as its body, each parameter replaced by its argument (as DuckDB does: the
    argument is written at each use)."""
    macro = macros().get(name)
    if macro is None:
        raise RankkitError(f"rankkit.{name} has no scalar macro definition in sql/*.sql to inline for Spark "
                           f"(known: {', '.join(sorted(macros()))})")
    if len(args) > len(macro.params):
        raise RankkitError(f"rankkit.{name} takes {len(macro.params)} arguments, got {len(args)}")
    values = dict(zip(macro.params, args))
    defaults = dict(macro.defaults)
    for key, value in named:
        if key not in macro.params:
            raise RankkitError(f"rankkit.{name} has no parameter {key}")
        values[key] = value
    for param in macro.params:
        if param not in values:
            if param not in defaults:
                raise RankkitError(f"rankkit.{name}: no value for its parameter {param}")
            values[param] = parse(defaults[param])
    body = _macro_body(name)
    bound = {}
    for param, value in values.items():
        if value.kind not in SIMPLE and _uses(body, param) > 1:
            bound[param] = value
    plain = {k: v for k, v in values.items() if k not in bound}

    def bind(remaining: list[str], names: dict[str, Node]) -> Node:
        if not remaining:
            return substitute(body, {**plain, **names})
        param = remaining[0]
        return let(bound[param], lambda variable: bind(remaining[1:], {**names, param: variable}))

    return bind(list(bound), {})


@cache
def _macro_body(name: str) -> Node:
    """A macro's body with its lambdas' and comprehensions' variables renamed (rankkit_<macro>_<name>), so
    that an argument naming a variable of the caller (``lambda x: rankkit.gain(x, ...)``) is not captured."""
    return _rename_bound(parse(macros()[name].body), f"rankkit_{name}_")


def _rename_bound(node: Node, prefix: str) -> Node:
    if node.kind == "lambda":
        params, body = node.parts
        renamed = {p: Node("column", (prefix + p,)) for p in params}
        return Node("lambda", (tuple(prefix + p for p in params), _rename_bound(substitute(body, renamed), prefix)))
    if node.kind == "comprehension":
        expr, variable, source, condition = node.parts
        renamed = {variable: Node("column", (prefix + variable,))}
        return Node("comprehension", (_rename_bound(substitute(expr, renamed), prefix), prefix + variable,
                                      _rename_bound(source, prefix),
                                      None if condition is None else _rename_bound(substitute(condition, renamed), prefix)))
    return Node(node.kind, tuple(_rename_part(part, prefix) for part in node.parts))


def _rename_part(part, prefix: str):
    if isinstance(part, Node):
        return _rename_bound(part, prefix)
    if isinstance(part, tuple):
        return tuple(_rename_part(p, prefix) for p in part)
    return part


SIMPLE = ("column", "number", "string", "constant", "field")
_names = itertools.count(1)


def restart_names() -> None:
    """Number ``let``'s variables from 1 again: the same text for the same expression, whatever was
    translated before."""
    global _names
    _names = itertools.count(1)


def let(value: Node, body) -> Node:
    """``body(variable)`` with ``value`` computed once: Spark writes a repeated argument out at each use,
    and a plan's cost grows with its text (a simple value is just repeated)."""
    if value.kind in SIMPLE:
        return body(value)
    name = f"rankkit_v{next(_names)}"
    return Node("let", (name, value, body(Node("column", (name,)))))


def _uses(node: Node, name: str) -> int:
    if node.kind == "column":
        return int(node.parts[0] == name)
    return sum(_uses(part, name) if isinstance(part, Node) else
               sum(_uses_part(p, name) for p in part) if isinstance(part, tuple) else 0 for part in node.parts)


def _uses_part(part, name: str) -> int:
    if isinstance(part, Node):
        return _uses(part, name)
    if isinstance(part, tuple):
        return sum(_uses_part(p, name) for p in part)
    return 0


def substitute(node: Node, values: dict[str, Node]) -> Node:
    """``node`` with each column named in ``values`` replaced, except inside a lambda that binds it."""
    if node.kind == "column" and node.parts[0] in values:
        return values[node.parts[0]]
    if node.kind == "lambda":
        params, body = node.parts
        inner = {k: v for k, v in values.items() if k not in params}
        return Node("lambda", (params, substitute(body, inner)))
    if node.kind == "comprehension":
        expr, variable, source, condition = node.parts
        inner = {k: v for k, v in values.items() if k != variable}
        return Node("comprehension", (substitute(expr, inner), variable, substitute(source, values),
                                      None if condition is None else substitute(condition, inner)))
    return Node(node.kind, tuple(_substitute_part(part, values) for part in node.parts))


def _substitute_part(part, values):
    if isinstance(part, Node):
        return substitute(part, values)
    if isinstance(part, tuple):
        return tuple(_substitute_part(p, values) for p in part)
    return part
