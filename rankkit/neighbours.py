"""The names a user brings from ir_measures and ranx, read by rankkit's SQL parser (sql/30_specs.sql) as
rankkit's names, or refused with a message that names rankkit's spelling: ir_measures' measure objects
(``ir_measures.nDCG@10``, written here in ir_measures' spelling) and strings (``"NumRet(rel=1)"``,
``"nDCG(dcg=exp-log2)@10"``, ``"nDCG(gains={0: 1, 1: 4})"``), and ranx's metric names (``ndcg_burges@10``,
``map@100-l2``). This module declares how they translate (RULES, refusals()); rankkit.macros writes the
declarations into the SQL parser, which Python's evaluate and the plain duckdb shell both read names through.

Most of ranx's names are aliases in the registry (``hits``, ``hit_rate``, ``f1``, ``r-precision``,
``mrr``); a name that stands for a measure with parameters set (``ndcg_burges``: nDCG(gain=exp)) is
a preset, declared in the measure's header too (rankkit.measures.preset).

Nothing is dropped: a parameter rankkit's measure does not have is translated (NumRet(rel=1) is
NumRelRet, dcg=exp-log2 is gain=exp) or refused, never passed over as if it were a default. A string
holding none of ir_measures' own parameters is already rankkit's spelling and is left to the parser.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from rankkit.measures import get, preset

__all__ = ["Rule", "RULES", "NEEDED", "RANX", "from_ir_measures", "refusals", "BEYOND_REFUSED", "beyond_refused"]

IR_MEASURES_RBP_P = 0.8  # ir_measures' RBP(p=...) default, for its strings (an object carries its own)

# the C/W/L measures whose grading scale ir_measures gives as min_rel and max_rel
SCALED = ("SDCG", "INSQ", "INST")


@dataclass(frozen=True)
class Rule:
    """How one of ir_measures' parameters is written in rankkit: ``param`` given to one of ``measures`` (()
    any; case-insensitive) with a value among ``values`` (() any; case-insensitive) ``becomes`` rankkit's
    parameter (None: dropped; "@": the cutoff), its value as given or ``value``, the measure ``renamed``; or
    the name is ``refused`` ({name}: the measure, {value}: the value given). ``first``: rankkit's parameter
    written first, its ``default`` where the name gives none. ``marks``: a pattern the start of the value
    matches where the parameter makes a name ir_measures' spelling (None: it does not); a name with no such
    parameter is rankkit's own and is read as given. rankkit.macros.neighbour_sql writes each rule as the
    SQL parser's steps (rankkit.neighbour_written), in this order."""

    param: str
    measures: tuple = ()
    values: tuple = ()
    becomes: str | None = ""
    value: str | None = None
    renamed: str | None = None
    refused: str | None = None
    first: str | None = None
    default: str | None = None
    marks: str | None = ""


# The first rule of a parameter that fits the measure and value applies.
RULES = (
    Rule("judged_only", values=("false", "0"), becomes=None),
    Rule("judged_only", refused="judged_only is an option of the evaluation in rankkit, not of a measure: "
                                "evaluate(..., judged_only=True) or rankkit eval -J"),
    Rule("relative", values=("false", "0"), becomes=None),
    Rule("relative", becomes=None, renamed="SetRelP"),  # ir_measures' SetP(relative=True)
    # ir_measures' NumRet(rel=r) counts the documents retrieved of grade >= r
    Rule("rel", ("NumRet",), renamed="NumRelRet"),
    # binary gains at that level (cwl_eval's); rankkit's RBP alone is trec_eval's graded. RBP(rel=2) is
    # ir_measures' spelling, so its p is ir_measures' default, as its object's (which carries it)
    Rule("rel", ("RBP",), becomes="binary_rel", first="p", default=f"{IR_MEASURES_RBP_P:g}"),
    Rule("beta", ("NRBP", "nNRBP"), becomes="patience"),  # ndeval's -beta, the chance of reading on
    Rule("dcg", values=("exp-log2",), becomes="gain", value="exp"),
    Rule("dcg", values=("log2",), becomes=None),
    Rule("dcg", refused="dcg={value} is not offered; rankkit's nDCG discounts by log2 with gain=linear (dcg=log2) "
                        "or gain=exp (dcg=exp-log2)"),
    # C/W/L's grading scale: min_rel is rankkit's bottom (0 by default, as min_rel), max_rel its max
    Rule("min_rel", values=("0", "0.0"), becomes=None),
    Rule("min_rel", SCALED, becomes="bottom"),
    Rule("min_rel", refused="min_rel is not offered for {name}; SDCG, INSQ and INST take it (rankkit's bottom)"),
    Rule("max_rel", becomes="max", first="max"),
    Rule("cutoff", becomes="@"),
    Rule("recall", becomes="@", marks=None),  # IPrec(recall=0.5) is rankkit's spelling too
    # several levels outside brackets (the comma would split them), quoted, or ir_measures' {level: gain}, which
    # the parser writes as rankkit's [level=gain,...]; gains=2=5 and gains=[1=3,2=9] are rankkit's
    Rule("gains", values=("[]",), refused="gains names no relevance level; write gains='1=3,2=9'",
         marks=r"""(?:\[\s*\]|''|"")"""),
    Rule("gains", marks=r"""(?:['"{]|[^\[,)]*,\s*[-+]?[0-9])"""),
)


