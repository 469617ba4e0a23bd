-- name:      nDCG
-- aliases:   ndcg, ndcg_cut_{k}
-- params:    k, gain, ideal, empty
-- aggregate: mean
-- summary:   normalised DCG: DCG@k divided by IDCG@k (trec_eval's ndcg and ndcg_cut)
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002

CREATE OR REPLACE MACRO rankkit.ndcg_value(f, s) AS
    rankkit.ratio(f.dcg, f.idcg, CASE WHEN s.empty = 'skip' THEN NULL ELSE 0.0E0 END);

CREATE OR REPLACE MACRO rankkit.ndcg(qrels_table, run_table, k := NULL, gain := 'linear', ideal := 'qrels', empty := 'zero', ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('ndcg', 'nDCG', 'mean', k := k, gain := gain, ideal := ideal, empty := empty)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
