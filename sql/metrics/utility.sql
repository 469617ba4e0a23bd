-- name:      utility
-- aliases:   utility_{coef}
-- params:    coef, docs, rel
-- aggregate: mean
-- summary:   set utility: coef1 x relevant retrieved + coef2 x non-relevant retrieved + coef3 x relevant missed + coef4 x non-relevant missed (of docs in the collection, trec_eval -N); default 1, -1, 0, 0
-- cite:      Hull and Robertson, The TREC-8 Filtering Track, TREC 1999; trec_eval (utility)

-- Its own parameter (those several measures take: sql/00_prelude.sql):
-- param: coef   DOUBLE[] := [1,-1,0,0] utility's worth of a relevant retrieved, non-relevant retrieved, relevant missed and non-relevant missed document
--     check: len(coef) = 4 AND len([x FOR x IN coef IF x IS NULL OR NOT isfinite(x::DOUBLE)]) = 0  ; utility takes four numbers

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {s.coef}[1] * {rel_ret} + {s.coef}[2] * ({num_ret} - {rel_ret}) + {s.coef}[3] * ({num_rel} - {rel_ret})
--     + {s.coef}[4] * ({s.docs} + {rel_ret} - {num_ret} - {num_rel})
