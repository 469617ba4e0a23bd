-- name:      NumRet
-- aliases:   num_ret
-- params:    k
-- aggregate: sum
-- summary:   number of documents retrieved (within k)
-- cite:      trec_eval (num_ret)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {ret_k} * 1.0E0

CREATE OR REPLACE MACRO rankkit.numret_value(f, s) AS
    f.ret_k * 1.0E0;

CREATE OR REPLACE MACRO rankkit.numret(qrels_table, run_table, k := NULL, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('numret', 'NumRet', 'sum', k := k)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
