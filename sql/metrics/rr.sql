-- name:      RR
-- aliases:   recip_rank, MRR
-- params:    k, rel
-- aggregate: mean
-- summary:   reciprocal rank of the first relevant document within k (0 if none); its mean is MRR
-- cite:      Voorhees, The TREC-8 Question Answering Track Report, TREC 1999

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio(1, {first_rel})

CREATE OR REPLACE MACRO rankkit.rr_value(f, s) AS
    rankkit.ratio(1, f.first_rel);

CREATE OR REPLACE MACRO rankkit.rr(qrels_table, run_table, k := NULL, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('rr', 'RR', 'mean', k := k, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
