-- Agreement between two judgment tables: do their labels agree?
--
-- Two qrels tables (any columns rankkit.qrels_rows recognises), or one table with a judge column
-- holding both judges' labels: rankkit.label_pairs('human', 'llm') or
-- rankkit.label_pairs('labels', judges := ['alice', 'bob']). A pair is a (query, document) judged
-- on either side; one judged on one side only is kept (side 'a' or 'b'), counted and listed, never
-- dropped: the measures below read the pairs judged on both sides.
--
-- rankkit.label_agreement gives, per query and over all pairs (query_id NULL): Cohen's kappa on
-- relevant / not relevant at a threshold, Cohen's weighted kappa (linear and quadratic) over the
-- grades, and Krippendorff's alpha (ordinal and interval). rankkit.label_confusion gives the
-- confusion matrix, per query and overall.

-- rankkit.label_rows: a qrels table's rows with the grade as written (text) and, where the table has
-- them, its judge and source columns. rankkit.qrels_rows casts the grade to a number, which fails
-- on a grade such as 'high' with DuckDB's message; here it is read as text so that
-- rankkit.label_pairs can name the row.
CREATE OR REPLACE MACRO rankkit.label_rows(qrels_table) AS TABLE
    SELECT {{coalesce query_id VARCHAR}} AS query_id,
           {{coalesce doc_id VARCHAR}} AS doc_id,
           {{coalesce relevance VARCHAR}} AS grade_text,
           TRY_CAST({{coalesce relevance VARCHAR}} AS DOUBLE) AS grade,
           judge::VARCHAR AS judge,
           source::VARCHAR AS source
    FROM (
        FROM query_table(qrels_table::VARCHAR)
        UNION ALL BY NAME
        (SELECT {{empty_row qrels}}, NULL AS judge, NULL AS source LIMIT 0)
    );

-- The rows of one side: the table's rows, those of one judge where a judge is named. The columns are
-- checked here, before any row is read: a column under none of its names reads as NULL, and
-- rankkit.label_pairs would name a NULL grade where the column is missing.
CREATE OR REPLACE MACRO rankkit.label_side(qrels_table, judge_name) AS TABLE
    SELECT query_id, doc_id, grade_text, grade, source
    FROM rankkit.columns_ok(qrels_table, 'qrels') columns, rankkit.label_rows(qrels_table)
    WHERE columns.ok AND (judge_name IS NULL OR judge IS NOT DISTINCT FROM judge_name::VARCHAR);

