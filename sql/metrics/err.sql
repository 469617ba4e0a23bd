-- name:      ERR
-- aliases:   
-- params:    k, max
-- aggregate: mean
-- summary:   expected reciprocal rank: sum over r <= k of (1/r) R_r prod_{i<r} (1 - R_i), R = (2^rel - 1) / 2^max
-- cite:      Chapelle et al., Expected reciprocal rank for graded relevance, CIKM 2009; gdeval.pl

CREATE OR REPLACE MACRO rankkit.err_value(f, s) AS
    f.err;

CREATE OR REPLACE MACRO rankkit.err(qrels_table, run_table, k := NULL, max := 4, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('err', 'ERR', 'mean', k := k, max := max)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
