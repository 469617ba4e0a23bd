"""DuckDB's list idiom, as the measure definitions write it, in Spark SQL's words.

The definitions (``-- value:`` and ``-- feature:`` lines of ``sql/``) and the scalar macros they call
(``rankkit.gain``, ``rankkit.ratio`` ... of ``sql/00_prelude.sql`` and ``sql/20_engine.sql``) are
written once, in DuckDB SQL. This module reads such an expression into a small tree and writes it
for Spark, where the same words mean something else or do not exist (``../shared/SPARK-NOTES.md``):

- a list lambda's index is 1-based in DuckDB and 0-based in Spark: ``lambda x, i: ...`` becomes
  ``(x, i) -> ...`` with every ``i`` of the body read as ``(i + 1)``;
- ``x[i]`` is NULL out of range in DuckDB and an error in ANSI Spark (an index 0 even in
  ``try_element_at``): it becomes ``try_element_at(x, nullif(i, 0))``;
- ``x[a:b]`` (1-based, inclusive) becomes ``slice(x, start, length)``, ``range(a, b)`` (end excluded,
  empty when b <= a) a ``sequence`` that cannot run backwards;
- ``log(x)`` is log10 in DuckDB and ln in Spark: it becomes ``log10``; a decimal literal (``0.5``,
  a DECIMAL in Spark, 6 digits after a division) becomes a DOUBLE (``0.5E0``);
- a ``rankkit.*`` scalar macro has no Spark equivalent on 3.5: its body, read from its one
  definition in the SQL files, is inlined with the arguments in place of its parameters;
- strings are escaped as Spark reads them (``'a''b'`` would be two literals run together there).

Anything else it does not know is an error naming it, never passed through: a DuckDB function that
Spark spells the same is listed in ``SAME``. Python composes and translates; no measure is written
twice.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache

from rankkit._paths import sql_dir
from rankkit.errors import RankkitError

__all__ = ["to_spark", "parse", "render", "macros", "spark_type"]

# DuckDB functions that Spark has under the same name, with the same meaning on the types the
# definitions give them (greatest/least skip NULLs in both; floor gives BIGINT in Spark, DOUBLE in
# DuckDB, which only ever meets a comparison or a division here).
SAME = {"coalesce", "greatest", "least", "floor", "ceil", "round", "exp", "ln", "log2", "log10", "abs",
        "sqrt", "nullif", "isnan", "pow", "power", "lower", "upper"}

_TOKEN = re.compile(r"""
    (?P<space>\s+|--[^\n]*)
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
  | (?P<string>'(?:[^']|'')*')
  | (?P<quoted>"(?:[^"]|"")*")
  | (?P<word>[A-Za-z_][A-Za-z_0-9]*)
  | (?P<op>::|:=|<>|!=|>=|<=|\|\||[-+*/%<>=(),\[\]{}:.])
