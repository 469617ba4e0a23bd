-- name:      relative_P
-- aliases:   relative_P_{k}, set_relative_P, SetRelP
-- params:    k, rel
-- aggregate: mean
-- summary:   relative precision: relevant documents in the top k over the most there could be, min(k, R); no cutoff: over min(documents retrieved, R) (set_relative_P)
-- cite:      trec_eval (relative_P, set_relative_P)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({rel_ret}, least(coalesce({s.k}, {num_ret}), {num_rel}))

CREATE OR REPLACE MACRO rankkit.relative_p_value(f, s) AS
    rankkit.ratio(f.rel_ret, least(coalesce(s.k, f.num_ret), f.num_rel));

CREATE OR REPLACE MACRO rankkit.relative_p(qrels_table, run_table, k := NULL, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('relative_p', 'relative_P', 'mean', k := k, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
