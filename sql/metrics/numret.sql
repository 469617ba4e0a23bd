-- name:      NumRet
-- aliases:   num_ret
-- params:    k
-- aggregate: sum
-- summary:   number of documents retrieved (within k)
-- cite:      trec_eval (num_ret)
-- better:    none

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {ret_k} * 1.0E0
