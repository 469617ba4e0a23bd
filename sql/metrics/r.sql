-- name:      R
-- aliases:   recall_{k}, recall, set_recall, SetR
-- params:    k, rel
-- aggregate: mean
-- summary:   recall: relevant documents in the top k over the relevant documents in the qrels (0 when none); no cutoff (R, SetR): over every document retrieved, but the name recall alone is trec_eval's family, recall@5 ... recall@1000
-- cite:      trec_eval (recall_k, set_recall)
-- trace:     recall; relevant

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({rel_ret}, {num_rel})
