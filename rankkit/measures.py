"""The measure registry, read from the headers of ``sql/metrics/*.sql``.

Each metric file starts with a ``--`` header (name, aliases, params, aggregate, summary, cite);
the parameters themselves are declared once, in ``sql/00_prelude.sql``. Everything that needs to
know about measures (the SQL name parser's catalog, the CLI help, report labels, the README table)
reads this registry, so a measure is declared in exactly one place: its SQL file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Iterable, Mapping

from rankkit._paths import sql_dir

__all__ = ["Measure", "Param", "registry", "params", "get", "label"]

_HEADER = re.compile(r"^--\s*(\w+):\s*(.*?)\s*$")
_PARAM = re.compile(r"^--\s*param:\s*(\w+)\s+(\w+(?:\[\])?)\s*:=\s*(\S+)\s+(.*?)\s*$")


@dataclass(frozen=True)
class Param:
    """A measure parameter as declared in the prelude."""

    name: str
    type: str
    default: str
    description: str


@dataclass(frozen=True)
class Measure:
    """One measure: its canonical name, aliases, parameters and the SQL file that computes it."""

    metric: str
    name: str
    aliases: tuple[str, ...]
    params: tuple[str, ...]
    aggregate: str
    summary: str
    cite: str
    path: Path

    @property
    def macro(self) -> str:
        return f"rankkit.{self.metric}"


def _header(path: Path) -> dict[str, str]:
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


@cache
def params() -> dict[str, Param]:
    """The parameters any measure may take, declared in the SQL prelude."""
    found = {}
    for line in (sql_dir() / "00_prelude.sql").read_text(encoding="utf-8").splitlines():
        match = _PARAM.match(line)
        if match:
            found[match.group(1)] = Param(*match.groups())
    return found


@cache
def registry() -> dict[str, Measure]:
    """Every measure, keyed by its metric id (the SQL file's stem), in file order."""
    measures = {}
    for path in sorted((sql_dir() / "metrics").glob("*.sql")):
        fields = _header(path)
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
        )
        unknown = set(measure.params) - params().keys()
        if unknown:
            raise ValueError(f"{path}: undeclared parameters {', '.join(sorted(unknown))}")
        measures[measure.metric] = measure
    return measures


def get(name: str) -> Measure:
    """The measure whose canonical name or plain alias is ``name`` (case-insensitive)."""
    wanted = name.lower()
    for measure in registry().values():
        if wanted == measure.name.lower() or wanted in (a.lower() for a in measure.aliases):
            return measure
    raise KeyError(name)


def catalog_sql() -> str:
    """SQL that declares the registry to the SQL side: the catalog and the value dispatch."""
    rows = ",\n        ".join(
        f"({_lit(m.metric)}, {_lit(m.name)}, {_list(m.aliases)}, {_list(m.params)}, {_lit(m.aggregate)})"
        for m in registry().values()
    )
    from rankkit.trec import catalog_sql as trec_catalog_sql

    return trec_catalog_sql() + f"""-- Generated from the headers of sql/metrics/*.sql by rankkit.measures.catalog_sql().
CREATE OR REPLACE MACRO rankkit.catalog() AS TABLE
    SELECT * FROM (VALUES
        {rows}
    ) AS catalog(metric, name, aliases, params, agg);

CREATE OR REPLACE MACRO rankkit.measure_value(metric, f, s) AS
    {value_dispatch(registry())};
"""


def value_dispatch(metrics: Iterable[str]) -> str:
    """The SQL expression of a measure's per-query value from the columns ``metric, f, s`` of
    rankkit.features: a CASE over ``metrics``' _value macros (NULL for any other metric)."""
    cases = " ".join(f"WHEN {_lit(metric)} THEN rankkit.{metric}_value(f, s)" for metric in dict.fromkeys(metrics))
    return f"CASE metric {cases} END"


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _list(items: tuple[str, ...]) -> str:
    return "[" + ", ".join(_lit(i) for i in items) + "]::VARCHAR[]"


def _is_default(value, default: str) -> bool:
    """Whether a spec's value is the declared default (``NULL``, a number, a list of numbers, a word)."""
    if value is None or default == "NULL":
        return value is None and default == "NULL"
    if isinstance(value, (list, tuple)):
        return [float(v) for v in value] == [float(v) for v in default.strip("[]").split(",") if v]
    if isinstance(value, float):
        return f"{value:g}" == f"{float(default):g}"
    return str(value) == default


def label(spec: Mapping) -> str:
    """The canonical name of a parsed measure (a spec from the SQL parser): the registry's name,
    the parameters that differ from their declared defaults, and the cutoff; ``ndcg_cut_10`` and
    ``NDCG@10`` are both ``nDCG@10``.

    >>> label({"metric": "p", "k": 5, "rel": 2.0})
    'P(rel=2)@5'
    >>> label({"metric": "ap", "k": None, "rel": 1.0})
    'AP'
    >>> label({"metric": "iprec_at_recall", "k": None, "rel": 1.0, "levels": [0.5]})
    'IPrec@0.5'
    """
    measure = registry()[spec["metric"]]
    shown = []
    cutoff = f"@{spec['k']}" if spec.get("k") is not None else ""
    for name in measure.params:
        if name == "k":
            continue
        if name == "recall":  # IPrec's level is written as its cutoff (IPrec@0.5) and parsed into levels
            cutoff = f"@{spec['levels'][0]:g}"
            continue
        value, default = spec[name], params()[name].default.strip("'")
        if not _is_default(value, default):
            shown.append(f"{name}={value:g}" if isinstance(value, float) else f"{name}={value}")
    return measure.name + (f"({', '.join(shown)})" if shown else "") + cutoff
