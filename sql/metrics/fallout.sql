-- name:      FallOut
-- aliases:   fall_out, fallout
-- params:    k, rel
-- aggregate: mean
-- summary:   fall-out: judged non-relevant documents in the top k over the judged non-relevant documents in the qrels (grade from 0 to below rel; 0 when none); unjudged documents count in neither (torchmetrics' retrieval_fall_out, where every ranked document is judged)
-- cite:      Salton and McGill, Introduction to Modern Information Retrieval, 1983; torchmetrics (RetrievalFallOut)
-- better:    lower

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({nonrel_ret}, {num_nonrel})
