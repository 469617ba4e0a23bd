-- name:      ndcg_rel
-- aliases:   ndcg_rel_{gains}
-- params:    gains
-- aggregate: mean
-- summary:   nDCG averaged over the judged documents of positive gain: at the rank of each one retrieved, and at the end of the ranking for each one missed
-- cite:      trec_eval (ndcg_rel)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: CASE WHEN {num_gain} > 0 AND {ndcg_rel_sum} + ({num_gain} - {gain_ret}) * rankkit.ratio({dcg}, {idcg}) > 0
--          THEN ({ndcg_rel_sum} + ({num_gain} - {gain_ret}) * rankkit.ratio({dcg}, {idcg})) / {num_gain} ELSE 0.0E0 END
-- nDCG at each retrieved document of positive gain (the ideal stops growing once its gains run out)
-- feature: num_gain := len({ideal})
-- feature: dcg_so_far_terms := list_transform({gain_at}, lambda t: {gains}[t] / rankkit.discount({ranks}[t]))
-- feature: dcg_so_far := rankkit.running_sum({dcg_so_far_terms})
-- feature: ndcg_rel_sum := coalesce(rankkit.ordered_sum(list_transform({gain_at}, lambda t, m:
--     CASE WHEN {gain_values}[m] > 0 THEN {dcg_so_far}[m] / {idcg_so_far}[least({ranks}[t], len({ideal}))]
--          ELSE 0.0E0 END)), 0.0E0)
-- feature: gain_ret := coalesce(len(list_filter({gain_values}, lambda x: x > 0)), 0)

CREATE OR REPLACE MACRO rankkit.ndcg_rel_value(f, s) AS
    CASE WHEN f.num_gain > 0 AND f.ndcg_rel_sum + (f.num_gain - f.gain_ret) * rankkit.ratio(f.dcg, f.idcg) > 0 THEN (f.ndcg_rel_sum + (f.num_gain - f.gain_ret) * rankkit.ratio(f.dcg, f.idcg)) / f.num_gain ELSE 0.0E0 END;

CREATE OR REPLACE MACRO rankkit.ndcg_rel(qrels_table, run_table, gains := NULL, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('ndcg_rel', 'ndcg_rel', 'mean', gains := gains)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
