-- name:      G
-- aliases:   G_{gains}
-- params:    gains
-- aggregate: mean
-- summary:   normalised gain: each retrieved gain over log2(2 + what the ideal ranking gained so far, at least 1 a rank, minus what this ranking gained), summed, over the ideal total gain
-- cite:      trec_eval (G)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({g_sum}, {ideal_cg})
-- each gain over log2(2 + what the ideal ranking would have gained so far, at least 1 a rank, minus
-- what this ranking gained)
-- feature: extra_cost_terms := list_transform({ideal}, lambda x: greatest(x - 1.0E0, 0.0E0))
-- feature: extra_cost := rankkit.running_sum({extra_cost_terms})
-- feature: g_sum := coalesce(rankkit.ordered_sum(list_transform({gain_at}, lambda t, m:
--     {gain_values}[m] / log2(2.0E0 + {ranks}[t] + {extra_cost}[least({ranks}[t], len({ideal}))]
--                          - rankkit.ordered_sum({gain_values}[:m])))), 0.0E0)
-- feature: ideal_cg := rankkit.ordered_sum({ideal})

CREATE OR REPLACE MACRO rankkit.g_value(f, s) AS
    rankkit.ratio(f.g_sum, f.ideal_cg);

CREATE OR REPLACE MACRO rankkit.g(qrels_table, run_table, gains := NULL, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('g', 'G', 'mean', gains := gains)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
