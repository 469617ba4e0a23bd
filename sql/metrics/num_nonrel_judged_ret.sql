-- name:      NumNonRelJudgedRet
-- aliases:   num_nonrel_judged_ret
-- params:    rel
-- aggregate: sum
-- summary:   number of judged non-relevant documents retrieved (grade from 0 to below rel)
-- cite:      trec_eval (num_nonrel_judged_ret)
-- better:    lower

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {nonrel_ret} * 1.0E0
