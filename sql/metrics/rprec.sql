-- name:      Rprec
-- aliases:   R-prec, r-precision
-- params:    rel
-- aggregate: mean
-- summary:   R-precision: relevant documents in the top R over R, R the number of relevant documents in the qrels
-- cite:      Buckley and Voorhees, Evaluating evaluation measure stability, SIGIR 2000

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({rel_in_r}, {num_rel})
-- feature: rel_in_r := len(list_filter({ranks}, lambda r, t: {grades}[t] >= {s.rel} AND r <= {num_rel}))
