-- name:      R
-- aliases:   recall_{k}, recall, set_recall, SetR
-- params:    k, rel
-- aggregate: mean
-- summary:   recall: relevant documents in the top k over the relevant documents in the qrels (0 when none); no cutoff (R, SetR): over every document retrieved, but the name recall alone is trec_eval's family, recall@5 ... recall@1000
-- cite:      trec_eval (recall_k, set_recall)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({rel_ret}, {num_rel})

CREATE OR REPLACE MACRO rankkit.r_value(f, s) AS
    rankkit.ratio(f.rel_ret, f.num_rel);

CREATE OR REPLACE MACRO rankkit.r(qrels_table, run_table, k := NULL, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('r', 'R', 'mean', k := k, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
