-- What is wrong with a row the engine refuses, naming its query and document.
CREATE OR REPLACE MACRO rankkit.bad_row(query_id, doc_id, what, number) AS
    CASE WHEN query_id IS NULL THEN 'a NULL query id (document ' || coalesce(doc_id, 'NULL') || ')'
         WHEN doc_id IS NULL THEN 'a NULL document id for query ' || query_id
         ELSE 'the ' || what || ' of document ' || doc_id || ' for query ' || query_id || ' is '
              || CASE WHEN number IS NULL THEN 'NULL' WHEN isnan(number) THEN 'NaN'
                      ELSE number::VARCHAR END
              || '; expected a finite number' END;

-- rankkit.per_query: the engine behind every table macro and rankkit.evaluate, in two stages.
--
-- 1. rankkit.ranks ranks the run: per system and query, the judged documents of the ranked run with
--    their ranks and grades. It reads no measure, so a caller who keeps its result (the explorer,
--    between settings) can change cutoffs, gains and measures without ranking the run again.
-- 2. rankkit.per_query_ranked computes each measure's per-query value from that table and the qrels.
--
-- rankkit.per_query checks the raw inputs and runs both stages in one statement.
--
-- specs is a list of measure specs, one struct each:
--   {i, measure, metric, k, rel, gain, ideal, empty, max, agg ...}
-- (rankkit.measure_specs builds them from names such as 'nDCG@10'). The run is ranked once; only
-- the judged documents of the ranked run go on, with their ranks, to the per-spec work, so the cost
-- of many measures is close to the cost of one.
--
-- queries := 'both'  queries present in both the run and the qrels (trec_eval's default)
-- queries := 'qrels' every query of the qrels, those missing from a run scoring 0 (trec_eval -c)
-- judged_only := true keeps only the documents the qrels judge (grade >= 0), ranked among themselves,
--                  as trec_eval -J does (after the depth cut, as there)
-- A query counts as judged when the qrels list it at all, even with only zero or negative grades.
-- Duplicates (a document twice for one query, in the qrels or in one system's run) are an error,
-- as in trec_eval; validate := false skips that check for inputs already validated.

-- rankkit.ranks: the ranking stage. One row per judged document of the ranked run (after depth and
-- judged_only), per system and query:
--   system, query_id  as in the run
--   num_ret           the documents the query retrieved (after depth; with judged_only, the judged ones)
--   rank, grade       the document's rank in the ranked run and its grade in the qrels
--   tie_first, tie_size  ties := 'average' only: the first rank and the size of its group of equal scores
-- and one row with rank, grade and tie columns NULL for a query that retrieved no judged document,
-- so that every query of the run is there. The arguments are rankkit.per_query's; the rows are not
-- checked (rankkit.per_query does that).
CREATE OR REPLACE MACRO rankkit.ranks(qrels_table, run_table, ties := 'trec', scores := 'double', depth := NULL,
        judged_only := false, keyed := false) AS TABLE
WITH
qrels AS (SELECT *, hash(query_id, doc_id) AS key FROM rankkit.qrels_rows(qrels_table)),
run AS NOT MATERIALIZED (FROM rankkit.run_keys(run_table, ties := ties, scores := scores, depth := depth)),
-- Ranking. Sorting every run row would cost most of an evaluation, yet the measures need only the
-- ranks of the judged documents. In a query with few judged documents, a judged document's rank
-- is the number of the query's rows at or above it (score, then doc_id, descending): a hash join,
-- no sort. A query with many judged documents (where that join multiplies rows), and the rank and
-- average tie rules, get a window ordered as rankkit.ranked orders.
-- keyed := true: the run table stores rankkit_key, a 64-bit hash of query and document (as
-- rankkit's parsed text does, see rankkit.run_keys), and the join with the qrels goes by it:
-- hashing two strings per run row cost most of this join. Equal keys of different documents must
-- not match; inside a CASE, that test stays a check on the few rows that meet, where DuckDB would
-- otherwise hash the strings again as join keys. A key computed on the fly (keyed := false) has no
-- statistics: DuckDB would guess the join a cross product and build the next hash table on the
-- whole run, so the ids are joined as they are.
run_judged AS (
    SELECT run.system, run.query_id, run.doc_id, run.score_key, qrels.grade
    FROM run JOIN qrels ON run.key = qrels.key
        AND CASE WHEN run.query_id = qrels.query_id AND run.doc_id = qrels.doc_id THEN true ELSE false END
    WHERE keyed
    UNION ALL
    SELECT run.system, run.query_id, run.doc_id, run.score_key, qrels.grade
    FROM run JOIN qrels USING (query_id, doc_id)
    WHERE NOT keyed
),
by_window AS (
    SELECT system, query_id FROM run_judged
    GROUP BY system, query_id
    HAVING ties <> 'trec' OR count(*) > 8 OR count(*) FILTER (WHERE score_key IS NULL) > 0
),
by_count AS (
    SELECT * FROM run_judged j
    ANTI JOIN by_window w ON w.system IS NOT DISTINCT FROM j.system AND w.query_id = j.query_id
),
-- one pass over the run: every query's length, and the rank of each document in by_count
counted AS (
    SELECT run.system, run.query_id, c.doc_id, any_value(c.grade) AS grade, count(*) AS num_rows,
           count(*) FILTER (WHERE run.score_key > c.score_key
                            OR (run.score_key = c.score_key AND run.doc_id >= c.doc_id)) AS rank
    FROM run LEFT JOIN by_count c ON c.system IS NOT DISTINCT FROM run.system AND c.query_id = run.query_id
    GROUP BY run.system, run.query_id, c.doc_id
),
-- the rows of the queries ranked by a window (every row of those queries, for tie groups)
ranked AS (
    SELECT run.system, run.query_id, run.doc_id, run.score_key,
           row_number() OVER (PARTITION BY run.system, run.query_id
                              ORDER BY run.rank_key ASC NULLS LAST, run.score_key DESC NULLS LAST,
                                       run.doc_id DESC NULLS LAST) AS rank
    FROM run SEMI JOIN by_window w ON w.system IS NOT DISTINCT FROM run.system AND w.query_id = run.query_id
),
windowed AS (
    SELECT ranked.system, ranked.query_id, ranked.rank, qrels.grade
    FROM ranked JOIN qrels USING (query_id, doc_id)
),
cut AS (
    SELECT system, query_id, rank, grade FROM (
        SELECT system, query_id, rank, grade FROM counted WHERE doc_id IS NOT NULL
        UNION ALL
        SELECT system, query_id, rank, grade FROM windowed
    )
    WHERE depth IS NULL OR rank <= depth
),
-- the judged documents of the ranked run (within depth), with their ranks; judged_only := true
-- ranks the documents judged >= 0 among themselves (trec_eval -J)
judged AS (
    SELECT system, query_id, rank, grade FROM cut WHERE NOT judged_only
    UNION ALL
    SELECT system, query_id, row_number() OVER (PARTITION BY system, query_id ORDER BY rank) AS rank, grade
    FROM cut WHERE judged_only AND grade >= 0
),
retrieved AS (
    SELECT system, query_id, least(max(num_rows), coalesce(depth, max(num_rows))) AS num_ret
    FROM counted WHERE NOT judged_only GROUP BY system, query_id
    UNION ALL
    SELECT c.system, c.query_id, count(j.rank) AS num_ret
    FROM (SELECT DISTINCT system, query_id FROM counted WHERE judged_only) c
    LEFT JOIN judged j ON j.system IS NOT DISTINCT FROM c.system AND j.query_id = c.query_id
    GROUP BY c.system, c.query_id
),
-- the groups of equal scores, for ties := 'average' (every row of those queries was ranked by the window)
tie_groups AS (
    SELECT system, query_id, rank,
           min(rank) OVER tie AS tie_first, count(*) OVER tie AS tie_size
    FROM ranked
    WHERE ties = 'average'
    WINDOW tie AS (PARTITION BY system, query_id, score_key)
)
SELECT retrieved.system, retrieved.query_id, retrieved.num_ret, judged.rank, judged.grade,
       tie_groups.tie_first, tie_groups.tie_size
FROM retrieved
LEFT JOIN judged ON judged.system IS NOT DISTINCT FROM retrieved.system AND judged.query_id = retrieved.query_id
LEFT JOIN tie_groups ON tie_groups.system IS NOT DISTINCT FROM judged.system AND tie_groups.query_id = judged.query_id
                    AND tie_groups.rank = judged.rank;

-- rankkit.input_checks: one row, ok = true, or an error naming what is wrong with the raw inputs:
-- a NULL id, score or grade, a NaN or infinite one, or (validate := true) a duplicate document.
CREATE OR REPLACE MACRO rankkit.input_checks(qrels_table, run_table, ties := 'trec', scores := 'double',
        depth := NULL, validate := true) AS TABLE
WITH
qrels AS (FROM rankkit.qrels_rows(qrels_table)),
run AS NOT MATERIALIZED (FROM rankkit.run_keys(run_table, ties := ties, scores := scores, depth := depth)),
-- Duplicates cost a hash table as large as the run, so only inputs not yet checked are checked.
run_duplicates AS (
    SELECT system, query_id, doc_id FROM run WHERE validate
    GROUP BY system, query_id, doc_id HAVING count(*) > 1
),
qrels_duplicates AS (
    SELECT query_id, doc_id FROM qrels WHERE validate
    GROUP BY query_id, doc_id HAVING count(*) > 1
),
-- What the Python readers refuse, refused here too: a NULL id, or a score or grade that is NULL, NaN
-- or infinite (DuckDB sorts NaN above every number: it would rank first).
run_bad AS (
    SELECT query_id, doc_id, score FROM run
    WHERE validate AND (query_id IS NULL OR doc_id IS NULL OR score IS NULL OR NOT isfinite(score))
    LIMIT 1
),
qrels_bad AS (
    SELECT query_id, doc_id, grade FROM qrels
    WHERE validate AND (query_id IS NULL OR doc_id IS NULL OR grade IS NULL OR NOT isfinite(grade))
    LIMIT 1
),
checks AS (
    SELECT CASE
        WHEN EXISTS (FROM run_bad)
            THEN error((SELECT 'rankkit: run table ' || run_table::VARCHAR || ': '
                               || rankkit.bad_row(query_id, doc_id, 'score', score) FROM run_bad))
        WHEN EXISTS (FROM qrels_bad)
            THEN error((SELECT 'rankkit: qrels table ' || qrels_table::VARCHAR || ': '
                               || rankkit.bad_row(query_id, doc_id, 'relevance', grade) FROM qrels_bad))
        WHEN EXISTS (FROM run_duplicates)
            THEN error((SELECT 'rankkit: duplicate document ' || doc_id || ' for query ' || query_id
                               || coalesce(' in system ' || system, '') || ' in the run'
                        FROM run_duplicates ORDER BY query_id, doc_id LIMIT 1))
        WHEN EXISTS (FROM qrels_duplicates)
            THEN error((SELECT 'rankkit: duplicate document ' || doc_id || ' for query ' || query_id
                               || ' in the qrels'
                        FROM qrels_duplicates ORDER BY query_id, doc_id LIMIT 1))
        ELSE true END AS ok
)
SELECT ok FROM checks;

-- rankkit.per_query_ranked: the value stage. ranks_table names a table (or a CTE of the calling
-- query) in the columns of rankkit.ranks; ties and queries are rankkit.per_query's. One row per
-- measure spec, system and evaluated query: i, measure, agg, system, query_id, value.
CREATE OR REPLACE MACRO rankkit.per_query_ranked(qrels_table, ranks_table, specs, ties := 'trec',
        queries := 'both') AS TABLE
WITH
ranks AS (FROM query_table(ranks_table::VARCHAR)),
spec AS (SELECT unnest(s) FROM (SELECT unnest(specs) AS s)),
qrels AS (FROM rankkit.qrels_rows(qrels_table)),
judged AS (SELECT system, query_id, rank, grade, tie_first, tie_size FROM ranks WHERE rank IS NOT NULL),
retrieved AS (SELECT system, query_id, any_value(num_ret) AS num_ret FROM ranks GROUP BY system, query_id),
checks AS (
    SELECT CASE
        WHEN ties = 'average' AND EXISTS (SELECT 1 FROM spec WHERE metric NOT IN ('cg', 'dcg', 'idcg', 'ndcg'))
            THEN error('rankkit: ties=average applies to the gain-based measures (CG, DCG, IDCG, nDCG) only, not '
                       || (SELECT string_agg(measure, ', ' ORDER BY i) FROM spec WHERE metric NOT IN ('cg', 'dcg', 'idcg', 'ndcg')))
        ELSE true END AS ok
),
judged_queries AS (SELECT DISTINCT query_id FROM qrels),
evaluated AS (
    SELECT system, query_id FROM retrieved SEMI JOIN judged_queries USING (query_id)
    WHERE queries = 'both'
    UNION ALL
    SELECT s.system, q.query_id
    FROM (SELECT DISTINCT system FROM retrieved) s CROSS JOIN judged_queries q
    -- the query-set check sits here: a value that selects no query would otherwise skip every check
    WHERE CASE WHEN queries = 'qrels' THEN true WHEN queries = 'both' THEN false
               ELSE error('rankkit: queries must be both or qrels, got ''' || queries || '''') END
),
-- per spec and query, what the qrels alone determine
qrels_stats AS (
    SELECT spec.i, qrels.query_id,
           count(*) FILTER (WHERE qrels.grade >= spec.rel) AS num_rel,
           count(*) FILTER (WHERE qrels.grade >= 0 AND qrels.grade < spec.rel) AS num_nonrel,
           max(qrels.grade) AS max_grade
    FROM qrels CROSS JOIN spec
    GROUP BY spec.i, qrels.query_id
),
-- the ideal ordering: every judged document of positive gain, best first (trec_eval's ideal=qrels),
-- with what the trec_eval measures built on it read at each position: the ideal DCG so far, the
-- gain above 1 so far (G's cost) and whether the gain drops there (Rndcg's R levels)
ideal_list AS (
    SELECT i, k, metric, query_id, pos, ideal_gain,
           sum(ideal_gain / rankkit.discount(pos)) OVER up AS idcg_so_far,
           sum(greatest(ideal_gain - 1.0E0, 0.0E0)) OVER up AS extra_cost,
           ideal_gain IS DISTINCT FROM lag(ideal_gain) OVER (PARTITION BY i, query_id ORDER BY pos) AS drops
    FROM (
        SELECT i, k, metric, query_id, ideal_gain,
               row_number() OVER (PARTITION BY i, query_id ORDER BY ideal_gain DESC) AS pos
        FROM (
            SELECT spec.i, spec.k, spec.metric, qrels.query_id,
                   rankkit.gain(qrels.grade, spec.gain, spec.gains) AS ideal_gain
            FROM qrels CROSS JOIN spec
            WHERE qrels.grade >= 0 AND spec.ideal = 'qrels'
              AND spec.metric IN ('idcg', 'ndcg', 'ndcg_rel', 'rndcg', 'g')
        )
        WHERE ideal_gain > 0
    )
    WINDOW up AS (PARTITION BY i, query_id ORDER BY pos ROWS UNBOUNDED PRECEDING)
),
ideal_qrels AS (
    SELECT i, query_id,
           rankkit.ordered_sum(list(ideal_gain / rankkit.discount(pos) ORDER BY pos)
                               FILTER (WHERE k IS NULL OR pos <= k)) AS idcg,
           sum(ideal_gain) AS ideal_cg,
           count(*) AS num_gain
    FROM ideal_list
    GROUP BY i, query_id
),
-- ties := 'average' (McSherry and Najork, ECIR 2008; scikit-learn's dcg_score): a judged document
-- in a group of equal scores spanning ranks [a, b] is equally likely at each of those ranks, so it
-- gains g * (discounts of ranks a..min(b, k)) / (b - a + 1). Empty, and so free, for other tie rules.
-- running sums of 1 / log2(r + 1): the discounts of ranks a..b are cum(b) - cum(a - 1), as
-- scikit-learn computes them
discount_sums AS (
    SELECT r, sum(1.0E0 / rankkit.discount(r)) OVER (ORDER BY r ROWS UNBOUNDED PRECEDING) AS cum
    FROM (SELECT unnest(range(1, max(tie_first + tie_size - 1) + 1)) AS r FROM judged WHERE ties = 'average')
),
-- each judged document of a tie group, per spec: the last rank of its group within the cutoff
tie_spans AS (
    SELECT spec.i, judged.system, judged.query_id, judged.rank, judged.tie_first, judged.tie_size,
           rankkit.gain(judged.grade, spec.gain, spec.gains) AS g,
           least(judged.tie_first + judged.tie_size - 1, coalesce(spec.k, judged.tie_first + judged.tie_size - 1)) AS last_cut
    FROM judged CROSS JOIN spec
    WHERE ties = 'average' AND judged.tie_first IS NOT NULL
),
tie_features AS (
    SELECT i, system, query_id,
           rankkit.ordered_sum(list(g * (last_cut - tie_first + 1) / tie_size ORDER BY rank)) AS cg,
           rankkit.ordered_sum(list(g * (hi.cum - coalesce(lo.cum, 0.0E0)) / tie_size ORDER BY rank)) AS dcg
    FROM tie_spans
    JOIN discount_sums hi ON hi.r = last_cut
    LEFT JOIN discount_sums lo ON lo.r = tie_first - 1
    WHERE last_cut >= tie_first
    GROUP BY i, system, query_id
),
judged_spec AS (
    SELECT spec.i, spec.k, spec.metric, spec.ideal, spec.gain, spec.p,
           judged.system, judged.query_id, judged.rank, judged.grade,
           spec.k IS NULL OR judged.rank <= spec.k AS in_cut,
           judged.grade >= spec.rel AS relevant,
           judged.grade >= 0 AND judged.grade < spec.rel AS nonrelevant,
           rankkit.gain(judged.grade, spec.gain, spec.gains) AS g,
           rankkit.stop_probability(judged.grade, spec.max) AS p_stop,
           coalesce(qrels_stats.num_rel, 0) AS num_rel,
           coalesce(qrels_stats.num_nonrel, 0) AS num_nonrel,
           -- Rprec_mult reads precision at mult x R documents, rounded up from 0.1 as trec_eval does
           floor(spec.mult * coalesce(qrels_stats.num_rel, 0) + 9.0E-1) AS mult_cut,
           -- rbp: gains above 1 are scaled to [0, 1] by the query's top grade, as trec_eval does
           greatest(coalesce(qrels_stats.max_grade, 0.0E0), 1.0E0) AS rbp_scale
    FROM judged CROSS JOIN spec
    LEFT JOIN qrels_stats ON qrels_stats.i = spec.i AND qrels_stats.query_id = judged.query_id
),
-- Features from each document's own rank: one aggregate, no window.
own_rank AS (
    SELECT i, system, query_id,
           count(*) FILTER (WHERE relevant AND in_cut) AS rel_ret,
           count(*) FILTER (WHERE in_cut) AS judged_ret,
           count(*) FILTER (WHERE relevant AND rank <= num_rel) AS rel_in_r,
           count(*) FILTER (WHERE relevant AND rank <= mult_cut) AS rel_in_mult,
           count(*) FILTER (WHERE nonrelevant AND in_cut) AS nonrel_ret,
           count(*) FILTER (WHERE grade >= 0 AND in_cut) AS pooled_ret,
           rankkit.ordered_sum(list(g / rbp_scale * pow(p, rank - 1) ORDER BY rank)
                               FILTER (WHERE metric = 'rbp' AND grade > 0)) AS rbp_sum,
           rankkit.ordered_sum(list(pow(p, rank - 1) ORDER BY rank) FILTER (WHERE metric = 'rbp_resid' AND grade >= 0)) AS rbp_pooled,
           rankkit.ordered_sum(list(g ORDER BY rank) FILTER (WHERE in_cut)) AS cg,
           rankkit.ordered_sum(list(g / rankkit.discount(rank) ORDER BY rank) FILTER (WHERE in_cut)) AS dcg,
           min(rank) FILTER (WHERE relevant AND in_cut) AS first_rel
    FROM judged_spec
    GROUP BY i, system, query_id
),
-- Features from the documents above a document need a window; each window sees only the rows of
-- the measures that use it, so a measure not asked for costs nothing, and only the rows those
-- measures read: AP (and gm_map, binG, interpolated precision) the relevant documents within the
-- cutoff (the relevant ones above a document are all within it too), bpref the judged ones (it has
-- no cutoff), infAP every judged document. A window's cost is its rows.
above_rows AS (
    SELECT *,
           count(*) FILTER (WHERE relevant) OVER down AS relevant_so_far,
           count(*) FILTER (WHERE nonrelevant) OVER down AS nonrelevant_so_far,
           count(*) OVER down AS judged_so_far
    FROM judged_spec
    WHERE (metric IN ('ap', 'gm_map', 'bing', 'iprec_at_recall', 'eleven_pt_avg') AND relevant AND in_cut)
       OR (metric IN ('bpref', 'gm_bpref') AND (relevant OR nonrelevant))
       OR metric = 'infap'
    WINDOW down AS (PARTITION BY i, system, query_id ORDER BY rank ROWS UNBOUNDED PRECEDING)
),
above AS (
    SELECT i, system, query_id,
           rankkit.ordered_sum(list(relevant_so_far * 1.0E0 / rank ORDER BY rank)
                               FILTER (WHERE relevant AND in_cut)) AS ap_sum,
           -- bpref: each relevant document loses the share of judged non-relevant ones above it
           rankkit.ordered_sum(list(1.0E0 - rankkit.ratio(least(nonrelevant_so_far, num_rel), least(num_rel, num_nonrel))
                                    ORDER BY rank) FILTER (WHERE relevant AND metric IN ('bpref', 'gm_bpref'))) AS bpref_sum,
           -- infAP (Yilmaz and Aslam): precision above a relevant document estimated from the judged
           -- documents above it (those judged negative count as pooled but unjudged), as trec_eval
           rankkit.ordered_sum(list(CASE WHEN rank = 1 THEN 1.0E0
                    ELSE 1.0E0 / rank + ((rank - 1.0E0) / rank)
                         * ((judged_so_far - 1.0E0) / (rank - 1.0E0))
                         * ((relevant_so_far - 1.0E0 + 1.0E-5) / (relevant_so_far - 1.0E0 + nonrelevant_so_far + 2.0E-5)) END
                    ORDER BY rank) FILTER (WHERE relevant AND metric = 'infap')) AS infap_sum,
           -- binG: a relevant document gains 1 / log2(2 + the documents above it that are not relevant)
           rankkit.ordered_sum(list(1.0E0 / log2(2.0E0 + rank - relevant_so_far) ORDER BY rank)
                               FILTER (WHERE relevant AND metric = 'bing')) AS bing_sum
    FROM above_rows
    GROUP BY i, system, query_id
),
-- interpolated precision: after the j-th relevant document retrieved, the best precision at or below it
precision_curve AS (
    SELECT i, system, query_id, list(best ORDER BY relevant_so_far) AS curve
    FROM (
        SELECT i, system, query_id, relevant_so_far,
               max(relevant_so_far * 1.0E0 / rank) OVER (PARTITION BY i, system, query_id ORDER BY rank DESC
                                                        ROWS UNBOUNDED PRECEDING) AS best
        FROM above_rows
        WHERE relevant AND metric IN ('iprec_at_recall', 'eleven_pt_avg')
    )
    GROUP BY i, system, query_id
),
-- the DCG and CG so far at each judged document of gain (trec_eval's ndcg_rel, G)
gain_rows AS (
    SELECT j.i, j.metric, j.system, j.query_id, j.rank, j.g,
           sum(j.g / rankkit.discount(j.rank)) OVER down AS dcg_so_far,
           sum(j.g) OVER down AS cg_so_far,
           coalesce(q.num_gain, 0) AS num_gain
    FROM judged_spec j
    LEFT JOIN ideal_qrels q ON q.i = j.i AND q.query_id = j.query_id
    WHERE j.metric IN ('ndcg_rel', 'g') AND j.g <> 0
    WINDOW down AS (PARTITION BY j.i, j.system, j.query_id ORDER BY j.rank ROWS UNBOUNDED PRECEDING)
),
gain_features AS (
    SELECT r.i, r.system, r.query_id,
           -- ndcg_rel: nDCG at each retrieved document of positive gain (the ideal stops growing once
           -- its gains run out)
           rankkit.ordered_sum(list(r.dcg_so_far / l.idcg_so_far ORDER BY r.rank)
                               FILTER (WHERE r.metric = 'ndcg_rel' AND r.g > 0)) AS ndcg_rel_sum,
           count(*) FILTER (WHERE r.metric = 'ndcg_rel' AND r.g > 0) AS gain_ret,
           -- G: each gain over log2(2 + what the ideal ranking would have gained so far, at least 1 a
           -- rank, minus what this ranking gained)
           rankkit.ordered_sum(list(r.g / log2(2.0E0 + r.rank + l.extra_cost - r.cg_so_far) ORDER BY r.rank)
                               FILTER (WHERE r.metric = 'g')) AS g_sum
    FROM gain_rows r
    JOIN ideal_list l ON l.i = r.i AND l.query_id = r.query_id AND l.pos = least(r.rank, r.num_gain)
    GROUP BY r.i, r.system, r.query_id
),
-- Rndcg: nDCG where the ideal gain drops (the R levels of each grade) and at the end of the ranking
r_levels AS (
    SELECT l.i, l.query_id, l.pos - 1 AS at, l.idcg_so_far - l.ideal_gain / rankkit.discount(l.pos) AS idcg_at
    FROM ideal_list l
    WHERE l.metric = 'rndcg' AND l.drops AND l.pos > 1
    UNION ALL
    SELECT i, query_id, num_gain, idcg FROM ideal_qrels
    WHERE i IN (SELECT i FROM spec WHERE metric = 'rndcg')
),
rndcg_points AS (
    SELECT r.i, ret.system, ret.query_id, r.at, r.idcg_at, ret.num_ret
    FROM r_levels r JOIN retrieved ret ON ret.query_id = r.query_id
    UNION ALL
    -- a ranking running on past the last R level ends with one more point
    SELECT q.i, ret.system, ret.query_id, ret.num_ret, q.idcg, ret.num_ret
    FROM ideal_qrels q JOIN retrieved ret ON ret.query_id = q.query_id
    WHERE q.i IN (SELECT i FROM spec WHERE metric = 'rndcg') AND ret.num_ret > q.num_gain + 1
),
rndcg_features AS (
    SELECT p.i, p.system, p.query_id,
           rankkit.ordered_sum(list(coalesce(p.dcg_at, 0.0E0) / p.idcg_at ORDER BY p.at)) AS rndcg_sum, count(*) AS rndcg_points
    FROM (
        SELECT p.i, p.system, p.query_id, p.at, p.idcg_at,
               rankkit.ordered_sum(list(j.g / rankkit.discount(j.rank) ORDER BY j.rank)) AS dcg_at
        FROM rndcg_points p
        LEFT JOIN judged_spec j ON j.i = p.i AND j.system IS NOT DISTINCT FROM p.system AND j.query_id = p.query_id
                               AND j.rank <= least(p.at, p.num_ret)
        GROUP BY p.i, p.system, p.query_id, p.at, p.idcg_at
    ) p
    GROUP BY p.i, p.system, p.query_id
),
err_sum AS (
    SELECT i, system, query_id, rankkit.ordered_sum(list(p_stop * p_reach / rank ORDER BY rank)) AS err
    FROM (
        SELECT *,
               coalesce(product(1.0E0 - p_stop) OVER (
                   PARTITION BY i, system, query_id ORDER BY rank
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 1.0E0) AS p_reach
        FROM judged_spec
        WHERE metric = 'err' AND in_cut
    )
    GROUP BY i, system, query_id
),
-- ideal := 'run': the retrieved judged documents by grade, best first
ideal_run AS (
    SELECT i, system, query_id,
           rankkit.ordered_sum(list(g / rankkit.discount(ideal_pos) ORDER BY ideal_pos)
                               FILTER (WHERE k IS NULL OR ideal_pos <= k)) AS idcg_run
    FROM (
        SELECT *, row_number() OVER (PARTITION BY i, system, query_id ORDER BY grade DESC) AS ideal_pos
        FROM judged_spec
        WHERE ideal = 'run' AND metric IN ('idcg', 'ndcg')
    )
    GROUP BY i, system, query_id
),
features AS (
    SELECT own_rank.*, above.ap_sum, above.bpref_sum, above.infap_sum, above.bing_sum, precision_curve.curve,
           gain_features.ndcg_rel_sum, gain_features.gain_ret, gain_features.g_sum,
           rndcg_features.rndcg_sum, rndcg_features.rndcg_points, err_sum.err, ideal_run.idcg_run
    FROM own_rank
    LEFT JOIN above ON above.i = own_rank.i AND above.system IS NOT DISTINCT FROM own_rank.system
                   AND above.query_id = own_rank.query_id
    LEFT JOIN precision_curve ON precision_curve.i = own_rank.i AND precision_curve.system IS NOT DISTINCT FROM own_rank.system
                   AND precision_curve.query_id = own_rank.query_id
    LEFT JOIN gain_features ON gain_features.i = own_rank.i AND gain_features.system IS NOT DISTINCT FROM own_rank.system
                   AND gain_features.query_id = own_rank.query_id
    LEFT JOIN rndcg_features ON rndcg_features.i = own_rank.i AND rndcg_features.system IS NOT DISTINCT FROM own_rank.system
                   AND rndcg_features.query_id = own_rank.query_id
    LEFT JOIN err_sum ON err_sum.i = own_rank.i AND err_sum.system IS NOT DISTINCT FROM own_rank.system
                     AND err_sum.query_id = own_rank.query_id
    LEFT JOIN ideal_run ON ideal_run.i = own_rank.i AND ideal_run.system IS NOT DISTINCT FROM own_rank.system
                       AND ideal_run.query_id = own_rank.query_id
),
-- Each row's features as one struct, f. rankkit.measure_value (below) is applied to the column, not
-- to this expression: a macro argument is substituted into every branch of its CASE, and each
-- measure's _value macro reads several fields, so passing the struct expression itself would have
-- the binder and optimizer work through (measures x features) copies of it (a quarter of the plan
-- time of a small evaluation). A new feature is a new field here.
valued AS (
    SELECT spec.i, spec.measure, spec.agg, spec.metric, spec AS s, evaluated.system, evaluated.query_id, {
               'num_ret': coalesce(retrieved.num_ret, 0),
               'ret_k': least(coalesce(retrieved.num_ret, 0), coalesce(spec.k, retrieved.num_ret, 0)),
               'num_rel': coalesce(qrels_stats.num_rel, 0),
               'num_nonrel': coalesce(qrels_stats.num_nonrel, 0),
               'rel_ret': coalesce(features.rel_ret, 0),
               'judged_ret': coalesce(features.judged_ret, 0),
               'rel_in_r': coalesce(features.rel_in_r, 0),
               'rel_in_mult': coalesce(features.rel_in_mult, 0),
               'nonrel_ret': coalesce(features.nonrel_ret, 0),
               'pooled_ret': coalesce(features.pooled_ret, 0),
               'rbp_sum': coalesce(features.rbp_sum, 0.0E0),
               'rbp_pooled': coalesce(features.rbp_pooled, 0.0E0),
               'infap_sum': coalesce(features.infap_sum, 0.0E0),
               'bing_sum': coalesce(features.bing_sum, 0.0E0),
               'curve': features.curve,
               'ndcg_rel_sum': coalesce(features.ndcg_rel_sum, 0.0E0),
               'gain_ret': coalesce(features.gain_ret, 0),
               'g_sum': coalesce(features.g_sum, 0.0E0),
               'rndcg_sum': coalesce(features.rndcg_sum, 0.0E0),
               'rndcg_points': coalesce(features.rndcg_points, 0),
               'num_gain': coalesce(ideal_qrels.num_gain, 0),
               'ideal_cg': coalesce(ideal_qrels.ideal_cg, 0.0E0),
               'cg': coalesce(CASE WHEN ties = 'average' THEN tie_features.cg ELSE features.cg END, 0.0E0),
               'dcg': coalesce(CASE WHEN ties = 'average' THEN tie_features.dcg ELSE features.dcg END, 0.0E0),
               'idcg': coalesce(CASE WHEN spec.ideal = 'run' THEN features.idcg_run ELSE ideal_qrels.idcg END, 0.0E0),
               'ap_sum': coalesce(features.ap_sum, 0.0E0),
               'first_rel': features.first_rel,
               'err': coalesce(features.err, 0.0E0),
               'bpref_sum': coalesce(features.bpref_sum, 0.0E0)
           } AS f
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
SELECT i, measure, agg, system, query_id, rankkit.measure_value(metric, f, s) AS value FROM valued;

CREATE OR REPLACE MACRO rankkit.per_query(qrels_table, run_table, specs, ties := 'trec',
        scores := 'double', depth := NULL, queries := 'both', validate := true, keyed := false,
        judged_only := false) AS TABLE
-- query_table() inside per_query_ranked reads this CTE: a name no input table is expected to have
WITH rankkit_ranked_run AS (
    FROM rankkit.ranks(qrels_table, run_table, ties := ties, scores := scores, depth := depth,
                       judged_only := judged_only, keyed := keyed)
)
SELECT p.i, p.measure, p.agg, p.system, p.query_id, p.value
FROM rankkit.input_checks(qrels_table, run_table, ties := ties, scores := scores, depth := depth,
                          validate := validate) c
CROSS JOIN rankkit.per_query_ranked(qrels_table, 'rankkit_ranked_run', specs, ties := ties, queries := queries) p
WHERE c.ok;

-- How a measure's per-query values combine: the mean over queries, the sum for counts (as trec_eval).
-- An aggregate expression: use it in a GROUP BY query. trec_eval adds the per-query values in query
-- order (its qrels sorted by strcmp) and divides the sum by the number of queries; the values are
-- added here in the same order, so the mean is trec_eval's double on any number of threads
-- (avg() would add them in whatever order its threads meet them). NULL values (empty := 'skip')
-- are left out of the sum and the count.
CREATE OR REPLACE MACRO rankkit.over_queries(agg, value, query_id) AS
    CASE WHEN count(value) = 0 THEN NULL
         WHEN any_value(agg) = 'sum' THEN rankkit.ordered_sum(list(value ORDER BY query_id) FILTER (WHERE value IS NOT NULL))
         -- gm_map, gm_bpref: the geometric mean, each value floored at trec_eval's 0.00001
         WHEN any_value(agg) = 'gmean'
             THEN exp(rankkit.ordered_sum(list(ln(greatest(value, rankkit.geometric_floor())) ORDER BY query_id)
                                          FILTER (WHERE value IS NOT NULL)) / count(value))
         ELSE rankkit.ordered_sum(list(value ORDER BY query_id) FILTER (WHERE value IS NOT NULL)) / count(value) END;

-- rankkit.aggregate: one row per measure and system: the mean over evaluated queries (the sum for
-- counts, as trec_eval), and how many queries it covers (empty := 'skip' leaves some out).
CREATE OR REPLACE MACRO rankkit.aggregate(qrels_table, run_table, specs, ties := 'trec',
        scores := 'double', depth := NULL, queries := 'both', validate := true, keyed := false, judged_only := false) AS TABLE
    SELECT measure, system,
           rankkit.over_queries(agg, value, query_id) AS value,
           count(value) AS queries
    FROM rankkit.per_query(qrels_table, run_table, specs, ties := ties, scores := scores,
                           depth := depth, queries := queries, validate := validate, keyed := keyed, judged_only := judged_only)
    GROUP BY i, measure, system
    ORDER BY i, system;
