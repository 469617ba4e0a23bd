-- name:      Rprec_mult
-- aliases:   Rprec_mult_{mult}
-- params:    mult, rel
-- aggregate: mean
-- summary:   precision at mult x R documents (R relevant in the qrels; trec_eval rounds up from 0.1): Rprec_mult_1.00 is Rprec
-- cite:      trec_eval (Rprec_mult)

-- Its own parameter (those several measures take: sql/00_prelude.sql):
-- param: mult   DOUBLE  := 1         multiple of R, the number of relevant documents, at which Rprec_mult reads precision
--     check: isfinite(mult::DOUBLE) AND mult::DOUBLE >= 0  ; mult must be a number >= 0

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({rel_in_mult}, floor({s.mult} * {num_rel} + 9.0E-1))
-- precision at mult x R documents, rounded up from 0.1 as trec_eval does
-- feature: rel_in_mult := len(list_filter({ranks}, lambda r, t: {grades}[t] >= {s.rel}
--     AND r <= floor({s.mult} * {num_rel} + 9.0E-1)))