-- rankkit.label_pairs: every (query, document) judged on either side: query_id, doc_id, grade_a,
-- grade_b (NULL on the side that did not judge it) and side ('both', 'a' or 'b'). Refused, with the
-- table, query and document named: a missing column, a NULL id, a grade that is not a finite number,
-- a document judged twice for a query on one side, two sides with no query in common, and with
-- one table, judges that are not two of its judge column's values. labels := [a, b] says what
-- messages call the two tables (the files Python read them from), labels := [a] the one table.
CREATE OR REPLACE MACRO rankkit.label_pairs(qrels_a, qrels_b := NULL, judges := NULL, labels := NULL) AS TABLE
WITH
judge_names AS (
    -- one table: the two judges named, or the judge column's two values in order
    SELECT CASE WHEN judges IS NOT NULL AND len(judges) <> 2
                    THEN error('rankkit: judges names the two judges to compare, got ' || judges::VARCHAR)
                WHEN judges IS NOT NULL AND qrels_b IS NULL AND NOT list_has_all(found, judges::VARCHAR[])
                    THEN error('rankkit: ' || coalesce(labels[1], 'qrels table ' || qrels_a::VARCHAR) || ': judge '
                               || list_filter(judges::VARCHAR[], lambda j: NOT list_contains(found, j))[1]
                               || ' is not in the judge column; it holds '
                               || CASE WHEN len(found) = 0 THEN 'none' ELSE array_to_string(found, ', ') END)
                WHEN judges IS NOT NULL THEN judges::VARCHAR[]
                WHEN qrels_b IS NOT NULL THEN [NULL, NULL]::VARCHAR[]
                WHEN len(found) = 2 THEN found
                ELSE error('rankkit: ' || coalesce(labels[1], 'qrels table ' || qrels_a::VARCHAR) || ': with one table, its judge column '
                           || 'must hold two judges (or name them with judges := [a, b]); it holds '
                           || CASE WHEN len(found) = 0 THEN 'none' ELSE array_to_string(found, ', ') END)
           END AS names
    FROM (SELECT coalesce(list(DISTINCT judge ORDER BY judge) FILTER (judge IS NOT NULL), [])::VARCHAR[] AS found
          FROM rankkit.label_rows(qrels_a) WHERE qrels_b IS NULL)
),
a AS (FROM rankkit.label_side(qrels_a, (SELECT names[1] FROM judge_names))),
b AS (FROM rankkit.label_side(coalesce(qrels_b, qrels_a), (SELECT names[2] FROM judge_names))),
-- what messages call each side
side_names AS (
    SELECT CASE WHEN names[1] IS NULL THEN table_a ELSE 'judge ' || names[1] || ' in ' || table_a END AS name_a,
           CASE WHEN names[2] IS NULL THEN table_b ELSE 'judge ' || names[2] || ' in ' || table_b END AS name_b
    FROM judge_names, (SELECT coalesce(labels[1], 'qrels table ' || qrels_a::VARCHAR) AS table_a,
                              CASE WHEN qrels_b IS NULL THEN coalesce(labels[1], 'qrels table ' || qrels_a::VARCHAR)
                                   ELSE coalesce(labels[2], 'qrels table ' || qrels_b::VARCHAR) END AS table_b)
),
sides AS (
    SELECT 'a' AS side, name_a AS name, a.* FROM a, side_names
    UNION ALL
    SELECT 'b', name_b, b.* FROM b, side_names
),
bad AS (
    SELECT name, query_id, doc_id, grade_text FROM sides
    WHERE query_id IS NULL OR doc_id IS NULL OR grade IS NULL OR NOT isfinite(grade)
    ORDER BY side, query_id, doc_id LIMIT 1
),
twice AS (
    SELECT name, query_id, doc_id, count(*) AS times FROM sides
    GROUP BY side, name, query_id, doc_id HAVING count(*) > 1
    ORDER BY side, query_id, doc_id LIMIT 1
),
common AS (
    SELECT count(*) AS queries FROM (SELECT DISTINCT query_id FROM a) JOIN (SELECT DISTINCT query_id FROM b) USING (query_id)
),
checks AS (
    SELECT CASE
        WHEN EXISTS (FROM bad)
            THEN error((SELECT 'rankkit: ' || name || ': '
                               || CASE WHEN query_id IS NULL THEN 'a NULL query id (document ' || coalesce(doc_id, 'NULL') || ')'
                                       WHEN doc_id IS NULL THEN 'a NULL document id for query ' || query_id
                                       ELSE 'the relevance of document ' || doc_id || ' for query ' || query_id || ' is '
                                            || coalesce('''' || grade_text || '''', 'NULL') || '; expected a finite number' END
                        FROM bad))
        WHEN EXISTS (FROM twice)
            THEN error((SELECT 'rankkit: ' || name || ': document ' || doc_id || ' is judged ' || times
                               || ' times for query ' || query_id || '; expected one label per document and query'
                        FROM twice))
        WHEN (SELECT queries FROM common) = 0
            THEN error('rankkit: ' || (SELECT name_a || ' and ' || name_b FROM side_names) || ' have no query in common (first queries: '
                       || coalesce((SELECT array_to_string(list(DISTINCT query_id ORDER BY query_id)[:3], ', ') FROM a), 'none') || '; '
                       || coalesce((SELECT array_to_string(list(DISTINCT query_id ORDER BY query_id)[:3], ', ') FROM b), 'none') || ')')
        ELSE true END AS ok
)
SELECT query_id, doc_id, a.grade AS grade_a, b.grade AS grade_b,
       CASE WHEN a.doc_id IS NULL THEN 'b' WHEN b.doc_id IS NULL THEN 'a' ELSE 'both' END AS side
FROM a FULL JOIN b USING (query_id, doc_id)
CROSS JOIN checks
WHERE checks.ok
ORDER BY query_id, doc_id;

-- The pairs judged on both sides, each twice: once in its query's group and once in the group of
-- all pairs (query_id NULL), with the grades' positions on the scale (c_a, c_b: 1 for the lowest
-- grade either side gives, 2 for the next ...) that weighted kappa's weights read, as
-- sklearn.metrics.cohen_kappa_score numbers its labels.
CREATE OR REPLACE MACRO rankkit.label_groups(pairs_table) AS TABLE
WITH
both_sides AS (SELECT query_id, doc_id, grade_a, grade_b FROM query_table(pairs_table::VARCHAR) WHERE side = 'both'),
scale AS (SELECT list(DISTINCT g ORDER BY g) AS grades FROM (SELECT grade_a AS g FROM both_sides UNION ALL SELECT grade_b FROM both_sides)),
positioned AS (
    SELECT query_id, grade_a, grade_b, list_position(grades, grade_a) AS c_a, list_position(grades, grade_b) AS c_b
    FROM both_sides, scale
)
SELECT query_id, grade_a, grade_b, c_a, c_b FROM positioned
UNION ALL
SELECT NULL, grade_a, grade_b, c_a, c_b FROM positioned;

