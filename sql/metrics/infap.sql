-- name:      infAP
-- aliases:   
-- params:    rel
-- aggregate: mean
-- summary:   inferred AP: at each relevant document, precision above it estimated from the judged documents above it (grades below 0 are pooled but unjudged), averaged over the relevant documents; equals AP when every retrieved document is judged
-- cite:      Yilmaz and Aslam, Estimating average precision with incomplete and imperfect judgments, CIKM 2006

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({infap_sum}, {num_rel})
-- precision above a relevant document estimated from the judged documents above it (those judged
-- negative count as pooled but unjudged), as trec_eval; the j-th relevant document, at t in the judged
-- list and u among the rated ones, has t - 1 judged, j - 1 relevant and u - j judged non-relevant above it
-- feature: rel_at := list_filter(range(1, len({grades}) + 1), lambda t: {grades}[t] >= {s.rel})
-- feature: infap_sum := rankkit.ordered_sum(list_transform({rel_at}, lambda t, j:
--     CASE WHEN {ranks}[t] = 1 THEN 1.0E0
--          ELSE 1.0E0 / {ranks}[t] + (({ranks}[t] - 1.0E0) / {ranks}[t])
--               * ((t - 1.0E0) / ({ranks}[t] - 1.0E0))
--               * ((j - 1.0E0 + 1.0E-5) / (j - 1.0E0 + ({rel_rated_at}[j] - j) + 2.0E-5)) END))

CREATE OR REPLACE MACRO rankkit.infap_value(f, s) AS
    rankkit.ratio(f.infap_sum, f.num_rel);

CREATE OR REPLACE MACRO rankkit.infap(qrels_table, run_table, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('infap', 'infAP', 'mean', rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
