-- name:      relative_P
-- aliases:   relative_P_{k}, set_relative_P, SetRelP
-- params:    k, rel
-- aggregate: mean
-- summary:   relative precision: relevant documents in the top k over the most there could be, min(k, R); no cutoff: over min(documents retrieved, R) (set_relative_P)
-- cite:      trec_eval (relative_P, set_relative_P)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({rel_ret}, least(coalesce({s.k}, {num_ret}), {num_rel}))
