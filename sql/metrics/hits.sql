-- name:      Hits
-- aliases:   hits
-- params:    k, rel
-- aggregate: mean
-- summary:   number of relevant documents in the top k, averaged over queries (ranx's hits; NumRelRet is the same count summed, trec_eval's num_rel_ret)
-- cite:      ranx (hits)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {rel_ret} * 1.0E0

CREATE OR REPLACE MACRO rankkit.hits_value(f, s) AS
    f.rel_ret * 1.0E0;

CREATE OR REPLACE MACRO rankkit.hits(qrels_table, run_table, k := NULL, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('hits', 'Hits', 'mean', k := k, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
