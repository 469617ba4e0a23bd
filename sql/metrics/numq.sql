-- name:      NumQ
-- aliases:   num_q
-- params:    
-- aggregate: sum
-- summary:   number of queries evaluated (1 per query; the aggregate is their sum)
-- cite:      trec_eval (num_q)
-- better:    none

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: 1.0E0
