"""The measures' definitions: each measure file's ``value:`` and ``feature:`` declarations, and the
features several measures share and the inputs the composer provides (``sql/features.sql``), read and
checked (an error names the file and line). rankkit.plan turns them into SQL:

    -- value:   rankkit.ratio({ap_sum}, {num_rel})
    -- feature: bing_sum := rankkit.ordered_sum(list_transform({rel_ranks}, lambda r, j: ...))

``value:`` is the per-query value; ``feature:`` a per-query feature only this measure uses.
Features several measures share, and the inputs the composer provides (``input:``), are declared
once in ``sql/features.sql``. In an expression ``{name}`` is a feature or an input and ``{s.name}`` a
parameter of the prelude, filled in as a literal; a feature may have variants for one value of a
parameter or convention, ``-- feature: dcg [ties=average] := ...``. A line that starts with ``--``
and at least four spaces continues the declaration above it.

It reads the SQL files and imports only rankkit.parameters."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Iterable, Mapping

from rankkit import _paths
from rankkit.parameters import params

__all__ = ["Feature", "REFERENCE", "CONVENTIONS", "declarations", "check_measure", "shared_path", "inputs",
           "subtopic_inputs", "shared_features"]

_INPUT = re.compile(r"^--\s*input:\s*(\w+)\s+(run|query)(/subtopic)?\b")
_FEATURE = re.compile(r"^--\s*feature:\s*(\w+)\s*(?:\[\s*(\w+)\s*=\s*([^\]]*?)\s*\])?\s*:=\s*(.*?)\s*$")
_VALUE = re.compile(r"^--\s*value:\s*(.*?)\s*$")
_CONTINUED = re.compile(r"^-- {4,}(\S.*?)\s*$")
REFERENCE = re.compile(r"\{(s\.)?(\w+)\}")
# The conventions (rankkit.per_query's arguments, not a measure's) a feature's variant may depend on
CONVENTIONS = ("ties", "queries")


@dataclass(frozen=True)
class Feature:
    """A declared expression: a per-query feature (``name``, with an optional ``when`` = (parameter or
    convention, value) for a variant), or a measure's value (name ``value``). ``expr`` holds
    ``{feature}`` and ``{s.param}`` placeholders; ``where`` is the file and line it was read from."""

    name: str
    expr: str
    where: str
    when: tuple[str, str] | None = None

    @cached_property
    def features(self) -> tuple[str, ...]:
        """The features and inputs the expression reads, in order of first use."""
        return tuple(dict.fromkeys(m.group(2) for m in REFERENCE.finditer(self.expr) if not m.group(1)))

    @cached_property
    def params(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(m.group(2) for m in REFERENCE.finditer(self.expr) if m.group(1)))


# ---- definitions: features and values ------------------------------------------------------------

def declarations(path: Path) -> list[Feature]:
    """The ``feature:`` and ``value:`` declarations of a file (continuation lines joined), and its
    ``input:`` names as Feature with an empty expression and ``when`` = ("scope", run or query)."""
    found: list[Feature] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    current = None  # the declaration a continuation line extends: [name, parts, line number, when]
    for number, line in enumerate(lines, 1):
        continued = _CONTINUED.match(line)
        if current is not None and continued and not _starts_declaration(line):
            current[1].append(continued.group(1))
            continue
        if current is not None:
            found.append(Feature(current[0], " ".join(current[1]), current[2], current[3]))
            current = None
        where = f"{path}:{number}"
        if match := _INPUT.match(line):
            found.append(Feature(match.group(1), "", where, ("scope", match.group(2) + (match.group(3) or ""))))
        elif match := _FEATURE.match(line):
            when = (match.group(2), match.group(3)) if match.group(2) else None
            current = [match.group(1), [match.group(4)] if match.group(4) else [], where, when]
        elif match := _VALUE.match(line):
            current = ["value", [match.group(1)] if match.group(1) else [], where, None]
        elif re.match(r"^--\s*(feature|value|input)\s*:", line):
            raise ValueError(f"{where}: cannot read this declaration; expected '-- feature: name [param=value] := "
                             f"expression', '-- value: expression' or '-- input: name run|query description'")
    if current is not None:
        found.append(Feature(current[0], " ".join(current[1]), current[2], current[3]))
    for feature in found:
        if not feature.expr and feature.when and feature.when[0] == "scope":
            continue
        if not feature.expr:
            raise ValueError(f"{feature.where}: {feature.name} declares no expression")
    return found


def _starts_declaration(line: str) -> bool:
    return bool(_INPUT.match(line) or _FEATURE.match(line) or _VALUE.match(line))


def _is_input(feature: Feature) -> bool:
    return not feature.expr and feature.when is not None and feature.when[0] == "scope"


def shared_path() -> Path:
    return _paths.sql_dir() / "features.sql"


@cache
def inputs() -> dict[str, str]:
    """The inputs the composer provides to every feature (sql/features.sql): name -> run or query
    (per system and query, or per query of the qrels)."""
    return {f.name: f.when[1].split("/")[0] for f in declarations(shared_path()) if _is_input(f)}


@cache
def subtopic_inputs() -> frozenset[str]:
    """The inputs read from the subtopic judgments (declared ``run/subtopic`` or ``query/subtopic``)."""
    return frozenset(f.name for f in declarations(shared_path()) if _is_input(f) and f.when[1].endswith("/subtopic"))


@cache
def shared_features() -> dict[str, tuple[Feature, ...]]:
    """The features several measures share (sql/features.sql), each name with its variants, checked."""
    found: dict[str, tuple[Feature, ...]] = {}
    for feature in declarations(shared_path()):
        if _is_input(feature):
            continue
        if feature.name == "value":
            raise ValueError(f"{feature.where}: sql/features.sql declares features, not a measure's value")
        found[feature.name] = _add_variant(found.get(feature.name, ()), feature)
    for variants in found.values():
        for feature in variants:
            _check_references(feature, found)
    _check_cycles(found)
    return found


def _add_variant(variants: tuple[Feature, ...], feature: Feature) -> tuple[Feature, ...]:
    clash = [f for f in variants if f.when == feature.when]
    if clash:
        raise ValueError(f"{feature.where}: feature {feature.name} is declared again (first at {clash[0].where})")
    if feature.name in inputs():
        raise ValueError(f"{feature.where}: {feature.name} is an input (sql/features.sql), not a feature to declare")
    return variants + (feature,)


def _check_references(feature: Feature, known: Mapping[str, tuple[Feature, ...]]) -> None:
    """Every {feature} an expression reads is declared, every {s.param} is a parameter of the prelude,
    and a variant's condition names a parameter or a convention: else an error naming file and line."""
    for name in feature.features:
        if name not in known and name not in inputs():
            raise ValueError(f"{feature.where}: unknown feature {{{name}}} in {feature.name}; declared features: "
                             f"{', '.join(sorted(known))}; inputs: {', '.join(inputs())}")
    for name in feature.params:
        if name not in params():
            raise ValueError(f"{feature.where}: unknown parameter {{s.{name}}} in {feature.name}; the prelude "
                             f"declares {', '.join(params())}")
    if feature.when and feature.when[0] not in params() and feature.when[0] not in CONVENTIONS:
        raise ValueError(f"{feature.where}: {feature.name} [{feature.when[0]}=...]: expected a parameter "
                         f"({', '.join(params())}) or a convention ({', '.join(CONVENTIONS)})")


