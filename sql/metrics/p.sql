-- name:      P
-- aliases:   P_{k}, precision, set_P, SetP
-- params:    k, rel
-- aggregate: mean
-- summary:   precision: relevant documents in the top k over k (k even when fewer were retrieved, as trec_eval); no cutoff (SetP, P(rel=2)): over the number retrieved, but the name P alone is trec_eval's family, P@5 ... P@1000
-- cite:      trec_eval (P_k, set_P)
-- trace:     precision; relevant

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: CASE WHEN {s.k} IS NULL THEN rankkit.ratio({rel_ret}, {num_ret}) ELSE {rel_ret} * 1.0E0 / {s.k} END
