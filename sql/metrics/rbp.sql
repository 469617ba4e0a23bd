-- name:      RBP
-- aliases:   rbp, rbp_p={p}
-- params:    p, binary_rel
-- aggregate: mean
-- summary:   rank-biased precision: (1 - p) x the sum of gain x p^(rank - 1), gains scaled to [0, 1] by the query's top grade; trec_eval's p = 0.9 (ir_measures' RBP defaults to 0.8: write RBP(p=0.8)); binary_rel=r: a document of grade >= r gains 1, others 0 (ir_measures' RBP(rel=r))
-- cite:      Moffat and Zobel, Rank-biased precision for measurement of retrieval effectiveness, ACM TOIS 27(1), 2008

-- Its own parameter (those several measures take: sql/00_prelude.sql):
-- param: binary_rel DOUBLE  := NULL      RBP's binary relevance (ir_measures' RBP(rel=2)): a document of grade >= binary_rel gains 1, others 0 (NULL: trec_eval's graded gains)
--     check: isfinite(binary_rel::DOUBLE)  ; binary_rel must be a number, the lowest grade that gains 1

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: (1.0E0 - {s.p}) * {rbp_sum}
-- gains above 1 are scaled to [0, 1] by the query's top grade, as trec_eval does
-- feature: rbp_sum [binary_rel=NULL] := rankkit.ordered_sum(list_transform({ranks}, lambda r, t:
--     CASE WHEN {grades}[t] > 0 THEN {gains}[t] / greatest({top_grade}, 1.0E0) * pow({s.p}, r - 1)
--          ELSE 0.0E0 END))
-- binary relevance (ir_measures' RBP(rel=r), which cwl_eval computes): grade >= binary_rel gains 1
-- feature: rbp_sum := rankkit.ordered_sum(list_transform({ranks}, lambda r, t:
--     CASE WHEN {grades}[t] >= {s.binary_rel} THEN pow({s.p}, r - 1) ELSE 0.0E0 END))