-- Krippendorff's ordinal distance of values c and k, from their counts n and cumulative counts cum
-- (over the values in order): ((the values from the lower to the higher, counted) - (n_c + n_k) / 2)^2.
CREATE OR REPLACE MACRO rankkit.ordinal_distance(v_c, n_c, cum_c, v_k, n_k, cum_k) AS
    (abs(cum_k - cum_c) + CASE WHEN v_c <= v_k THEN n_c ELSE n_k END - (n_c + n_k) / 2) ^ 2;

-- Cohen's kappa with disagreement weights w: 1 - sum(w * observed) / sum(w * expected), expected
-- from the two sides' marginals (Cohen 1968). NULL where nothing is expected to disagree (every
-- label the same).
CREATE OR REPLACE MACRO rankkit.weighted_kappa(observed, expected) AS
    CASE WHEN expected > 0 THEN 1 - observed / expected END;

-- rankkit.label_agreement: per query, then over all pairs (query_id NULL):
--   pairs, only_a, only_b    pairs judged on both sides, on side a only, on side b only
--   agreement                the share of pairs with the same grade
--   kappa                    Cohen's kappa of relevant (grade >= threshold) against not
--   kappa_grades             Cohen's kappa over the grades, unweighted (every disagreement alike)
--   kappa_linear, kappa_quadratic   weighted kappa, weights |i - j| and (i - j)^2 over grade positions
--   alpha_ordinal, alpha_interval   Krippendorff's alpha, two coders, the pairs judged by both
-- A measure that is undefined (a single label throughout) is NULL.
CREATE OR REPLACE MACRO rankkit.label_agreement(qrels_a, qrels_b := NULL, judges := NULL, labels := NULL, threshold := 1) AS TABLE
WITH
rankkit_pairs AS MATERIALIZED (FROM rankkit.label_pairs(qrels_a, qrels_b := qrels_b, judges := judges, labels := labels)),
groups AS MATERIALIZED (FROM rankkit.label_groups('rankkit_pairs')),
counts AS (
    SELECT query_id, count(*) FILTER (side = 'both') AS pairs, count(*) FILTER (side = 'a') AS only_a,
           count(*) FILTER (side = 'b') AS only_b
    FROM (SELECT query_id, side FROM rankkit_pairs UNION ALL SELECT NULL, side FROM rankkit_pairs)
    GROUP BY query_id
),
observed AS (
    SELECT query_id, count(*) AS n,
           avg((grade_a = grade_b)::INT) AS agreement,
           sum((c_a <> c_b)::INT) AS o_nominal, sum(abs(c_a - c_b)) AS o_linear, sum((c_a - c_b) ^ 2) AS o_quadratic,
           sum(((grade_a >= threshold) <> (grade_b >= threshold))::INT) AS o_binary,
           count(*) FILTER (grade_a >= threshold) AS relevant_a, count(*) FILTER (grade_b >= threshold) AS relevant_b,
           sum(2 * (grade_a - grade_b) ^ 2) AS o_interval
    FROM groups GROUP BY query_id
),
margin_a AS (SELECT query_id, c_a AS c, count(*) AS n FROM groups GROUP BY ALL),
margin_b AS (SELECT query_id, c_b AS c, count(*) AS n FROM groups GROUP BY ALL),
expected AS (
    SELECT a.query_id, sum(a.n * b.n * (a.c <> b.c)::INT) AS e_nominal,
           sum(a.n * b.n * abs(a.c - b.c)) AS e_linear, sum(a.n * b.n * (a.c - b.c) ^ 2) AS e_quadratic
    FROM margin_a a JOIN margin_b b ON b.query_id IS NOT DISTINCT FROM a.query_id GROUP BY a.query_id
),
-- Krippendorff's coincidences: each pair gives (a, b) and (b, a); n_v counts value v over both sides.
values_ AS (
    SELECT query_id, v, count(*) AS n_v FROM (SELECT query_id, grade_a AS v FROM groups UNION ALL SELECT query_id, grade_b FROM groups)
    GROUP BY ALL
),
cumulated AS (
    SELECT query_id, v, n_v, sum(n_v) OVER (PARTITION BY query_id ORDER BY v) AS cum FROM values_
),
ordinal_observed AS (
    SELECT g.query_id, sum(2 * rankkit.ordinal_distance(cc.v, cc.n_v, cc.cum, ck.v, ck.n_v, ck.cum)) AS o_ordinal
    FROM groups g
    JOIN cumulated cc ON cc.query_id IS NOT DISTINCT FROM g.query_id AND cc.v = g.grade_a
    JOIN cumulated ck ON ck.query_id IS NOT DISTINCT FROM g.query_id AND ck.v = g.grade_b
    GROUP BY g.query_id
),
expected_values AS (
    SELECT cc.query_id,
           sum(cc.n_v * ck.n_v * rankkit.ordinal_distance(cc.v, cc.n_v, cc.cum, ck.v, ck.n_v, ck.cum)) AS e_ordinal,
           sum(cc.n_v * ck.n_v * (cc.v - ck.v) ^ 2) AS e_interval
    FROM cumulated cc JOIN cumulated ck ON ck.query_id IS NOT DISTINCT FROM cc.query_id
    GROUP BY cc.query_id
)
SELECT c.query_id, c.pairs, c.only_a, c.only_b, o.agreement,
       rankkit.weighted_kappa(o.o_binary::DOUBLE,
                              (o.relevant_a * (o.n - o.relevant_b) + (o.n - o.relevant_a) * o.relevant_b)::DOUBLE / o.n) AS kappa,
       rankkit.weighted_kappa(o.o_nominal::DOUBLE, e.e_nominal::DOUBLE / o.n) AS kappa_grades,
       rankkit.weighted_kappa(o.o_linear::DOUBLE, e.e_linear::DOUBLE / o.n) AS kappa_linear,
       rankkit.weighted_kappa(o.o_quadratic::DOUBLE, e.e_quadratic::DOUBLE / o.n) AS kappa_quadratic,
       -- alpha = 1 - (n - 1) * sum(o * d) / sum(n_c * n_k * d), n = 2 * pairs the values coded
       rankkit.weighted_kappa((2 * o.n - 1) * oo.o_ordinal, ev.e_ordinal) AS alpha_ordinal,
       rankkit.weighted_kappa((2 * o.n - 1) * o.o_interval, ev.e_interval) AS alpha_interval
