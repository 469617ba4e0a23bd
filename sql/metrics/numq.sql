-- name:      NumQ
-- aliases:   num_q
-- params:    
-- aggregate: sum
-- summary:   number of queries evaluated (1 per query; the aggregate is their sum)
-- cite:      trec_eval (num_q)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: 1.0E0

CREATE OR REPLACE MACRO rankkit.numq_value(f, s) AS
    1.0E0;

CREATE OR REPLACE MACRO rankkit.numq(qrels_table, run_table, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('numq', 'NumQ', 'sum')],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
