-- name:      Success
-- aliases:   success_{k}, hit_rate, top_k_accuracy
-- params:    k, rel
-- aggregate: mean
-- summary:   1 if a relevant document is in the top k, else 0 (ranx's hit_rate; with one relevant document a query, scikit-learn's top_k_accuracy_score)
-- cite:      trec_eval (success_k)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: CASE WHEN {rel_ret} > 0 THEN 1.0E0 ELSE 0.0E0 END

CREATE OR REPLACE MACRO rankkit.success_value(f, s) AS
    CASE WHEN f.rel_ret > 0 THEN 1.0E0 ELSE 0.0E0 END;

CREATE OR REPLACE MACRO rankkit.success(qrels_table, run_table, k := NULL, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('success', 'Success', 'mean', k := k, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
