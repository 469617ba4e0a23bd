-- name:      SetF
-- aliases:   set_F, set_F_{beta}, f1
-- params:    k, beta, rel
-- aggregate: mean
-- summary:   F measure: (beta + 1) P R / (beta P + R), P and R over every document retrieved (trec_eval's set_F), or P@k and R@k with a cutoff (ranx's f1@k); 0 when none relevant is retrieved
-- cite:      van Rijsbergen, Information Retrieval, 1979; trec_eval (set_F); ranx (f1)

-- Its own parameter (those several measures take: sql/00_prelude.sql):
-- param: beta   DOUBLE  := 1         weight of recall against precision in set_F (trec_eval's default 1)
--     check: isfinite(beta::DOUBLE) AND beta::DOUBLE >= 0  ; beta must be a number >= 0

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- precision over k with a cutoff, as P@k; over the documents retrieved without one
-- value: CASE WHEN {rel_ret} > 0
--     THEN ({s.beta} + 1.0E0) * ({rel_ret} * 1.0E0 / coalesce({s.k}, {num_ret})) * ({rel_ret} * 1.0E0 / {num_rel})
--          / ({s.beta} * ({rel_ret} * 1.0E0 / coalesce({s.k}, {num_ret})) + {rel_ret} * 1.0E0 / {num_rel}) ELSE 0.0E0 END
