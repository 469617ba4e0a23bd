-- name:      AP
-- aliases:   map, map_cut_{k}, MAP
-- params:    k, rel
-- aggregate: mean
-- summary:   average precision: the precision at each relevant document retrieved within k, summed, over the number of relevant documents; its mean is MAP
-- cite:      Harman, Overview of the First TREC Conference, TREC 1992
-- trace:     ap; relevant, precision, ap_contribution

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({ap_sum}, {num_rel})
