-- name:      CG
-- aliases:   
-- params:    k, gain
-- aggregate: mean
-- summary:   cumulative gain: the sum of the gains of the top k documents
-- cite:      Järvelin and Kekäläinen, Cumulated gain-based evaluation of IR techniques, ACM TOIS 20(4), 2002

CREATE OR REPLACE MACRO rankkit.cg_value(f, s) AS
    f.cg;

CREATE OR REPLACE MACRO rankkit.cg(qrels_table, run_table, k := NULL, gain := 'linear', ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('cg', 'CG', 'mean', k := k, gain := gain)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
