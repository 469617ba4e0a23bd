-- name:      NumRel
-- aliases:   num_rel
-- params:    rel
-- aggregate: sum
-- summary:   number of relevant documents in the qrels
-- cite:      trec_eval (num_rel)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {num_rel} * 1.0E0

CREATE OR REPLACE MACRO rankkit.numrel_value(f, s) AS
    f.num_rel * 1.0E0;

CREATE OR REPLACE MACRO rankkit.numrel(qrels_table, run_table, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('numrel', 'NumRel', 'sum', rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
