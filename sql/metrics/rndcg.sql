-- name:      Rndcg
-- aliases:   Rndcg_{gains}
-- params:    gains, rel
-- aggregate: mean
-- summary:   nDCG averaged over the R levels: the ranks where the ideal gain drops (after the documents of each grade), and the end of a ranking that runs past them
-- cite:      trec_eval (Rndcg)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: CASE WHEN {num_rel} > 0 THEN rankkit.ratio({rndcg_sum}, {rndcg_points}) ELSE 0.0E0 END
-- nDCG where the ideal gain drops (the R levels of each grade) and at the end of the ranking: at each
-- point, the DCG of the judged documents up to it over the ideal DCG there
-- feature: dcg_terms := list_transform({gains}, lambda x, t: x / rankkit.discount({ranks}[t]))
-- feature: drops := CASE WHEN {retrieved} AND len({ideal}) > 0
--     THEN list_filter(range(2, len({ideal}) + 1), lambda pos: {ideal}[pos] <> {ideal}[pos - 1]) END
-- feature: rndcg_sum := CASE WHEN {retrieved} AND len({ideal}) > 0
--     THEN rankkit.ordered_sum(
--         list_transform({drops}, lambda pos:
--             rankkit.ordered_sum({dcg_terms}[:len(list_filter({ranks}, lambda r: r <= least(pos - 1, {num_ret})))])
--             / ({idcg_so_far}[pos] - {ideal}[pos] / rankkit.discount(pos)))
--         || [rankkit.ordered_sum({dcg_terms}[:len(list_filter({ranks}, lambda r: r <= least(len({ideal}), {num_ret})))])
--             / {idcg_so_far}[len({ideal})]]
--         || CASE WHEN {num_ret} > len({ideal}) + 1
--                 THEN [rankkit.ordered_sum({dcg_terms}) / {idcg_so_far}[len({ideal})]] ELSE [] END)
--     ELSE 0.0E0 END
-- feature: rndcg_points := CASE WHEN {retrieved} AND len({ideal}) > 0
--     THEN len({drops}) + 1 + CASE WHEN {num_ret} > len({ideal}) + 1 THEN 1 ELSE 0 END ELSE 0 END

CREATE OR REPLACE MACRO rankkit.rndcg_value(f, s) AS
    CASE WHEN f.num_rel > 0 THEN rankkit.ratio(f.rndcg_sum, f.rndcg_points) ELSE 0.0E0 END;

CREATE OR REPLACE MACRO rankkit.rndcg(qrels_table, run_table, gains := NULL, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('rndcg', 'Rndcg', 'mean', gains := gains, rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
