-- name:      IDCG
-- aliases:   
-- params:    k, gain, gains, ideal
-- aggregate: mean
-- summary:   ideal DCG: the DCG@k of the judged documents in descending grade order
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002
-- ties:      trec, rank, average

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {idcg}
