"""The measure registry, read from the headers of ``sql/metrics/*.sql``.

Each metric file starts with a ``--`` header (name, aliases, params, aggregate, summary, cite, and
optionally ties: the tie rules it supports, presets: names that stand for it with parameters
set, such as ranx's ``ndcg_burges(gain=exp)``, and trace: the column rankkit.trace gives its value in
at each rank and the columns that explain it, ``ndcg; gain, discount, dcg, ideal_gain, idcg``, and top_k:
whether its value at cutoff k reads only the run's top k ranks, ``yes`` or ``ideal=qrels``, and better:
which way a system is better, ``higher`` when the field is left out, ``lower`` (FallOut, Gini) or ``none``
(a description, unj or IDCG: no system is best, none beats another)). Each parameter
is declared once and completely (rankkit.parameters). Everything that needs to know about measures (the SQL
name parser's catalog, the CLI help, report labels, the measure table of docs/measures.md) reads this
registry, so a measure is declared in exactly one place: its SQL file. After the header, the file
declares its definition (rankkit.definitions).

The registry is three modules by job: this one (the headers, names, labels and aggregation rules), the
parameters (rankkit.parameters) and the definitions (rankkit.definitions); their public names are read
through this one too. They read the SQL files and import nothing else of rankkit's: the SQL written from
them (the name parser's catalog, the measure spec, the table and list macros) is rankkit.macros'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Mapping

from rankkit import _paths
from rankkit.definitions import (CONVENTIONS, REFERENCE, Feature, check_measure, declarations, inputs, shared_features,
                                 subtopic_inputs)
from rankkit.parameters import (Param, SpecField, beyond_params, default, default_text, is_default, params, spec_fields,
                                spec_params, spec_type, spec_types, spec_value, split_commas, written)

__all__ = ["Measure", "Param", "Feature", "SpecField", "registry", "read_measure", "header", "params", "get", "preset",
           "label", "spec_value", "default", "written", "shared_features", "inputs", "subtopic_inputs", "needs_subtopics",
           "aggregate_of", "spec_fields", "spec_types", "spec_type", "Aggregation", "AGGREGATIONS",
           "CONVENTIONS", "REFERENCE", "TIE_RULES", "BETTER", "reads", "top_k_read",
           "beyond_measures", "beyond_params", "spec_params", "measure_of"]

_HEADER = re.compile(r"^--\s*(\w+):\s*(.*?)\s*$")
TIE_RULES = ("trec", "rank", "average")
BETTER = ("higher", "lower", "none")  # the better: field's values, the first when it is left out


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
    # whether its value at cutoff k reads only the run's top k ranks (and the qrels), from the optional
    # ``top_k:`` field: None (no, or no such field), () (``top_k: yes``) or the parameters' values under
    # which it does (``top_k: ideal=qrels``: nDCG's ideal of the run's own documents reads all of them)
    top_k: tuple[tuple[str, str], ...] | None = None
    # a beyond-accuracy measure's (sql/metrics/beyond/): system (one value per system) or user (a value per
    # user), and the side tables it reads, the first given of them (items: the catalog; interactions: the log)
    level: str | None = None
    needs: tuple[str, ...] = ()
    # which way a system is better, from the optional ``better:`` field: higher, lower or none (a
    # description: the tables mark no best and no significant win, a sweep refuses to tune for it)
    better: str = "higher"

    @property
    def macro(self) -> str:
        return f"rankkit.{self.metric}"

    @cached_property
    def definition(self) -> tuple[Feature | None, tuple[Feature, ...]]:
        """Its value and its own features, read and checked: a ValueError names the file and line."""
        declared = declarations(self.path)
        values = [d for d in declared if d.name == "value"]
        features = tuple(d for d in declared if d.name != "value")
        check_measure(self, values, features)
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
    return match.group(1), split_commas(match.group(2) or "")


@cache
def registry() -> dict[str, Measure]:
    """Every measure, keyed by its metric id (the SQL file's stem), in file order."""
    measures = {}
    for path in sorted((_paths.sql_dir() / "metrics").glob("*.sql")):
        measure = _read_header(path)
        measures[measure.metric] = measure
    return measures


def read_measure(path: Path) -> Measure:
    """One metric file's header and definition, checked: a missing field, an undeclared parameter or an
    unknown feature is a ValueError naming the file (and the line)."""
    measure = _read_header(path)
    measure.definition  # noqa: B018 - read and checked now
    return measure


def _read_header(path: Path, beyond: bool = False) -> Measure:
    """read_measure() with the definition left to be read when asked for: a fresh `rankkit eval` looks
    measures up by name (54 headers) and composes a few, and reading every definition was a cost of
    its start. A beyond-accuracy measure (``beyond``) declares its level and side tables instead of an
    aggregate: a per-user one's values are averaged over users."""
    fields = header(path)
    if beyond:
        fields = {**_beyond_fields(path, fields), **fields}
    missing = {"name", "aliases", "params", "aggregate", "summary", "cite"} - fields.keys()
    if missing:
        raise ValueError(f"{path}: header lacks {', '.join(sorted(missing))}")
    measure = Measure(
        metric=path.stem,
        name=fields["name"],
        aliases=split_commas(fields["aliases"]),
        params=split_commas(fields["params"]),
        aggregate=fields["aggregate"],
        summary=fields["summary"],
        cite=fields["cite"],
        path=path,
        ties=split_commas(fields.get("ties", "trec, rank")),
        presets=_presets(path, fields.get("presets", "")),
        trace=_trace(path, fields["trace"]) if "trace" in fields else None,
        top_k=_top_k(path, fields["top_k"]) if "top_k" in fields else None,
        level=fields.get("level"),
        needs=split_commas(fields.get("needs", "")),
        better=fields.get("better", BETTER[0]),
    )
    known = {**params(), **beyond_params()} if beyond else params()
    unknown = set(measure.params) - known.keys()
    if unknown:
        raise ValueError(f"{path}: undeclared parameters {', '.join(sorted(unknown))}")
    if measure.aggregate not in (*AGGREGATIONS, "text", "system"):
        raise ValueError(f"{path}: aggregate: expected one of {', '.join(AGGREGATIONS)} or text, got {measure.aggregate}")
    foreign = [known[name] for name in measure.params if known[name].owner not in (None, measure.metric)]
    if foreign:
        raise ValueError(f"{path}: parameter {foreign[0].name} is {foreign[0].owner}'s own ({foreign[0].where}); "
                         f"a parameter several measures take is declared in sql/00_prelude.sql")
    for name, value in measure.top_k or ():
        if name not in measure.params or params()[name].values and value not in params()[name].values:
            raise ValueError(f"{path}: top_k: {name}={value} is not a value of one of its parameters "
                             f"({', '.join(measure.params)})")
    if measure.better not in BETTER:
        raise ValueError(f"{path}: better: expected {', '.join(BETTER)}, got {measure.better}")
    if set(measure.ties) - set(TIE_RULES):
        raise ValueError(f"{path}: ties: expected some of {', '.join(TIE_RULES)}, got {fields['ties']}")
    return measure


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


def _top_k(path: Path, text: str) -> tuple[tuple[str, str], ...]:
    """``top_k: yes`` as (), ``top_k: ideal=qrels`` as (("ideal", "qrels"),); anything else is a ValueError
    naming the file."""
    if text == "yes":
        return ()
    found = tuple(tuple(part.split("=")) for part in split_commas(text))
    if not found or not all(re.fullmatch(r"\w+=[\w.]+", part) for part in split_commas(text)):
        raise ValueError(f"{path}: top_k: expected yes, or the parameters' values under which the value at "
                         f"cutoff k reads only the top k ranks (ideal=qrels), got {text}")
    return found


def top_k_read(spec: Mapping) -> int | None:
    """The cutoff k when the measure of a parsed spec reads only the run's top k ranks (and the qrels), from
    its header's ``top_k:``, else None (the whole run): the same ranks by the same tie rule give the same
    values from a run cut to its top k (a fusion sweep's points; the accuracy measures beside the
    beyond-accuracy ones, rankkit.evaluate.top_k_cutoff)."""
    measure = registry()[spec["metric"]]
    if measure.top_k is None or spec.get("k") is None:
        return None
    return int(spec["k"]) if all(written(spec_value(spec, name)) == value for name, value in measure.top_k) else None


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
    measure = measure_of(spec["metric"])
    # a parameter a spec does not hold (one written by hand, before the parameter was declared) is its default
    shown = [f"{name}={written(spec_value(spec, name))}" for name in measure.params
             if name not in ("k", "recall") and (spec_params()[name].held or name) in spec
             and not is_default(spec_value(spec, name), default_text(name))]
    cutoff = ""
    if "k" in measure.params and spec.get("k") is not None:
        cutoff = f"@{spec['k']}"
    elif "recall" in measure.params and not is_default(spec_value(spec, "recall"), params()["recall"].default):
        cutoff = f"@{written(float(spec_value(spec, 'recall')))}"
    return measure.name + (f"({', '.join(shown)})" if shown else "") + cutoff


# ---- the beyond-accuracy measures' declarations ------------------------------------------------------

LEVELS = {"user": "mean", "system": "system"}  # a level and what stands for its aggregate
SIDES = ("items", "interactions")


@cache
def beyond_measures() -> dict[str, Measure]:
    """The beyond-accuracy measures (``sql/metrics/beyond/*.sql``, declared as every measure is, with
    ``level:`` and ``needs:``) by their lower-case names and aliases: rankkit.beyond evaluates them over
    the run's top k and the side tables with their table macros (sql/80_beyond.sql), not the composer."""
    found = {}
    for path in sorted((_paths.sql_dir() / "metrics" / "beyond").glob("*.sql")):
        measure = _read_header(path, beyond=True)
        for each in (measure.name, *measure.aliases):
            found[each.lower()] = measure
    return found


def measure_of(metric: str) -> Measure:
    """The measure of a spec's metric (the SQL file's stem): the registry's, or a beyond-accuracy one's."""
    found = registry().get(metric)
    return found if found is not None else {m.metric: m for m in beyond_measures().values()}[metric]


def _beyond_fields(path: Path, fields: dict[str, str]) -> dict[str, str]:
    """A beyond-accuracy measure's aggregate, from its level: and needs: (checked: a ValueError names the file)."""
    if fields.get("level") not in LEVELS:
        raise ValueError(f"{path}: level: expected {' or '.join(LEVELS)}, got {fields.get('level')}")
    unknown = set(split_commas(fields.get("needs", ""))) - set(SIDES)
    if unknown:
        raise ValueError(f"{path}: needs: expected some of {', '.join(SIDES)} (the first given is read), got "
                         f"{', '.join(sorted(unknown))}")
    return {"aggregate": LEVELS[fields["level"]]}
