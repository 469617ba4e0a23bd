-- Measure specs: what rankkit.per_query computes, one struct per measure.
--
-- rankkit.spec builds one spec and rejects bad parameter values; rankkit.measure_specs parses
-- measure names ('nDCG@10', 'P(rel=2)@5', 'ndcg_cut_10', 'map') into specs, reading the measure
-- catalog (rankkit.catalog, made from the headers of sql/metrics/*.sql).

CREATE OR REPLACE MACRO rankkit.spec(metric, measure, agg, k := NULL, rel := 1, gain := 'linear',
        ideal := 'qrels', empty := 'zero', max := 4, i := 1) AS {
    'i': i::INTEGER,
    'measure': measure::VARCHAR,
    'metric': metric::VARCHAR,
    'k': CASE WHEN k IS NULL OR (k >= 1 AND k = floor(k)) THEN k::BIGINT
              ELSE error('rankkit: measure ' || measure || ': the cutoff must be a positive integer, got ' || k) END,
    'rel': CASE WHEN rel IS NOT NULL AND isfinite(rel::DOUBLE) THEN rel::DOUBLE
                ELSE error('rankkit: measure ' || measure || ': rel must be a number, got ' || coalesce(rel::VARCHAR, 'NULL')) END,
    'gain': CASE WHEN gain IN ('linear', 'exp') THEN gain::VARCHAR
                 ELSE error('rankkit: measure ' || measure || ': gain must be linear or exp, got ' || coalesce(gain, 'NULL')) END,
    'ideal': CASE WHEN ideal IN ('qrels', 'run') THEN ideal::VARCHAR
                  ELSE error('rankkit: measure ' || measure || ': ideal must be qrels or run, got ' || coalesce(ideal, 'NULL')) END,
    'empty': CASE WHEN empty IN ('zero', 'skip') THEN empty::VARCHAR
                  ELSE error('rankkit: measure ' || measure || ': empty must be zero or skip, got ' || coalesce(empty, 'NULL')) END,
    'max': CASE WHEN max IS NOT NULL AND max::DOUBLE > 0 AND isfinite(max::DOUBLE) THEN max::DOUBLE
                ELSE error('rankkit: measure ' || measure || ': max must be a positive number, got ' || coalesce(max::VARCHAR, 'NULL')) END,
    'agg': agg::VARCHAR
};

-- The value of parameter name in a list of [name, value] pairs, or NULL.
CREATE OR REPLACE MACRO rankkit.param_value(pairs, name) AS
    [p[2] FOR p IN pairs IF p[1] = name][1];

CREATE OR REPLACE MACRO rankkit.measure_specs(names, rel := 1) AS TABLE
WITH
-- a name given twice is one measure, in its first place
given AS (
    SELECT measure, min(i) AS i
    FROM (SELECT unnest(names) AS measure, generate_subscripts(names, 1) AS i)
    GROUP BY measure
),
catalog AS (FROM rankkit.catalog()),
plain_names AS (
    SELECT metric, lower(name) AS lname FROM catalog
    UNION
    SELECT metric, lower(alias) FROM (SELECT metric, unnest(aliases) AS alias FROM catalog)
    WHERE alias NOT LIKE '%{k}%'
),
-- trec_eval's names carry the cutoff in the name: ndcg_cut_10, P_5, recall.100
templates AS (
    SELECT metric, '^' || regexp_escape(lower(replace(alias, '_{k}', ''))) || '[_.]([0-9]+)$' AS pattern
    FROM (SELECT metric, unnest(aliases) AS alias FROM catalog)
    WHERE alias LIKE '%_{k}'
),
parsed AS (
    SELECT i, measure,
           regexp_extract(trim(measure), '^([A-Za-z][A-Za-z0-9_-]*?)(?:\(([^()]*)\))?(?:@(.*))?$',
                          ['base', 'params', 'cutoff']) AS p
    FROM given
),
resolved AS (
    SELECT parsed.i, parsed.measure,
           coalesce(t.metric, n.metric) AS metric,
           CASE WHEN t.metric IS NOT NULL THEN regexp_extract(lower(trim(parsed.measure)), t.pattern, 1)
                ELSE nullif(parsed.p.cutoff, '') END AS cutoff,
           CASE WHEN t.metric IS NULL AND parsed.p.params <> ''
                THEN [[trim(split_part(kv, '=', 1)), trim(substr(kv, strpos(kv, '=') + 1))]
                      FOR kv IN string_split(parsed.p.params, ',')]
                ELSE [] END AS pairs,
           parsed.p.base AS base
    FROM parsed
    LEFT JOIN templates t ON regexp_full_match(lower(trim(parsed.measure)), t.pattern)
    LEFT JOIN plain_names n ON t.metric IS NULL AND n.lname = lower(parsed.p.base)
),
checked AS (
    SELECT r.i, r.measure, r.metric, r.cutoff, r.pairs, c.name, c.params, c.agg,
        CASE
            WHEN r.metric IS NULL THEN error('rankkit: unknown measure ''' || r.measure || ''''
                || coalesce('; did you mean ' || (
                    SELECT string_agg(name, ', ' ORDER BY d, name) FROM (
                        SELECT name, min(levenshtein(lower(coalesce(nullif(r.base, ''), r.measure)), lower(n))) AS d
                        FROM (SELECT name, unnest(list_prepend(name, aliases)) AS n FROM catalog)
                        GROUP BY name ORDER BY d, name LIMIT 3)) || '?', ''))
            WHEN r.cutoff IS NOT NULL AND (NOT regexp_full_match(r.cutoff, '[0-9]+') OR r.cutoff::HUGEINT < 1)
                THEN error('rankkit: measure ''' || r.measure || ''': the cutoff after @ must be a positive integer, got ''' || r.cutoff || '''')
            WHEN r.cutoff IS NOT NULL AND NOT list_contains(c.params, 'k')
                THEN error('rankkit: measure ''' || r.measure || ''': ' || c.name || ' takes no cutoff')
            WHEN len([p FOR p IN r.pairs IF p[1] = '' OR p[2] = '' OR NOT list_contains(c.params, p[1]) OR p[1] = 'k']) > 0
                THEN error('rankkit: measure ''' || r.measure || ''': unknown or empty parameter '''
                    || [p[1] || '=' || p[2] FOR p IN r.pairs IF p[1] = '' OR p[2] = '' OR NOT list_contains(c.params, p[1]) OR p[1] = 'k'][1]
                    || '''; ' || c.name || ' takes '
                    || coalesce(nullif(array_to_string(list_filter(c.params, lambda p: p <> 'k'), ', '), ''), 'no parameters')
                    || CASE WHEN list_contains(c.params, 'k') THEN ' and a cutoff @k' ELSE '' END)
            WHEN rankkit.param_value(r.pairs, 'rel') IS NOT NULL AND TRY_CAST(rankkit.param_value(r.pairs, 'rel') AS DOUBLE) IS NULL
                THEN error('rankkit: measure ''' || r.measure || ''': rel must be a number, got ''' || rankkit.param_value(r.pairs, 'rel') || '''')
            WHEN rankkit.param_value(r.pairs, 'max') IS NOT NULL AND TRY_CAST(rankkit.param_value(r.pairs, 'max') AS DOUBLE) IS NULL
                THEN error('rankkit: measure ''' || r.measure || ''': max must be a number, got ''' || rankkit.param_value(r.pairs, 'max') || '''')
            ELSE true
        END AS ok
    FROM resolved r LEFT JOIN catalog c USING (metric)
)
SELECT rankkit.spec(metric, measure, agg,
        k := cutoff::BIGINT,
        rel := coalesce(rankkit.param_value(pairs, 'rel')::DOUBLE, rel),
        gain := coalesce(rankkit.param_value(pairs, 'gain'), 'linear'),
        ideal := coalesce(rankkit.param_value(pairs, 'ideal'), 'qrels'),
        empty := coalesce(rankkit.param_value(pairs, 'empty'), 'zero'),
        max := coalesce(rankkit.param_value(pairs, 'max')::DOUBLE, 4),
        i := i) AS spec
FROM checked
WHERE ok
ORDER BY i;

-- rankkit.evaluate: measures by name, one row per measure and system (the mean over queries, the
-- sum for counts) with the number of queries it covers.
CREATE OR REPLACE MACRO rankkit.evaluate(qrels_table, run_table, measures, rel := 1, ties := 'trec',
        scores := 'double', depth := NULL, queries := 'both') AS TABLE
    FROM rankkit.aggregate(qrels_table, run_table,
        (SELECT list(spec ORDER BY spec.i) FROM rankkit.measure_specs(measures, rel := rel)),
        ties := ties, scores := scores, depth := depth, queries := queries);

-- rankkit.evaluate_queries: the same, one row per measure, system and query.
CREATE OR REPLACE MACRO rankkit.evaluate_queries(qrels_table, run_table, measures, rel := 1,
        ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT measure, system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        (SELECT list(spec ORDER BY spec.i) FROM rankkit.measure_specs(measures, rel := rel)),
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY i, system, query_id;
