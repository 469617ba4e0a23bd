-- name:      NumRelRet
-- aliases:   num_rel_ret
-- params:    k, rel
-- aggregate: sum
-- summary:   number of relevant documents retrieved (within k)
-- cite:      trec_eval (num_rel_ret)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {rel_ret} * 1.0E0
