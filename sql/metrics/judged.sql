-- name:      Judged
-- aliases:   
-- params:    k
-- aggregate: mean
-- summary:   judgement rate: the share of the top k retrieved documents that appear in the qrels (over k, or the number retrieved when fewer)
-- cite:      MacAvaney et al., OpenNIR (ir_measures' Judged@k)
-- better:    none

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({n_cut}, {ret_k})
