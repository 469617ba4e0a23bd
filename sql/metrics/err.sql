-- name:      ERR
-- aliases:   
-- params:    k, max
-- aggregate: mean
-- summary:   expected reciprocal rank: sum over r <= k of (1/r) R_r prod_{i<r} (1 - R_i), R = (2^rel - 1) / 2^max
-- cite:      Chapelle et al., Expected reciprocal rank for graded relevance, CIKM 2009; gdeval.pl

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {err}
-- the chance of stopping at each document within the cutoff, and of reading on past it
-- feature: stops := list_transform({grades}[:{n_cut}], lambda g: rankkit.stop_probability(g, {s.max}))
-- feature: reads_on := list_transform({grades}[:{n_cut}], lambda g: 1.0E0 - rankkit.stop_probability(g, {s.max}))
-- the chance of stopping at a document, times that of reading on past every one above it
-- feature: err := rankkit.ordered_sum(list_transform({stops}, lambda x, t:
--     x * list_reduce(list_prepend(1.0E0, {reads_on}[:t - 1]), lambda a, b: a * b) / {ranks}[t]))

CREATE OR REPLACE MACRO rankkit.err_value(f, s) AS
    f.err;

CREATE OR REPLACE MACRO rankkit.err(qrels_table, run_table, k := NULL, max := 4, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('err', 'ERR', 'mean', k := k, max := max)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
