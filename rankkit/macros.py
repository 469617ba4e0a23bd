"""The macro script: every SQL macro rankkit loads, as one script a plain ``duckdb`` shell can run
(``rankkit macros``). It is the SQL files under ``sql/``, their markers written out, and the macros
written from the declarations: the catalog the name parser reads (the registry, trec_eval's names,
the presets), the measure spec, each measure's table macro, the list macros, the generic value
stage (rankkit.per_query_ranked) and the trace's values. The SQL that rankkit writes from the
registry is written here, and only here; :mod:`rankkit._sql` loads the script into a connection.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Iterable

from rankkit import neighbours, trec
from rankkit._paths import sql_dir
from rankkit.conditions import checked_argument, checked_value, condition, default_literal, variants
from rankkit.dialect import DUCKDB
from rankkit.macro_plans import Arguments, Generic, PerRank
from rankkit.plan import QUERY_SETS
from rankkit.trace_fields import CONTRIBUTION, trace_columns, trace_option, trace_params, traced
from rankkit.errors import RankkitError
from rankkit.measures import (AGGREGATIONS, REFERENCE, Feature, Measure, SpecField, beyond_measures, beyond_params,
                              header, needs_subtopics, params, registry, spec_fields, spec_params)
from rankkit.names import fill as fill_names

__all__ = ["script", "sql_files", "fill", "catalog_sql", "aggregation_sql", "param_pattern_sql", "spec_sql",
           "table_macros_sql", "per_query_macro", "trace_values_macro", "list_macro", "list_signature", "list_macros_sql",
           "shell_only_macros"]


def sql_files() -> list[Path]:
    """The SQL files in load order: top-level files by name, then lists/, then metrics/ and metrics/beyond/."""
    root = sql_dir()
    return sorted(root.glob("*.sql")) + sorted((root / "lists").glob("*.sql")) + sorted(
        (root / "metrics").glob("*.sql")
    ) + sorted((root / "metrics" / "beyond").glob("*.sql"))


@cache
def script() -> str:
    """Every macro as one script that a plain ``duckdb`` shell can run."""
    parts = []
    for p in sql_files():
        if p.name == "30_specs.sql":  # the name parser, a scalar macro, binds the catalog's lists when made
            parts.append(catalog_sql())
        if p.name == "20_engine.sql":  # its scalar macros bind these when made
            parts.append(aggregation_sql())
        parts.append(f"-- {p.relative_to(sql_dir()).as_posix()}\n{fill_names(fill(p.read_text(encoding='utf-8')))}")
    parts.append(spec_sql())
    parts.append(per_query_macro())
    parts.append(trace_values_macro())
    parts.append(list_macros_sql())
    parts.append(table_macros_sql())
    return "\n".join(parts)


def shell_only_macros() -> set[str]:
    """The macros written for SQL users, which rankkit's own statements never call: each measure's table
    macro and list macro (rankkit.ndcg), the generic value stage and the engine's entries around it
    (rankkit.evaluate, rankkit.per_query ...), the trace, the agreement's (``rankkit agree``'s)."""
    names = set(registry()) | {path.stem for path in sql_files() if path.parent.name == "lists"}
    for path in sql_files():
        if path.name in ("50_trace.sql", "60_agreement.sql", "62_leaderboards.sql", "64_overlap.sql"):
            names |= set(re.findall(r"MACRO rankkit\.(\w+)", path.read_text(encoding="utf-8")))
    return names | {"per_query_ranked", "trace_values", "per_query", "aggregate", "evaluate", "evaluate_queries"}


def _lit(text: str) -> str:
    return DUCKDB.literal(text, "VARCHAR")


# ---- the name parser's markers and catalog ---------------------------------------------------------

# The name parser's arguments (rankkit.measure_specs) that stand for a parameter's default: trec_eval's
# -l (the relevance level) and -N (the documents in the collection)
PARSER_DEFAULTS = ("rel", "docs")


def fill(sql: str) -> str:
    """The SQL with the name parser's markers written out from the prelude:

    - ``{{spec_values r}}``: the fields of a struct, each parameter's value from a parsed name's pairs
      (``(r).pair_names``, ``(r).pair_values``) and ``(r).cutoff`` (or the parser's argument, or the default), unchecked
    - ``{{spec_arguments v}}``: rankkit.spec's arguments from such a struct ``v`` (and its ``v.i``)
    - ``{{number_params}}``, ``{{list_params}}``: the parameters whose values are a number, a list
    - ``{{defaults NAME ...}}``: ``NAME := default, ...``, a macro's parameters with the prelude's defaults
    - ``{{checked NAME}}``: a beyond-accuracy measure's argument checked as its declaration says
      (sql/metrics/beyond/*.sql), refused in the declaration's words
    """
    def marker(match: re.Match) -> str:
        name = match.group(1)
        if name == "checked":
            declared = beyond_params()[match.group(2).strip()]
            return checked_value(declared.name, declared.type, declared.check, declared.must, declared.default == "NULL")
        if name == "defaults":
            return ", ".join(f"{p} := {default_literal(p, params()[p].type)}" for p in match.group(2).split())
        # (r).field, not r.field: in a table function's arguments (query(), as rankkit.evaluate calls it)
        # DuckDB reads r.field as the text 'r.field'
        of = "".join(f"({word})." for word in match.group(2).split())
        if name == "spec_values":
            return ",\n        ".join(f"'{f.name}': {_spec_argument(f, of)}" for f in spec_fields().values())
        if name == "spec_arguments":
            return ", ".join(f"{f.name} := {of}{f.name}" for f in spec_fields().values()) + f", i := {of}i"
        if name.startswith("trace_"):
            return _trace_marker(name, match.group(2).split())
        kinds = {"number_params": ("DOUBLE", "INTEGER", "BIGINT"), "list_params": ("DOUBLE[]",)}
        return "(" + ", ".join(f"'{p.name}'" for p in spec_params().values() if p.type in kinds[name] and p.name != "k") + ")"

    return re.sub(r"\{\{(spec_values|spec_arguments|number_params|list_params|defaults|checked|trace_\w+)((?: \w+)*)\}\}",
                  marker, sql)


def _trace_marker(name: str, words: list[str]) -> str:
    """The trace's markers, over its parameters (trace_fields.trace_params; ``but k``: without the cutoff):
    ``{{trace_defaults}}`` its macro's parameters with their defaults, ``{{trace_checked}}`` each checked
    as the spec checks it (``AS name``), ``{{trace_read opt}}`` each read from a CTE, ``{{trace_passed}}``
    each passed on by name, ``{{trace_shown m}}`` the columns the headers show, read from a CTE: the rank
    features, then each traced measure's value, then what a rank adds."""
    if name == "trace_shown":
        values = list(traced().values())
        shown = [c for c in trace_columns() if not c.endswith(CONTRIBUTION)]
        added = [c for c in trace_columns() if c.endswith(CONTRIBUTION)]
        return ", ".join(f"{words[0]}.{column}" for column in shown + values + added)
    taken = [p for p in trace_params() if not (words[-2:] == ["but", "k"] and p == "k")]
    if name == "trace_defaults":
        return ", ".join(f"{p} := {default_literal(p, params()[p].type)}" for p in taken)
    if name == "trace_checked":
        return ", ".join(f"{trace_option(p) if spec_fields()[p].make else checked_argument(p, 'trace')} AS {p}"
                         for p in taken)
    if name == "trace_read":
        return ", ".join(f"{words[0]}.{p}" for p in taken)
    if name == "trace_passed":
        return ", ".join(f"{p} := {p}" for p in taken)
    raise RankkitError(f"unknown marker {{{{{name}}}}} in the SQL files")


def _spec_argument(f: SpecField, of: str = "") -> str:
    """The value of one parameter in rankkit.parse_measures, rankkit.spec's argument: the value a name gives, else
    the parser's argument (rel, docs) or the prelude's default; ``of`` prefixes the parsed name's fields
    (pair_names, pair_values, cutoff, params)."""
    given = f"{of}pair_values[list_position({of}pair_names, '{f.name}')]"
    otherwise = f.name if f.name in PARSER_DEFAULTS else default_literal(f.name, f.type)
    if f.name == "k":
        return f"{of}cutoff::BIGINT"
    holder = next((p.name for p in params().values() if p.held == f.name), None)
    if holder:  # IPrec's recall level is the one element of levels (see spec_value)
        return (f"CASE WHEN list_contains({of}params, '{holder}') "
                f"THEN [coalesce({of}pair_values[list_position({of}pair_names, '{holder}')]::DOUBLE, "
                f"{default_literal(holder, 'DOUBLE')})] "
                f"ELSE coalesce(rankkit.param_list({given}), {otherwise}) END")
    if f.type.endswith("[]") and f.make is None:
        return f"coalesce(rankkit.param_list({given}), {otherwise})"
    if f.type in ("DOUBLE", "BIGINT", "INTEGER"):
        return f"coalesce({given}::DOUBLE, {otherwise})"
    return given if otherwise == "NULL" else f"coalesce({given}, {otherwise})"


def catalog_sql() -> str:
    """SQL that declares the registry to the SQL side: the catalog, trec_eval's names and the presets."""
    # a beyond-accuracy measure (sql/metrics/beyond/) has its level and the side tables it reads, and why a parse
    # not asked for them (beyond := false: SQL's rankkit.evaluate, which takes qrels and a run) refuses it
    rows = [{"metric": m.metric, "name": m.name, "aliases": list(m.aliases), "params": list(m.params),
             "agg": m.aggregate, "level": m.level, "needs": list(m.needs),
             "refused": neighbours.beyond_refused(m) if m.level else None}
            for m in [*registry().values(), *dict.fromkeys(beyond_measures().values())]]
    return trec_names_sql() + neighbour_sql() + f"""-- Generated from the headers of sql/metrics/*.sql by rankkit.macros.catalog_sql().
-- A constant list, so that the name parser (rankkit.parse_measures) is one scalar expression; as JSON text,
-- which binds in a quarter of the time of as many struct literals (the parser reads it several times).
CREATE OR REPLACE MACRO rankkit.catalog_list() AS
    from_json({_lit(json.dumps(rows))},
              '[{{"metric": "VARCHAR", "name": "VARCHAR", "aliases": ["VARCHAR"], "params": ["VARCHAR"], "agg": "VARCHAR", '
              '"level": "VARCHAR", "needs": ["VARCHAR"], "refused": "VARCHAR"}}]');
CREATE OR REPLACE MACRO rankkit.catalog() AS TABLE
    SELECT c.metric, c.name, c.aliases, c.params, c.agg, c.level, c.needs FROM (SELECT unnest(rankkit.catalog_list()) AS c);
""" + preset_sql() + param_pattern_sql()


def param_pattern_sql() -> str:
    """rankkit.param_pattern: the text a trec_eval-style name may carry as each parameter's value (the alias
    ndcg_cut_{k} reads ndcg_cut_10, utility_{coef} utility_2,-1,0,0, ndcg_{gains} ndcg_1=3,2=9), from the
    declarations (Param.pattern)."""
    whens = "".join(f"\n        WHEN {_lit(p.name)} THEN {_lit(p.pattern)}" for p in params().values())
    return ("-- Generated from the parameters' declarations by rankkit.macros.param_pattern_sql().\n"
            f"CREATE OR REPLACE MACRO rankkit.param_pattern(param) AS\n    CASE param{whens}\n    END;\n")


def trec_names_sql() -> str:
    """rankkit.trec_names(): each nickname and each family name (rankkit.trec), the numeric measures it stands
    for, family by family, so that rankkit.evaluate in SQL reads them as the CLI does."""
    # a nickname's text measures (runid, relstring) are quiet: left out unless the parser is asked for text
    rows = [(nick, families, True) for nick, families in trec.NICKNAMES.items()]
    rows += [(name, [name], False) for name in trec.FAMILIES]
    values = _lit(json.dumps([{"name": name, "entries": [{"family": f, "names": trec.default_names(trec.FAMILIES[f]),
                                                           "quiet": nickname and trec.FAMILIES[f].text}
                                                          for f in families]}
                              for name, families, nickname in rows]))
    # each family, its default parameters and the kind of them (number None: one measure, its text printed
    # as given), for rankkit.trec_form (sql/30_specs.sql), which reads 'P.5,10' (and 'P.', the defaults) as
    # trec_eval does, and how a float parameter is printed (iprec_at_recall_0.10: the spell's format as printf's)
    families = _lit(json.dumps([{"name": name, "cutoffs": list(family.cutoffs), "number": family.number.__name__ if family.cutoffs else None,
                                 "takes": family.takes, "printf": re.sub(r"\{:?([^}]*)\}", r"%\1", family.spell) if family.number is float else None}
                                for name, family in trec.FAMILIES.items()]))
    # a family's row, with the parameters a name gives it (none in the lists: rankkit.name_entries sets them)
    family = ('{"name": "VARCHAR", "cutoffs": ["DOUBLE"], "number": "VARCHAR", "takes": "VARCHAR", "printf": "VARCHAR", '
              '"params": "VARCHAR"}')
    return f"""-- Generated from rankkit/trec.py by rankkit.macros.trec_names_sql(): trec_eval's nicknames and families.
-- A constant list (JSON text: see rankkit.catalog_list), read by the scalar name parser (rankkit.parse_measures):
-- each name's entries, as rankkit.name_entries gives them.
CREATE OR REPLACE MACRO rankkit.trec_name_list() AS
    from_json({values}, '[{{"name": "VARCHAR", "entries": [{{"family": "VARCHAR", "names": ["VARCHAR"], "form": {family}, "refused": "VARCHAR", "quiet": "BOOLEAN"}}]}}]');
CREATE OR REPLACE MACRO rankkit.trec_family_list() AS
    from_json({families}, '[{family}]');
CREATE OR REPLACE MACRO rankkit.trec_number() AS {_lit(trec.NUMBER)};
CREATE OR REPLACE MACRO rankkit.trec_names() AS TABLE
    SELECT t.name, flatten([(e).names FOR e IN t.entries IF NOT (e).quiet]) AS measures FROM (SELECT unnest(rankkit.trec_name_list()) AS t);
"""


# A name and a parameter's value in a name in ir_measures' spelling, its spaces taken out
_NAME = r"[A-Za-z][A-Za-z0-9_-]*"
_VALUE = r"""(?:'[^']*'|"[^"]*"|\{[^}]*\}|\[[^\]]*\]|[^,)]*)"""
# The steps every name in ir_measures' spelling takes before the rules: spaces out; gains written as rankkit's
# [level=gain,...] (from {0: 1, 1: 4}, '0=1,1=4', 0=1,1=4); quotes off; a number in its shortest form (T=2.0 is
# T=2); each a regexp_replace (pattern, replacement, options)
_BEFORE = [
    (r"\s*([=,()@:{}\[\]])\s*", r"\1", "g"),
    (r"([(,]gains=)(?:\{([^}]*)\}|'([^']*)'|\"([^\"]*)\")", r"\1[\2\3\4]", ""),
    (r"([(,]gains=)([-+]?[0-9][^,)\[]*(?:,[-+]?[0-9]+(?:\.[0-9]*)?=[^,)]*)+)", r"\1[\2]", ""),
    (r":", "=", "g"),
    (r"=(?:'([^']*)'|\"([^\"]*)\")", r"=\1\2", "g"),
    (r"=([-+]?[0-9]+)(?:\.0*|(\.[0-9]*[1-9])0*)([,)@]|$)", r"=\1\2\3", "g"),
]
# and after them: a dropped parameter's comma, and empty parentheses
_AFTER = [(r"\(,*\)|(\(),+|,+(\))|,+(,)", r"\1\2\3", "g")]


def _rule_measure(rule) -> str:
    return f"(?i:{'|'.join(map(re.escape, rule.measures))})" if rule.measures else _NAME


def _rule_value(rule) -> str:
    """A rule's values as a pattern's group (any value where it names none)."""
    return f"((?i:{'|'.join(map(re.escape, rule.values))}))" if rule.values else f"({_VALUE})"


def _rule_steps(rule) -> list[tuple[str, str, str]]:
    """One rule of rankkit.neighbours.RULES as regexp_replace steps over a name without spaces (those that drop
    a value of any measure's parameter are one step, _dropped)."""
    head = rf"^({_rule_measure(rule)}\((?:.*,)?){re.escape(rule.param)}="
    value = _rule_value(rule)
    steps = []
    if rule.renamed:
        steps.append((rf"^{_rule_measure(rule)}(\((?:.*,)?{re.escape(rule.param)}={value}[,)])", rule.renamed + r"\1", ""))
        head = rf"^({_NAME}\((?:.*,)?){re.escape(rule.param)}="
    if rule.refused or _dropped(rule):
        return steps
    if rule.becomes is None:
        steps.append((head + value + "([,)])", r"\1\3", ""))
    elif rule.becomes == "@":  # the cutoff after @, unless the name gives one (then it is refused as unknown)
        steps.append((head + value + r"([,)][^@]*)$", r"\1\3@\2", ""))
    elif rule.becomes or rule.value:
        steps.append((head + value + "([,)])", rf"\1{rule.becomes or rule.param}={rule.value or chr(92) + '2'}\3", ""))
    if rule.first:
        said = re.escape(rule.becomes or rule.param)
        if rule.default is not None:  # written first where not given, then the one given kept
            steps += [(rf"^({_rule_measure(rule)}\()((?:.*,)?{said}=)", rf"\1{rule.first}={rule.default},\2", ""),
                      (rf"^({_NAME}\(){re.escape(rule.first)}={_VALUE},((?:.*,)?{re.escape(rule.first)}=)", r"\1\2", "")]
        steps.append((rf"^({_NAME}\()(.+?),({re.escape(rule.first)}={_VALUE})([,)])", r"\1\3,\2\4", ""))
    return steps


def _dropped(rule) -> bool:
    return rule.becomes is None and bool(rule.values) and not rule.measures and not rule.renamed


def _steps() -> list[tuple[str, str, str]]:
    """Every step of rankkit.neighbour_written, in order: a regexp_replace each (binding one costs ~0.1 ms)."""
    dropped = [r for r in neighbours.RULES if _dropped(r)]
    drop = "|".join(f"{re.escape(r.param)}={_rule_value(r)}" for r in dropped)
    steps = [*_BEFORE, (rf"([(,])(?:{drop})([,)])", rf"\1\{len(dropped) + 2}", "g")]  # each value is a group
    return steps + [step for r in neighbours.RULES for step in _rule_steps(r)] + _AFTER


def neighbour_sql() -> str:
    """From rankkit/neighbours.py, in its words, for the SQL parser's reading of ir_measures' and ranx's names
    (rankkit.neighbour_names, sql/30_specs.sql): rankkit.refusal_list(), the names refused by name (ranx's
    rbp.95, ir_measures' BPM) and why ({} in it: the pattern's group); rankkit.neighbour_marked(name), whether
    a name is in ir_measures' spelling, and rankkit.neighbour_written(name), such a name as rankkit's, and
    rankkit.neighbour_refusal_list(), what such a name is refused for, from neighbours.RULES;
    rankkit.ranx_names(), ranx's names whose -l level is rankkit's rel; rankkit.ranx_level_hint, what ranx's
    -l after another measure's cutoff is in rankkit's spelling ('' if none). The rules are regexp_replace
    steps, not a list a lambda reads: binding the lambdas of that list cost the parser 10 ms a statement."""
    def text(template: str, **exprs: str) -> str:  # a template's {field}s as SQL expressions
        parts = re.split(r"\{(\w*)\}", template)
        return " || ".join(_lit(part) if i % 2 == 0 else exprs[part] for i, part in enumerate(parts) if part or i % 2)

    # lists to search, not CASEs: every name given is read through them, and the CASE of thirteen patterns
    # was bound for each (a quarter of the name parser's planning)
    refused = _lit(json.dumps([{"pattern": pattern, "why": why} for pattern, why in neighbours.refusals()]))
    rules = neighbours.RULES
    marked = "|".join(dict.fromkeys(rf"{_rule_measure(r)}\s*\((?:.*,)?\s*{re.escape(r.param)}\s*={r.marks}"
                                    for r in rules if r.marks is not None))
    marked = _lit(rf"(?s)^\s*(?:{marked})")
    written = "trim(name)"
    for pattern, replacement, options in _steps():
        written = f"regexp_replace({written}, {_lit(pattern)}, {_lit(replacement)}{', ' + _lit(options) if options else ''})"
    # on the name written: a parameter left that a rule refuses (its value the pattern's group), or a parameter
    # a measure needs (unless: the pattern of it written)
    refusing = [{"pattern": rf"^{_rule_measure(r)}\((?:.*,)?{re.escape(r.param)}={_rule_value(r)}[,)]", "unless": None,
                 "why": r.refused} for r in rules if r.refused]
    for param, measures, why in neighbours.NEEDED:  # unless given, as ir_measures or rankkit spells it
        ours = next((r.becomes for r in rules if r.param == param and not r.measures), param)
        refusing.append({"pattern": rf"^(?i:{'|'.join(measures)})(?:[(@]|$)", "unless": rf"[(,](?:{param}|{ours})=",
                         "why": why})
    level, at = "split_part(cutoff, '-l', 2)", "split_part(cutoff, '-l', 1)"
    ranx_level = (f"CREATE OR REPLACE MACRO rankkit.ranx_level_hint(cutoff, base, name, takes_rel) AS\n"
                  f"    CASE WHEN NOT regexp_full_match(cutoff, '[0-9]+-l[0-9]+') THEN ''\n"
                  f"         WHEN takes_rel THEN '; ' || {text(neighbours.RANX_LEVEL, level=level, base='base', at=at)}\n"
                  f"         ELSE '; ' || {text(neighbours.RANX_LEVEL_REFUSED, level=level, name='name')} END;\n")
    return ("-- Generated from rankkit/neighbours.py by rankkit.macros.neighbour_sql().\n"
            f"CREATE OR REPLACE MACRO rankkit.refusal_list() AS\n    from_json({refused}, '[{{\"pattern\": \"VARCHAR\", \"why\": \"VARCHAR\"}}]');\n"
            f"CREATE OR REPLACE MACRO rankkit.refused_any() AS {_lit('|'.join(f'(?:{pattern})' for pattern, _ in neighbours.refusals()))};\n"
            f"CREATE OR REPLACE MACRO rankkit.neighbour_marked(name) AS regexp_matches(name, {marked});\n"
            f"CREATE OR REPLACE MACRO rankkit.neighbour_written(name) AS\n    {written};\n"
            f"CREATE OR REPLACE MACRO rankkit.neighbour_refusal_list() AS\n    from_json({_lit(json.dumps(refusing))}, "
            f"'[{{\"pattern\": \"VARCHAR\", \"unless\": \"VARCHAR\", \"why\": \"VARCHAR\"}}]');\n"
            f"CREATE OR REPLACE MACRO rankkit.ranx_names() AS [{', '.join(map(_lit, neighbours.RANX))}];\n"
            + ranx_level)


def preset_sql() -> str:
    """rankkit.preset_name: a preset's name (ranx's ndcg_burges@10, the ``presets:`` of the headers) as the
    measure's own with its parameters set (nDCG(gain=exp)@10), any other name as it is; the SQL parser
    reads names through it."""
    whens = "".join(f"\n        WHEN {_lit(given.lower())} THEN {_lit(m.name + '(' + fixed)}"
                    for m in registry().values() for given, fixed in m.presets)
    parts = "regexp_extract(name, '^\\s*([A-Za-z][A-Za-z0-9_-]*)\\s*(?:\\((.*)\\))?\\s*(?:@\\s*(\\S+))?\\s*$', ['base', 'inside', 'at'])"
    spellings = ", ".join(f"{{'spelling': {_lit(given)}, 'means': {_lit(m.name + '(' + fixed + ')')}}}"
                          for m in registry().values() for given, fixed in m.presets)
    # the presets as the parser's near-miss suggestions name them: ndcg_burges (nDCG(gain=exp))
    listed = (f"CREATE OR REPLACE MACRO rankkit.preset_spellings() AS "
              f"[{spellings}]::STRUCT(spelling VARCHAR, means VARCHAR)[];\n")
    if not whens:
        return listed + "CREATE OR REPLACE MACRO rankkit.preset_name(name) AS name;\n"
    return listed + (f"-- Generated from the presets: of sql/metrics/*.sql by rankkit.macros.preset_sql().\n"
            f"CREATE OR REPLACE MACRO rankkit.preset_name(name) AS\n"
            f"    coalesce([CASE lower(p.base){whens}\n        END || coalesce(',' || nullif(trim(p.inside), ''), '') "
            f"|| ')' || coalesce('@' || nullif(p.at, ''), '') FOR p IN [{parts}]][1], name);\n")


def aggregation_sql() -> str:
    """rankkit.query_term(agg, value), a query's term, and rankkit.combined(agg, total, n), the value over
    queries from the terms' sum and number (NULL over none), from rankkit.measures.AGGREGATIONS."""
    mean, *others = AGGREGATIONS.values()
    terms = "".join(f" WHEN {_lit(a.name)} THEN {a.term('value')}" for a in others if a.term("value") != "value")
    combined = "".join(f"\n         WHEN agg = {_lit(a.name)} THEN {a.combined('total', 'n')}" for a in others)
    return ("-- Generated from rankkit.measures.AGGREGATIONS by rankkit.macros.aggregation_sql().\n"
            f"CREATE OR REPLACE MACRO rankkit.query_term(agg, value) AS CASE agg{terms} ELSE {mean.term('value')} END;\n"
            f"CREATE OR REPLACE MACRO rankkit.combined(agg, total, n) AS\n    CASE WHEN n = 0 THEN NULL{combined}\n"
            f"         ELSE {mean.combined('total', 'n')} END;\n")


# ---- the measure spec and the table macros ---------------------------------------------------------

# Before a spec's refusal, whose it is: the measure's name
_SAID = "'rankkit: measure ' || measure || ': ' || "


def spec_sql() -> str:
    """rankkit.checked_<name> for every checked parameter and rankkit.spec, from the prelude."""
    macros = ["-- Generated from sql/00_prelude.sql by rankkit.macros.spec_sql()."]
    for f in spec_fields().values():
        if f.check is None:
            continue
        macros.append(
            f"CREATE OR REPLACE MACRO rankkit.checked_{f.name}({f.name}, measure) AS\n    "
            f"{checked_value(f.name, f.type, f.check, f.must, spec_params()[f.name].default == 'NULL', _SAID)};")
    arguments = "".join(f"{f.name} := {default_literal(f.name, f.type)}, " for f in spec_fields().values())
    fields = "".join(f"    '{f.name}': {f.make or f'rankkit.checked_{f.name}({f.name}, measure)'},\n"
                     for f in spec_fields().values())
    macros.append(f"CREATE OR REPLACE MACRO rankkit.spec(metric, measure, agg, {arguments}i := 1, level := NULL) AS {{\n"
                  f"    'i': i::INTEGER,\n    'measure': measure::VARCHAR,\n    'metric': metric::VARCHAR,\n"
                  f"{fields}    'agg': agg::VARCHAR,\n    'level': level::VARCHAR\n}};")
    return "\n".join(macros) + "\n"


# The conventions every measure's table macro takes, as rankkit.per_query takes them.
TABLE_CONVENTIONS = "ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false"


def table_macros_sql() -> str:
    """Each measure's table macro (``rankkit.ndcg('qrels', 'run', k := 10)``), written from its header:
    its parameters with the prelude's defaults, then the conventions; a measure whose value is text
    (relstring, runid) writes its own in its file."""
    macros = ["-- Generated from the headers of sql/metrics/*.sql by rankkit.macros.table_macros_sql()."]
    for m in registry().values():
        if m.value is None:
            continue
        # IPrec's recall level travels as the one level of the spec's list (see spec_value)
        held = {name: params()[name].held for name in m.params if params()[name].held}
        signature = "".join(f"{name} := {default_literal(name, params()[name].type if name in held else None)}, "
                            for name in m.params)
        if needs_subtopics(m.metric):  # its first table holds subtopic judgments: composed, not rankkit.per_query
            macros.append(subtopic_macro(m, signature + TABLE_CONVENTIONS))
            continue
        arguments = "".join(f", {held[name]} := [{name}]" if name in held else f", {name} := {name}" for name in m.params)
        macros.append(
            f"CREATE OR REPLACE MACRO {m.macro}(qrels_table, run_table, {signature}{TABLE_CONVENTIONS}) AS TABLE\n"
            f"    SELECT system, query_id, value\n"
            f"    FROM rankkit.per_query(qrels_table, run_table,\n"
            f"        [rankkit.spec({_lit(m.metric)}, {_lit(m.name)}, {_lit(m.aggregate)}{arguments})],\n"
            f"        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)\n"
            f"    ORDER BY system, query_id;")
    return "\n".join(macros) + "\n"


# The CTEs of a diversity measure's table macro: the plain qrels made of the subtopic judgments (a
# document's best grade over its subtopics), the run ranked against them, and against each subtopic
SUBTOPIC_INPUTS = [
    ("rankkit_subtopic_qrels", "SELECT query_id, doc_id, max(grade) AS relevance FROM rankkit.subtopic_rows(qrels_table) "
                               "GROUP BY query_id, doc_id"),
    ("rankkit_ranks", "FROM rankkit.ranks('rankkit_subtopic_qrels', run_table, ties := ties, scores := scores, "
                      "depth := depth)"),
    ("rankkit_subtopic_ranked", "FROM rankkit.subtopic_ranks(qrels_table, run_table, ties := ties, scores := scores, "
                                "depth := depth)"),
]


def subtopic_macro(measure: Measure, signature: str) -> str:
    """The table macro of a diversity measure (``rankkit.alpha_ndcg('subtopics', 'run', k := 10)``): its
    first table holds the subtopic judgments, which are the qrels too, as in ndeval. The body is the
    composed statement, once per query set, the macro's ``queries`` choosing; ``signature`` is the
    macro's parameters, as table_macros_sql writes every measure's."""
    spec = {"metric": measure.metric, "i": 1, "measure": measure.name, "agg": measure.aggregate}
    bodies = []
    for queries in QUERY_SETS:
        planned = Arguments(queries=queries)
        planned.add(spec)
        bodies.append(planned.statement("'rankkit_subtopic_qrels'", "rankkit_ranks", before=SUBTOPIC_INPUTS,
                                        subtopics="qrels_table", subtopic_ranks="rankkit_subtopic_ranked"))
    name = DUCKDB.literal(measure.name, "VARCHAR")
    return (f"CREATE OR REPLACE MACRO {measure.macro}(qrels_table, run_table, {signature}) AS TABLE\n"
            f"    SELECT system, query_id, value FROM (\n"
            f"        SELECT * FROM ({bodies[0]}) WHERE queries = 'both'\n"
            f"        UNION ALL\n"
            f"        SELECT * FROM ({bodies[1]}) WHERE CASE WHEN queries = 'qrels' THEN true WHEN queries = 'both' "
            f"THEN false ELSE error('rankkit: queries must be both or qrels, got ''' || queries || '''') END)\n"
            f"    WHERE CASE WHEN judged_only THEN error('rankkit: judged_only does not apply to ' || {name} || "
            f"': it ranks the documents of the subtopic judgments among the whole run') "
            f"WHEN ties NOT IN ('trec', 'rank') THEN error('rankkit: ' || {name} || ' takes ties trec or rank, got ' "
            f"|| ties) ELSE true END\n"
            f"    ORDER BY system, query_id;")


# ---- the generic value stage and the trace's values -------------------------------------------------

# A generated macro's ranks: the table (or the caller's CTE) its ranks_table argument names
RANKS_TABLE = ("rankkit_ranks", "FROM query_table(ranks_table::VARCHAR)")


def per_query_macro(metrics: Iterable[str] | None = None) -> str:
    """rankkit.per_query_ranked, written from the declarations of every measure (see
    rankkit.macro_plans.Generic); with ``metrics``, of those measures only (a test binds it faster)."""
    planned = Generic()
    for measure in registry().values():
        # the diversity measures read subtopic judgments, which the macro's two tables do not hold
        if (measure.value is not None and not needs_subtopics(measure.metric)
                and (metrics is None or measure.metric in metrics)):
            planned.add({"metric": measure.metric})
    return ("-- Generated from sql/features.sql and sql/metrics/*.sql by rankkit.macros.per_query_macro().\n"
            "CREATE OR REPLACE MACRO rankkit.per_query_ranked(qrels_table, ranks_table, specs, ties := 'trec', "
            "queries := 'both') AS TABLE\n"
            + planned.statement("qrels_table", "rankkit_ranks", before=[RANKS_TABLE]) + ";\n")


def trace_values_macro() -> str:
    """rankkit.trace_values: per system, query and rank r from 1 to kmax, each traced measure's value at
    cutoff r and the rank features their headers show (traced, trace_columns), from the same
    declarations as evaluate's values (rankkit.macro_plans.PerRank), so that the trace's row at rank k is
    evaluate's value at k, bit for bit, and what a row shows is what those values add up."""
    planned = PerRank()
    for metric in traced():
        planned.add({"metric": metric, "i": 0, "measure": metric, "agg": "mean"})
    showing = {column: m for m in registry().values() if m.trace for column in m.trace[1]}
    for column in trace_columns():
        if not column.endswith(CONTRIBUTION):
            planned.add_feature(column, showing[column])
    statement = planned.statement("qrels_table", "rankkit_ranks", before=[RANKS_TABLE])
    return ("-- Generated from sql/features.sql and sql/metrics/*.sql by rankkit.macros.trace_values_macro().\n"
            "CREATE OR REPLACE MACRO rankkit.trace_values(qrels_table, ranks_table, kmax, "
            f"{fill('{{defaults ' + ' '.join(p for p in trace_params() if p != 'k') + '}}')}, ties := 'trec') AS TABLE\n"
            f"{statement};\n")


# ---- the list macros -------------------------------------------------------------------------------

# The inputs of a scalar list macro (sql/lists), from its grades in rank order (NULL: unjudged); the
# qrels grades are the list file's own declaration (-- qrels:), by default the grades themselves.
LIST_INPUTS = {"ranks": "[i FOR i IN range(1, len(grades) + 1) IF grades[i] IS NOT NULL]",
               "grades": "[g::DOUBLE FOR g IN grades IF g IS NOT NULL]",
               "num_ret": "len(grades)", "retrieved": "true", "query_id": "NULL::VARCHAR",
               # a list holds no scores: every item counts, as under scored := 'any' (no list macro takes scored)
               "positives": "[true FOR g IN grades IF g IS NOT NULL]"}
# A variant's condition in a list macro: the conventions are trec_eval's (ties by score, the queries of
# both), decided here; a parameter's is a CASE on its argument (render fills {s.name} with it).
LIST_CONDITION = condition({"ties": "trec", "queries": "both"})


def list_macro(path: Path) -> str:
    """The scalar list macro of ``sql/lists/NAME.sql``: its signature (list_signature), and as its body the value
    of its measure (``-- measure:``) with every feature written in place, parameters its arguments
    (``-- options:``) or else the prelude's defaults, as one expression. The same declarations as
    evaluate's, so a list macro gives evaluate's value for the same grades, bit for bit."""
    fields = header(path)
    measure = registry()[fields["measure"]]
    options = set(fields.get("options", "").replace(",", " ").split())
    qrels = fields.get("qrels", "grades")
    inputs = {**LIST_INPUTS, "qrels_grades": f"list_reverse_sort([g::DOUBLE FOR g IN {qrels} IF g IS NOT NULL])"}

    def param(name: str) -> str:
        if name in options:
            return checked_argument(name, f"rankkit.{fields['list']}")
        return default_literal(name)

    def render(feature: Feature) -> str:
        def fill(match: re.Match) -> str:
            if match.group(1):
                return param(match.group(2))
            name = match.group(2)
            if name in inputs:
                return f"({inputs[name]})"
            if name in LIST_INPUTS or name in ("tie_firsts", "tie_sizes", "cum"):
                raise RankkitError(f"{path}: the list macro cannot give {name}")
            return f"({render(variants(name, measure, LIST_CONDITION))})"

        return REFERENCE.sub(fill, feature.expr)

    # every option checked whatever the grades: in the value a check may sit where nothing reads it (AP's
    # cutoff when no grade is relevant, a gain over no grades), and the table macros check them all first
    checked = ", ".join(param(name) for name in sorted(options))
    return (f"-- Generated from {path.name} and the definition of {measure.name} by rankkit.macros.list_macro().\n"
            f"CREATE OR REPLACE MACRO {list_signature(fields)} AS\n"
            f"    CASE WHEN hash({checked}) IS NOT NULL THEN CAST({render(measure.value)} AS DOUBLE) END;\n")


def list_signature(fields: dict[str, str]) -> str:
    """A list macro's signature: the grades, the cutoff k, the list's own arguments (``-- arguments:``),
    then its options (``-- options:``) with their declared defaults."""
    options = [name for name in fields.get("options", "").replace(",", " ").split() if name != "k"]
    named = [fields["arguments"]] if fields.get("arguments") else []
    if options:
        named.append(fill("{{defaults " + " ".join(options) + "}}"))
    return f"rankkit.{fields['list']}(" + ", ".join(["grades", "k", *named]) + ")"


def list_macros_sql() -> str:
    """Every scalar list macro (sql/lists), generated (list_macro)."""
    return "".join(list_macro(path) for path in sorted((sql_dir() / "lists").glob("*.sql")))
