-- name:      SetAP
-- aliases:   set_map
-- params:    rel
-- aggregate: mean
-- summary:   set average precision: set precision times set recall, relevant retrieved squared over (retrieved x relevant)
-- cite:      trec_eval (set_map)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({rel_ret} * {rel_ret}, {num_ret} * {num_rel})

CREATE OR REPLACE MACRO rankkit.set_map_value(f, s) AS
    rankkit.ratio(f.rel_ret * f.rel_ret, f.num_ret * f.num_rel);

CREATE OR REPLACE MACRO rankkit.set_map(qrels_table, run_table, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('set_map', 'SetAP', 'mean', rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
