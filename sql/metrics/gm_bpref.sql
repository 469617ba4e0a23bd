-- name:      gm_bpref
-- aliases:   
-- params:    rel
-- aggregate: gmean
-- summary:   bpref per query, averaged over queries by the geometric mean, each value floored at 0.00001 (trec_eval's gm_bpref; reported in the aggregate only)
-- cite:      trec_eval (gm_bpref)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({bpref_sum}, {num_rel})