# (parameter, measures, why): a name of those measures in ir_measures' spelling without the parameter is refused
NEEDED = (("max_rel", SCALED, "ir_measures' {name} needs max_rel, the top of the grading scale; rankkit spells it "
                              "{name}(max=3)@10 (max defaults to 4)"),)


def from_ir_measures(measure) -> str:
    """An ir_measures measure object in ir_measures' spelling, for the parser to translate. Its defaults are
    spelled out where they differ from rankkit's (ir_measures' RBP has p=0.8, trec_eval's 0.9), and its
    grading scale's bottom (min_rel) where it has one: an object is ir_measures' spelling, never rankkit's."""
    params = {name: info.default for name, info in measure.SUPPORTED_PARAMS.items()
              if isinstance(info.default, (int, float, str)) and name in ("p", "min_rel")}
    params.update(measure.params)
    at = params.pop(measure.AT_PARAM, None)  # its cutoff, or IPrec's recall level
    return (measure.NAME + (f"({','.join(f'{key}={value}' for key, value in params.items())})" if params else "")
            + (f"@{at}" if at is not None else ""))


# ranx's metric names (ranx.metrics.metric_switch), which may end in -l<level> (ranx's rel_lvl)
RANX = ("hits", "hit_rate", "precision", "recall", "f1", "r-precision", "mrr", "map", "dcg", "dcg_burges", "ndcg",
        "ndcg_burges", "bpref", "rbp")
# ranx's -l<level> is rankkit's rel (the parser reads map@100-l2 as map(rel=2)@100), refused so where the
# measure takes no relevance level
# ranx's -l after another measure's cutoff (AP@10-l2), which the parser refuses saying this
RANX_LEVEL = "ranx's -l{level} is rankkit's rel: write {base}(rel={level})@{at}"
RANX_LEVEL_REFUSED = ("ranx's -l{level} sets the relevance level, which rankkit's {name} does not take (its gains are "
                      "the grades; gains='1=0' drops a grade)")


@cache
def refusals() -> tuple[tuple[str, str], ...]:
    """The names refused by name, as (pattern, why; {} in it is the pattern's first group): ranx's rbp.95
    (RBP over raw grades), ranx's -l level on a measure that takes none, ir_measures' measures not offered.
    The SQL parser refuses them in these words (rankkit.refusal_list, generated by rankkit.macros)."""
    found = [(r"(?s)\s*rbp[.@]([0-9]+)(?:-l[0-9]+)?\s*",
              "ranx's rbp weighs each document by its raw grade; rankkit's RBP is trec_eval's, grades scaled by the "
              "query's top grade (the same on binary judgments): write RBP(p=0.{})")]
    for base in RANX:
        measure = preset(base)[0] if preset(base) else get(base)
        if "rel" not in measure.params:
            found.append((rf"(?s)\s*{re.escape(base)}(?:@[0-9]+)?-l([0-9]+)\s*",
                          RANX_LEVEL_REFUSED.format(level="{}", name=measure.name)))
    for name, why in NOT_OFFERED.items():
        found.append((rf"(?s)\s*{name}\s*(?:\(.*\))?\s*(?:@\s*\S+)?\s*", not_offered(name)))
    return tuple(found)


# Where only qrels and a run are given (SQL's rankkit.evaluate, a report, the trace, Spark), the name parser reads a
# beyond-accuracy measure's name and refuses it in these words ({call}: its table macro's call), not as unknown
BEYOND_REFUSED = ("a beyond-accuracy measure: it reads the run with the items catalog or the interactions log, "
                  "not the qrels, so an evaluation of qrels and a run alone does not take it; give the side tables "
                  "to evaluate (items=, interactions=; --items, --interactions) or, in SQL, call its table macro "
                  "({call}; the others are in docs/beyond-accuracy.md; rankkit.measure_specs(..., beyond := true) "
                  "gives its spec); Spark refuses it (the dialect translates no table macro)")


def beyond_refused(measure) -> str:
    """BEYOND_REFUSED for one beyond-accuracy measure (rankkit.measures.Measure): its table macro called on the
    first side table it reads (ILD's: of its first similarity, the items' features)."""
    macro = measure.metric + ("_features" if "similarity" in measure.params else "")
    side = "".join(f", '{side}'" for side in measure.needs[:1])
    return BEYOND_REFUSED.format(call=f"FROM rankkit.{macro}('run'{side}, k := 10)")


# ir_measures' measures rankkit does not offer (yet), and why: refused by name, not guessed at
NOT_OFFERED = {
    **{name: "a C/W/L user-model measure (cwl_eval)" for name in (
        "BPM", "NERR8", "NERR9", "NERR10", "NERR11")},
    "Compat": "compatibility with an ideal ranking (Clarke et al.)",
    "Accuracy": "ir_measures' accuracy of pairwise preferences",
}


def not_offered(name: str) -> str:
    return f"ir_measures' {name} ({NOT_OFFERED[name]}) is not in rankkit yet; rankkit measures lists what is"
