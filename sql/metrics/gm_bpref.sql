-- name:      gm_bpref
-- aliases:   
-- params:    rel
-- aggregate: gmean
-- summary:   bpref per query, averaged over queries by the geometric mean, each value floored at 0.00001 (trec_eval's gm_bpref; reported in the aggregate only)
-- cite:      trec_eval (gm_bpref)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({bpref_sum}, {num_rel})

CREATE OR REPLACE MACRO rankkit.gm_bpref_value(f, s) AS
    rankkit.ratio(f.bpref_sum, f.num_rel);

CREATE OR REPLACE MACRO rankkit.gm_bpref(qrels_table, run_table, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('gm_bpref', 'gm_bpref', 'gmean', rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