""", re.VERBOSE)

_BINARY = {"OR": 1, "AND": 2, "=": 4, "<>": 4, "!=": 4, "<": 4, ">": 4, "<=": 4, ">=": 4,
           "||": 5, "+": 6, "-": 6, "*": 7, "/": 7, "%": 7}


@dataclass(frozen=True)
class Node:
    """One node of an expression: ``kind`` and its parts (strings, nodes, tuples of nodes)."""

    kind: str
    parts: tuple = ()


def _tokens(text: str) -> list[tuple[str, str]]:
    found, at = [], 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if not match:
            raise RankkitError(f"cannot read the SQL expression at {text[at:at + 30]!r} (character {at + 1}) "
                               f"for Spark: {text[:200]}")
        if match.lastgroup != "space":
            value = match.group()
            found.append((match.lastgroup, value.upper() if match.lastgroup == "word" and value.upper() in
                          _KEYWORDS else value))
        at = match.end()
    return found


_KEYWORDS = {"AND", "OR", "NOT", "IS", "NULL", "CASE", "WHEN", "THEN", "ELSE", "END", "CAST", "AS", "TRUE",
             "FALSE", "LAMBDA", "FOR", "IN", "IF", "DISTINCT", "FROM"}


class _Parser:
    """A Pratt parser for the expressions the definitions and the scalar macros are written in."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self, offset: int = 0) -> str | None:
        at = self.at + offset
        return self.tokens[at][1] if at < len(self.tokens) else None

    def take(self, wanted: str | None = None) -> str:
        token = self.peek()
        if token is None or (wanted is not None and token != wanted):
            raise RankkitError(f"expected {wanted or 'more'} at token {self.at + 1} ({token!r}) of the SQL "
                               f"expression: {self.text[:300]}")
        self.at += 1
        return token

    def whole(self) -> Node:
        node = self.expression()
        if self.peek() is not None:
            raise RankkitError(f"unexpected {self.peek()!r} at token {self.at + 1} of the SQL expression: "
                               f"{self.text[:300]}")
        return node

    def expression(self, floor: int = 0) -> Node:
        left = self.prefix()
        while True:
            token = self.peek()
            if token == "IS":
                if floor >= 4:
                    return left
                left = self.is_test(left)
                continue
            power = _BINARY.get(token)
            if power is None or power <= floor:
                return left
            self.take()
            left = Node("binary", (token, left, self.expression(power)))

    def is_test(self, left: Node) -> Node:
        self.take("IS")
        negated = self.peek() == "NOT"
        if negated:
            self.take()
        if self.peek() == "DISTINCT":
            self.take(), self.take("FROM")
            return Node("distinct", (negated, left, self.expression(4)))
        self.take("NULL")
        return Node("isnull", (negated, left))

    def prefix(self) -> Node:
        token = self.peek()
        if token == "NOT":
            self.take()
            return self.postfix(Node("not", (self.expression(3),)))
        if token == "-":
            self.take()
            return Node("negate", (self.expression(7),))
        return self.postfix(self.atom())

    def atom(self) -> Node:
        kind, token = self.tokens[self.at] if self.at < len(self.tokens) else (None, None)
        if token is None:
            raise RankkitError(f"the SQL expression ends too soon: {self.text[:300]}")
        if kind == "number":
            self.take()
            return Node("number", (token,))
        if kind == "string":
            self.take()
            return Node("string", (token[1:-1].replace("''", "'"),))
        if token in ("NULL", "TRUE", "FALSE"):
            self.take()
            return Node("constant", (token,))
        if token == "(":
            self.take()
            inner = self.expression()
            self.take(")")
            return inner
        if token == "[":
            return self.list_literal()
        if token == "{":
            return self.struct_literal()
        if token == "CASE":
            return self.case()
        if token == "CAST":
            self.take(), self.take("(")
            inner = self.expression()
            self.take("AS")
            type_ = self.type_name()
            self.take(")")
            return Node("cast", (inner, type_))
        if token == "LAMBDA":
            return self.lambda_()
        if kind in ("word", "quoted"):
            return self.name()
        raise RankkitError(f"unexpected {token!r} at token {self.at + 1} of the SQL expression: {self.text[:300]}")

    def name(self) -> Node:
        parts = [self._ident(self.take())]
        while self.peek() == "." and self.peek(1) is not None and self.peek(1) not in ("(", "["):
            self.take(".")
            parts.append(self._ident(self.take()))
        if self.peek() == "(":
            self.take("(")
            args, named = [], {}
            while self.peek() != ")":
                if self.peek(1) == ":=":
                    key = self.take()
                    self.take(":=")
                    named[key] = self.expression()
                else:
                    args.append(self.expression())
                if self.peek() != ")":
                    self.take(",")
            self.take(")")
            return Node("call", (".".join(parts).lower(), tuple(args), tuple(named.items())))
        node = Node("column", (parts[0],))
        for field in parts[1:]:
            node = Node("field", (node, field))
        return node

    @staticmethod
    def _ident(token: str) -> str:
        return token[1:-1].replace('""', '"') if token.startswith('"') else token

    def postfix(self, node: Node) -> Node:
        while self.peek() in ("::", "[", "."):
            if self.take() == "::":
                node = Node("cast", (node, self.type_name()))
            elif self.tokens[self.at - 1][1] == ".":
                node = Node("field", (node, self._ident(self.take())))
            else:
                node = self.subscript(node)
        return node

    def subscript(self, node: Node) -> Node:
        low = None if self.peek() == ":" else self.expression()
        if self.peek() == "]":
            self.take("]")
            return Node("index", (node, low))
        self.take(":")
        high = None if self.peek() == "]" else self.expression()
        self.take("]")
        return Node("slice", (node, low, high))

    def type_name(self) -> str:
        text = self.take()
        if self.peek() == "(":
            depth = 0
            while True:
                token = self.take()
                text += token if token in "()," else " " + token
                depth += (token == "(") - (token == ")")
                if depth == 0:
                    break
        while self.peek() == "[" and self.peek(1) == "]":
            self.take(), self.take()
            text += "[]"
        return text.replace("( ", "(")

    def list_literal(self) -> Node:
        self.take("[")
        items = []
        while self.peek() != "]":
            items.append(self.expression())
            if self.peek() == "FOR":  # [expr FOR x IN list IF condition]
                self.take()
                variable = self.take()
                self.take("IN")
                source = self.expression()
                condition = None
                if self.peek() == "IF":
                    self.take()
                    condition = self.expression()
                self.take("]")
                return Node("comprehension", (items[0], variable, source, condition))
            if self.peek() != "]":
                self.take(",")
        self.take("]")
        return Node("list", tuple(items))

    def struct_literal(self) -> Node:
        self.take("{")
        fields = []
        while self.peek() != "}":
            key = self.take()
            key = key[1:-1].replace("''", "'") if key.startswith("'") else key
            self.take(":")
            fields.append((key, self.expression()))
            if self.peek() != "}":
                self.take(",")
        self.take("}")
        return Node("struct", tuple(fields))

    def case(self) -> Node:
        self.take("CASE")
        operand = None if self.peek() == "WHEN" else self.expression()
        whens = []
        while self.peek() == "WHEN":
            self.take()
            condition = self.expression()
            self.take("THEN")
            whens.append((condition, self.expression()))
        otherwise = None
        if self.peek() == "ELSE":
            self.take()
            otherwise = self.expression()
        self.take("END")
        return Node("case", (operand, tuple(whens), otherwise))

    def lambda_(self) -> Node:
        self.take("LAMBDA")
        params = [self.take()]
        while self.peek() == ",":
            self.take()
            params.append(self.take())
        self.take(":")
        return Node("lambda", (tuple(params), self.expression()))


