-- name:      nDCG
-- aliases:   ndcg, ndcg_cut_{k}, ndcg_{gains}
-- presets:   ndcg_burges(gain=exp)
-- params:    k, gain, gains, ideal, empty
-- aggregate: mean
-- summary:   normalised DCG: DCG@k divided by IDCG@k (trec_eval's ndcg and ndcg_cut); gains sets trec_eval's gain per grade (ndcg_1=3,2=9)
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002
-- ties:      trec, rank, average

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({dcg}, {idcg}, CASE WHEN {s.empty} = 'skip' THEN NULL ELSE 0.0E0 END)

CREATE OR REPLACE MACRO rankkit.ndcg_value(f, s) AS
    rankkit.ratio(f.dcg, f.idcg, CASE WHEN s.empty = 'skip' THEN NULL ELSE 0.0E0 END);

CREATE OR REPLACE MACRO rankkit.ndcg(qrels_table, run_table, k := NULL, gain := 'linear', gains := NULL, ideal := 'qrels', empty := 'zero', ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('ndcg', 'nDCG', 'mean', k := k, gain := gain, gains := gains, ideal := ideal, empty := empty)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
