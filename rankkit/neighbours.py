"""The names a user brings from ir_measures and ranx, as the names rankkit's SQL parser reads, or
refused with a MeasureError that names rankkit's spelling: ir_measures' measure objects
(``ir_measures.nDCG@10``) and strings (``"NumRet(rel=1)"``, ``"nDCG(dcg=exp-log2)@10"``,
``"nDCG(gains={0: 1, 1: 4})"``), and ranx's metric names (``ndcg_burges@10``, ``map@100-l2``).

Most of ranx's names are aliases in the registry (``hits``, ``hit_rate``, ``f1``, ``r-precision``,
``mrr``); a name that stands for a measure with parameters set (``ndcg_burges``: nDCG(gain=exp)) is
a preset, declared in the measure's header too (rankkit.measures.preset).

Nothing is dropped: a parameter rankkit's measure does not have is translated (NumRet(rel=1) is
NumRelRet, dcg=exp-log2 is gain=exp) or refused, never passed over as if it were a default. A string
holding none of ir_measures' own parameters is already rankkit's spelling and is left to the parser.
"""

from __future__ import annotations

import re

from rankkit.errors import MeasureError
from rankkit.measures import get, preset

__all__ = ["from_ir_measures", "translate", "gains_text"]

# ir_measures' parameters that rankkit's measures do not take as such; a string naming one of them
# is translated here, anything else is rankkit's own spelling
_THEIRS = ("dcg", "judged_only", "relative", "cutoff", "min_rel", "max_rel")

# ir_measures' measures rankkit does not offer (yet), and why: refused by name, not guessed at
NOT_OFFERED = {
    **{name: "a C/W/L user-model measure (cwl_eval)" for name in (
        "BPM", "NERR8", "NERR9", "NERR10", "NERR11")},
    "Compat": "compatibility with an ideal ranking (Clarke et al.)",
    "Accuracy": "ir_measures' accuracy of pairwise preferences",
}


def from_ir_measures(measure) -> str:
    """An ir_measures measure object as rankkit's name for it. Its defaults are spelled out where they
    differ from rankkit's (ir_measures' RBP has p=0.8, trec_eval's 0.9)."""
    params = {name: info.default for name, info in measure.SUPPORTED_PARAMS.items()
              if isinstance(info.default, (int, float, str)) and name in ("p",)}
    params.update(measure.params)
    return _translated(measure.NAME, params, str(measure))


def translate(text: str) -> str:
    """An ir_measures or ranx string as rankkit's name; rankkit's own names (and what is not a name) as given."""
    text = _from_ranx(text)
    match = re.fullmatch(r"\s*([A-Za-z][\w-]*)\s*(?:\((.*)\))?\s*(?:@\s*(\S+))?\s*", text, re.S)
    if not match:
        return text
    base, inside, at = match.groups()
    params = _params(inside) if inside is not None else {}
    if params is not None and preset(base):
        measure, fixed = preset(base)
        return measure.name + "(" + ",".join([fixed, *(f"{k}={v}" for k, v in params.items())]) + ")" + (f"@{at}" if at else "")
    if params is None or not (_needs_translation(base, params) or base in NOT_OFFERED):
        return text
    if at is not None:
        params["cutoff"] = at
    return _translated(base, params, text)


# ranx's metric names (ranx.metrics.metric_switch), which may end in -l<level> (ranx's rel_lvl)
RANX = ("hits", "hit_rate", "precision", "recall", "f1", "r-precision", "mrr", "map", "dcg", "dcg_burges", "ndcg",
        "ndcg_burges", "bpref", "rbp")


