"""``rankkit measures``: every measure listed, or one in full."""

from __future__ import annotations

import argparse

from rankkit.arguments import UsageError


def run(args: argparse.Namespace) -> int:
    from rankkit.measures import registry
    from rankkit.trec import NICKNAMES

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
    print()
    print("nicknames (trec_eval's): " + ", ".join(NICKNAMES) + ". A name without @k is the measure over the whole "
          "ranking, except a trec_eval family name alone (P, recall, success, ndcg_cut ...), which stands for "
          "trec_eval's default cutoffs: the last column says which")
    return 0


def _names_of(measure) -> str:
    """A measure's aliases and its presets (ndcg_burges=nDCG(gain=exp)), as the listing shows them."""
    presets = [f"{name}={measure.name}({fixed})" for name, fixed in measure.presets]
    return ", ".join([*measure.aliases, *presets]) or "-"


def _alone(measure) -> str:
    """What the measure's names alone give: one value over the whole ranking, except a trec_eval
    family name (P, recall, ndcg_cut ...), which gives its default cutoffs."""
    from rankkit.measures import needs_subtopics
    from rankkit.trec import expand

    if needs_subtopics(measure.metric):
        return "whole ranking, over subtopic judgments (eval --subtopics FILE)"
    names = [measure.name, *(alias.split("_{")[0] if "{" in alias else alias for alias in measure.aliases)]
    families = []
    for name in dict.fromkeys(names):
        rows = expand([name], text=False)
        if len(rows) > 1:
            families.append(f"{name}: {len(rows)} rows, {rows[0]} ... {rows[-1]}")
    return "; ".join(families + ["other names: whole ranking"]) if families else "whole ranking"


def _meant(name: str) -> list[tuple]:
    """Each measure a name given to ``eval -m`` stands for, read by eval's own parser (trec_eval's
    names, cutoffs and parameters, families and nicknames): (name, canonical label, Measure)."""
    import rankkit
    from rankkit.errors import MeasureError
    from rankkit.specs import measure_specs
    from rankkit.measures import get, label, registry
    from rankkit.trec import expand, family_of

    meant = []
    try:
        expanded = expand([name])
        for one in expanded:
            family = family_of(one)
            if family is not None and family.text:  # runid, relstring: text, no number to parse
                meant.append((one, one, get(family.name)))
                continue
            spec = measure_specs(rankkit.connect(), [one])[0]
            # a translated name (ranx's ndcg_burges, ir_measures' NumRet(rel=1)) says what it was given
            meant.append((name if len(expanded) == 1 else one, label(spec), registry()[spec["metric"]]))
    except MeasureError as error:
        raise UsageError(f"{error}; rankkit measures lists them") from None
    return meant


def _describe_measure(measure) -> None:
    from rankkit.conventions import PACKS
    from rankkit.measures import params

    print(f"{measure.name}: {measure.summary}")
    print(f"  aliases:   {', '.join(measure.aliases) or '-'}")
    print(f"  aggregate: {measure.aggregate}")
    print(f"  cite:      {measure.cite}")
    for name in measure.params:
        param = params()[name]
        print(f"  {name} ({param.type}, default {param.default}): {param.description}")
    for pack, library in PACKS.items():  # what a library's conventions change (the others: nothing)
        if library.changes(measure.metric):
            print(f"  --conventions {pack}: {library.changes(measure.metric)} ({library.library})")
    print(f"  SQL:       {measure.path.name}")
