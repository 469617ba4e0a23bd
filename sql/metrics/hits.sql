-- name:      Hits
-- aliases:   hits
-- params:    k, rel
-- aggregate: mean
-- summary:   number of relevant documents in the top k, averaged over queries (ranx's hits; NumRelRet is the same count summed, trec_eval's num_rel_ret)
-- cite:      ranx (hits)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {rel_ret} * 1.0E0
