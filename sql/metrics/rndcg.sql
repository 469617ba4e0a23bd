-- name:      Rndcg
-- aliases:   Rndcg_{gains}
-- params:    gains, rel
-- aggregate: mean
-- summary:   nDCG averaged over the R levels: the ranks where the ideal gain drops (after the documents of each grade), and the end of a ranking that runs past them
-- cite:      trec_eval (Rndcg)

CREATE OR REPLACE MACRO rankkit.rndcg_value(f, s) AS
    CASE WHEN f.num_rel > 0 THEN rankkit.ratio(f.rndcg_sum, f.rndcg_points) ELSE 0.0E0 END;

CREATE OR REPLACE MACRO rankkit.rndcg(qrels_table, run_table, gains := NULL, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('rndcg', 'Rndcg', 'mean', gains := gains, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
