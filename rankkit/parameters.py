"""The measures' parameters, each declared once and completely (``-- param:`` and the lines below it,
see Param): in the file of the measure that takes it (``sql/metrics/*.sql``), or in ``sql/00_prelude.sql``
when several measures do; and what is read from them: a parameter's default, its text in a measure's
name, and the measure spec's fields (the parameters rankkit.spec checks and holds).

It reads the SQL files and imports nothing else of rankkit's (rankkit.measures, the registry, reads it)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from functools import cache
from typing import Mapping

from rankkit import _paths

__all__ = ["Param", "SpecField", "NUMBER", "NUMBERS", "params", "beyond_params", "spec_params", "split_commas", "default", "spec_value", "written",
           "is_default", "default_text", "spec_fields", "spec_types", "spec_type"]

_PARAM = re.compile(r"^--\s*param:\s*(\w+)\s+(\w+(?:\[\])?)\s*:=\s*(\S+)\s+(.*?)\s*$")

# A number as a trec_eval-style name writes it (ndcg_cut_10, rbp_p=0.8), and a list of them (utility_2,-1,0,0)
NUMBER = r"[-+]?[0-9]*\.?[0-9]+"
NUMBERS = rf"{NUMBER}(?:,{NUMBER})*"


@dataclass(frozen=True)
class Param:
    """A measure parameter, declared once: in the file of the measure that takes it, or in
    sql/00_prelude.sql when several do. ``where`` is the file and line; ``owner`` the measure whose
    file declares it (None: the prelude). The lines below the declaration say what its value must be
    (``check``: a condition, and ``must``: the refusal's words), the spec's value made of it instead
    (``made``: the spec's type and the expression), its text in a trec_eval-style name (``text``) and
    the parameter whose spec field holds it (``held``)."""

    name: str
    type: str
    default: str
    description: str
    where: str = ""
    owner: str | None = None
    check: str | None = None
    must: str | None = None
    values: tuple[str, ...] = ()
    made: tuple[str, str] | None = None
    text: str | None = None
    held: str | None = None

    @property
    def spec_type(self) -> str:
        return self.made[0] if self.made else self.type

    @property
    def pattern(self) -> str:
        """The text a trec_eval-style name may carry as its value (the alias ``ndcg_cut_{k}`` reads ndcg_cut_10)."""
        if self.text:
            return self.text
        if self.values:
            return "(?:" + "|".join(self.values) + ")"
        return NUMBERS if self.type.endswith("[]") else NUMBER


def split_commas(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())



@cache
def params() -> dict[str, Param]:
    """Every parameter a measure may take: the prelude's (shared), then each measure file's own."""
    found: dict[str, Param] = {}
    files = [(_paths.sql_dir() / "00_prelude.sql", None)] + [(path, path.stem) for path in
                                                              sorted((_paths.sql_dir() / "metrics").glob("*.sql"))]
    _add_declared(found, files)
    for param in found.values():
        if param.held is not None and param.held not in found:
            raise ValueError(f"{param.where}: {param.name} is held by {param.held}, which no file declares")
    return found


@cache
def beyond_params() -> dict[str, Param]:
    """The beyond-accuracy measures' own parameters (``sql/metrics/beyond/*.sql``), declared as every
    parameter is; apart from params(), which the measures of the qrels take (the table and list macros, the
    trace, the explorer read those); the measure spec holds both (spec_params)."""
    found: dict[str, Param] = dict(params())
    _add_declared(found, [(path, path.stem) for path in sorted((_paths.sql_dir() / "metrics" / "beyond").glob("*.sql"))])
    return {name: param for name, param in found.items() if name not in params()}


def spec_params() -> dict[str, Param]:
    """Every parameter a measure spec holds: params(), then the beyond-accuracy measures' own, so that the name
    parser reads and checks a beyond-accuracy measure's name as any other's. Not cached: params() is, and a
    test that declares a parameter clears it."""
    return {**params(), **beyond_params()}


def _add_declared(found: dict[str, Param], files: list) -> None:
    """The parameters the files declare added to ``found``; one declared again is a ValueError naming both lines."""
    for path, owner in files:
        for param in _read_params(path, owner):
            if param.name in found:
                raise ValueError(f"{param.where}: parameter {param.name} is declared again (first at "
                                 f"{found[param.name].where}); declare it once, in sql/00_prelude.sql if several "
                                 f"measures take it")
            found[param.name] = param


_FACTS = ("check", "values", "made", "text", "held")


def _read_params(path: Path, owner: str | None) -> list[Param]:
    """The ``-- param:`` declarations of one file, each with the fact lines below it (``--     check: ...``)."""
    found: list[tuple[list, dict, str]] = []
    current = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path}:{number}"
        if match := _PARAM.match(line):
            current = (list(match.groups()), {}, where)
            found.append(current)
        elif current is not None and (fact := re.match(r"^-- {4,}(\w+):\s*(.*?)\s*$", line)):
            if fact.group(1) not in _FACTS or fact.group(1) in current[1]:
                raise ValueError(f"{where}: expected one each of {', '.join(f + ':' for f in _FACTS)} below "
                                 f"-- param: {current[0][0]}, got {fact.group(1)}:")
            current[1][fact.group(1)] = (fact.group(2), where)
        elif re.match(r"^--\s*param\s*:", line):
            raise ValueError(f"{where}: expected '-- param: <name> <TYPE> := <default> <description>'")
        else:
            current = None
    return [_param(fields, facts, where, owner) for fields, facts, where in found]


def _param(fields: list, facts: dict, where: str, owner: str | None) -> Param:
    """One declaration read: ``values: a, b`` checks that the value is one of those words; ``check:
    condition ; words`` any other condition; ``made: TYPE := expression`` makes the spec's value instead."""
    name = fields[0]
    text = {key: value for key, (value, _) in facts.items()}
    check = must = made = None
    values = split_commas(text.get("values", ""))
    if values:
        if not all(re.fullmatch(r"\w+", v) for v in values):
            raise ValueError(f"{facts['values'][1]}: expected 'values: <word>, <word>, ...'")
        check = f"{name} IN (" + ", ".join(f"'{v}'" for v in values) + ")"
        must = f"{name} must be {', '.join(values[:-1])} or {values[-1]}" if len(values) > 1 else f"{name} must be {values[0]}"
    if "check" in text:
        parts = re.fullmatch(r"(.+?)\s*;\s*(.+)", text["check"])
        if not parts:
            raise ValueError(f"{facts['check'][1]}: expected 'check: <condition> ; <what {name} must be>'")
        check, must = parts.groups()
    if "made" in text:
        parts = re.fullmatch(r"(STRUCT\(.*?\)\[\]|[A-Z]+(?:\[\])?)\s*:=\s*(.+)", text["made"])
        if not parts:
            raise ValueError(f"{facts['made'][1]}: expected 'made: <spec type> := <expression of {name}>'")
        made = parts.groups()
    if sum(key in text for key in ("values", "check", "made", "held")) != 1:
        raise ValueError(f"{where}: {name} needs one of values: (the words it takes), check: (a condition ; what "
                         f"it must be), made: (the spec's value made of it) or held: (the parameter holding it)")
    return Param(*fields, where=where, owner=owner, check=check, must=must, values=values, made=made,
                 text=text.get("text"), held=text.get("held"))


def is_default(value, default: str) -> bool:
    """Whether a spec's value is the declared default (``NULL``, a number, a list of numbers, a word)."""
    if value is None or default == "NULL":
        return value is None and default == "NULL"
    if isinstance(value, (list, tuple)):
        return [float(v) for v in value] == [float(v) for v in default.strip("[]").split(",") if v]
    if isinstance(value, float):
        return f"{value:g}" == f"{float(default):g}"
    return str(value) == default


def default_text(name: str) -> str:
    return spec_params()[name].default.strip("'")


def default(name: str):
    """A parameter's declared default (the SQL prelude's) as the parser gives it in a spec: None,
    a word, or a float (a cutoff: an int)."""
    declared = spec_params()[name]
    if declared.default == "NULL":
        return None
    if declared.type == "VARCHAR":
        return default_text(name)
    if declared.type.endswith("[]"):
        return [float(v) for v in declared.default.strip("[]").split(",") if v]
    return int(declared.default) if declared.type in ("INTEGER", "BIGINT") else float(declared.default)


def spec_value(spec: Mapping, name: str):
    """A parameter's value in a parsed spec; one held by another (``held:``) is the one element of that
    one's list (IPrec's recall level, of ``levels``, the list 11pt_avg averages over)."""
    held = spec_params()[name].held
    return spec[held][0] if held else spec[name]


def written(value) -> str:
    """A parameter's value as a measure name writes it, so that the parser reads it back the same."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], Mapping):  # gains, [1=3,2=9]
        return "[" + ",".join(f"{written(float(g['level']))}={written(float(g['gain']))}" for g in value) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(written(float(v)) for v in value) + "]"
    return str(value)


# ---- the measure spec, written from the declarations --------------------------------------------------

@dataclass(frozen=True)
class SpecField:
    """What a measure spec holds of a parameter: its type there, and either the condition its value
    meets and what it must be, or the expression that makes it."""

    name: str
    type: str
    make: str | None
    check: str | None
    must: str | None


@cache
def spec_fields() -> dict[str, SpecField]:
    """The spec's parameters, in the order of spec_params(); one held by another (recall) has no field."""
    return {p.name: SpecField(p.name, p.spec_type, p.made[1] if p.made else None, p.check, p.must)
            for p in spec_params().values() if p.held is None}


@cache
def spec_types() -> dict[str, str]:
    """Each field of a measure spec and its SQL type: the parameters, between the measure's place and names
    and its aggregation, then a beyond-accuracy measure's level (system or user; NULL for the others)."""
    return {"i": "INTEGER", "measure": "VARCHAR", "metric": "VARCHAR",
            **{f.name: f.type for f in spec_fields().values()}, "agg": "VARCHAR", "level": "VARCHAR"}


def spec_type() -> str:
    """The SQL type of a measure spec (what rankkit.spec makes and rankkit.per_query reads)."""
    return "STRUCT(" + ", ".join(f"{name} {type_}" for name, type_ in spec_types().items()) + ")"

