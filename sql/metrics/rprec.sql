-- name:      Rprec
-- aliases:   R-prec, r-precision
-- params:    rel
-- aggregate: mean
-- summary:   R-precision: relevant documents in the top R over R, R the number of relevant documents in the qrels
-- cite:      Buckley and Voorhees, Evaluating evaluation measure stability, SIGIR 2000

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({rel_in_r}, {num_rel})
-- feature: rel_in_r := len(list_filter({ranks}, lambda r, t: {grades}[t] >= {s.rel} AND r <= {num_rel}))

CREATE OR REPLACE MACRO rankkit.rprec_value(f, s) AS
    rankkit.ratio(f.rel_in_r, f.num_rel);

CREATE OR REPLACE MACRO rankkit.rprec(qrels_table, run_table, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('rprec', 'Rprec', 'mean', rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
