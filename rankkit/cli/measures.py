"""``rankkit measures``: every measure listed, or one in full."""

from __future__ import annotations

import argparse

from rankkit.arguments import UsageError


# a measure file's better: in words: what the tables bold
WAYS = {"higher": "higher (the highest is best)", "lower": "lower (the lowest is best)",
        "none": "neither way (it describes; no best is marked)"}


def run(args: argparse.Namespace) -> int:
    from rankkit.measures import registry
    from rankkit.trec import NICKNAMES

    if args.name and _describe_beyond(args.name):
        return 0
    if args.name:
        shown = []
        for asked, label, measure in _meant(args.name):
            if asked != label:  # a trec_eval name or another spelling: say what it computes
                from rankkit.safe.terminal import visible

                print(visible(f"{asked} means {label}"))
            if measure not in shown:
                shown.append(measure)
        for measure in shown:
            _describe_measure(measure)
        return 0
    rows = [(m.name, _names_of(m), ", ".join(m.params) or "-", m.aggregate, _alone(m)) for m in registry().values()]
    head = ("measure", "aliases (and presets)", "parameters", "aggregate", "the name alone")
    widths = [max(len(row[i]) for row in rows + [head]) for i in range(4)]
    for row in [head] + sorted(rows, key=lambda row: row[0].lower()):
        print("  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths)) + "  " + row[4])
    _list_beyond()
    print()
    print("nicknames (trec_eval's): " + ", ".join(NICKNAMES) + ". A name without @k is the measure over the whole "
          "ranking, except a trec_eval family name alone (P, recall, success, ndcg_cut ...), which stands for "
          "trec_eval's default cutoffs: the last column says which")
    return 0


def _list_beyond() -> None:
    """The beyond-accuracy measures (sql/metrics/beyond/*.sql), which read side tables."""
    from rankkit.beyond import declared

    print()
    print("beyond accuracy (the run's top k and a side table: eval --items FILE, --interactions FILE):")
    measures = {m.name: m for m in declared().values()}.values()
    rows = [(m.name, ", ".join(m.aliases) or "-", ", ".join(f"{n}={_default(n)}" for n in m.params if n != "k") or "-",
             "per system" if m.level == "system" else "mean over users", " or ".join(m.needs) or "the run")
            for m in measures]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        print("  ".join(f"{cell:<{width}}" for cell, width in zip(row, widths)) + "  reads " + row[4])


def _describe_beyond(name: str) -> bool:
    """``rankkit measures Coverage@10``: a beyond-accuracy measure in full; False for another name."""
    from rankkit.beyond import spec, split
    from rankkit.errors import MeasureError
    from rankkit.measures import beyond_params, measure_of
    from rankkit.safe.terminal import visible

    try:
        beyond = split([name], text=True)[1]
    except MeasureError:  # the name parser's refusal, said by _meant
        return False
    if not beyond:
        return False
    measure = measure_of(spec(beyond[0])["metric"])
    print(visible(f"{measure.name}: {measure.summary}"))
    print(visible(f"  aliases:   {', '.join(measure.aliases) or '-'}"))
    print(f"  level:     {'one value per system' if measure.level == 'system' else 'per user, the mean over users'}")
    print(f"  reads:     {' or '.join(f'--{side}' for side in measure.needs) or 'the run alone'}")
    print(f"  better:    {WAYS[measure.better]}")
    for name in measure.params:
        if name != "k":
            param = beyond_params()[name]
            print(visible(f"  {name} ({param.type}, default {_default(name)}; {param.must}): {param.description}"))
    _packs(measure)
    print(f"  SQL:       metrics/beyond/{measure.path.name} (its table macro: 80_beyond.sql)")
    return True


def _default(name: str) -> str:
    """A beyond-accuracy measure's parameter's default, as its name writes it."""
    from rankkit.measures import beyond_params

    return beyond_params()[name].default.strip("'")


def _names_of(measure) -> str:
    """A measure's aliases and its presets (ndcg_burges=nDCG(gain=exp)), as the listing shows them."""
    presets = [f"{name}={measure.name}({fixed})" for name, fixed in measure.presets]
    return ", ".join([*measure.aliases, *presets]) or "-"


def _alone(measure) -> str:
    """What the measure's names alone give: one value over the whole ranking, except a trec_eval
    family name (P, recall, ndcg_cut ...), which gives its default cutoffs."""
    from rankkit.measures import needs_subtopics
    from rankkit.trec import FAMILIES, default_names

    if needs_subtopics(measure.metric):
        return "whole ranking, over subtopic judgments (eval --subtopics FILE)"
    names = [measure.name, *(alias.split("_{")[0] if "{" in alias else alias for alias in measure.aliases)]
    families = []
    for name in dict.fromkeys(names):
        # trec_eval's family name alone is its default cutoffs, as the parser reads it (rankkit.trec_name_list)
        rows = default_names(FAMILIES[name]) if name in FAMILIES else [name]
        if len(rows) > 1:
            families.append(f"{name}: {len(rows)} rows, {rows[0]} ... {rows[-1]}")
    return "; ".join(families + ["other names: whole ranking"]) if families else "whole ranking"


def _meant(name: str) -> list[tuple]:
    """Each measure a name given to ``eval -m`` stands for, read by eval's own parser (trec_eval's
    names, cutoffs and parameters, families and nicknames): (name, canonical label, Measure)."""
    from rankkit.errors import MeasureError
    from rankkit.specs import measure_specs
    from rankkit.measures import label, registry

    meant = []
    try:
        specs = measure_specs(None, [name], text=True)
        for spec in specs:
            # a translated name (ranx's ndcg_burges, ir_measures' NumRet(rel=1)) says what it was given
            meant.append((name if len(specs) == 1 else spec["measure"],
                          spec["measure"] if spec["agg"] == "text" else label(spec), registry()[spec["metric"]]))
    except MeasureError as error:
        raise UsageError(f"{error}; rankkit measures lists them") from None
    return meant


def _describe_measure(measure) -> None:
    from rankkit.measures import params

    print(f"{measure.name}: {measure.summary}")
    print(f"  aliases:   {', '.join(measure.aliases) or '-'}")
    print(f"  aggregate: {measure.aggregate}")
    print(f"  better:    {WAYS[measure.better]}")
    print(f"  cite:      {measure.cite}")
    for name in measure.params:
        param = params()[name]
        print(f"  {name} ({param.type}, default {param.default}): {param.description}")
    _packs(measure)
    print(f"  SQL:       {measure.path.name}")


def _packs(measure) -> None:
    """What each library's conventions change of a measure (the others: nothing)."""
    from rankkit.conventions import PACKS

    for pack, library in PACKS.items():
        if library.changes(measure.metric, measure.params):
            print(f"  --conventions {pack}: {library.changes(measure.metric, measure.params)} ({library.library})")
