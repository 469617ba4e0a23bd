-- Measure specs: what rankkit.per_query computes, one struct per measure.
--
-- rankkit.spec builds one spec and rejects bad parameter values; rankkit.measure_specs parses
-- measure names ('nDCG@10', 'P(rel=2)@5', 'ndcg_cut_10', 'map') into specs, reading the measure
-- catalog (rankkit.catalog, made from the headers of sql/metrics/*.sql).

-- rankkit.spec builds one spec and rejects bad parameter values, and rankkit.checked_<name> checks one
-- parameter (rankkit.trace checks its options with these alone: binding the whole spec was half of a
-- one-query trace's cost). Both are written from the parameters' declarations (sql/00_prelude.sql and
-- the measures' own, rankkit.macros.spec_sql), as are what the parser below passes to rankkit.spec and
-- rankkit.param_pattern, the text a trec_eval-style name carries as a parameter's value.

-- trec_eval's gain per relevance level, '1=3,2=9,4=4.5', as a list of {level, gain} (NULL: none given).
CREATE OR REPLACE MACRO rankkit.gain_map(gains, measure) AS
    CASE WHEN gains IS NULL OR gains = '' THEN NULL
         WHEN regexp_full_match(gains, '\s*-?[0-9]+\s*=\s*[-+]?[0-9]*\.?[0-9]+(\s*,\s*-?[0-9]+\s*=\s*[-+]?[0-9]*\.?[0-9]+)*\s*')
             THEN [{'level': split_part(pair, '=', 1)::DOUBLE, 'gain': split_part(pair, '=', 2)::DOUBLE}
                   FOR pair IN string_split(replace(gains, ' ', ''), ',')]
         ELSE error('rankkit: measure ' || measure || ': gains must read level=gain,level=gain (such as 1=3,2=9), got ''' || gains || '''') END;

-- A list parameter's text ('.25,.5,.75', or '[.25, .5]' in parentheses) as numbers; NULL if not numbers.
CREATE OR REPLACE MACRO rankkit.param_list(text) AS
    [TRY_CAST(trim(x) AS DOUBLE) FOR x IN string_split(trim(text, '[] '), ',')];

-- The measures a macro is given: a list of names, or one name as a string ('nDCG@10' reads as
-- ['nDCG@10'], as Python's evaluate reads it); other values become names, and unknown measures.
-- JSON tells a list from a single value: typeof() in a macro makes the duckdb 1.5 shell bind the
-- calling macro when it is created, before rankkit.trec_names (made last) exists.
CREATE OR REPLACE MACRO rankkit.measure_list(names) AS
    from_json(CASE WHEN json_type(to_json(names)) = 'ARRAY' THEN to_json(names) ELSE to_json([names]) END, '["VARCHAR"]');

-- rankkit.refusal_list (ranx's rbp.95, ir_measures' BPM: refused by name), rankkit.neighbour_rules (how
-- ir_measures' parameters are written in rankkit), rankkit.ranx_names and the texts of the refusals below are
-- generated from rankkit/neighbours.py (rankkit.macros.neighbour_sql).

-- The name parser, one scalar expression: rankkit.parse_measures(names, rel := 1, docs := 0) is the list
-- of specs the names ask for, in the order asked. It reads constant lists (rankkit.catalog_list,
-- rankkit.trec_name_list, rankkit.preset_spellings, generated from the same declarations as the rest),
-- so a constant list of names folds to a constant list of specs while the statement is planned: a
-- table macro could build a statement's text from it and run it with query() (not done yet). Planning the table
-- macro this replaced (joins over the catalog) was a cost of each SQL call. Each step is a macro over
-- a lambda's variable, and [f(x) FOR x IN [value]][1] names a value once: DuckDB writes a macro's
-- argument out at each use, so a long argument used twice is bound twice.

-- trec_eval's parameter form 'family.params' (f: the family's row of rankkit.trec_family_list, its params
-- inserted) as the names trec_eval prints (rankkit/trec.py's table): ndcg_cut.10 is ndcg_cut_10, P.5,7,3 is P_3, P_5, P_7 (a cutoff is an
-- integer: 23.4 reads as 23), iprec_at_recall.0.1 is iprec_at_recall_0.10, and a family of one measure keeps
-- its text (utility.2,-1,0,0 is utility_2,-1,0,0); 'P.' is P's defaults.
CREATE OR REPLACE MACRO rankkit.trec_form(f) AS
    CASE WHEN (f).number IS NULL THEN [(f).name || coalesce('_' || nullif((f).params, ''), '')]
         ELSE [(f).name || '_' || CASE WHEN (f).number = 'int' THEN coalesce(TRY_CAST(v AS HUGEINT)::VARCHAR, printf('%.0f', v))
                                       ELSE printf((f).printf, v) END
               FOR v IN CASE WHEN (f).params = '' THEN (f).cutoffs ELSE list_sort(list_distinct([
                   CASE WHEN (f).number = 'int' THEN trunc(TRY_CAST(x AS DOUBLE)) + 0.0 ELSE TRY_CAST(x AS DOUBLE) END
                   FOR x IN list_filter(string_split((f).params, ','), lambda x: x <> '')])) END]
    END;

-- Why a family's form is refused (a parameter that is not a number), NULL if it is not.
CREATE OR REPLACE MACRO rankkit.trec_form_refusal(f) AS
    CASE WHEN (f).number IS NOT NULL THEN 'rankkit: measure ''' || (f).name || '.' || (f).params || ''': trec_eval''s '
        || (f).name || ' takes ' || (f).takes || ' separated by commas, got '''
        || [x FOR x IN string_split((f).params, ',') IF x <> '' AND NOT regexp_full_match(x, rankkit.trec_number())][1] || '''' END;

-- Why a name given is refused by name (rankkit.refusal_list: ranx's rbp.95, ir_measures' BPM), NULL if it is not.
-- The list is searched only for a name one of its patterns fits (rankkit.refused_any(), their alternation: one
-- pattern compiled while the statement is bound, where the search compiled each pattern for each name).
CREATE OR REPLACE MACRO rankkit.refusal(n) AS
    CASE WHEN regexp_full_match(n, rankkit.refused_any()) THEN
        ['rankkit: measure ''' || trim(n) || ''': ' || replace((r).why, '{}', coalesce(regexp_extract(n, (r).pattern, 1), ''))
         FOR r IN list_filter(rankkit.refusal_list(), lambda r: regexp_full_match(n, (r).pattern))][1] END;

-- The names given as rankkit spells them, each {x: as given, n: as the parser reads it, refused: why, NULL if
-- it is not}: ranx's map@100-l2 is map(rel=2)@100, and a name in ir_measures' spelling (a parameter that marks
-- it so: NumRet(rel=1), nDCG(dcg=exp-log2)@10) is written by the rules of rankkit/neighbours.py
-- (rankkit.neighbour_written: NumRelRet(rel=1), nDCG(gain=exp)@10) or refused by them; any other name is
-- rankkit's own and is read as given. Python's evaluate reads names through here too. No error() (see
-- rankkit.given_measures).
CREATE OR REPLACE MACRO rankkit.neighbour_names(names) AS list_transform(list_transform(
    [{'x': x, 'refused': rankkit.refusal(x),
      'n': coalesce([(l).base || '(rel=' || (l).level || ')' || (l).at
                     FOR l IN [regexp_extract(x, '^\s*([a-z_-]+?)(@[0-9]+)?-l([0-9]+)\s*$', ['base', 'at', 'level'])]
                     IF list_contains(rankkit.ranx_names(), (l).base)][1], x)}
     FOR x IN names],
    lambda s: struct_insert(s, t := CASE WHEN rankkit.neighbour_marked((s).n) THEN rankkit.neighbour_written((s).n) END)),
    lambda s: {'x': (s).x, 'n': CASE WHEN (s).refused IS NULL THEN coalesce((s).t, (s).n) ELSE (s).x END,
               'refused': coalesce((s).refused, CASE WHEN (s).t IS NOT NULL THEN
                   ['rankkit: measure ''' || trim((s).x) || ''': '
                    || replace(replace((r).why, '{value}', regexp_extract((s).t, (r).pattern, 1)), '{name}', regexp_extract((s).t, '^[A-Za-z][A-Za-z0-9_-]*'))
                    FOR r IN rankkit.neighbour_refusal_list()
                    IF regexp_matches((s).t, (r).pattern) AND NOT coalesce(regexp_matches((s).t, (r).unless), false)][1] END)});

-- trec_eval's nicknames (official, all_trec, set) and family names (P, recall, ndcg_cut ...) stand for
-- the measures rankkit.trec_name_list() lists; a preset (ranx's ndcg_burges@10) reads as the measure
-- with its parameters set (nDCG(gain=exp)@10), as in Python (rankkit.preset_name is generated from the
-- presets: of sql/metrics/*.sql). Each name given (g: n and why it is refused, at j) as entries: the
-- trec_eval family it names (another name: a key of its own), the names it stands for, or the family's
-- form it gives (P.5, read by rankkit.trec_form in a stage of its own: nested in this one's lambdas, it
-- was bound over again).
CREATE OR REPLACE MACRO rankkit.name_entries(g, j) AS coalesce(
    CASE WHEN (g).refused IS NOT NULL THEN [{'family': '#' || j, 'names': [(g).n], 'form': NULL, 'refused': (g).refused, 'quiet': false}] END,
    [(t).entries FOR t IN rankkit.trec_name_list() IF (t).name = (g).n][1],
    [[{'family': (f).name, 'names': NULL, 'form': f, 'refused': NULL, 'quiet': false}]
     FOR f IN [struct_update(f, params := substr((g).n, length((f).name) + 2))
               FOR f IN list_filter(rankkit.trec_family_list(), lambda f: starts_with((g).n, (f).name || '.'))]][1],
    [{'family': '#' || j, 'names': [rankkit.preset_name((g).n)], 'form': NULL, 'refused': NULL, 'quiet': false}]);

-- As trec_eval keeps one parameter list per measure, a family named again with parameters replaces the
-- earlier ones, in the family's first place (['P', 'P.5'] is P_5; -m all_trec -m relstring.20), as
-- trec_eval reads them: the last form given of a family (list_position in the
-- entries reversed), else its first entry. A name given twice is one measure, in its first place (i).
-- A stage per step, as rankkit.parse_measures's. No error() here: a name refused carries why, and
-- rankkit.checked_measure raises it; so a constant list of names folds to constant measures while the
-- statement is planned (an error() in it kept the parser's every stage in the plan, twice its size).
CREATE OR REPLACE MACRO rankkit.given_measures(names) AS list_transform(list_transform(list_transform(
    [flatten([rankkit.name_entries(g, j) FOR g, j IN rankkit.neighbour_names(rankkit.measure_list(names))])],
    lambda es: {'es': [CASE WHEN (e).form IS NULL THEN e
                            ELSE struct_update(e, names := rankkit.trec_form((e).form), refused := rankkit.trec_form_refusal((e).form)) END
                       FOR e IN es],
                'families': [(e).family FOR e IN es],
                'forms': list_reverse([CASE WHEN (e).form IS NOT NULL THEN (e).family END FOR e IN es])}),
    -- a form refused is one measure, named as given
    -- quiet (a nickname's text measure) only if the family is named nowhere else: official's runid and an
    -- explicit runid are one measure, asked for
    lambda s: flatten([[{'measure': m, 'refused': (c).refused,
                         'quiet': list_bool_and([(x).quiet FOR x IN (s).es IF (x).family = (c).family])}
                        FOR m IN CASE WHEN (c).refused IS NULL OR (c).form IS NULL THEN (c).names
                                      ELSE [((c).form).name || '.' || ((c).form).params] END]
                       -- a form refused is not replaced by a later one
                       FOR c IN [coalesce((s).es[list_position([CASE WHEN (x).refused IS NOT NULL THEN (x).family END FOR x IN (s).es], (e).family)],
                                          list_reverse((s).es)[list_position((s).forms, (e).family)], e)
                                 FOR e, j IN (s).es IF list_position((s).families, (e).family) = j]])),
    lambda flat: [{'measure': (m).measure, 'i': j, 'refused': (m).refused, 'quiet': (m).quiet}
                  FOR m, j IN flat IF list_position([(x).measure FOR x IN flat], (m).measure) = j])[1];

-- trec_eval's names carry a parameter in the name: ndcg_cut_10, P_5, recall.100, iprec_at_recall_0.10,
-- rbp_p=0.8. An alias 'name_{param}' reads 'name_<value>' and 'name.<value>': a pattern each.
CREATE OR REPLACE MACRO rankkit.name_templates(catalog) AS [
    {'metric': (a).metric, 'param': (a).param,
     'pattern': '^' || regexp_escape(lower(left((a).prefix, (a).cut - 1))) || '[_.]' || regexp_escape(lower(substr((a).prefix, (a).cut + 1)))
                || '(' || rankkit.param_pattern((a).param) || ')$'}
    FOR a IN flatten([[{'metric': (c).metric, 'prefix': split_part(alias, '{', 1),
                        'cut': length(split_part(alias, '{', 1)) - strpos(reverse(split_part(alias, '{', 1)), '_') + 1,
                        'param': regexp_extract(alias, '\{([a-z]+)\}', 1)}
                       FOR alias IN (c).aliases IF alias LIKE '%{%}'] FOR c IN catalog])];

-- The measure a name's base names (its name or an alias, any case), NULL if none.
CREATE OR REPLACE MACRO rankkit.plain_metric(base, catalog) AS
    [(c).metric FOR c IN catalog
     IF lower((c).name) = lower(base) OR list_contains([lower(a) FOR a IN (c).aliases IF a NOT LIKE '%{%'], lower(base))][1];

-- One name (g: measure, i) read: its base, measure (metric NULL: unknown), parameter pairs given in
-- parentheses, the value a template carries, and the text after @.
CREATE OR REPLACE MACRO rankkit.resolved_measure(g, p, t, catalog) AS
    {'i': (g).i, 'measure': (g).measure, 'refused': (g).refused,
     'metric': coalesce((t).metric, CASE WHEN (t).metric IS NULL THEN rankkit.plain_metric((p).base, catalog) END),
     'template_param': (t).param,
     'template_value': regexp_extract(lower(trim((g).measure)), (t).pattern, 1),
     'at': nullif((p).cutoff, ''),
     'given_pairs': CASE WHEN (t).metric IS NULL AND (p).params <> ''
                         THEN [[trim(split_part(kv, '=', 1)), trim(substr(kv, strpos(kv, '=') + 1))]
                               FOR kv IN regexp_extract_all((p).params, '[^,=\[]+=\s*(?:\[[^\]]*\]|[^,]*)|[^,]+')]
                         ELSE [] END,
     'base': (p).base};

-- What @ sets: the cutoff k, or the recall level of IPrec@0.5; template values join the pairs.
CREATE OR REPLACE MACRO rankkit.located_measure(r, c) AS
    {'i': (r).i, 'measure': (r).measure, 'refused': (r).refused, 'metric': (r).metric, 'base': (r).base, 'name': (c).name, 'params': (c).params, 'agg': (c).agg,
     'level': (c).level, 'beyond_refused': (c).refused,
     'pairs': CASE WHEN (r).template_param IS NOT NULL AND (r).template_param <> 'k' THEN [[(r).template_param, (r).template_value]]
                   WHEN (r).at IS NOT NULL AND NOT list_contains((c).params, 'k') AND list_contains((c).params, 'recall') THEN [['recall', (r).at]]
                   ELSE [] END || (r).given_pairs,
     'cutoff': CASE WHEN (r).template_param = 'k' THEN split_part((r).template_value, '.', 1)
                    WHEN list_contains((c).params, 'k') OR NOT list_contains((c).params, 'recall') THEN (r).at END};

-- Each measure by its spelling nearest to the name given (ranx's hit_rate (Success)), presets too
-- (ndcg_burges (nDCG(gain=exp))), the three nearest: {d, name, closest}.
CREATE OR REPLACE MACRO rankkit.nearest_measures(given, catalog) AS [
    list_sort([[{'d': list_min([(e).dist FOR e IN es]), 'name': nm,
                 'closest': list_sort([{'dist': (e).dist, 'other': (e).n <> nm, 'n': (e).n} FOR e IN es])[1].n}
                FOR es IN [[e FOR e IN spellings IF (e).name = nm]]][1]
               FOR nm IN list_distinct([(e).name FOR e IN spellings])])[1:3]
    FOR spellings IN [[{'name': (x).name, 'n': (x).n, 'dist': levenshtein(lower(given), lower((x).n))}
                       FOR x IN flatten([[{'name': (c).name, 'n': n} FOR n IN list_prepend((c).name, (c).aliases)] FOR c IN catalog])
                                || [{'name': (s).means, 'n': (s).spelling} FOR s IN rankkit.preset_spellings()]]]][1];

-- The first parameter pair of a located name (r) that is unknown or empty, that should be a number, that
-- should be numbers: NULL if none. A stage of its own: the check below names the pair several times.
-- And the pairs' names and values as two lists: a parameter's value is the one of its name's first
-- pair (list_position), where a search of the pairs for each parameter was a lambda each to bind.
CREATE OR REPLACE MACRO rankkit.pair_problems(r) AS struct_insert(r,
    pair_names := [p[1] FOR p IN (r).pairs], pair_values := [p[2] FOR p IN (r).pairs],
    unknown := [p FOR p IN (r).pairs IF p[1] = '' OR p[2] = '' OR NOT list_contains((r).params, p[1]) OR p[1] = 'k'][1],
    not_number := [p FOR p IN (r).pairs IF p[1] IN {{number_params}} AND TRY_CAST(p[2] AS DOUBLE) IS NULL][1],
    not_numbers := [p FOR p IN (r).pairs IF p[1] IN {{list_params}} AND list_contains(rankkit.param_list(p[2]), NULL)][1]);

-- A located name (r), its pair problems found, as its parameters' values (rankkit.spec checks them), or an error saying what is wrong
-- with the name. A beyond-accuracy measure (its level set: sql/metrics/beyond/) is refused in its catalog row's words
-- unless the caller evaluates it (beyond: Python's evaluate, with the side tables).
CREATE OR REPLACE MACRO rankkit.checked_measure(r, catalog, rel, docs, text, beyond) AS
        CASE
            WHEN (r).refused IS NOT NULL THEN error((r).refused)
            WHEN (r).metric IS NULL THEN error('rankkit: unknown measure ''' || (r).measure || ''''
                || coalesce('; did you mean ' || array_to_string(
                    -- a trec_eval template by the measure's name
                    [CASE WHEN (s).closest = (s).name OR contains((s).closest, '{') THEN (s).name ELSE (s).closest || ' (' || (s).name || ')' END
                     FOR s IN rankkit.nearest_measures(coalesce(nullif((r).base, ''), (r).measure), catalog)], ', ') || '?', ''))
            WHEN (r).level IS NOT NULL AND NOT beyond THEN error('rankkit: measure ''' || trim((r).measure) || ''': ' || (r).beyond_refused)
            WHEN (r).agg = 'text' AND NOT text THEN error('rankkit: measure ''' || (r).measure || ''' is text, not a number: '
                || 'FROM rankkit.' || (r).metric || '(qrels_table, run_table) gives it')
            -- 'P@' is a cutoff left out, not P over the documents retrieved
            WHEN regexp_matches((r).measure, '@\s*$')
                THEN error('rankkit: measure ''' || (r).measure || ''': the number after @ is missing ('
                    || CASE WHEN list_contains((r).params, 'k') THEN 'the cutoff, as in ' || rtrim(trim((r).measure), '@ ') || '@10'
                            WHEN list_contains((r).params, 'recall') THEN 'the recall level, as in ' || rtrim(trim((r).measure), '@ ') || '@0.5'
                            ELSE (r).name || ' takes no cutoff' END || ')')
            WHEN (r).cutoff IS NOT NULL AND (NOT regexp_full_match((r).cutoff, '[0-9]+') OR (r).cutoff::DOUBLE < 1)
                THEN error('rankkit: measure ''' || (r).measure || ''': the cutoff after @ must be a positive integer, got ''' || (r).cutoff || ''''
                    -- ranx's map@100-l2: its relevance level, rankkit's rel
                    || rankkit.ranx_level_hint((r).cutoff, (r).base, (r).name, list_contains((r).params, 'rel')))
            -- past BIGINT: said here, not as DuckDB's "Could not convert string ... to INT64"
            WHEN TRY_CAST((r).cutoff AS DOUBLE) >= 9223372036854775807
                THEN error('rankkit: measure ''' || (r).measure || ''': the cutoff ' || (r).cutoff
                    || ' is too large; a cutoff must be a positive integer below 2^63 - 1')
            WHEN (r).cutoff IS NOT NULL AND NOT list_contains((r).params, 'k')
                THEN error('rankkit: measure ''' || (r).measure || ''': ' || (r).name || ' takes no cutoff')
            WHEN (r).unknown IS NOT NULL
                THEN error('rankkit: measure ''' || (r).measure || ''': unknown or empty parameter '''
                    || (r).unknown[1] || CASE WHEN (r).unknown[2] IS NULL THEN '' ELSE '=' || (r).unknown[2] END
                    || '''; ' || (r).name || ' takes '
                    || coalesce(nullif(array_to_string(list_filter((r).params, lambda p: p <> 'k'), ', '), ''), 'no parameters')
                    || CASE WHEN list_contains((r).params, 'k') THEN ' and a cutoff @k' ELSE '' END)
            WHEN (r).not_number IS NOT NULL
                THEN error('rankkit: measure ''' || (r).measure || ''': '
                    || (r).not_number[1] || ' must be a number, got ''' || (r).not_number[2] || '''')
            WHEN (r).not_numbers IS NOT NULL
                THEN error('rankkit: measure ''' || (r).measure || ''': '
                    || (r).not_numbers[1] || ' must be numbers separated by commas, got ''' || (r).not_numbers[2] || '''')
            ELSE {'i': (r).i, 'measure': (r).measure, 'metric': (r).metric, 'agg': (r).agg, 'level': (r).level,
                  {{spec_values r}}}
        END;

-- A stage per step, each a lambda over the previous stage's list: a lambda inside a lambda is bound again
-- for each binding of the outer one, so nesting the steps made binding slow.
-- text := true: the measures whose value is text (runid, relstring) too, as specs whose agg is 'text' (what
-- rankkit eval prints apart); else a nickname's are left out (official: no runid) and one named is refused.
-- beyond := true: the beyond-accuracy measures too (Coverage@10, TailShare(tail=0.2)@10), as specs whose level is
-- set, for a caller that evaluates them with their side tables; else one named is refused, saying its table macro.
CREATE OR REPLACE MACRO rankkit.parse_measures(names, rel := 1, docs := 0, text := false, beyond := false) AS
    list_transform(list_transform(list_transform(list_transform(list_transform(list_transform(list_transform(
        list_filter(rankkit.given_measures(names), lambda g: text OR NOT (g).quiet),
        lambda g: {'i': (g).i, 'measure': (g).measure, 'refused': (g).refused,
                   'p': regexp_extract(trim((g).measure), '^([A-Za-z0-9][A-Za-z0-9_-]*?)(?:\(([^()]*)\))?(?:@(.*))?$',
                                       ['base', 'params', 'cutoff']),
                   't': [t FOR t IN rankkit.name_templates(rankkit.catalog_list())
                         IF regexp_full_match(lower(trim((g).measure)), (t).pattern)][1]}),
        lambda g: rankkit.resolved_measure(g, (g).p, (g).t, rankkit.catalog_list())),
        lambda r: struct_insert(r, c := [c FOR c IN rankkit.catalog_list() IF (c).metric = (r).metric][1])),
        lambda r: rankkit.located_measure(r, (r).c)),
        lambda r: rankkit.pair_problems(r)),
        lambda r: rankkit.checked_measure(r, rankkit.catalog_list(), rel, docs, text, beyond)),
        lambda v: rankkit.spec((v).metric, (v).measure, (v).agg, {{spec_arguments v}}, level := (v).level));

CREATE OR REPLACE MACRO rankkit.measure_specs(names, rel := 1, docs := 0, text := false, beyond := false) AS TABLE
    SELECT unnest(rankkit.parse_measures(names, rel := rel, docs := docs, text := text, beyond := beyond)) AS spec;

-- rankkit.evaluate: measures by name, one row per measure and system (the mean over queries, the
-- sum for counts) with the number of queries it covers.
CREATE OR REPLACE MACRO rankkit.evaluate(qrels_table, run_table, measures, rel := 1, ties := 'trec',
        scores := 'double', depth := NULL, queries := 'both', docs := 0) AS TABLE
    FROM rankkit.aggregate(qrels_table, run_table,
        rankkit.parse_measures(measures, rel := rel, docs := docs),
        ties := ties, scores := scores, depth := depth, queries := queries);

-- rankkit.evaluate_queries: the same, one row per measure, system and query.
CREATE OR REPLACE MACRO rankkit.evaluate_queries(qrels_table, run_table, measures, rel := 1,
        ties := 'trec', scores := 'double', depth := NULL, queries := 'both', docs := 0) AS TABLE
    SELECT measure, system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        rankkit.parse_measures(measures, rel := rel, docs := docs),
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY i, system, query_id;
