-- name:      SetF
-- aliases:   set_F, set_F_{beta}, f1
-- params:    k, beta, rel
-- aggregate: mean
-- summary:   F measure: (beta + 1) P R / (beta P + R), P and R over every document retrieved (trec_eval's set_F), or P@k and R@k with a cutoff (ranx's f1@k); 0 when none relevant is retrieved
-- cite:      van Rijsbergen, Information Retrieval, 1979; trec_eval (set_F); ranx (f1)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- precision over k with a cutoff, as P@k; over the documents retrieved without one
-- value: CASE WHEN {rel_ret} > 0
--     THEN ({s.beta} + 1.0E0) * ({rel_ret} * 1.0E0 / coalesce({s.k}, {num_ret})) * ({rel_ret} * 1.0E0 / {num_rel})
--          / ({s.beta} * ({rel_ret} * 1.0E0 / coalesce({s.k}, {num_ret})) + {rel_ret} * 1.0E0 / {num_rel}) ELSE 0.0E0 END

CREATE OR REPLACE MACRO rankkit.set_f_value(f, s) AS
    CASE WHEN f.rel_ret > 0 THEN (s.beta + 1.0E0) * (f.rel_ret * 1.0E0 / coalesce(s.k, f.num_ret)) * (f.rel_ret * 1.0E0 / f.num_rel) / (s.beta * (f.rel_ret * 1.0E0 / coalesce(s.k, f.num_ret)) + f.rel_ret * 1.0E0 / f.num_rel) ELSE 0.0E0 END;

CREATE OR REPLACE MACRO rankkit.set_f(qrels_table, run_table, k := NULL, beta := 1.0E0, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('set_f', 'SetF', 'mean', k := k, beta := beta, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
