-- name:      Rprec
-- aliases:   R-prec
-- params:    rel
-- aggregate: mean
-- summary:   R-precision: relevant documents in the top R over R, R the number of relevant documents in the qrels
-- cite:      Buckley and Voorhees, Evaluating evaluation measure stability, SIGIR 2000

CREATE OR REPLACE MACRO rankkit.rprec_value(f, s) AS
    rankkit.ratio(f.rel_in_r, f.num_rel);

CREATE OR REPLACE MACRO rankkit.rprec(qrels_table, run_table, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('rprec', 'Rprec', 'mean', rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
