-- name:      relstring
-- aliases:   relstring_{k}
-- params:    k
-- aggregate: text
-- summary:   the grades of the top k documents (trec_eval's 10 by default) as text, one character each: the grade (> above 9), - unjudged, . judged below 0; per query only
-- cite:      trec_eval (relstring)
-- better:    none

-- Text, not a number: rankkit.evaluate refuses it, and its value here is NULL. The table macro
-- gives the text; rankkit eval prints it where trec_eval does.

CREATE OR REPLACE MACRO rankkit.relstring(qrels_table, run_table, k := 10, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
WITH
qrels AS (FROM rankkit.qrels_rows(qrels_table)),
judged_queries AS (SELECT DISTINCT query_id FROM qrels),
run AS (FROM rankkit.ranked(run_table, ties := ties, scores := scores, depth := depth)),
-- judged_only := true (trec_eval -J): the judged documents ranked among themselves; a query whose
-- documents are all unjudged is still evaluated, with an empty string
ranked AS (
    SELECT r.system, r.query_id, q.grade,
           row_number() OVER (PARTITION BY r.system, r.query_id ORDER BY r.rank) AS rank
    FROM run r
    LEFT JOIN qrels q USING (query_id, doc_id)
    WHERE NOT judged_only OR q.grade >= 0
),
systems AS (SELECT DISTINCT system FROM run),
evaluated AS (
    SELECT DISTINCT system, query_id FROM run SEMI JOIN judged_queries USING (query_id)
    UNION
    SELECT s.system, q.query_id FROM systems s CROSS JOIN judged_queries q WHERE queries = 'qrels'
)
SELECT e.system, e.query_id,
       coalesce(string_agg(CASE WHEN r.grade IS NULL THEN '-' WHEN r.grade < 0 THEN '.'
                                WHEN r.grade > 9 THEN '>' ELSE trunc(r.grade)::INTEGER::VARCHAR END, ''
                           ORDER BY r.rank) FILTER (WHERE r.rank IS NOT NULL), '') AS value
FROM evaluated e
LEFT JOIN ranked r ON r.system IS NOT DISTINCT FROM e.system AND r.query_id = e.query_id AND r.rank <= k
GROUP BY e.system, e.query_id
ORDER BY e.system, e.query_id;
