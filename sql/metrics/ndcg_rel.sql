-- name:      ndcg_rel
-- aliases:   ndcg_rel_{gains}
-- params:    gains
-- aggregate: mean
-- summary:   nDCG averaged over the judged documents of positive gain: at the rank of each one retrieved, and at the end of the ranking for each one missed
-- cite:      trec_eval (ndcg_rel)

CREATE OR REPLACE MACRO rankkit.ndcg_rel_value(f, s) AS
    CASE WHEN f.num_gain > 0 AND f.ndcg_rel_sum + (f.num_gain - f.gain_ret) * rankkit.ratio(f.dcg, f.idcg) > 0 THEN (f.ndcg_rel_sum + (f.num_gain - f.gain_ret) * rankkit.ratio(f.dcg, f.idcg)) / f.num_gain ELSE 0.0E0 END;

CREATE OR REPLACE MACRO rankkit.ndcg_rel(qrels_table, run_table, gains := NULL, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('ndcg_rel', 'ndcg_rel', 'mean', gains := gains)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
