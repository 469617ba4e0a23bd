"""Measure names to measure specs, parsed by the SQL parser (rankkit.measure_specs) and kept, in the
process and on disk, per list of names."""

from __future__ import annotations

from typing import Iterable, Mapping

from rankkit import _engine as duckdb

from rankkit._sql import engine_connection, store, stored
from rankkit.conventions import PACKS
from rankkit.errors import MeasureError, warn
from rankkit.measures import default, label, measure_of, registry, spec_type
from rankkit.neighbours import beyond_refused
from rankkit.running import sql_message
from rankkit.trec import family_of, given


SPEC_TYPE = spec_type()  # the measure spec's SQL type, from sql/00_prelude.sql


def measure_specs(con: duckdb.DuckDBPyConnection | None, measures: str | Iterable[str], rel: float = 1,
                  docs: int = 0, text: bool = False, beyond: bool = False) -> list[dict]:
    """Parse measure names with the SQL parser; a bad name raises MeasureError. The parser reads
    trec_eval's nicknames (official, all_trec, set), its parameter forms (P.5,10) and family names (P,
    recall) as the measures they stand for, and ir_measures' and ranx's spellings as rankkit's names
    (rankkit.neighbours' rules); an ir_measures measure object is written in its spelling first
    (rankkit.trec.given). ``text``: the measures whose value is text (runid, relstring: ``agg`` 'text') too,
    nicknames' among them, where otherwise a nickname leaves them out and one named is refused. ``beyond``: the
    beyond-accuracy measures too (Coverage@10: a spec whose ``level`` is set, for a caller that evaluates them with
    their side tables, rankkit.beyond), where otherwise one named is refused as the SQL parser refuses it. ``con``
    None: a lean connection (the parser, without duckdb's Python package) is made if the names were not
    parsed before (a command reads what it prints, and how, before it opens its own)."""
    names = given(measures)
    for name in names:
        if not isinstance(name, str):
            raise MeasureError(f"a measure name must be a string, got {name!r}")
    # parsed with the beyond-accuracy measures, refused below where not asked for: one parse for rankkit.beyond.split
    # and the composer after it (the same names, options and key)
    key = (tuple(names), rel, docs, text)
    if names and key not in _parsed:  # a loop over many runs asks for the same names: parsing them is slow
        _parsed[key] = _stored_specs(key) or _parse_specs(con if con is not None else engine_connection(lean=True), key)
    if not names or not _parsed[key]:  # none given, or a trec_eval form of none (P.,)
        raise MeasureError("no measure given; name at least one, such as nDCG@10 or AP")
    specs = [_labelled(dict(spec), rel) for spec in _parsed[key]]
    for spec in specs if not beyond else ():
        if spec["level"] is not None:
            raise MeasureError(f"measure '{spec['measure'].strip()}': {beyond_refused(measure_of(spec['metric']))}")
    if float(rel) != 1 and not any(takes_rel(spec) for spec in specs):
        # nDCG(rel=4) is refused as a name, so rel=4 beside nDCG alone must not pass unsaid either
        warn(f"rel={rel:g} changes none of the measures asked ({', '.join(s['measure'] for s in specs[:5])}"
             f"{', ...' if len(specs) > 5 else ''}): they take no relevance level")
    return specs


def numbers(measures) -> list[str]:
    """The measures asked whose value is a number, by the parser's names for them (trec_eval's forms and
    nicknames read; runid and relstring, text, left out): what a report computes, and its record holds."""
    return [spec["measure"] for spec in measure_specs(None, measures, text=True) if spec["agg"] != "text"]


def takes_rel(spec: Mapping) -> bool:
    return "rel" in measure_of(spec["metric"]).params


def _labelled(spec: dict, rel: float) -> dict:
    """The spec named for the measure it computes: ``AP`` asked with ``rel=2`` computes
    ``AP(rel=2)`` and is labelled so, as when asked by that name. A trec_eval name keeps its
    spelling (trec_eval -l 2 prints ``map``), as does a name that sets its own level."""
    name = spec["measure"]
    if (float(rel) == 1 or not takes_rel(spec) or family_of(name) is not None
            or "rel=" in name.replace(" ", "").lower()):
        return spec
    spec["measure"] = label(spec)
    return spec


def packed(specs: list[dict], pack: str | None) -> list[dict]:
    """The parsed measures under a pack: its parameters where a name left them at their default,
    each measure labelled for what it computes (``AP@10`` under recbole is ``AP(denom=min)@10``)."""
    if pack is None:
        return specs
    found = []
    for spec in specs:
        said = spec["measure"].replace(" ", "").lower()
        wanted = {name: value for name, value in PACKS[pack].measure_params(spec["metric"], measure_of(spec["metric"]).params).items()
                  if spec.get(name) == default(name) and f"{name}=" not in said}
        found.append({**spec, **wanted, "measure": label({**spec, **wanted})} if wanted else spec)
    return found


_parsed: dict[tuple, list[dict]] = {}


# The SQL parser's answers are also kept on disk, per version of the SQL: planning its query was much
# of a fresh process's start (rankkit eval) before any file is read.
STORED_SPECS = 256  # lists of names kept; the oldest go first


def _parse_specs(con: duckdb.DuckDBPyConnection, key: tuple) -> list[dict]:
    names, rel, docs, text = key
    try:
        rows = con.execute("SELECT spec FROM rankkit.measure_specs(?::VARCHAR[], rel := ?, docs := ?, text := ?, "
                           "beyond := true)", [list(names), rel, docs, text]).fetchall()
    except duckdb.Error as error:
        raise MeasureError(sql_message(error)) from None
    specs = [row[0] for row in rows]
    kept = stored("specs")
    kept[_spec_key(key)] = specs
    store("specs", dict(list(kept.items())[-STORED_SPECS:]))
    return specs


def _stored_specs(key: tuple) -> list[dict] | None:
    return stored("specs").get(_spec_key(key))


def _spec_key(key: tuple) -> str:
    import json

    return json.dumps([list(key[0]), *key[1:]])


def directions(specs: list[Mapping], names: Iterable[str] = ()) -> dict[str, str]:
    """Which way each measure is better (higher, lower or none: its file's ``better:``), by its name as
    evaluated: parsed ``specs`` by their metric, and the other ``names`` (printed ones: beyond-accuracy
    measures, values given) by better_of."""
    found = {spec["measure"]: measure_of(spec["metric"]).better for spec in specs}
    return {**{name: better_of(name) for name in names if name not in found}, **found}


def better_of(name: str) -> str:
    """Which way a system is better under the measure a printed name (FallOut@10, Gini@10, unj_10) names, read
    by the name parser: higher, lower or none; a name of no measure (a column of values given) is higher."""
    try:
        found = measure_specs(None, [name], text=True, beyond=True)
    except MeasureError:
        return "higher"
    return measure_of(found[0]["metric"]).better if len(found) == 1 else "higher"
