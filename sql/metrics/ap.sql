-- name:      AP
-- aliases:   map, map_cut_{k}, MAP
-- params:    k, rel
-- aggregate: mean
-- summary:   average precision: the precision at each relevant document retrieved within k, summed, over the number of relevant documents; its mean is MAP
-- cite:      Harman, Overview of the First TREC Conference, TREC 1992

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({ap_sum}, {num_rel})

CREATE OR REPLACE MACRO rankkit.ap_value(f, s) AS
    rankkit.ratio(f.ap_sum, f.num_rel);

CREATE OR REPLACE MACRO rankkit.ap(qrels_table, run_table, k := NULL, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('ap', 'AP', 'mean', k := k, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
