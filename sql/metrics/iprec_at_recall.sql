-- name:      IPrec
-- aliases:   iprec_at_recall_{recall}
-- params:    recall, rel
-- aggregate: mean
-- summary:   interpolated precision at a recall level: the best precision at or after the round(recall x R)-th relevant document retrieved (0 past the last); IPrec@0.5 is iprec_at_recall_0.50
-- cite:      trec_eval (iprec_at_recall), version 10's rounding

-- Its own parameter (those several measures take: sql/00_prelude.sql):
-- param: recall DOUBLE  := 0         recall level at which interpolated precision is read (iprec_at_recall; trec_eval rounds level x R to a number of relevant documents)
--     held: levels

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.interpolated_precision({curve}, {s.levels}[1], {num_rel})
