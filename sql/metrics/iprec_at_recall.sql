-- name:      IPrec
-- aliases:   iprec_at_recall_{recall}
-- params:    recall, rel
-- aggregate: mean
-- summary:   interpolated precision at a recall level: the best precision at or after the round(recall x R)-th relevant document retrieved (0 past the last); IPrec@0.5 is iprec_at_recall_0.50
-- cite:      trec_eval (iprec_at_recall), version 10's rounding

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.interpolated_precision({curve}, {s.levels}[1], {num_rel})
