"""DuckDB expressions, as the measure definitions and the scalar macros write them, read into a small
tree (``Node``) for rankkit.spark_sql to write in Spark's words: a Pratt parser of the idiom they use
(lambdas, comprehensions, subscripts and slices, struct and list literals, casts, CASE), an error naming
the place it cannot read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rankkit.errors import RankkitError

__all__ = ["Node", "parse"]

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
                if self.peek() == "*" and self.peek(1) == ")":  # count(*)
                    self.take()
                    args.append(Node("star"))
                elif self.peek(1) == ":=":
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
