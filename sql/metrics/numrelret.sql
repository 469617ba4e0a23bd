-- name:      NumRelRet
-- aliases:   num_rel_ret
-- params:    k, rel
-- aggregate: sum
-- summary:   number of relevant documents retrieved (within k)
-- cite:      trec_eval (num_rel_ret)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {rel_ret} * 1.0E0

CREATE OR REPLACE MACRO rankkit.numrelret_value(f, s) AS
    f.rel_ret * 1.0E0;

CREATE OR REPLACE MACRO rankkit.numrelret(qrels_table, run_table, k := NULL, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('numrelret', 'NumRelRet', 'sum', k := k, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
