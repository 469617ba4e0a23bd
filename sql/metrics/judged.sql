-- name:      Judged
-- aliases:   
-- params:    k
-- aggregate: mean
-- summary:   judgement rate: the share of the top k retrieved documents that appear in the qrels (over k, or the number retrieved when fewer)
-- cite:      MacAvaney et al., OpenNIR (ir_measures' Judged@k)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({n_cut}, {ret_k})

CREATE OR REPLACE MACRO rankkit.judged_value(f, s) AS
    rankkit.ratio(f.judged_ret, f.ret_k);

CREATE OR REPLACE MACRO rankkit.judged(qrels_table, run_table, k := NULL, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('judged', 'Judged', 'mean', k := k)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