def _from_ranx(text: str) -> str:
    """ranx's level suffix as rankkit's rel (map@100-l2 is map(rel=2)@100); ranx's rbp.95 refused."""
    if re.fullmatch(r"\s*rbp[.@]\d+(-l\d+)?\s*", text):
        raise MeasureError(f"measure '{text.strip()}': ranx's rbp weighs each document by its raw grade; rankkit's "
                           f"RBP is trec_eval's, grades scaled by the query's top grade (the same on binary "
                           f"judgments): write RBP(p=0.{text.strip()[4:].split('-')[0]}) for it")
    match = re.fullmatch(r"\s*([a-z_-]+?)(@\d+)?-l(\d+)\s*", text)
    if not match or match.group(1) not in RANX:
        return text
    base, at, level = match.groups()
    measure = preset(base)[0] if preset(base) else get(base)
    if "rel" not in measure.params:
        raise MeasureError(f"measure '{text.strip()}': ranx's -l{level} sets the relevance level, which rankkit's "
                           f"{measure.name} does not take (its gains are the grades; gains='1=0' drops a grade)")
    return f"{base}(rel={level}){at or ''}"


def _needs_translation(base: str, params: dict) -> bool:
    return (any(name in _THEIRS for name in params) or _gains_unread(params.get("gains"))
            or (base.lower() in ("numret", "rbp") and "rel" in params) or (base.lower() in ("nrbp", "nnrbp") and "beta" in params))


def _gains_unread(value: str | None) -> bool:
    """Whether the parser would misread gains as given: several levels outside brackets (the comma would
    split them), quoted, or ir_measures' {level: gain}; gains=2=5 and gains=[1=3,2=9] it reads as they are."""
    return value is not None and not (value.startswith("[") and value.endswith("]")) and bool(re.search(r"[,'\"{]", value))


def _params(inside: str) -> dict | None:
    """'rel=2, gains={0: 1, 1: 4}' -> {'rel': '2', 'gains': '{0: 1, 1: 4}'}: commas inside brackets,
    braces or quotes do not split, and a piece that starts with a number continues the value before
    it (gains=0=1,1=4 names two levels). None when it does not read as name=value pairs."""
    pieces, depth, quote, current = [], 0, None, ""
    for char in inside:
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "[{(":
            depth += 1
        elif char in "]})":
            depth -= 1
        elif char == "," and depth == 0:
            pieces.append(current)
            current = ""
            continue
        current += char
    pieces.append(current)
    params: dict[str, str] = {}
    last = None
    for piece in (p.strip() for p in pieces):
        key, sep, value = piece.partition("=")
        if last is not None and re.fullmatch(r"[-+]?\d+(\.\d*)?", key.strip()) and sep:
            params[last] += "," + piece
            continue
        if not sep or not re.fullmatch(r"[A-Za-z_]\w*", key.strip()):
            return None
        last = key.strip()
        params[last] = value.strip()
    return params


def _unquoted(value):
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def gains_text(value, given: str) -> str:
    """ir_measures' gains (a mapping, or its text {0: 1, 1: 4}) or rankkit's ('0=1,1=4', '[0=1,1=4]')
    as the parser's list form [0=1,1=4]; a malformed one is a MeasureError saying what was expected."""
    if isinstance(value, dict):
        pairs = list(value.items())
    else:
        text = _unquoted(str(value)).strip()
        if text.startswith("{") and text.endswith("}"):
            pairs = [tuple(part.split(":", 1)) for part in text[1:-1].split(",") if part.strip()]
        else:
            pairs = [tuple(part.split("=", 1)) for part in text.strip("[]").split(",") if part.strip()]
    written = []
    for pair in pairs:
        level, gain = (str(x).strip() for x in pair) if len(pair) == 2 else ("", "")
        if not (re.fullmatch(r"-?\d+", level) and re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)", gain)):
            raise MeasureError(f"measure '{given}': gains must give each relevance level a number, as "
                               f"gains='1=3,2=9' or ir_measures' gains={{1: 3, 2: 9}}; got {value!r}")
        written.append(f"{level}={gain}")
    if not written:
        raise MeasureError(f"measure '{given}': gains names no relevance level; write gains='1=3,2=9'")
    return "[" + ",".join(written) + "]"


