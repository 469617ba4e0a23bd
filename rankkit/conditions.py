"""A parameter where a statement or macro reads it: a macro's argument checked as rankkit.spec checks
it, a declared default as a literal, and a variant's condition ``[key=wanted]`` written in SQL or
decided by the spec."""

from __future__ import annotations

from typing import Mapping

from rankkit.dialect import DUCKDB, DuckDB
from rankkit.measures import CONVENTIONS, Feature, Measure, default, shared_features, spec_fields, spec_types

__all__ = ["checked_argument", "checked_value", "default_literal", "condition", "variants", "declarations", "matches"]


def checked_argument(name: str, label: str, dialect=None) -> str:
    """A macro's argument ``name`` as rankkit.spec checks it (rankkit.checked_<name>, the prelude's
    check and message), or as given where the prelude declares no check: a list macro and a table
    macro refuse the same values (gain := 'exponential', max := -1) with the same words."""
    field_ = spec_fields().get(name)
    if field_ is None or field_.check is None:
        return name
    return f"rankkit.checked_{name}({name}, {(dialect or DUCKDB).literal(label, 'VARCHAR')})"


def checked_value(name: str, type_: str, check: str, must: str, nullable: bool, said: str = "") -> str:
    """SQL: the argument ``name`` as ``type_`` where it meets its declared ``check`` (NULL passes where
    ``nullable``), else an error of its declared words ``must`` and the value given; ``said``, SQL text
    put before the words (whose measure). The one way a declaration's check is written as SQL."""
    passes = f"{name} IS NULL OR" if nullable else f"{name} IS NOT NULL AND"
    return (f"CASE WHEN {passes} ({check}) THEN {name}::{type_}\n"
            f"         ELSE error({said}{DUCKDB.literal(must + ', got ', 'VARCHAR')} || "
            f"coalesce({name}::VARCHAR, 'NULL')) END")


def default_literal(name: str, type_: str | None = None, dialect: DuckDB = DUCKDB) -> str:
    """A parameter's declared default as a literal of its spec type (or ``type_``); NULL where it has none."""
    value = default(name)
    return "NULL" if value is None else dialect.literal(value, type_ or spec_types()[name])


def condition(decided: Mapping[str, str] | None = None, *, argument: bool = False, typed: bool = False,
              dialect: DuckDB = DUCKDB):
    """The one rule a variant's condition ``[key=wanted]`` is written by where it is SQL (the macros:
    Generic, PerRank, Arguments and the list macros; compose's statements choose in Python), as the
    function ``holds(key, wanted)`` that variants() takes. A convention in ``decided`` (its setting,
    known as the SQL is written) gives True or False; one not decided is the macro's argument of its
    name. A parameter is its reference ``{s.key}``, filled as the surface fills parameters, or with
    ``argument`` the macro's argument of its name. The SQL: IS NULL for NULL, else equal to the wanted
    value, as a number with ``typed`` where the parameter's type is one."""
    def holds(key: str, wanted: str) -> str | bool:
        if key in CONVENTIONS and decided is not None:
            return decided[key] == wanted
        subject = key if key in CONVENTIONS or argument else f"{{s.{key}}}"
        if wanted == "NULL":
            return f"{subject} IS NULL"
        if typed and key not in CONVENTIONS and spec_types()[key] in ("DOUBLE", "BIGINT", "INTEGER"):
            return f"{subject} = {float(wanted)!r}"
        return f"{subject} = {dialect.literal(wanted, 'VARCHAR')}"

    return holds


def declarations(name: str, measure: Measure) -> tuple[Feature, ...]:
    """The declarations of feature ``name`` for ``measure``: its own, else the shared ones."""
    return tuple(f for f in measure.features if f.name == name) or shared_features()[name]


def variants(name: str, measure: Measure, written) -> Feature:
    """The declaration of ``name`` with every variant: CASE WHEN its condition THEN it, the first
    declared first, ELSE the plain declaration (NULL if none). ``written(key, wanted)`` is SQL, or
    a bool where it is decided already."""
    declared = declarations(name, measure)
    plain = [f.expr for f in declared if f.when is None]
    expr = plain[0] if plain else "NULL"
    for feature in reversed([f for f in declared if f.when]):
        holds = written(*feature.when)
        if holds is True:
            expr = feature.expr
        elif holds is not False:
            expr = f"CASE WHEN {holds} THEN {feature.expr} ELSE {expr} END"
    return Feature(name, expr, declared[0].where)


def matches(value, wanted: str) -> bool:
    if wanted == "NULL":
        return value is None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value) == float(wanted)
        except ValueError:
            return False
    return str(value) == wanted
