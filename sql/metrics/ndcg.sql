-- name:      nDCG
-- aliases:   ndcg, ndcg_cut_{k}, ndcg_{gains}
-- presets:   ndcg_burges(gain=exp)
-- params:    k, gain, gains, ideal, discount, empty
-- aggregate: mean
-- summary:   normalised DCG: DCG@k divided by IDCG@k (trec_eval's ndcg and ndcg_cut); gains sets trec_eval's gain per grade (ndcg_1=3,2=9)
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002
-- top_k:     ideal=qrels
-- trace:     ndcg; gain, discount, dcg, ideal_grade, ideal_gain, idcg
-- ties:      trec, rank, average

-- Its own parameter (those several measures take: sql/00_prelude.sql):
-- param: empty  VARCHAR := 'zero'    a query whose ideal DCG is 0: zero (scores 0, trec_eval's) or skip (left out of the mean)
--     values: zero, skip

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({dcg}, {idcg}, CASE WHEN {s.empty} = 'skip' THEN NULL ELSE 0.0E0 END)
