-- name:      INSQ
-- aliases:   
-- params:    max
-- aggregate: mean
-- summary:   INSQ, a C/W/L user model (T = 1, ir_measures' default): the user reads on past rank i with chance ((i + 2T - 1) / (i + 2T))^2, so rank r is read with weight (2T / (r - 1 + 2T))^2; the expected gain per document read, gains scaled to [0, 1] by max (grade / max, capped at 1), over cwl_eval's 1000 ranks
-- cite:      Moffat, Bailey, Scholer and Thomas, INST: an adaptive metric for information retrieval evaluation, ADCS 2015; cwl_eval; ir_measures (INSQ)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {insq_sum} / rankkit.ordered_sum(list_transform(range(1, 1001), lambda r: 1.0E0 / pow(r + 1.0E0, 2)))
-- each judged document within rank 1000 gains its scaled grade, weighted 1 / (r - 1 + 2T)^2 with T = 1
-- feature: insq_sum := rankkit.ordered_sum(list_transform({ranks}, lambda r, t:
--     CASE WHEN r <= 1000 THEN least(greatest({grades}[t], 0.0E0), {s.max}) / {s.max} / pow(r + 1.0E0, 2) ELSE 0.0E0 END))

CREATE OR REPLACE MACRO rankkit.insq_value(f, s) AS
    f.insq_sum / rankkit.ordered_sum(list_transform(range(1, 1001), lambda r: 1.0E0 / pow(r + 1.0E0, 2)));

CREATE OR REPLACE MACRO rankkit.insq(qrels_table, run_table, max := 4, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('insq', 'INSQ', 'mean', max := max)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
