-- name:      SDCG
-- aliases:   
-- params:    k, max
-- aggregate: mean
-- summary:   scaled DCG, the C/W/L framework's: DCG@k of gains scaled to [0, 1] by the top of the grading scale (grade / max, capped at 1), over the DCG@k of k documents of full gain; ranks past 1000 are not read (cwl_eval's depth); no cutoff: k = 1000
-- cite:      Azzopardi, Thomas and Moffat, cwl_eval: an evaluation tool for information retrieval, SIGIR 2019; ir_measures (SDCG)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({sdcg_sum}, rankkit.ordered_sum(list_transform(range(1, least(coalesce({s.k}, 1000), 1000) + 1),
--     lambda r: 1.0E0 / rankkit.discount(r))))
-- each judged document within k and rank 1000 gains its grade over max (negative grades 0, above max 1)
-- feature: sdcg_sum := rankkit.ordered_sum(list_transform({ranks}[:{n_cut}], lambda r, t:
--     CASE WHEN r <= 1000 THEN least(greatest({grades}[t], 0.0E0), {s.max}) / {s.max} / rankkit.discount(r) ELSE 0.0E0 END))

CREATE OR REPLACE MACRO rankkit.sdcg_value(f, s) AS
    rankkit.ratio(f.sdcg_sum, rankkit.ordered_sum(list_transform(range(1, least(coalesce(s.k, 1000), 1000) + 1), lambda r: 1.0E0 / rankkit.discount(r))));

CREATE OR REPLACE MACRO rankkit.sdcg(qrels_table, run_table, k := NULL, max := 4, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('sdcg', 'SDCG', 'mean', k := k, max := max)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
