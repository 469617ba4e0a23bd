-- name:      Success
-- aliases:   success_{k}, top_k_accuracy
-- params:    k, rel
-- aggregate: mean
-- summary:   1 if a relevant document is in the top k, else 0 (HitRate, ranx's hit_rate, is the same value; with one relevant document a query, scikit-learn's top_k_accuracy_score)
-- cite:      trec_eval (success_k)
-- top_k:     yes

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: CASE WHEN {rel_ret} > 0 THEN 1.0E0 ELSE 0.0E0 END
