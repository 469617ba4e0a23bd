-- name:      CG
-- aliases:   
-- params:    k, gain
-- aggregate: mean
-- summary:   cumulative gain: the sum of the gains of the top k documents
-- cite:      Järvelin and Kekäläinen, Cumulated gain-based evaluation of IR techniques, ACM TOIS 20(4), 2002
-- ties:      trec, rank, average

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {cg}
-- feature: cg := rankkit.ordered_sum({gains}[:{n_cut}])
-- ties := 'average': each judged document's gain times the share of its tie group within the cutoff
-- feature: cg [ties=average] := rankkit.ordered_sum(list_transform({gains}, lambda x, t:
--     CASE WHEN rankkit.tie_last({tie_firsts}[t], {tie_sizes}[t], {s.k}) >= {tie_firsts}[t]
--          THEN x * (rankkit.tie_last({tie_firsts}[t], {tie_sizes}[t], {s.k}) - {tie_firsts}[t] + 1) / {tie_sizes}[t]
--          ELSE 0.0E0 END))

CREATE OR REPLACE MACRO rankkit.cg_value(f, s) AS
    f.cg;

CREATE OR REPLACE MACRO rankkit.cg(qrels_table, run_table, k := NULL, gain := 'linear', ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('cg', 'CG', 'mean', k := k, gain := gain)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
