-- name:      gm_map
-- aliases:   
-- params:    rel
-- aggregate: gmean
-- summary:   average precision per query, as map, averaged over queries by the geometric mean, each value floored at 0.00001 (trec_eval's gm_map; reported in the aggregate only)
-- cite:      Robertson, On GMAP, CIKM 2006; trec_eval (gm_map)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({ap_sum}, {num_rel})
