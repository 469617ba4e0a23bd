-- name:      NumRel
-- aliases:   num_rel
-- params:    rel
-- aggregate: sum
-- summary:   number of relevant documents in the qrels
-- cite:      trec_eval (num_rel)
-- better:    none

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {num_rel} * 1.0E0
