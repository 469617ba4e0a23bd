-- name:      INST
-- aliases:   
-- params:    max
-- aggregate: mean
-- summary:   INST, a C/W/L user model (T = 1, ir_measures' default): past rank i the user reads on with chance ((i + 2T - 1 - G_i) / (i + 2T - G_i))^2, G_i the gain read so far, so reading stops sooner once the wanted gain T is met; the expected gain per document read, gains scaled to [0, 1] by max (grade / max, capped at 1), over cwl_eval's 1000 ranks
-- cite:      Moffat, Bailey, Scholer and Thomas, INST: an adaptive metric for information retrieval evaluation, ADCS 2015; cwl_eval; ir_measures (INST)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ordered_sum(list_transform({inst_reads}, lambda x, t: x * {inst_gains}[t])) / rankkit.ordered_sum({inst_reads})
-- the scaled gain at each of ranks 1 to 1000 (0 where no judged document is), the gain read up to
-- each, and the chance of reading each rank: 1, then the product of the chances of reading on (T = 1)
-- feature: inst_gains := list_transform(range(1, 1001), lambda r:
--     coalesce(least(greatest({grades}[list_position({ranks}, r)], 0.0E0), {s.max}) / {s.max}, 0.0E0))
-- feature: inst_read := rankkit.running_sum({inst_gains})
-- feature: inst_reads := list_reduce(list_transform({inst_read}[:999], lambda g, i: [pow((i + 1.0E0 - g) / (i + 2.0E0 - g), 2)]),
--     lambda reads, x: list_append(reads, reads[-1] * x[1]), [1.0E0])

CREATE OR REPLACE MACRO rankkit.inst_value(f, s) AS
    rankkit.ordered_sum(list_transform(f.inst_reads, lambda x, t: x * f.inst_gains[t])) / rankkit.ordered_sum(f.inst_reads);

CREATE OR REPLACE MACRO rankkit.inst(qrels_table, run_table, max := 4, ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('inst', 'INST', 'mean', max := max)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
