-- name:      utility
-- aliases:   utility_{coef}
-- params:    coef, docs, rel
-- aggregate: mean
-- summary:   set utility: coef1 x relevant retrieved + coef2 x non-relevant retrieved + coef3 x relevant missed + coef4 x non-relevant missed (of docs in the collection, trec_eval -N); default 1, -1, 0, 0
-- cite:      Hull and Robertson, The TREC-8 Filtering Track, TREC 1999; trec_eval (utility)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {s.coef}[1] * {rel_ret} + {s.coef}[2] * ({num_ret} - {rel_ret}) + {s.coef}[3] * ({num_rel} - {rel_ret})
--     + {s.coef}[4] * ({s.docs} + {rel_ret} - {num_ret} - {num_rel})

CREATE OR REPLACE MACRO rankkit.utility_value(f, s) AS
    s.coef[1] * f.rel_ret + s.coef[2] * (f.num_ret - f.rel_ret) + s.coef[3] * (f.num_rel - f.rel_ret) + s.coef[4] * (s.docs + f.rel_ret - f.num_ret - f.num_rel);

CREATE OR REPLACE MACRO rankkit.utility(qrels_table, run_table, coef := [1.0E0, -1.0E0, 0.0E0, 0.0E0], docs := 0, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('utility', 'utility', 'mean', coef := coef, docs := docs, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
