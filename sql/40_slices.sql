-- Slices: the same measures per group of queries, the groups read from a query table
-- (query_id plus attribute columns: category, length bucket, traffic segment ...).
--
-- rankkit.evaluate_by('qrels', 'run', ['nDCG@10'], 'query_table', 'category') gives one row per
-- measure, system and value of the attribute, each exactly what evaluating that slice's queries
-- alone gives. A query missing from the query table, or whose attribute is NULL, falls in the
-- NULL slice: nothing is dropped. A query listed twice in the query table is an error.

-- Each query's value of one attribute (a column of the query table, named by a string). The query
-- id is the column query_id, or else the one column under another of its names (qid, topic ...:
-- rankkit.names.ALIASES, as the readers find it), never the attribute itself; a query table whose
-- text sits in a column query beside qid names two candidates and is refused, as in Python.
CREATE OR REPLACE MACRO rankkit.query_slices(queries_table, attribute) AS TABLE
WITH
keys AS (
    SELECT list(name ORDER BY name) FILTER (lower(name) <> 'query_id') AS others,
           bool_or(lower(name) = 'query_id') AS named
    FROM rankkit.table_columns(queries_table)
    WHERE list_contains({{names query_id}}, lower(name)) AND name <> attribute
),
checked AS (
    SELECT CASE
        WHEN coalesce(named, false) OR len(others) = 1 THEN coalesce(named, false)
        WHEN others IS NULL THEN error('rankkit: the query table has no query id column (query_id, or one of '
                                       || array_to_string({{names query_id}}[2:], ', ') || ')')
        ELSE error('rankkit: the query table''s columns ' || array_to_string(others, ', ')
                   || ' could each be the query id; rename the one that is to query_id') END AS named
    FROM keys
)
SELECT CASE WHEN (SELECT named FROM checked) THEN query_id::VARCHAR
            ELSE coalesce(*COLUMNS(lambda c: list_contains({{names query_id}}, lower(c)) AND lower(c) <> 'query_id'
                                             AND c <> attribute))::VARCHAR END AS query_id,
       COLUMNS(lambda c: c = attribute) AS slice
FROM (FROM query_table(queries_table::VARCHAR) UNION ALL BY NAME (SELECT {{empty_row queries}} LIMIT 0));

-- Per-query values (a table or CTE named values_table, in the columns of rankkit.per_query) with
-- each query's slice.
CREATE OR REPLACE MACRO rankkit.slice_values(values_table, queries_table, attribute) AS TABLE
WITH
slices AS (FROM rankkit.query_slices(queries_table, attribute)),
checks AS (
    SELECT CASE
        WHEN EXISTS (SELECT 1 FROM slices GROUP BY query_id HAVING count(*) > 1)
            THEN error((SELECT 'rankkit: query ' || query_id || ' is listed twice in the query table'
                        FROM slices GROUP BY query_id HAVING count(*) > 1 ORDER BY query_id LIMIT 1))
        ELSE true END AS ok
)
SELECT p.i, p.measure, p.agg, p.system, slices.slice, p.query_id, p.value
FROM query_table(values_table::VARCHAR) p
LEFT JOIN slices USING (query_id)
CROSS JOIN checks
WHERE checks.ok;

-- rankkit.per_query with each query's slice.
CREATE OR REPLACE MACRO rankkit.per_query_by(qrels_table, run_table, specs, queries_table, attribute,
        ties := 'trec', scores := 'double', depth := NULL, queries := 'both', validate := true, keyed := false, judged_only := false) AS TABLE
WITH rankkit_values AS (
    FROM rankkit.per_query(qrels_table, run_table, specs, ties := ties, scores := scores, depth := depth,
                           queries := queries, validate := validate, keyed := keyed, judged_only := judged_only)
)
FROM rankkit.slice_values('rankkit_values', queries_table, attribute);

-- Sliced per-query values (a table or CTE named sliced_table, in the columns of rankkit.per_query_by)
-- per slice: the mean (the sum for counts) and the query count of each slice.
CREATE OR REPLACE MACRO rankkit.over_slices(sliced_table) AS TABLE
    SELECT measure, system, slice,
           rankkit.over_queries(agg, value, query_id) AS value,
           count(value) AS queries
    FROM query_table(sliced_table::VARCHAR)
    GROUP BY i, measure, system, slice
    ORDER BY i, system, slice NULLS LAST;

-- rankkit.aggregate per slice (rankkit.over_slices of rankkit.per_query_by).
CREATE OR REPLACE MACRO rankkit.aggregate_by(qrels_table, run_table, specs, queries_table, attribute,
        ties := 'trec', scores := 'double', depth := NULL, queries := 'both', validate := true, keyed := false, judged_only := false) AS TABLE
-- MATERIALIZED: as in rankkit.aggregate
WITH rankkit_sliced AS MATERIALIZED (
    FROM rankkit.per_query_by(qrels_table, run_table, specs, queries_table, attribute, ties := ties,
                              scores := scores, depth := depth, queries := queries, validate := validate, keyed := keyed, judged_only := judged_only)
)
FROM rankkit.over_slices('rankkit_sliced');

-- rankkit.evaluate per slice: measures by name, one row per measure, system and slice.
CREATE OR REPLACE MACRO rankkit.evaluate_by(qrels_table, run_table, measures, queries_table, attribute,
        rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    FROM rankkit.aggregate_by(qrels_table, run_table,
        rankkit.parse_measures(measures, rel := rel),
        queries_table, attribute, ties := ties, scores := scores, depth := depth, queries := queries);
