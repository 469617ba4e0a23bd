-- name:      SetAP
-- aliases:   set_map
-- params:    rel
-- aggregate: mean
-- summary:   set average precision: set precision times set recall, relevant retrieved squared over (retrieved x relevant)
-- cite:      trec_eval (set_map)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({rel_ret} * {rel_ret}, {num_ret} * {num_rel})
