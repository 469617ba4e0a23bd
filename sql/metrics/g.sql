-- name:      G
-- aliases:   G_{gains}
-- params:    gains
-- aggregate: mean
-- summary:   normalised gain: each retrieved gain over log2(2 + what the ideal ranking gained so far, at least 1 a rank, minus what this ranking gained), summed, over the ideal total gain
-- cite:      trec_eval (G)

CREATE OR REPLACE MACRO rankkit.g_value(f, s) AS
    rankkit.ratio(f.g_sum, f.ideal_cg);

CREATE OR REPLACE MACRO rankkit.g(qrels_table, run_table, gains := NULL, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('g', 'G', 'mean', gains := gains)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
