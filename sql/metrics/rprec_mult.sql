-- name:      Rprec_mult
-- aliases:   Rprec_mult_{mult}
-- params:    mult, rel
-- aggregate: mean
-- summary:   precision at mult x R documents (R relevant in the qrels; trec_eval rounds up from 0.1): Rprec_mult_1.00 is Rprec
-- cite:      trec_eval (Rprec_mult)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({rel_in_mult}, floor({s.mult} * {num_rel} + 9.0E-1))
-- precision at mult x R documents, rounded up from 0.1 as trec_eval does
-- feature: rel_in_mult := len(list_filter({ranks}, lambda r, t: {grades}[t] >= {s.rel}
--     AND r <= floor({s.mult} * {num_rel} + 9.0E-1)))

CREATE OR REPLACE MACRO rankkit.rprec_mult_value(f, s) AS
    rankkit.ratio(f.rel_in_mult, floor(s.mult * f.num_rel + 9.0E-1));

CREATE OR REPLACE MACRO rankkit.rprec_mult(qrels_table, run_table, mult := 1.0E0, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('rprec_mult', 'Rprec_mult', 'mean', mult := mult, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
