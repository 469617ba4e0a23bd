-- name:      RBP
-- aliases:   rbp, rbp_p={p}
-- params:    p
-- aggregate: mean
-- summary:   rank-biased precision: (1 - p) x the sum of gain x p^(rank - 1), gains scaled to [0, 1] by the query's top grade; trec_eval's p = 0.9 (ir_measures' RBP defaults to 0.8: write RBP(p=0.8))
-- cite:      Moffat and Zobel, Rank-biased precision for measurement of retrieval effectiveness, ACM TOIS 27(1), 2008

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: (1.0E0 - {s.p}) * {rbp_sum}
-- gains above 1 are scaled to [0, 1] by the query's top grade, as trec_eval does
-- feature: rbp_sum := rankkit.ordered_sum(list_transform({ranks}, lambda r, t:
--     CASE WHEN {grades}[t] > 0 THEN {gains}[t] / greatest(coalesce({qrels_grades}[1], 0.0E0), 1.0E0) * pow({s.p}, r - 1)
--          ELSE 0.0E0 END))

CREATE OR REPLACE MACRO rankkit.rbp_value(f, s) AS
    (1.0E0 - s.p) * f.rbp_sum;

CREATE OR REPLACE MACRO rankkit.rbp(qrels_table, run_table, p := 9.0E-1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('rbp', 'RBP', 'mean', p := p)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
