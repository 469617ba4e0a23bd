-- name:      unj
-- aliases:   unj_{k}
-- params:    k
-- aggregate: mean
-- summary:   unjudged rate: the share of the top k ranks holding a document the qrels do not judge (or judge below 0); ranks past the end count as judged
-- cite:      trec_eval (unj)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({ret_k} - {pooled_ret}, coalesce({s.k}, {num_ret}))

CREATE OR REPLACE MACRO rankkit.unj_value(f, s) AS
    rankkit.ratio(f.ret_k - f.pooled_ret, coalesce(s.k, f.num_ret));

CREATE OR REPLACE MACRO rankkit.unj(qrels_table, run_table, k := NULL, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('unj', 'unj', 'mean', k := k)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
