"""The measure registry, read from the headers of ``sql/metrics/*.sql``.

Each metric file starts with a ``--`` header (name, aliases, params, aggregate, summary, cite, and
optionally ties: the tie rules it supports, presets: names that stand for it with parameters
set, such as ranx's ``ndcg_burges(gain=exp)``, and trace: the column rankkit.trace gives its value in
at each rank and the columns that explain it, ``ndcg; gain, discount, dcg, ideal_gain, idcg``). Each parameter
is declared once and completely (``-- param:`` and the lines below it, see Param): in the file of the measure
that takes it, or in ``sql/00_prelude.sql`` when several measures do. Everything that needs to know about measures (the SQL name parser's catalog,
the CLI help, report labels, the measure table of docs/measures.md) reads this registry, so a
measure is declared in exactly one place: its SQL file.

After the header, a metric file declares its definition, which rankkit.plan turns into SQL:

    -- value:   rankkit.ratio({ap_sum}, {num_rel})
    -- feature: bing_sum := rankkit.ordered_sum(list_transform({rel_ranks}, lambda r, j: ...))

``value:`` is the per-query value; ``feature:`` a per-query feature only this measure uses.
Features several measures share, and the inputs the composer provides (``input:``), are declared
once in ``sql/features.sql``. In an expression ``{name}`` is a feature or an input and ``{s.name}`` a
parameter of the prelude, filled in as a literal; a feature may have variants for one value of a
parameter or convention, ``-- feature: dcg [ties=average] := ...``. A line that starts with ``--``
and at least four spaces continues the declaration above it.

The registry reads the SQL files and imports nothing else of rankkit's: the SQL written from it (the
name parser's catalog, the measure spec, the table and list macros) is rankkit.macros'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Iterable, Mapping

from rankkit._paths import sql_dir

__all__ = ["Measure", "Param", "Feature", "SpecField", "registry", "read_measure", "header", "params", "get", "preset",
           "label", "spec_value", "default", "written", "shared_features", "inputs", "needs_subtopics", "aggregate_of",
           "spec_fields", "spec_types", "spec_type", "Aggregation", "AGGREGATIONS"]

_HEADER = re.compile(r"^--\s*(\w+):\s*(.*?)\s*$")
_PARAM = re.compile(r"^--\s*param:\s*(\w+)\s+(\w+(?:\[\])?)\s*:=\s*(\S+)\s+(.*?)\s*$")
_INPUT = re.compile(r"^--\s*input:\s*(\w+)\s+(run|query)(/subtopic)?\b")
_FEATURE = re.compile(r"^--\s*feature:\s*(\w+)\s*(?:\[\s*(\w+)\s*=\s*([^\]]*?)\s*\])?\s*:=\s*(.*?)\s*$")
_VALUE = re.compile(r"^--\s*value:\s*(.*?)\s*$")
_CONTINUED = re.compile(r"^-- {4,}(\S.*?)\s*$")
REFERENCE = re.compile(r"\{(s\.)?(\w+)\}")
# The conventions (rankkit.per_query's arguments, not a measure's) a feature's variant may depend on
CONVENTIONS = ("ties", "queries")
TIE_RULES = ("trec", "rank", "average")


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


@dataclass(frozen=True)
class Measure:
    """One measure: its canonical name, aliases, parameters and the SQL file that computes it, and its
    definition: its value and the features only it uses (the shared ones are in sql/features.sql),
    read from the file when first asked for (a lookup by name needs the header alone)."""

    metric: str
    name: str
    aliases: tuple[str, ...]
    params: tuple[str, ...]
    aggregate: str
    summary: str
    cite: str
    path: Path
    ties: tuple[str, ...] = ("trec", "rank")
    # names that stand for this measure with parameters set (ranx's ndcg_burges is nDCG(gain=exp)):
    # (name, parameters as the measure's name writes them), from the optional ``presets:`` field
    presets: tuple[tuple[str, str], ...] = ()
    # what rankkit.trace shows of it, from the optional ``trace:`` field (``ndcg; gain, dcg, idcg``): the
    # trace's column of its value at each rank's cutoff, and the other columns that explain it
    trace: tuple[str, tuple[str, ...]] | None = None

    @property
    def macro(self) -> str:
        return f"rankkit.{self.metric}"

    @cached_property
    def definition(self) -> tuple[Feature | None, tuple[Feature, ...]]:
        """Its value and its own features, read and checked: a ValueError names the file and line."""
        declared = _declarations(self.path)
        values = [d for d in declared if d.name == "value"]
        features = tuple(d for d in declared if d.name != "value")
        _check_measure(self, values, features)
        return (values[0] if values else None), features

    @property
    def value(self) -> Feature | None:
        return self.definition[0]

    @property
    def features(self) -> tuple[Feature, ...]:
        return self.definition[1]


def header(path: Path) -> dict[str, str]:
    fields: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("--"):
            break
        match = _HEADER.match(line)
        if match:
            fields[match.group(1)] = match.group(2)
    return fields


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _presets(path: Path, text: str) -> tuple[tuple[str, str], ...]:
    """``presets: ndcg_burges(gain=exp), other(p=0.5)`` as (name, parameters) pairs; anything else in
    the field is a ValueError naming the file."""
    found = tuple(re.findall(r"([A-Za-z][\w-]*)\(([^()]+)\)", text))
    if re.sub(r"[A-Za-z][\w-]*\([^()]+\)|[\s,]", "", text):
        raise ValueError(f"{path}: presets: expected name(param=value, ...) separated by commas, got {text}")
    return found


def _trace(path: Path, text: str) -> tuple[str, tuple[str, ...]]:
    """``trace: ndcg; gain, dcg`` as ("ndcg", ("gain", "dcg")); anything else is a ValueError naming the file."""
    match = re.fullmatch(r"(\w+)\s*(?:;\s*(\w+(?:\s*,\s*\w+)*))?", text)
    if not match:
        raise ValueError(f"{path}: trace: expected 'column; shown, ...' (its value's column in the trace, then "
                         f"the columns that explain it), got {text}")
    return match.group(1), _split(match.group(2) or "")


@cache
def params() -> dict[str, Param]:
    """Every parameter a measure may take: the prelude's (shared), then each measure file's own."""
    found: dict[str, Param] = {}
    files = [(sql_dir() / "00_prelude.sql", None)] + [(path, path.stem) for path in
                                                       sorted((sql_dir() / "metrics").glob("*.sql"))]
    for path, owner in files:
        for param in _read_params(path, owner):
            if param.name in found:
                raise ValueError(f"{param.where}: parameter {param.name} is declared again (first at "
                                 f"{found[param.name].where}); declare it once, in sql/00_prelude.sql if several "
                                 f"measures take it")
            found[param.name] = param
    for param in found.values():
        if param.held is not None and param.held not in found:
            raise ValueError(f"{param.where}: {param.name} is held by {param.held}, which no file declares")
    return found


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
    values = _split(text.get("values", ""))
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


@cache
def registry() -> dict[str, Measure]:
    """Every measure, keyed by its metric id (the SQL file's stem), in file order."""
    measures = {}
    for path in sorted((sql_dir() / "metrics").glob("*.sql")):
        measure = _read_header(path)
        measures[measure.metric] = measure
    return measures


def read_measure(path: Path) -> Measure:
    """One metric file's header and definition, checked: a missing field, an undeclared parameter or an
    unknown feature is a ValueError naming the file (and the line)."""
    measure = _read_header(path)
    measure.definition  # noqa: B018 - read and checked now
    return measure


def _read_header(path: Path) -> Measure:
    """read_measure() with the definition left to be read when asked for: a fresh `rankkit eval` looks
    measures up by name (54 headers) and composes a few, and reading every definition was a cost of
    its start."""
    fields = header(path)
    missing = {"name", "aliases", "params", "aggregate", "summary", "cite"} - fields.keys()
    if missing:
        raise ValueError(f"{path}: header lacks {', '.join(sorted(missing))}")
    measure = Measure(
        metric=path.stem,
        name=fields["name"],
        aliases=_split(fields["aliases"]),
        params=_split(fields["params"]),
        aggregate=fields["aggregate"],
        summary=fields["summary"],
        cite=fields["cite"],
        path=path,
        ties=_split(fields.get("ties", "trec, rank")),
        presets=_presets(path, fields.get("presets", "")),
        trace=_trace(path, fields["trace"]) if "trace" in fields else None,
    )
    unknown = set(measure.params) - params().keys()
    if unknown:
        raise ValueError(f"{path}: undeclared parameters {', '.join(sorted(unknown))}")
    if measure.aggregate not in (*AGGREGATIONS, "text"):
        raise ValueError(f"{path}: aggregate: expected one of {', '.join(AGGREGATIONS)} or text, got {measure.aggregate}")
    foreign = [params()[name] for name in measure.params if params()[name].owner not in (None, measure.metric)]
    if foreign:
        raise ValueError(f"{path}: parameter {foreign[0].name} is {foreign[0].owner}'s own ({foreign[0].where}); "
                         f"a parameter several measures take is declared in sql/00_prelude.sql")
    if set(measure.ties) - set(TIE_RULES):
        raise ValueError(f"{path}: ties: expected some of {', '.join(TIE_RULES)}, got {fields['ties']}")
    return measure


# ---- definitions: features and values ------------------------------------------------------------

def _declarations(path: Path) -> list[Feature]:
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
    return sql_dir() / "features.sql"


@cache
def inputs() -> dict[str, str]:
    """The inputs the composer provides to every feature (sql/features.sql): name -> run or query
    (per system and query, or per query of the qrels)."""
    return {f.name: f.when[1].split("/")[0] for f in _declarations(shared_path()) if _is_input(f)}


@cache
def subtopic_inputs() -> frozenset[str]:
    """The inputs read from the subtopic judgments (declared ``run/subtopic`` or ``query/subtopic``)."""
    return frozenset(f.name for f in _declarations(shared_path()) if _is_input(f) and f.when[1].endswith("/subtopic"))


def reads(metric: str) -> frozenset[str]:
    """The features and inputs a measure's value reads, through every variant of each."""
    measure = registry()[metric]
    own: dict[str, list[Feature]] = {}
    for feature in measure.features:
        own.setdefault(feature.name, []).append(feature)
    found: set[str] = set()
    todo = list(measure.value.features) if measure.value is not None else []
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            for feature in own.get(name) or shared_features().get(name, ()):
                todo.extend(feature.features)
    return frozenset(found)


@cache
def needs_subtopics(metric: str) -> bool:
    """Whether a measure reads the subtopic judgments (the diversity measures): only an evaluation given
    them computes it; the generic macros (rankkit.per_query_ranked, the table macros) leave it out."""
    return bool(reads(metric) & subtopic_inputs())


@cache
def shared_features() -> dict[str, tuple[Feature, ...]]:
    """The features several measures share (sql/features.sql), each name with its variants, checked."""
    found: dict[str, tuple[Feature, ...]] = {}
    for feature in _declarations(shared_path()):
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


def _check_measure(measure: Measure, values: list[Feature], features: tuple[Feature, ...]) -> None:
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


def preset(name: str) -> tuple[Measure, str] | None:
    """The measure a preset name stands for (case-insensitive) and the parameters it sets, or None."""
    wanted = name.lower()
    for measure in registry().values():
        for given, fixed in measure.presets:
            if given.lower() == wanted:
                return measure, fixed
    return None


@dataclass(frozen=True)
class Aggregation:
    """How a measure's per-query values combine over queries (its header's ``aggregate:``), the one rule
    every engine writes out (SQL's rankkit.combined, Spark's, the bootstrap's, agree's): the sum of each
    query's term, which is the value or, for a geometric mean, its log floored at trec_eval's 0.00001
    (rankkit.geometric_term); over the number of queries, or not (a count's sum); exp of that for a
    geometric mean."""

    name: str
    log: bool
    divide: bool

    def term(self, value: str) -> str:
        """A query's term, as SQL over the SQL expression ``value``."""
        return f"rankkit.geometric_term({value})" if self.log else value

    def combined(self, total: str, n: str) -> str:
        """The value over queries, as SQL over the terms' sum ``total`` and their number ``n``."""
        value = f"{total} / {n}" if self.divide else total
        return f"exp({value})" if self.log else value

    def of_terms(self, terms, axis=None):
        """The value over queries of the terms (numpy's, for the bootstrap: along ``axis``)."""
        import numpy as np

        value = np.mean(terms, axis=axis) if self.divide else np.sum(terms, axis=axis)
        return np.exp(value) if self.log else value


# mean first: what a name of no measure is
AGGREGATIONS = {a.name: a for a in (Aggregation("mean", log=False, divide=True), Aggregation("sum", log=False, divide=False),
                                    Aggregation("gmean", log=True, divide=True))}


def aggregate_of(name: str) -> str:
    """How the measure a printed name (nDCG@10, P(rel=2)@5) names combines over queries: mean, sum
    (counts) or gmean (gm_map); a name of no measure is a mean."""
    try:
        return get(name.split("(")[0].split("@")[0]).aggregate
    except KeyError:
        return "mean"


def get(name: str) -> Measure:
    """The measure whose canonical name or plain alias is ``name`` (case-insensitive)."""
    wanted = name.lower()
    for measure in registry().values():
        if wanted == measure.name.lower() or wanted in (a.lower() for a in measure.aliases):
            return measure
    raise KeyError(name)


def _is_default(value, default: str) -> bool:
    """Whether a spec's value is the declared default (``NULL``, a number, a list of numbers, a word)."""
    if value is None or default == "NULL":
        return value is None and default == "NULL"
    if isinstance(value, (list, tuple)):
        return [float(v) for v in value] == [float(v) for v in default.strip("[]").split(",") if v]
    if isinstance(value, float):
        return f"{value:g}" == f"{float(default):g}"
    return str(value) == default


def _declared(name: str) -> str:
    return params()[name].default.strip("'")


def default(name: str):
    """A parameter's declared default (the SQL prelude's) as the parser gives it in a spec: None,
    a word, or a float (a cutoff: an int)."""
    declared = params()[name]
    if declared.default == "NULL":
        return None
    if declared.type == "VARCHAR":
        return _declared(name)
    if declared.type.endswith("[]"):
        return [float(v) for v in declared.default.strip("[]").split(",") if v]
    return int(declared.default) if declared.type in ("INTEGER", "BIGINT") else float(declared.default)


def spec_value(spec: Mapping, name: str):
    """A parameter's value in a parsed spec; one held by another (``held:``) is the one element of that
    one's list (IPrec's recall level, of ``levels``, the list 11pt_avg averages over)."""
    held = params()[name].held
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


def label(spec: Mapping) -> str:
    """The canonical name of a parsed measure (a spec from the SQL parser): the registry's name,
    the parameters that differ from their declared defaults, and the cutoff (IPrec's: its recall
    level); ``ndcg_cut_10`` and ``NDCG@10`` are both ``nDCG@10``, and the parser reads the name
    back to the same spec.

    >>> label({"metric": "p", "k": 5, "rel": 2.0})
    'P(rel=2)@5'
    >>> label({"metric": "ap", "k": None, "rel": 1.0})
    'AP'
    >>> label({"metric": "iprec_at_recall", "levels": [0.5], "rel": 1.0})
    'IPrec@0.5'
    """
    measure = registry()[spec["metric"]]
    # a parameter a spec does not hold (one written by hand, before the parameter was declared) is its default
    shown = [f"{name}={written(spec_value(spec, name))}" for name in measure.params
             if name not in ("k", "recall") and (params()[name].held or name) in spec
             and not _is_default(spec_value(spec, name), _declared(name))]
    cutoff = ""
    if "k" in measure.params and spec.get("k") is not None:
        cutoff = f"@{spec['k']}"
    elif "recall" in measure.params and not _is_default(spec_value(spec, "recall"), params()["recall"].default):
        cutoff = f"@{written(float(spec_value(spec, 'recall')))}"
    return measure.name + (f"({', '.join(shown)})" if shown else "") + cutoff


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
    """The spec's parameters, in the order of params(); one held by another (recall) has no field."""
    return {p.name: SpecField(p.name, p.spec_type, p.made[1] if p.made else None, p.check, p.must)
            for p in params().values() if p.held is None}


@cache
def spec_types() -> dict[str, str]:
    """Each field of a measure spec and its SQL type: the prelude's parameters, between the measure's
    place and names and its aggregation."""
    return {"i": "INTEGER", "measure": "VARCHAR", "metric": "VARCHAR",
            **{f.name: f.type for f in spec_fields().values()}, "agg": "VARCHAR"}


def spec_type() -> str:
    """The SQL type of a measure spec (what rankkit.spec makes and rankkit.per_query reads)."""
    return "STRUCT(" + ", ".join(f"{name} {type_}" for name, type_ in spec_types().items()) + ")"


# ---- the beyond-accuracy measures' declarations ------------------------------------------------------

@dataclass(frozen=True)
class Beyond:
    """One ``-- beyond:`` line: the measure's name, its other names, system or user level, the side
    tables it reads (the first given of ``a/b``), its parameters (name -> (default, values)) and summary."""

    name: str
    aliases: tuple[str, ...]
    level: str
    needs: tuple[str, ...]
    params: dict
    summary: str


@cache
def beyond_measures() -> dict[str, Beyond]:
    """The beyond-accuracy measures (sql/80_beyond.sql's ``-- beyond:`` lines: rankkit.beyond evaluates
    them over the run and the side tables) by their lower-case names and aliases."""
    found = {}
    for line in (sql_dir() / "80_beyond.sql").read_text(encoding="utf-8").splitlines():
        if match := re.match(r"^-- beyond: (.*)$", line):
            name, aliases, level, needs, params, summary = (part.strip() for part in match.group(1).split("|", 5))
            measure = Beyond(name, tuple(a.strip() for a in aliases.split(",") if a.strip()), level,
                             tuple(needs.split("/")) if needs else (), _beyond_params(params), summary)
            for each in (name, *measure.aliases):
                found[each.lower()] = measure
    return found


def _beyond_params(text: str) -> dict:
    """``tail=0.1: a number`` or ``similarity=auto: auto, features``: name -> (default, allowed words or ())."""
    if not text:
        return {}
    name, rest = text.split("=", 1)
    default, allowed = rest.split(":", 1)
    words = tuple(w.strip() for w in allowed.split(",")) if "," in allowed or allowed.strip().isidentifier() else ()
    return {name.strip(): (default.strip(), words if words != ("a number",) else ())}