IR_MEASURES_RBP_P = 0.8  # ir_measures' RBP(p=...) default, for its strings (an object carries its own)


def _translated(name: str, params: dict, given: str) -> str:
    """rankkit's name for ir_measures' measure ``name`` with ``params`` (values as objects or text)."""
    params = {key: _unquoted(value) for key, value in params.items()}
    if name in NOT_OFFERED:
        raise MeasureError(f"measure '{given}': ir_measures' {name} ({NOT_OFFERED[name]}) is not in rankkit yet; "
                           f"rankkit measures lists what is")
    cutoff = params.pop("cutoff", None)
    cutoff = params.pop("recall") if "recall" in params else cutoff
    if str(params.get("judged_only", False)).lower() not in ("false", "0"):
        raise MeasureError(f"measure '{given}': judged_only is an option of the evaluation in rankkit, not of "
                           f"a measure: evaluate(..., judged_only=True) or rankkit eval -J")
    params.pop("judged_only", None)
    if str(params.pop("relative", False)).lower() not in ("false", "0"):
        name = "SetRelP"
    if name.lower() == "numret" and "rel" in params:
        name = "NumRelRet"  # ir_measures' NumRet(rel=r) counts the documents retrieved of grade >= r
    if name.upper() in ("NRBP", "NNRBP") and "beta" in params:
        params["patience"] = params.pop("beta")  # ndeval's -beta, the chance of reading on
    _scale(name, params, given)
    dcg = params.pop("dcg", "log2")
    if dcg == "exp-log2":
        params["gain"] = "exp"
    elif dcg != "log2":
        raise MeasureError(f"measure '{given}': dcg={dcg} is not offered; rankkit's nDCG discounts by log2 "
                           f"with gain=linear (dcg=log2) or gain=exp (dcg=exp-log2)")
    if "gains" in params:
        params["gains"] = gains_text(params["gains"], given)
    if name.upper() == "RBP" and "rel" in params:
        # binary gains at that level; rankkit's RBP alone is trec_eval's graded. RBP(rel=2) is ir_measures'
        # spelling, so its p is ir_measures' default, as its object's (which carries it); RBP alone is
        # rankkit's name, with trec_eval's p = 0.9
        params = {"p": params.pop("p", IR_MEASURES_RBP_P), **params}
        params["binary_rel"] = params.pop("rel")
    text = name + (f"({','.join(f'{k}={_written(v)}' for k, v in params.items())})" if params else "")
    return text + (f"@{_written(cutoff)}" if cutoff is not None else "")


def _scale(name: str, params: dict, given: str) -> None:
    """C/W/L's grading scale: ir_measures' max_rel is rankkit's max, min_rel its bottom."""
    if str(params.get("min_rel", 0)) in ("0", "0.0"):
        params.pop("min_rel", None)  # rankkit's bottom defaults to 0, as min_rel
    elif name in ("SDCG", "INSQ", "INST"):
        params["bottom"] = params.pop("min_rel")
    else:
        raise MeasureError(f"measure '{given}': min_rel is not offered for {name}; SDCG, INSQ and INST take it "
                           f"(rankkit's bottom)")
    if "max_rel" in params:
        rest = {key: value for key, value in params.items() if key != "max_rel"}
        top = params["max_rel"]
        params.clear()
        params.update(max=top, **rest)  # max first: INST(max_rel=3,T=2) and its object read the same
    elif name in ("SDCG", "INSQ", "INST"):
        raise MeasureError(f"measure '{given}': ir_measures' {name} needs max_rel, the top of the grading scale; "
                           f"rankkit spells it {name}(max=3)@10 (max defaults to 4)")


def _written(value) -> str:
    """A value as rankkit's name writes it: a number in its shortest form (ir_measures' T=2.0 is T=2)."""
    if isinstance(value, str) and re.fullmatch(r"[-+]?\d+\.\d*", value.strip()):
        value = float(value)
    return f"{value:g}" if isinstance(value, float) else str(value)

