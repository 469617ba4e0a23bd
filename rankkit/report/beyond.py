"""The beyond-accuracy measures in a report (Coverage@k, Novelty@k ...; rankkit.beyond): their values
from evaluate with the side tables (items, the catalog; interactions, the training log), which the
report records as inputs like the qrels and runs. A per-user one is a measure like any other (its
per-user values give the mean, interval and paired tests); a system-level one has one value per
system, with evaluate's bootstrap interval over users, and no per-query values or comparison."""

from __future__ import annotations

import pandas as pd

from rankkit.beyond import SideTables, label, refuse_missing, spec, split
from rankkit.errors import RankkitError
from rankkit.specs import numbers

__all__ = ["SIDES", "asked", "named", "refuse", "side_rows", "values", "measure_record", "is_system_level"]

SIDES = ("items", "interactions")  # the record's roles of the side tables, in its order


def asked(measures) -> list[str]:
    """A report's measures as its command line gives them: trec_eval's forms and nicknames read, the text
    ones (runid, relstring: no mean to report) left out, the beyond-accuracy ones as written; official
    when none is given."""
    others, beyond = split(measures or ["official"], text=True)
    return (numbers(others) if others else []) + beyond


def named(names: list[str], pack: str | None = None) -> tuple[list[str], list[str]]:
    """The names asked for as (the others, these under one name each): ``novelty@10`` and
    ``Novelty@10`` are both ``Novelty@10``; a parameter at its default is not written; under a ``pack``,
    the parameters it sets are (``diversity@10`` under recommenders is ``ILD(similarity=cooccurrence)@10``)."""
    others, beyond = split(names, pack=pack)
    return others, list(dict.fromkeys(label(text) for text in beyond))


def is_system_level(name: str) -> bool:
    """Whether one of these measures (a name split or named gave) has one value per system."""
    return spec(name)["level"] == "system"


def refuse(beyond: list[str], sides: dict, *, by=None, given=None) -> None:
    """What a report of these measures cannot do, said before any input is read."""
    if not beyond:
        if any(source is not None for source in sides.values()):
            raise RankkitError("items= and interactions= (--items, --interactions) are the side tables of the "
                               "beyond-accuracy measures (Coverage@k, Novelty@k ...), and none is asked for")
        return
    refuse_missing(beyond, {side for side, source in sides.items() if source is not None})
    if by is not None:
        raise RankkitError(f"{beyond[0]}: the beyond-accuracy measures are not split by slice (by=) yet")
    if given is not None:
        raise RankkitError(f"{beyond[0]}: the beyond-accuracy measures are computed with DuckDB, not from values "
                           f"given (Spark)")


def side_rows(con, sides: dict) -> dict[str, int]:
    """Each side table given, read and checked (an items table without an id is one line naming it),
    and its row count for the record."""
    given = {side: source for side, source in sides.items() if source is not None}
    if not given:
        return {}
    tables = SideTables(con, **given)
    try:
        return {side: int(con.execute(f"SELECT count(*) FROM {tables.names[side]}").fetchone()[0]) for side in given}
    finally:
        tables.close()


def values(con, run_tables, beyond: list[str], *, conventions, sides: dict, ci, seed, resamples
           ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """evaluate's values of these measures: the per-user ones per user (``measure, system, query_id,
    value``) and the system-level ones' aggregate (``measure, system, value, queries[, ci_low, ci_high]``,
    evaluate's bootstrap interval over users)."""
    from rankkit.evaluate import evaluate

    users = [name for name in beyond if not is_system_level(name)]
    systems = [name for name in beyond if is_system_level(name)]
    per_user = pd.DataFrame(columns=["measure", "system", "query_id", "value"])
    system_level = pd.DataFrame(columns=["measure", "system", "value", "queries"])
    if users:
        per_user = evaluate(None, run_tables, users, per_query=True, con=con, conventions=conventions, **sides)
    if systems:
        system_level = evaluate(None, run_tables, systems, con=con, conventions=conventions, ci=ci, seed=seed,
                                resamples=resamples, **sides)
    return per_user, system_level


def measure_record(name: str) -> dict:
    """The record's entry of one of these measures, as build writes the others' (``aggregate`` ``system``
    for a system-level one: one value per system)."""
    from rankkit.measures import LEVELS, measure_of, written

    found = spec(name)
    measure = measure_of(found["metric"])
    return {"name": name, "label": name, "measure": measure.name, "metric": measure.metric,
            "params": {param: None if found[param] is None else written(found[param]) for param in measure.params},
            "aggregate": LEVELS[measure.level], "better": measure.better, "summary": measure.summary,
            "cite": measure.cite}
