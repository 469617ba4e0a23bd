-- name:      DCG
-- aliases:   
-- params:    k, gain, gains
-- aggregate: mean
-- summary:   discounted cumulative gain: each gain divided by log2(rank + 1), summed over the top k
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002
-- ties:      trec, rank, average

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {dcg}
