-- name:      gm_map
-- aliases:   
-- params:    rel
-- aggregate: gmean
-- summary:   average precision per query, as map, averaged over queries by the geometric mean, each value floored at 0.00001 (trec_eval's gm_map; reported in the aggregate only)
-- cite:      Robertson, On GMAP, CIKM 2006; trec_eval (gm_map)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({ap_sum}, {num_rel})

CREATE OR REPLACE MACRO rankkit.gm_map_value(f, s) AS
    rankkit.ratio(f.ap_sum, f.num_rel);

CREATE OR REPLACE MACRO rankkit.gm_map(qrels_table, run_table, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('gm_map', 'gm_map', 'gmean', rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
