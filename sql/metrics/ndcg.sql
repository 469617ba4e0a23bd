-- name:      nDCG
-- aliases:   ndcg, ndcg_cut_{k}, ndcg_{gains}
-- params:    k, gain, gains, ideal, empty
-- aggregate: mean
-- summary:   normalised DCG: DCG@k divided by IDCG@k (trec_eval's ndcg and ndcg_cut); gains sets trec_eval's gain per grade (ndcg_1=3,2=9)
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002
-- ties:      trec, rank, average

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({dcg}, {idcg}, CASE WHEN {s.empty} = 'skip' THEN NULL ELSE 0.0E0 END)
