-- name:      11pt_avg
-- aliases:   11pt_avg_{levels}
-- params:    levels, rel
-- aggregate: mean
-- summary:   interpolated precision averaged over recall levels (0, 0.1, ... 1 by default; 11pt_avg_.25,.5,.75 sets them)
-- cite:      Salton and McGill, Introduction to Modern Information Retrieval, 1983; trec_eval (11pt_avg)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: list_sum([rankkit.interpolated_precision({curve}, level, {num_rel}) FOR level IN {s.levels}]) / len({s.levels})
