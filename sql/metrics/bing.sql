-- name:      binG
-- aliases:   
-- params:    rel
-- aggregate: mean
-- summary:   binary G: each relevant document retrieved gains 1 / log2(2 + documents above it not relevant), summed, over the number of relevant documents
-- cite:      trec_eval (binG)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({bing_sum}, {num_rel})
-- a relevant document gains 1 / log2(2 + the documents above it that are not relevant)
-- feature: bing_sum := rankkit.ordered_sum(list_transform({rel_ranks}, lambda r, j: 1.0E0 / log2(2.0E0 + r - j)))

CREATE OR REPLACE MACRO rankkit.bing_value(f, s) AS
    rankkit.ratio(f.bing_sum, f.num_rel);

CREATE OR REPLACE MACRO rankkit.bing(qrels_table, run_table, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('bing', 'binG', 'mean', rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