def check_measure(measure, values: list[Feature], features: tuple[Feature, ...]) -> None:
    """A measure with a number for a value declares it once; its own features do not shadow shared ones;
    everything its declarations read exists."""
    if measure.aggregate != "text" and not values:
        raise ValueError(f"{measure.path}: declares no '-- value: expression' (the composer needs the measure's "
                         f"per-query value from its features)")
    if len(values) > 1:
        raise ValueError(f"{values[1].where}: a second '-- value:' (the first is at {values[0].where})")
    own: dict[str, tuple[Feature, ...]] = {}
    for feature in features:
        if _is_input(feature):
            raise ValueError(f"{feature.where}: inputs are declared in sql/features.sql only")
        if feature.name in shared_features():
            raise ValueError(f"{feature.where}: feature {feature.name} is already declared in sql/features.sql")
        own[feature.name] = _add_variant(own.get(feature.name, ()), feature)
    known = {**shared_features(), **own}
    for feature in [*features, *values]:
        _check_references(feature, known)
    # the shared features are checked already and read none of a measure's own: a cycle runs through these
    _check_cycles(known, own, checked=set(shared_features()))


def _check_cycles(known: Mapping[str, tuple[Feature, ...]], start: Iterable[str] | None = None,
                  checked: set[str] | None = None) -> None:
    """No feature reads itself, through any of its variants: else an error naming the file and line.
    ``start``: the features to walk from (default: all); ``checked``: those known to read no cycle."""
    done: set[str] = set(checked or ())

    def walk(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            raise ValueError(f"{known[name][0].where}: feature {name} reads itself ({' -> '.join(path + (name,))})")
        if name in done or name not in known:
            return
        for feature in known[name]:
            for read in feature.features:
                walk(read, path + (name,))
        done.add(name)

    for name in known if start is None else start:
        walk(name, ())

