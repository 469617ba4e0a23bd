-- name:      bpref
-- aliases:   
-- params:    rel
-- aggregate: mean
-- summary:   binary preference: for each relevant document retrieved, 1 minus the share of judged non-relevant documents ranked above it, over the number of relevant documents; unjudged and negative grades are skipped
-- cite:      Buckley and Voorhees, Retrieval evaluation with incomplete information, SIGIR 2004

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({bpref_sum}, {num_rel})

CREATE OR REPLACE MACRO rankkit.bpref_value(f, s) AS
    rankkit.ratio(f.bpref_sum, f.num_rel);

CREATE OR REPLACE MACRO rankkit.bpref(qrels_table, run_table, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('bpref', 'bpref', 'mean', rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
