-- name:      DCG
-- aliases:   
-- presets:   dcg_burges(gain=exp)
-- params:    k, gain, gains
-- aggregate: mean
-- summary:   discounted cumulative gain: each gain divided by log2(rank + 1), summed over the top k
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002
-- ties:      trec, rank, average

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {dcg}

CREATE OR REPLACE MACRO rankkit.dcg_value(f, s) AS
    f.dcg;

CREATE OR REPLACE MACRO rankkit.dcg(qrels_table, run_table, k := NULL, gain := 'linear', gains := NULL, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('dcg', 'DCG', 'mean', k := k, gain := gain, gains := gains)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
