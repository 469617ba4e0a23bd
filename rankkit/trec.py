"""trec_eval's measure names: its nicknames, its families and their default parameters, its
parameter forms, and the order and spelling in which it prints them.

trec_eval names a measure by family and parameters: ``P.5,10`` is P at cutoffs 5 and 10, printed
``P_5`` and ``P_10``; ``P`` alone is P at its default cutoffs; ``-m all_trec`` is every family at its
defaults. The SQL parser (sql/30_specs.sql) reads such names from this module's table (rankkit.macros
writes it into SQL) as the names trec_eval prints (``P_5``, ``iprec_at_recall_0.10``,
``utility_2,-1,0,0``). The measures themselves are declared once, in ``sql/metrics/*.sql``; this module
only knows how trec_eval spells them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from rankkit.neighbours import from_ir_measures

__all__ = ["Family", "FAMILIES", "NICKNAMES", "NUMBER", "given", "default_names", "family_of", "trec_sorted", "printed_per_query",
           "printed_in_summary"]


@dataclass(frozen=True)
class Family:
    """One entry of trec_eval's measure table.

    ``cutoffs``: the default parameters of a family that prints one measure per parameter (P_5,
    P_10 ...), with ``number`` (int or float) and ``spell`` (how a parameter is printed); None for a
    family that prints one measure, whose parameter text, if any, is printed as given
    (``utility_2,-1,0,0``). ``per_query``/``summary``: whether trec_eval prints the measure per query
    and in the summary.
    """

    name: str
    cutoffs: tuple = ()
    number: type = int
    spell: str = "{}"
    per_query: bool = True
    summary: bool = True
    text: bool = False

    @property
    def takes(self) -> str:
        """What a parameter of its 'family.params' form must be, as a refusal says it."""
        return "positive integers" if self.number is int else "numbers"


# A parameter of trec_eval's 'family.params' form (P.5,10), as the SQL parser (rankkit.trec_form_refusal,
# generated from this module) reads it
NUMBER = r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)"


_LONG = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALL = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

# trec_eval 10.0's measure table (measures.c), in the order it prints; dcg, ideal_dcg and the
# preference measures are not part of all_trec and rankkit does not offer them.
FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("runid", per_query=False, text=True),
    Family("num_q", per_query=False),
    Family("num_ret"), Family("num_rel"), Family("num_rel_ret"), Family("map"),
    Family("gm_map", per_query=False),
    Family("Rprec"), Family("bpref"), Family("recip_rank"),
    Family("iprec_at_recall", _RECALL, float, "{:.2f}"),
    Family("P", _LONG),
    Family("relstring", summary=False, text=True),
    Family("recall", _LONG),
    Family("infAP"),
    Family("gm_bpref", per_query=False),
    Family("Rprec_mult", (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0), float, "{:.2f}"),
    Family("utility"), Family("11pt_avg"), Family("binG"), Family("G"),
    Family("ndcg"), Family("ndcg_rel"), Family("Rndcg"),
    Family("ndcg_cut", _LONG), Family("map_cut", _LONG), Family("relative_P", _LONG),
    Family("success", (1, 5, 10)),
    Family("set_P"), Family("set_relative_P"), Family("set_recall"), Family("set_map"), Family("set_F"),
    Family("num_nonrel_judged_ret"),
    Family("rbp"), Family("rbp_resid"),
    Family("unj", (5, 10, 20)),
)}

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
}


def given(measures) -> list:
    """The names given, as the SQL parser (rankkit.measure_specs) reads them: one string may hold several
    names separated by spaces, an ir_measures measure object is written in ir_measures' spelling; the
    parser reads ir_measures' and ranx's spellings (rankkit.neighbours) and trec_eval's nicknames and forms."""
    items = [measures] if isinstance(measures, str) or not isinstance(measures, Iterable) else list(measures)
    return [name for item in items for name in _split(item if isinstance(item, str) else _object_name(item))]


def _object_name(measure):
    """An ir_measures measure object as rankkit's name; anything else is left to the parser to refuse."""
    return from_ir_measures(measure) if type(measure).__module__.startswith("ir_measures") else measure


def _split(text):
    """'nDCG@10 P@5 AP' -> three names; spaces inside parentheses stay (P(rel = 2)@5)."""
    if not isinstance(text, str):
        return [text]
    return [part for part in re.findall(r"(?:\([^()]*\)|[^\s(])+", text)] or [text]


def default_names(family: Family) -> list[str]:
    """A family's names at its default parameters (P: P_5 ... P_1000), or its one name."""
    if family.cutoffs:
        return [f"{family.name}_{family.spell.format(value)}" for value in family.cutoffs]
    return [family.name]


def family_of(name: str) -> Family | None:
    """The trec_eval family a printed name belongs to (P_5 -> P, ndcg_cut_10 -> ndcg_cut), or None."""
    best = None
    for family in FAMILIES:
        if (name == family or name.startswith(family + "_")) and (best is None or len(family) > len(best)):
            best = family
    return FAMILIES[best] if best else None


def trec_sorted(names: Iterable[str]) -> list[str]:
    """Names in trec_eval's print order (by family, parameters as given); other names keep their order, last."""
    order = list(FAMILIES)

    def key(item: tuple[int, str]) -> tuple[int, int]:
        position, name = item
        family = family_of(name)
        return (order.index(family.name) if family else len(order)), position
    return [name for _, name in sorted(enumerate(names), key=key)]


def printed_per_query(name: str) -> bool:
    family = family_of(name)
    return family is None or family.per_query


def printed_in_summary(name: str) -> bool:
    family = family_of(name)
    return family is None or family.summary