FROM counts c
LEFT JOIN observed o ON o.query_id IS NOT DISTINCT FROM c.query_id
LEFT JOIN expected e ON e.query_id IS NOT DISTINCT FROM c.query_id
LEFT JOIN ordinal_observed oo ON oo.query_id IS NOT DISTINCT FROM c.query_id
LEFT JOIN expected_values ev ON ev.query_id IS NOT DISTINCT FROM c.query_id
ORDER BY c.query_id NULLS LAST;

-- rankkit.label_confusion: how many pairs got grade_a on side a and grade_b on side b, per query and
-- over all pairs (query_id NULL); pairs judged on both sides only (label_pairs lists the others).
CREATE OR REPLACE MACRO rankkit.label_confusion(qrels_a, qrels_b := NULL, judges := NULL, labels := NULL) AS TABLE
WITH rankkit_pairs AS MATERIALIZED (FROM rankkit.label_pairs(qrels_a, qrels_b := qrels_b, judges := judges, labels := labels))
SELECT query_id, grade_a, grade_b, count(*) AS pairs
FROM rankkit.label_groups('rankkit_pairs')
GROUP BY ALL
ORDER BY query_id NULLS LAST, grade_a, grade_b;

-- Mixed judgment tables: one table whose source column says who gave each label (human, llm ...),
-- a document labelled by several sources. rankkit.merged_qrels keeps, per query and document, the
-- label of the source that comes first in precedence (['human', 'llm']: a human label wins where
-- both exist): query_id, doc_id, relevance, source, and labels (how many sources labelled it) and
-- disagree (whether another source gave another grade). Refused, naming the row: a source missing
-- from precedence, a document labelled twice by one source, a grade that is not a finite number
-- (label := what messages call the table).
CREATE OR REPLACE MACRO rankkit.merged_qrels(qrels_table, precedence, label := NULL) AS TABLE
WITH
rows_ AS (FROM rankkit.label_side(qrels_table, NULL)),
bad AS (
    SELECT query_id, doc_id, grade_text, source FROM rows_
    WHERE query_id IS NULL OR doc_id IS NULL OR grade IS NULL OR NOT isfinite(grade) OR source IS NULL
          OR NOT list_contains(precedence::VARCHAR[], source)
    ORDER BY query_id, doc_id LIMIT 1
),
twice AS (
    SELECT query_id, doc_id, source FROM rows_ GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL LIMIT 1
),
checks AS (
    SELECT CASE
        WHEN EXISTS (FROM bad)
            THEN error((SELECT 'rankkit: ' || coalesce(label, 'qrels table ' || qrels_table::VARCHAR) || ': '
                               || CASE WHEN query_id IS NULL THEN 'a NULL query id (document ' || coalesce(doc_id, 'NULL') || ')'
                                       WHEN doc_id IS NULL THEN 'a NULL document id for query ' || query_id
                                       WHEN grade_text IS NULL OR NOT isfinite(coalesce(TRY_CAST(grade_text AS DOUBLE), 'nan'))
                                           THEN 'the relevance of document ' || doc_id || ' for query ' || query_id || ' is '
                                                || coalesce('''' || grade_text || '''', 'NULL') || '; expected a finite number'
                                       WHEN source IS NULL
                                           THEN 'document ' || doc_id || ' for query ' || query_id || ' has no source; '
                                                || 'expected one of ' || array_to_string(precedence, ', ')
                                       ELSE 'source ' || source || ' (document ' || doc_id || ', query ' || query_id
                                            || ') is not in the precedence ' || array_to_string(precedence, ', ')
                                            || '; add it where its labels rank' END
                        FROM bad))
        WHEN EXISTS (FROM twice)
            THEN error((SELECT 'rankkit: ' || coalesce(label, 'qrels table ' || qrels_table::VARCHAR) || ': document ' || doc_id
                               || ' is labelled twice by ' || source || ' for query ' || query_id
                        FROM twice))
        ELSE true END AS ok
),
ranked AS (
    SELECT query_id, doc_id, grade, source,
           row_number() OVER (PARTITION BY query_id, doc_id ORDER BY list_position(precedence::VARCHAR[], source)) AS place,
           count(*) OVER (PARTITION BY query_id, doc_id) AS labels,
           count(DISTINCT grade) OVER (PARTITION BY query_id, doc_id) > 1 AS disagree
    FROM rows_
)
SELECT query_id, doc_id, grade AS relevance, source, labels, disagree
FROM ranked, checks
WHERE checks.ok AND place = 1
ORDER BY query_id, doc_id;
