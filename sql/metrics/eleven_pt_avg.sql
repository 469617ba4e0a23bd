-- name:      11pt_avg
-- aliases:   11pt_avg_{levels}
-- params:    levels, rel
-- aggregate: mean
-- summary:   interpolated precision averaged over recall levels (0, 0.1, ... 1 by default; 11pt_avg_.25,.5,.75 sets them)
-- cite:      Salton and McGill, Introduction to Modern Information Retrieval, 1983; trec_eval (11pt_avg)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: list_sum([rankkit.interpolated_precision({curve}, level, {num_rel}) FOR level IN {s.levels}]) / len({s.levels})

CREATE OR REPLACE MACRO rankkit.eleven_pt_avg_value(f, s) AS
    list_sum([rankkit.interpolated_precision(f.curve, level, f.num_rel) FOR level IN s.levels]) / len(s.levels);

CREATE OR REPLACE MACRO rankkit.eleven_pt_avg(qrels_table, run_table, levels := [0.0E0, 1.0E-1, 2.0E-1, 3.0E-1, 4.0E-1, 5.0E-1, 6.0E-1, 7.0E-1, 8.0E-1, 9.0E-1, 1.0E0], rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('eleven_pt_avg', '11pt_avg', 'mean', levels := levels, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
