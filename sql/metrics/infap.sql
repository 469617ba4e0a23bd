-- name:      infAP
-- aliases:   
-- params:    rel
-- aggregate: mean
-- summary:   inferred AP: at each relevant document, precision above it estimated from the judged documents above it (grades below 0 are pooled but unjudged), averaged over the relevant documents; equals AP when every retrieved document is judged
-- cite:      Yilmaz and Aslam, Estimating average precision with incomplete and imperfect judgments, CIKM 2006

CREATE OR REPLACE MACRO rankkit.infap_value(f, s) AS
    rankkit.ratio(f.infap_sum, f.num_rel);

CREATE OR REPLACE MACRO rankkit.infap(qrels_table, run_table, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('infap', 'infAP', 'mean', rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
