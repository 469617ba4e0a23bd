-- name:      HitRate
-- aliases:   HR, Hit, hit_rate
-- params:    k, rel, empty
-- aggregate: mean
-- summary:   hit rate, the recommender systems' name: 1 if a relevant item is in a user's top k, else 0; the same value as Success (trec_eval's success_k), under the name the result says
-- cite:      Deshpande and Karypis, Item-based top-N recommendation algorithms, ACM TOIS 22(1), 2004

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: CASE WHEN {num_rel} > 0 THEN CASE WHEN {rel_ret} > 0 THEN 1.0E0 ELSE 0.0E0 END
--     ELSE rankkit.empty_value({s.empty}, {query_id}) END
