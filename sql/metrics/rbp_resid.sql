-- name:      rbp_resid
-- aliases:   rbp_resid_p={p}
-- params:    p
-- aggregate: mean
-- summary:   RBP residual: what rbp could still gain if every unjudged document retrieved (and everything past the ranking) were fully relevant; 0 when every document retrieved is judged
-- cite:      Moffat and Zobel, ACM TOIS 27(1), 2008; trec_eval (rbp_resid)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: CASE WHEN {num_ret} > {pooled_ret} THEN 1.0E0 - (1.0E0 - {s.p}) * {rbp_pooled} ELSE 0.0E0 END
-- feature: rbp_pooled := rankkit.ordered_sum(list_transform({ranks}, lambda r, t:
--     CASE WHEN {grades}[t] >= 0 THEN pow({s.p}, r - 1) ELSE 0.0E0 END))

CREATE OR REPLACE MACRO rankkit.rbp_resid_value(f, s) AS
    CASE WHEN f.num_ret > f.pooled_ret THEN 1.0E0 - (1.0E0 - s.p) * f.rbp_pooled ELSE 0.0E0 END;

CREATE OR REPLACE MACRO rankkit.rbp_resid(qrels_table, run_table, p := 9.0E-1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('rbp_resid', 'rbp_resid', 'mean', p := p)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
