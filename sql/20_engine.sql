-- rankkit.per_query: the engine behind every table macro and rankkit.evaluate.
--
-- specs is a list of measure specs, one struct each:
--   {i, measure, metric, k, rel, gain, ideal, empty, max, agg}
-- (rankkit.measure_specs builds them from names such as 'nDCG@10'). The run is ranked once; only
-- the judged documents of the ranked run go on, with their ranks, to the per-spec work, so the cost
-- of many measures is close to the cost of one.
--
-- queries := 'both'  queries present in both the run and the qrels (trec_eval's default)
-- queries := 'qrels' every query of the qrels, those missing from a run scoring 0 (trec_eval -c)
-- A query counts as judged when the qrels list it at all, even with only zero or negative grades.
-- Duplicates (a document twice for one query, in the qrels or in one system's run) are an error,
-- as in trec_eval; validate := false skips that check for inputs already validated.

CREATE OR REPLACE MACRO rankkit.per_query(qrels_table, run_table, specs, ties := 'trec',
        scores := 'double', depth := NULL, queries := 'both', validate := true) AS TABLE
WITH
spec AS (SELECT unnest(s) FROM (SELECT unnest(specs) AS s)),
qrels AS (FROM rankkit.qrels_rows(qrels_table)),
ranked AS (FROM rankkit.ranked(run_table, ties := ties, scores := scores, depth := depth)),
retrieved AS (
    SELECT system, query_id, count(*) AS num_ret,
           CASE WHEN validate THEN count(DISTINCT doc_id) END AS distinct_docs
    FROM ranked GROUP BY system, query_id
),
checks AS (
    SELECT CASE
        WHEN queries NOT IN ('both', 'qrels')
            THEN error('rankkit: queries must be both or qrels, got ''' || queries || '''')
        WHEN ties = 'average' AND EXISTS (SELECT 1 FROM spec WHERE metric NOT IN ('cg', 'dcg', 'idcg', 'ndcg'))
            THEN error('rankkit: ties=average applies to the gain-based measures (CG, DCG, IDCG, nDCG) only, not '
                       || (SELECT string_agg(measure, ', ' ORDER BY i) FROM spec WHERE metric NOT IN ('cg', 'dcg', 'idcg', 'ndcg')))
        WHEN validate AND EXISTS (SELECT 1 FROM retrieved WHERE num_ret > distinct_docs)
            THEN error((SELECT 'rankkit: duplicate document ' || doc_id || ' for query ' || query_id
                               || coalesce(' in system ' || system, '') || ' in the run'
                        FROM ranked GROUP BY system, query_id, doc_id HAVING count(*) > 1
                        ORDER BY query_id, doc_id LIMIT 1))
        WHEN validate AND EXISTS (SELECT 1 FROM qrels GROUP BY query_id, doc_id HAVING count(*) > 1)
            THEN error((SELECT 'rankkit: duplicate document ' || doc_id || ' for query ' || query_id
                               || ' in the qrels'
                        FROM qrels GROUP BY query_id, doc_id HAVING count(*) > 1
                        ORDER BY query_id, doc_id LIMIT 1))
        ELSE true END AS ok
),
judged_queries AS (SELECT DISTINCT query_id FROM qrels),
evaluated AS (
    SELECT system, query_id FROM retrieved SEMI JOIN judged_queries USING (query_id)
    WHERE queries = 'both'
    UNION ALL
    SELECT s.system, q.query_id
    FROM (SELECT DISTINCT system FROM retrieved) s CROSS JOIN judged_queries q
    WHERE queries = 'qrels'
),
-- per spec and query, what the qrels alone determine
qrels_stats AS (
    SELECT spec.i, qrels.query_id,
           count(*) FILTER (WHERE qrels.grade >= spec.rel) AS num_rel,
           count(*) FILTER (WHERE qrels.grade >= 0 AND qrels.grade < spec.rel) AS num_nonrel
    FROM qrels CROSS JOIN spec
    GROUP BY spec.i, qrels.query_id
),
-- the ideal ordering: every judged document by grade, best first (trec_eval's ideal=qrels)
ideal_qrels AS (
    SELECT i, query_id,
           sum(rankkit.gain(grade, gain) / rankkit.discount(pos)) FILTER (WHERE k IS NULL OR pos <= k) AS idcg
    FROM (
        SELECT spec.i, spec.k, spec.gain, qrels.query_id, qrels.grade,
               row_number() OVER (PARTITION BY spec.i, qrels.query_id ORDER BY qrels.grade DESC) AS pos
        FROM qrels CROSS JOIN spec
        WHERE qrels.grade > 0 AND spec.ideal = 'qrels' AND spec.metric IN ('idcg', 'ndcg')
    )
    GROUP BY i, query_id
),
judged AS (
    SELECT ranked.system, ranked.query_id, ranked.rank, qrels.grade
    FROM ranked JOIN qrels USING (query_id, doc_id)
),
-- ties := 'average' (McSherry and Najork, ECIR 2008; scikit-learn's dcg_score): a judged document
-- in a group of equal scores spanning ranks [a, b] is equally likely at each of those ranks, so it
-- gains g * (discounts of ranks a..min(b, k)) / (b - a + 1). Empty, and so free, for other tie rules.
tie_groups AS (
    SELECT system, query_id, rank,
           min(rank) OVER tie AS tie_first, count(*) OVER tie AS tie_size
    FROM ranked
    WHERE ties = 'average'
    WINDOW tie AS (PARTITION BY system, query_id, CASE WHEN scores = 'float32' THEN score::FLOAT::DOUBLE ELSE score END)
),
-- running sums of 1 / log2(r + 1): the discounts of ranks a..b are cum(b) - cum(a - 1), as
-- scikit-learn computes them (every query's ranks run 1..n, so the distinct ranks are 1..max n)
discount_sums AS (
    SELECT r, sum(1.0E0 / rankkit.discount(r)) OVER (ORDER BY r ROWS UNBOUNDED PRECEDING) AS cum
    FROM (SELECT DISTINCT rank AS r FROM tie_groups)
),
-- each judged document of a tie group, per spec: the last rank of its group within the cutoff
tie_spans AS (
    SELECT spec.i, judged.system, judged.query_id, t.tie_first, t.tie_size,
           rankkit.gain(judged.grade, spec.gain) AS g,
           least(t.tie_first + t.tie_size - 1, coalesce(spec.k, t.tie_first + t.tie_size - 1)) AS last_cut
    FROM judged
    JOIN tie_groups t ON t.system IS NOT DISTINCT FROM judged.system AND t.query_id = judged.query_id
                     AND t.rank = judged.rank
    CROSS JOIN spec
),
tie_features AS (
    SELECT i, system, query_id,
           sum(g * (last_cut - tie_first + 1) / tie_size) AS cg,
           sum(g * (hi.cum - coalesce(lo.cum, 0.0E0)) / tie_size) AS dcg
    FROM tie_spans
    JOIN discount_sums hi ON hi.r = last_cut
    LEFT JOIN discount_sums lo ON lo.r = tie_first - 1
    WHERE last_cut >= tie_first
    GROUP BY i, system, query_id
),
judged_spec AS (
    SELECT spec.i, spec.k, spec.metric, spec.ideal, spec.gain,
           judged.system, judged.query_id, judged.rank, judged.grade,
           judged.grade >= spec.rel AS relevant,
           judged.grade >= 0 AND judged.grade < spec.rel AS nonrelevant,
           rankkit.gain(judged.grade, spec.gain) AS g,
           rankkit.stop_probability(judged.grade, spec.max) AS p_stop,
           coalesce(qrels_stats.num_rel, 0) AS num_rel,
           coalesce(qrels_stats.num_nonrel, 0) AS num_nonrel
    FROM judged CROSS JOIN spec
    LEFT JOIN qrels_stats ON qrels_stats.i = spec.i AND qrels_stats.query_id = judged.query_id
),
running AS (
    SELECT *,
           k IS NULL OR rank <= k AS in_cut,
           count(*) FILTER (WHERE relevant) OVER down AS relevant_so_far,
           count(*) FILTER (WHERE nonrelevant) OVER down AS nonrelevant_so_far,
           coalesce(product(1.0E0 - p_stop) OVER above, 1.0E0) AS p_reach,
           CASE WHEN ideal = 'run' AND metric IN ('idcg', 'ndcg')
                THEN row_number() OVER (PARTITION BY i, system, query_id ORDER BY grade DESC) END AS ideal_pos
    FROM judged_spec
    WINDOW down AS (PARTITION BY i, system, query_id ORDER BY rank ROWS UNBOUNDED PRECEDING),
           above AS (PARTITION BY i, system, query_id ORDER BY rank
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
features AS (
    SELECT i, system, query_id,
           count(*) FILTER (WHERE relevant AND in_cut) AS rel_ret,
           count(*) FILTER (WHERE in_cut) AS judged_ret,
           count(*) FILTER (WHERE relevant AND rank <= num_rel) AS rel_in_r,
           sum(g) FILTER (WHERE in_cut) AS cg,
           sum(g / rankkit.discount(rank)) FILTER (WHERE in_cut) AS dcg,
           sum(g / rankkit.discount(ideal_pos)) FILTER (WHERE k IS NULL OR ideal_pos <= k) AS idcg_run,
           sum(relevant_so_far * 1.0E0 / rank) FILTER (WHERE relevant AND in_cut) AS ap_sum,
           min(rank) FILTER (WHERE relevant AND in_cut) AS first_rel,
           sum(p_stop * p_reach / rank) FILTER (WHERE in_cut) AS err,
           -- bpref: each relevant document loses the share of judged non-relevant ones above it
           sum(1.0E0 - rankkit.ratio(least(nonrelevant_so_far, num_rel), least(num_rel, num_nonrel)))
               FILTER (WHERE relevant) AS bpref_sum
    FROM running
    GROUP BY i, system, query_id
),
valued AS (
    SELECT spec.i, spec.measure, spec.agg, evaluated.system, evaluated.query_id,
           rankkit.measure_value(spec.metric, {
               'num_ret': coalesce(retrieved.num_ret, 0),
               'ret_k': least(coalesce(retrieved.num_ret, 0), coalesce(spec.k, retrieved.num_ret, 0)),
               'num_rel': coalesce(qrels_stats.num_rel, 0),
               'num_nonrel': coalesce(qrels_stats.num_nonrel, 0),
               'rel_ret': coalesce(features.rel_ret, 0),
               'judged_ret': coalesce(features.judged_ret, 0),
               'rel_in_r': coalesce(features.rel_in_r, 0),
               'cg': coalesce(CASE WHEN ties = 'average' THEN tie_features.cg ELSE features.cg END, 0.0E0),
               'dcg': coalesce(CASE WHEN ties = 'average' THEN tie_features.dcg ELSE features.dcg END, 0.0E0),
               'idcg': coalesce(CASE WHEN spec.ideal = 'run' THEN features.idcg_run ELSE ideal_qrels.idcg END, 0.0E0),
               'ap_sum': coalesce(features.ap_sum, 0.0E0),
               'first_rel': features.first_rel,
               'err': coalesce(features.err, 0.0E0),
               'bpref_sum': coalesce(features.bpref_sum, 0.0E0)
           }, spec) AS value
    FROM evaluated CROSS JOIN spec CROSS JOIN checks
    LEFT JOIN retrieved ON retrieved.system IS NOT DISTINCT FROM evaluated.system
                       AND retrieved.query_id = evaluated.query_id
    LEFT JOIN qrels_stats ON qrels_stats.i = spec.i AND qrels_stats.query_id = evaluated.query_id
    LEFT JOIN ideal_qrels ON ideal_qrels.i = spec.i AND ideal_qrels.query_id = evaluated.query_id
    LEFT JOIN features ON features.i = spec.i AND features.system IS NOT DISTINCT FROM evaluated.system
                      AND features.query_id = evaluated.query_id
    LEFT JOIN tie_features ON tie_features.i = spec.i AND tie_features.system IS NOT DISTINCT FROM evaluated.system
                          AND tie_features.query_id = evaluated.query_id
    WHERE checks.ok
)
SELECT i, measure, agg, system, query_id, value FROM valued;

-- rankkit.aggregate: one row per measure and system: the mean over evaluated queries (the sum for
-- counts, as trec_eval), and how many queries it covers (empty := 'skip' leaves some out).
CREATE OR REPLACE MACRO rankkit.aggregate(qrels_table, run_table, specs, ties := 'trec',
        scores := 'double', depth := NULL, queries := 'both', validate := true) AS TABLE
    SELECT measure, system,
           CASE WHEN any_value(agg) = 'sum' THEN sum(value) ELSE avg(value) END AS value,
           count(value) AS queries
    FROM rankkit.per_query(qrels_table, run_table, specs, ties := ties, scores := scores,
                           depth := depth, queries := queries, validate := validate)
    GROUP BY i, measure, system
    ORDER BY i, system;
