-- name:      unj
-- aliases:   unj_{k}
-- params:    k
-- aggregate: mean
-- summary:   unjudged rate: the share of the top k ranks holding a document the qrels do not judge (or judge below 0); ranks past the end count as judged
-- cite:      trec_eval (unj)
-- better:    none

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({ret_k} - {pooled_ret}, coalesce({s.k}, {num_ret}))
