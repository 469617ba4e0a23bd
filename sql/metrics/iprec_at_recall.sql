-- name:      IPrec
-- aliases:   iprec_at_recall_{recall}
-- params:    recall, rel
-- aggregate: mean
-- summary:   interpolated precision at a recall level: the best precision at or after the round(recall x R)-th relevant document retrieved (0 past the last); IPrec@0.5 is iprec_at_recall_0.50
-- cite:      trec_eval (iprec_at_recall), version 10's rounding

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.interpolated_precision({curve}, {s.levels}[1], {num_rel})

CREATE OR REPLACE MACRO rankkit.iprec_at_recall_value(f, s) AS
    rankkit.interpolated_precision(f.curve, s.levels[1], f.num_rel);

CREATE OR REPLACE MACRO rankkit.iprec_at_recall(qrels_table, run_table, recall := 0.0E0, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('iprec_at_recall', 'IPrec', 'mean', levels := [recall], rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