def parse(text: str) -> Node:
    """A DuckDB expression as a tree (an error naming the place where it cannot be read)."""
    return _Parser(text).whole()


# ---- the scalar macros -----------------------------------------------------------------------------

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


def _inline(name: str, args: tuple[Node, ...], named: tuple[tuple[str, Node], ...]) -> Node:
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
        if value.kind not in _SIMPLE and _uses(body, param) > 1:
            bound[param] = value
    plain = {k: v for k, v in values.items() if k not in bound}

    def bind(remaining: list[str], names: dict[str, Node]) -> Node:
        if not remaining:
            return _substitute(body, {**plain, **names})
        param = remaining[0]
        return _let(bound[param], lambda variable: bind(remaining[1:], {**names, param: variable}))

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
        return Node("lambda", (tuple(prefix + p for p in params), _rename_bound(_substitute(body, renamed), prefix)))
    if node.kind == "comprehension":
        expr, variable, source, condition = node.parts
        renamed = {variable: Node("column", (prefix + variable,))}
        return Node("comprehension", (_rename_bound(_substitute(expr, renamed), prefix), prefix + variable,
                                      _rename_bound(source, prefix),
                                      None if condition is None else _rename_bound(_substitute(condition, renamed), prefix)))
    return Node(node.kind, tuple(_rename_part(part, prefix) for part in node.parts))


def _rename_part(part, prefix: str):
    if isinstance(part, Node):
        return _rename_bound(part, prefix)
    if isinstance(part, tuple):
        return tuple(_rename_part(p, prefix) for p in part)
    return part


_SIMPLE = ("column", "number", "string", "constant", "field")
_names = itertools.count(1)


def _let(value: Node, body) -> Node:
    """``body(variable)`` with ``value`` computed once: Spark writes a repeated argument out at each use,
    and a plan's cost grows with its text (a simple value is just repeated)."""
    if value.kind in _SIMPLE:
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


def _substitute(node: Node, values: dict[str, Node]) -> Node:
    """``node`` with each column named in ``values`` replaced, except inside a lambda that binds it."""
    if node.kind == "column" and node.parts[0] in values:
        return values[node.parts[0]]
    if node.kind == "lambda":
        params, body = node.parts
        inner = {k: v for k, v in values.items() if k not in params}
        return Node("lambda", (params, _substitute(body, inner)))
    if node.kind == "comprehension":
        expr, variable, source, condition = node.parts
        inner = {k: v for k, v in values.items() if k != variable}
        return Node("comprehension", (_substitute(expr, inner), variable, _substitute(source, values),
                                      None if condition is None else _substitute(condition, inner)))
    return Node(node.kind, tuple(_substitute_part(part, values) for part in node.parts))


def _substitute_part(part, values):
    if isinstance(part, Node):
        return _substitute(part, values)
    if isinstance(part, tuple):
        return tuple(_substitute_part(p, values) for p in part)
    return part


# ---- Spark SQL -----------------------------------------------------------------------------------

def to_spark(text: str) -> str:
    """A DuckDB expression of the definitions' idiom as Spark SQL (an error naming what has no translation)."""
    global _names
    _names = itertools.count(1)  # the same text for the same expression, whatever was translated before
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
    if low is not None and high is None and items.kind not in _SIMPLE:
        return render(_let(items, lambda bound: Node("slice", (bound, low, high))))
    text = render(items)
    start = "1" if low is None else f"greatest(CAST({render(low)} AS INT), 1)"
    end = f"array_size({text})" if high is None else f"CAST({render(high)} AS INT)"
    return f"slice({text}, {start}, greatest({end} - {start} + 1, 0))"


def _lambda(params, body: Node, index_base_shift: bool = True) -> str:
    """A lambda; its second parameter, an index, counts from 1 in DuckDB and from 0 in Spark."""
    if len(params) == 2 and index_base_shift:
        index = params[1]
        body = _substitute(body, {index: Node("binary", ("+", Node("column", (index,)), Node("number", ("1",))))})
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
        if low.kind not in _SIMPLE or high.kind not in _SIMPLE:
            return render(_let(low, lambda a: _let(high, lambda b: Node("call", ("range", (a, b), ())))))
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
    if args[0].kind not in _SIMPLE:
        return render(_let(args[0], lambda bound: Node("call", ("list_reduce", (bound, args[1]), ()))))
    items = render(args[0])
    return f"aggregate(slice({items}, 2, greatest(array_size({items}) - 1, 0)), try_element_at({items}, 1), {function})"


def _call(name: str, args: tuple[Node, ...], named: tuple) -> str:
    if name.startswith("rankkit."):
        return render(_inline(name[len("rankkit."):], args, named))
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
