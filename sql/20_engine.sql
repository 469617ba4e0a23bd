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
-- checked (rankkit.per_query does that), the columns are (rankkit.columns_ok).
CREATE OR REPLACE MACRO rankkit.ranks(qrels_table, run_table, ties := 'trec', scores := 'double', depth := NULL,
        judged_only := false, keyed := false) AS TABLE
WITH
rankkit_qrels AS (SELECT *, hash(query_id, doc_id) AS key FROM rankkit.qrels_rows(qrels_table)),
rankkit_run AS NOT MATERIALIZED (FROM rankkit.run_keys(run_table, ties := ties, scores := scores, depth := depth)),
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
    FROM rankkit_run run JOIN rankkit_qrels qrels ON run.key = qrels.key
        AND CASE WHEN run.query_id = qrels.query_id AND run.doc_id = qrels.doc_id THEN true ELSE false END
    WHERE keyed
    UNION ALL
    SELECT run.system, run.query_id, run.doc_id, run.score_key, qrels.grade
    FROM rankkit_run run JOIN rankkit_qrels qrels USING (query_id, doc_id)
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
    FROM rankkit_run run LEFT JOIN by_count c ON c.system IS NOT DISTINCT FROM run.system AND c.query_id = run.query_id
    GROUP BY run.system, run.query_id, c.doc_id
),
-- the rows of the queries ranked by a window (every row of those queries, for tie groups)
ranked AS (
    SELECT run.system, run.query_id, run.doc_id, run.score_key,
           row_number() OVER (PARTITION BY run.system, run.query_id
                              ORDER BY run.rank_key ASC NULLS LAST, run.score_key DESC NULLS LAST,
                                       run.doc_id DESC NULLS LAST) AS rank
    FROM rankkit_run run SEMI JOIN by_window w ON w.system IS NOT DISTINCT FROM run.system AND w.query_id = run.query_id
),
windowed AS (
    SELECT ranked.system, ranked.query_id, ranked.rank, qrels.grade
    FROM ranked JOIN rankkit_qrels qrels USING (query_id, doc_id)
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
                    AND tie_groups.rank = judged.rank
-- the rows are not checked, but a missing column is said (it would read as NULL ids or scores)
CROSS JOIN rankkit.columns_ok(qrels_table, 'qrels') qrels_columns CROSS JOIN rankkit.columns_ok(run_table, 'run') run_columns
WHERE qrels_columns.ok AND run_columns.ok;

-- rankkit.window_ranks: rankkit.ranks' rows for ties := 'trec' or 'rank', every row of the run ranked by
-- rankkit.ranked's window (the same order, depth and judged_only rules). Counting ranks (above) saves
-- sorting a large run, but its joins and its two plans cost more than one sort where most queries
-- retrieved many judged documents (a DL19 run: the whole call 1.5x the plain statement of
-- bench/lean.py, not 2x); rankkit.evaluate.ranks_by_window says when. A query that retrieved no judged document has one row
-- with rank and grade NULL, as in rankkit.ranks; so may a query that did (a row the stages skip).
-- rankkit.window_ranks_loaded is the same without the column check, for inputs rankkit's readers
-- loaded and checked (rankkit.evaluate): binding that check costs half the plain statement's time.
CREATE OR REPLACE MACRO rankkit.window_ranks_loaded(qrels_table, run_table, ties := 'trec', scores := 'double',
        depth := NULL, judged_only := false) AS TABLE
-- (CTE names prefixed: query_table() inside the row macros would read a CTE named as the caller's table)
WITH
rankkit_ranked AS (
    SELECT system, query_id, doc_id,
           row_number() OVER (PARTITION BY system, query_id
                              ORDER BY rank_key ASC NULLS LAST, score_key DESC NULLS LAST, doc_id DESC NULLS LAST) AS rank,
           count(*) OVER (PARTITION BY system, query_id) AS num_rows
    FROM rankkit.run_keys(run_table, ties := ties, scores := scores, depth := depth)
    WHERE CASE WHEN ties = 'average'
               THEN error('rankkit: window_ranks ranks ties := trec or rank; rankkit.ranks takes average') ELSE true END
),
-- the judged documents within depth, and each query's first row (which keeps a query without any)
rankkit_cut AS (
    SELECT r.system, r.query_id, r.rank, least(r.num_rows, coalesce(depth, r.num_rows)) AS num_rows, q.grade
    FROM rankkit_ranked r LEFT JOIN rankkit.qrels_rows(qrels_table) q USING (query_id, doc_id)
    WHERE (depth IS NULL OR r.rank <= depth) AND (q.grade IS NOT NULL OR r.rank = 1)
),
-- judged_only := true ranks the documents judged >= 0 among themselves (trec_eval -J)
rankkit_judged AS (
    SELECT system, query_id, num_rows AS num_ret, CASE WHEN grade IS NOT NULL THEN rank END AS rank, grade
    FROM rankkit_cut WHERE NOT judged_only
    UNION ALL
    SELECT system, query_id, count(*) FILTER (WHERE grade >= 0) OVER query AS num_ret,
           CASE WHEN grade >= 0 THEN count(*) FILTER (WHERE grade >= 0) OVER (query ORDER BY rank) END AS rank,
           CASE WHEN grade >= 0 THEN grade END AS grade
    FROM rankkit_cut WHERE judged_only
    WINDOW query AS (PARTITION BY system, query_id)
)
SELECT system, query_id, num_ret, rank, grade, NULL::BIGINT AS tie_first, NULL::BIGINT AS tie_size
FROM rankkit_judged WHERE rank IS NOT NULL OR grade IS NULL;

CREATE OR REPLACE MACRO rankkit.window_ranks(qrels_table, run_table, ties := 'trec', scores := 'double', depth := NULL,
        judged_only := false) AS TABLE
SELECT w.*
FROM rankkit.window_ranks_loaded(qrels_table, run_table, ties := ties, scores := scores, depth := depth,
                                 judged_only := judged_only) w
-- the rows are not checked, but a missing column is said, as in rankkit.ranks
CROSS JOIN rankkit.columns_ok(qrels_table, 'qrels') qrels_columns CROSS JOIN rankkit.columns_ok(run_table, 'run') run_columns
WHERE qrels_columns.ok AND run_columns.ok;

-- rankkit.input_checks: one row, ok = true, or an error naming what is wrong with the raw inputs:
-- a missing column (rankkit.columns_ok), a NULL id, score or grade, a NaN or infinite one, or
-- (validate := true) a duplicate document.
CREATE OR REPLACE MACRO rankkit.input_checks(qrels_table, run_table, ties := 'trec', scores := 'double',
        depth := NULL, validate := true) AS TABLE
WITH
rankkit_qrels AS (FROM rankkit.qrels_rows(qrels_table)),
rankkit_run AS NOT MATERIALIZED (FROM rankkit.run_keys(run_table, ties := ties, scores := scores, depth := depth)),
-- Duplicates cost a hash table as large as the run, so only inputs not yet checked are checked.
run_duplicates AS (
    SELECT system, query_id, doc_id FROM rankkit_run run WHERE validate
    GROUP BY system, query_id, doc_id HAVING count(*) > 1
),
qrels_duplicates AS (
    SELECT query_id, doc_id FROM rankkit_qrels qrels WHERE validate
    GROUP BY query_id, doc_id HAVING count(*) > 1
),
-- What the Python readers refuse, refused here too: a NULL id, or a score or grade that is NULL, NaN
-- or infinite (DuckDB sorts NaN above every number: it would rank first).
run_bad AS (
    SELECT query_id, doc_id, score FROM rankkit_run run
    WHERE validate AND (query_id IS NULL OR doc_id IS NULL OR score IS NULL OR NOT isfinite(score))
    LIMIT 1
),
qrels_bad AS (
    SELECT query_id, doc_id, grade FROM rankkit_qrels qrels
    WHERE validate AND (query_id IS NULL OR doc_id IS NULL OR grade IS NULL OR NOT isfinite(grade))
    LIMIT 1
),
checks AS (
    SELECT CASE
        -- a column under none of its names would read as NULL ids or scores: say which is missing
        WHEN NOT (qrels_columns.ok AND run_columns.ok) THEN false
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
    FROM rankkit.columns_ok(qrels_table, 'qrels') qrels_columns, rankkit.columns_ok(run_table, 'run') run_columns
)
SELECT ok FROM checks;

-- ties := 'average': the last rank of a tie group (from first, of size) within the cutoff k.
CREATE OR REPLACE MACRO rankkit.tie_last(first, size, k) AS least(first + size - 1, coalesce(k, first + size - 1));

-- rankkit.features: the value stage's work. ranks_table names a table (or a CTE of the calling
-- query) in the columns of rankkit.ranks; ties and queries are rankkit.per_query's. One row per
-- measure spec, system and evaluated query: i, measure, agg, metric, s (the spec), system,
-- query_id, and f, the struct of features the measures' _value macros read
-- (rankkit.per_query_ranked, below, applies them).
--
-- Each (system, query) becomes two lists, the ranks and the grades of its judged documents in rank
-- order, and each query one list, its qrels grades best first. Every feature is then one list
-- expression over them, per spec, evaluated only for the measures that read it (the CASEs on
-- metric): a plan of a few operators, whose cost is its rows, where a window per feature cost
-- milliseconds each even on a few thousand rows. What windows did, indexes do: the j-th relevant
-- document has j - 1 relevant ones above it, the t-th judged document t - 1 judged ones. Sums are
-- rankkit.ordered_sum in rank order, running sums rankkit.running_sum, as trec_eval adds them; a
-- sum may add 0.0 for a document it skips (x + 0.0 is x, and an ordered sum never holds -0.0).
CREATE OR REPLACE MACRO rankkit.features(qrels_table, ranks_table, specs, ties := 'trec',
        queries := 'both') AS TABLE
WITH
ranks AS (FROM query_table(ranks_table::VARCHAR)),
spec AS (SELECT unnest(s) FROM (SELECT unnest(specs) AS s)),
rankkit_qrels AS (FROM rankkit.qrels_rows(qrels_table)),
checks AS (
    SELECT CASE
        WHEN ties = 'average' AND EXISTS (SELECT 1 FROM spec WHERE metric NOT IN ('cg', 'dcg', 'idcg', 'ndcg'))
            THEN error('rankkit: ties=average applies to the gain-based measures (CG, DCG, IDCG, nDCG) only, not '
                       || (SELECT string_agg(measure, ', ' ORDER BY i) FROM spec WHERE metric NOT IN ('cg', 'dcg', 'idcg', 'ndcg')))
        ELSE true END AS ok
),
-- per system and query: the ranks and grades of the judged documents in rank order (and, for
-- ties := 'average', their tie groups)
judged AS (
    SELECT system, query_id, num_ret,
           coalesce(list_transform(docs, lambda d: d.rank), []) AS ranks,
           coalesce(list_transform(docs, lambda d: d.grade), []) AS grades,
           CASE WHEN ties = 'average' THEN list_transform(docs, lambda d: d.tie_first) END AS tie_firsts,
           CASE WHEN ties = 'average' THEN list_transform(docs, lambda d: d.tie_size) END AS tie_sizes
    FROM (
        -- one sort of each list by rank (first field), cheaper than an ordered aggregate per column
        SELECT system, query_id, any_value(num_ret) AS num_ret,
               list_sort(list({'rank': rank, 'grade': grade, 'tie_first': tie_first, 'tie_size': tie_size})
                         FILTER (WHERE rank IS NOT NULL)) AS docs
        FROM ranks
        GROUP BY system, query_id
    )
),
-- per query: its qrels grades, best first
-- MATERIALIZED, here and in judged_specs: DuckDB would otherwise sort each query's grades (and
-- derive the ideal from them) once per system after the join, 200 times over in a 200-system run
judgments AS MATERIALIZED (SELECT query_id, list(grade ORDER BY grade DESC) AS qrels_grades FROM rankkit_qrels qrels GROUP BY query_id),
evaluated AS (
    SELECT judged.*, judgments.qrels_grades
    FROM judged JOIN judgments USING (query_id)
    WHERE queries = 'both'
    UNION ALL
    SELECT s.system, judgments.query_id, judged.num_ret, coalesce(judged.ranks, []), coalesce(judged.grades, []),
           judged.tie_firsts, judged.tie_sizes, judgments.qrels_grades
    FROM (SELECT DISTINCT system FROM judged) s CROSS JOIN judgments
    LEFT JOIN judged ON judged.system IS NOT DISTINCT FROM s.system AND judged.query_id = judgments.query_id
    -- the query-set check sits here: a value that selects no query would otherwise skip every check
    WHERE CASE WHEN queries = 'qrels' THEN true WHEN queries = 'both' THEN false
               ELSE error('rankkit: queries must be both or qrels, got ''' || queries || '''') END
),
-- ties := 'average' (McSherry and Najork, ECIR 2008; scikit-learn's dcg_score): a judged document
-- in a group of equal scores spanning ranks [a, b] is equally likely at each of those ranks, so it
-- gains g * (discounts of ranks a..min(b, k)) / (b - a + 1). The discounts of ranks a..b are
-- cum[b] - cum[a - 1], cum the running sums of 1 / log2(r + 1), as scikit-learn computes them.
-- NULL, and so free, for other tie rules.
discount_sums AS (
    SELECT list(cum ORDER BY r) AS cum FROM (
        SELECT r, sum(1.0E0 / rankkit.discount(r)) OVER (ORDER BY r ROWS UNBOUNDED PRECEDING) AS cum
        FROM (SELECT unnest(range(1, max(tie_first + tie_size - 1) + 1)) AS r FROM ranks WHERE ties = 'average')
    )
),
-- Per spec and query, what the qrels give: the relevant and judged non-relevant documents in the
-- qrels, and the ideal gains (trec_eval's ideal=qrels: every judged document of positive gain,
-- best first). Once per query, whatever the number of systems.
judged_specs AS MATERIALIZED (
    SELECT spec.i, j.query_id,
           CASE WHEN spec.metric IN ('ap', 'gm_map', 'bing', 'bpref', 'gm_bpref', 'infap', 'iprec_at_recall',
                                     'eleven_pt_avg', 'r', 'relative_p', 'rndcg', 'rprec', 'rprec_mult', 'set_f',
                                     'set_map', 'utility', 'numrel')
                THEN len(list_filter(j.qrels_grades, lambda g: g >= spec.rel)) ELSE 0 END AS num_rel,
           CASE WHEN spec.metric IN ('bpref', 'gm_bpref', 'fallout')
                THEN len(list_filter(j.qrels_grades, lambda g: g >= 0 AND g < spec.rel)) ELSE 0 END AS num_nonrel,
           CASE WHEN spec.metric IN ('idcg', 'ndcg', 'ndcg_rel', 'rndcg', 'g') AND spec.ideal = 'qrels'
                THEN list_reverse_sort(list_filter(list_transform(list_filter(j.qrels_grades, lambda g: g >= 0),
                                                                  lambda g: rankkit.gain(g, spec.gain, spec.gains)),
                                                   lambda x: x > 0))
                ELSE [] END AS ideal
    FROM judgments j CROSS JOIN spec
),
-- Per spec, system and query, what the cutoff gives: the judged documents within k (a prefix of
-- the lists), and the gain of each judged document, for the measures that read gains.
per_spec AS (
    SELECT spec.i, spec.measure, spec.agg, spec.metric, spec AS s, e.system, e.query_id,
           e.num_ret IS NOT NULL AS retrieved, coalesce(e.num_ret, 0) AS num_ret, e.ranks, e.grades,
           e.tie_firsts, e.tie_sizes, e.qrels_grades, discount_sums.cum,
           CASE WHEN spec.k IS NULL THEN len(e.ranks) ELSE len(list_filter(e.ranks, lambda r: r <= spec.k)) END AS n_cut,
           q.num_rel, q.num_nonrel, q.ideal,
           CASE WHEN spec.metric IN ('cg', 'dcg', 'ndcg', 'ndcg_rel', 'g', 'rndcg', 'rbp')
                THEN list_transform(e.grades, lambda g: rankkit.gain(g, spec.gain, spec.gains)) END AS gains
    FROM evaluated e CROSS JOIN spec
    JOIN judged_specs q ON q.i = spec.i AND q.query_id = e.query_id
    CROSS JOIN discount_sums CROSS JOIN checks
    WHERE checks.ok
),
-- the lists the features below share
shared AS (
    SELECT *,
           -- the ranks of the relevant documents within the cutoff: the j-th has j - 1 relevant above it
           CASE WHEN metric IN ('ap', 'gm_map', 'bing', 'iprec_at_recall', 'eleven_pt_avg', 'rr', 'p', 'r',
                                'numrelret', 'hits', 'success', 'relative_p', 'set_f', 'set_map', 'utility')
                THEN list_filter(ranks[:n_cut], lambda r, t: grades[t] >= s.rel) END AS rel_ranks,
           -- bpref, infAP: the judged documents that are relevant or judged non-relevant (grade >= 0)
           CASE WHEN metric IN ('bpref', 'gm_bpref', 'infap')
                THEN list_filter(grades, lambda g: g >= s.rel OR g >= 0) END AS rated_grades,
           -- infAP: where the relevant documents are in the judged list
           CASE WHEN metric = 'infap' THEN list_filter(range(1, len(grades) + 1), lambda t: grades[t] >= s.rel) END AS rel_at,
           -- ndcg_rel, G: where the judged documents that gain (or lose) something are
           CASE WHEN metric IN ('ndcg_rel', 'g') AND len(ideal) > 0
                THEN list_filter(range(1, len(gains) + 1), lambda t: gains[t] <> 0) END AS gain_at,
           CASE WHEN metric IN ('ndcg_rel', 'g', 'rndcg') THEN rankkit.running_sum(list_transform(ideal, lambda x, pos: x / rankkit.discount(pos))) END AS idcg_so_far,
           CASE WHEN metric = 'rndcg' THEN list_transform(gains, lambda x, t: x / rankkit.discount(ranks[t])) END AS dcg_terms,
           -- ERR: the chance of reading on past each document within the cutoff
           CASE WHEN metric = 'err' THEN list_transform(grades[:n_cut], lambda g: rankkit.stop_probability(g, s.max)) END AS stops,
           CASE WHEN metric = 'err' THEN list_transform(grades[:n_cut], lambda g: 1.0E0 - rankkit.stop_probability(g, s.max)) END AS reads_on
    FROM per_spec
),
staged AS (
    SELECT *,
           CASE WHEN metric IN ('bpref', 'gm_bpref', 'infap')
                THEN list_filter(range(1, len(rated_grades) + 1), lambda u: rated_grades[u] >= s.rel) END AS rel_rated_at,
           CASE WHEN metric IN ('iprec_at_recall', 'eleven_pt_avg')
                THEN list_transform(rel_ranks, lambda r, j: j * 1.0E0 / r) END AS precisions,
           list_transform(gain_at, lambda t: gains[t]) AS gain_values,
           rankkit.running_sum(list_transform(gain_at, lambda t: gains[t] / rankkit.discount(ranks[t]))) AS dcg_so_far,
           CASE WHEN metric = 'g' THEN rankkit.running_sum(list_transform(ideal, lambda x: greatest(x - 1.0E0, 0.0E0))) END AS extra_cost,
           -- Rndcg: nDCG where the ideal gain drops (the R levels of each grade) and at the end of the ranking
           CASE WHEN metric = 'rndcg' AND retrieved AND len(ideal) > 0
                THEN list_filter(range(2, len(ideal) + 1), lambda pos: ideal[pos] <> ideal[pos - 1]) END AS drops
    FROM shared
),
-- Each row's features as one struct, f. rankkit.measure_value is applied to the column, not to this
-- expression: a macro argument is substituted into every branch of its CASE, and each measure's
-- _value macro reads several fields. A new feature is a new field here.
valued AS (
    SELECT i, measure, agg, metric, s, system, query_id, {
               'num_ret': num_ret,
               'ret_k': least(num_ret, coalesce(s.k, num_ret)),
               'num_rel': num_rel,
               'num_nonrel': num_nonrel,
               'rel_ret': coalesce(len(rel_ranks), 0),
               'judged_ret': n_cut,
               'rel_in_r': CASE WHEN metric = 'rprec'
                                THEN len(list_filter(ranks, lambda r, t: grades[t] >= s.rel AND r <= num_rel)) ELSE 0 END,
               -- Rprec_mult reads precision at mult x R documents, rounded up from 0.1 as trec_eval does
               'rel_in_mult': CASE WHEN metric = 'rprec_mult'
                                   THEN len(list_filter(ranks, lambda r, t: grades[t] >= s.rel
                                                                           AND r <= floor(s.mult * num_rel + 9.0E-1))) ELSE 0 END,
               'nonrel_ret': CASE WHEN metric IN ('num_nonrel_judged_ret', 'fallout')
                                  THEN len(list_filter(grades[:n_cut], lambda g: g >= 0 AND g < s.rel)) ELSE 0 END,
               'pooled_ret': CASE WHEN metric IN ('unj', 'rbp_resid') THEN len(list_filter(grades[:n_cut], lambda g: g >= 0)) ELSE 0 END,
               -- rbp: gains above 1 are scaled to [0, 1] by the query's top grade, as trec_eval does
               'rbp_sum': CASE WHEN metric = 'rbp' THEN rankkit.ordered_sum(list_transform(ranks, lambda r, t:
                              CASE WHEN grades[t] > 0
                                   THEN gains[t] / greatest(coalesce(qrels_grades[1], 0.0E0), 1.0E0)
                                        * pow(s.p, r - 1)
                                   ELSE 0.0E0 END)) ELSE 0.0E0 END,
               'rbp_pooled': CASE WHEN metric = 'rbp_resid' THEN rankkit.ordered_sum(list_transform(ranks, lambda r, t:
                                 CASE WHEN grades[t] >= 0 THEN pow(s.p, r - 1) ELSE 0.0E0 END)) ELSE 0.0E0 END,
               -- infAP (Yilmaz and Aslam): precision above a relevant document estimated from the judged
               -- documents above it (those judged negative count as pooled but unjudged), as trec_eval;
               -- the j-th relevant document, at t in the judged list and u among the rated ones, has t - 1
               -- judged, j - 1 relevant and u - j judged non-relevant documents above it
               'infap_sum': CASE WHEN metric = 'infap' THEN rankkit.ordered_sum(list_transform(rel_at, lambda t, j:
                                CASE WHEN ranks[t] = 1 THEN 1.0E0
                                     ELSE 1.0E0 / ranks[t] + ((ranks[t] - 1.0E0) / ranks[t])
                                          * ((t - 1.0E0) / (ranks[t] - 1.0E0))
                                          * ((j - 1.0E0 + 1.0E-5) / (j - 1.0E0 + (rel_rated_at[j] - j) + 2.0E-5)) END))
                            ELSE 0.0E0 END,
               -- binG: a relevant document gains 1 / log2(2 + the documents above it that are not relevant)
               'bing_sum': CASE WHEN metric = 'bing'
                                THEN rankkit.ordered_sum(list_transform(rel_ranks, lambda r, j: 1.0E0 / log2(2.0E0 + r - j)))
                                ELSE 0.0E0 END,
               -- interpolated precision: after the j-th relevant document retrieved, the best precision at or below it
               'curve': CASE WHEN len(precisions) > 0 THEN list_transform(precisions, lambda x, j: list_max(precisions[j:])) END,
               -- ndcg_rel: nDCG at each retrieved document of positive gain (the ideal stops growing once
               -- its gains run out)
               'ndcg_rel_sum': CASE WHEN metric = 'ndcg_rel' THEN coalesce(rankkit.ordered_sum(list_transform(gain_at, lambda t, m:
                                   CASE WHEN gain_values[m] > 0 THEN dcg_so_far[m] / idcg_so_far[least(ranks[t], len(ideal))]
                                        ELSE 0.0E0 END)), 0.0E0) ELSE 0.0E0 END,
               'gain_ret': CASE WHEN metric = 'ndcg_rel' THEN coalesce(len(list_filter(gain_values, lambda x: x > 0)), 0) ELSE 0 END,
               -- G: each gain over log2(2 + what the ideal ranking would have gained so far, at least 1 a
               -- rank, minus what this ranking gained)
               'g_sum': CASE WHEN metric = 'g' THEN coalesce(rankkit.ordered_sum(list_transform(gain_at, lambda t, m:
                            gain_values[m] / log2(2.0E0 + ranks[t] + extra_cost[least(ranks[t], len(ideal))]
                                                  - rankkit.ordered_sum(gain_values[:m])))), 0.0E0) ELSE 0.0E0 END,
               -- Rndcg: at each point, the DCG of the judged documents up to it over the ideal DCG there
               'rndcg_sum': CASE WHEN metric = 'rndcg' AND retrieved AND len(ideal) > 0
                                THEN rankkit.ordered_sum(
                                    list_transform(drops, lambda pos:
                                        rankkit.ordered_sum(dcg_terms[:len(list_filter(ranks, lambda r: r <= least(pos - 1, num_ret)))])
                                        / (idcg_so_far[pos] - ideal[pos] / rankkit.discount(pos)))
                                    || [rankkit.ordered_sum(dcg_terms[:len(list_filter(ranks, lambda r: r <= least(len(ideal), num_ret)))])
                                        / idcg_so_far[len(ideal)]]
                                    || CASE WHEN num_ret > len(ideal) + 1
                                            THEN [rankkit.ordered_sum(dcg_terms) / idcg_so_far[len(ideal)]] ELSE [] END)
                                ELSE 0.0E0 END,
               'rndcg_points': CASE WHEN metric = 'rndcg' AND retrieved AND len(ideal) > 0
                                    THEN len(drops) + 1 + CASE WHEN num_ret > len(ideal) + 1 THEN 1 ELSE 0 END ELSE 0 END,
               -- SDCG: grades scaled by max, within k and cwl_eval's depth of 1000
               'sdcg_sum': CASE WHEN metric = 'sdcg' THEN rankkit.ordered_sum(list_transform(ranks[:n_cut], lambda r, t:
                               CASE WHEN r <= 1000 THEN least(greatest(grades[t], 0.0E0), s.max) / s.max / rankkit.discount(r)
                                    ELSE 0.0E0 END)) ELSE 0.0E0 END,
               -- INSQ (T = 1): scaled grades weighted 1 / (r + 1)^2 within cwl_eval's depth of 1000
               'insq_sum': CASE WHEN metric = 'insq' THEN rankkit.ordered_sum(list_transform(ranks, lambda r, t:
                               CASE WHEN r <= 1000 THEN least(greatest(grades[t], 0.0E0), s.max) / s.max / pow(r + 1.0E0, 2)
                                    ELSE 0.0E0 END)) ELSE 0.0E0 END,
               -- INST (T = 1): the scaled gain at ranks 1 to 1000, and the chance of reading each rank
               'inst_gains': CASE WHEN metric = 'inst' THEN list_transform(range(1, 1001), lambda r: coalesce(least(greatest(grades[list_position(ranks, r)], 0.0E0), s.max) / s.max, 0.0E0)) END,
               'inst_reads': CASE WHEN metric = 'inst' THEN list_transform([list_transform(range(1, 1001), lambda r: coalesce(least(greatest(grades[list_position(ranks, r)], 0.0E0), s.max) / s.max, 0.0E0))], lambda g:
                                 list_reduce(list_transform(rankkit.running_sum(g)[:999], lambda c, i: [pow((i + 1.0E0 - c) / (i + 2.0E0 - c), 2)]),
                                             lambda reads, x: list_append(reads, reads[-1] * x[1]), [1.0E0]))[1] END,
               'num_gain': len(ideal),
               'ideal_cg': CASE WHEN metric = 'g' THEN rankkit.ordered_sum(ideal) ELSE 0.0E0 END,
               'cg': CASE WHEN metric <> 'cg' THEN 0.0E0
                          WHEN ties = 'average' THEN rankkit.ordered_sum(list_transform(gains, lambda x, t:
                              CASE WHEN rankkit.tie_last(tie_firsts[t], tie_sizes[t], s.k) >= tie_firsts[t]
                                   THEN x * (rankkit.tie_last(tie_firsts[t], tie_sizes[t], s.k) - tie_firsts[t] + 1) / tie_sizes[t]
                                   ELSE 0.0E0 END))
                          ELSE rankkit.ordered_sum(gains[:n_cut]) END,
               'dcg': CASE WHEN metric NOT IN ('dcg', 'ndcg', 'ndcg_rel') THEN 0.0E0
                           WHEN ties = 'average' THEN rankkit.ordered_sum(list_transform(gains, lambda x, t:
                               CASE WHEN rankkit.tie_last(tie_firsts[t], tie_sizes[t], s.k) >= tie_firsts[t]
                                    THEN x * (cum[rankkit.tie_last(tie_firsts[t], tie_sizes[t], s.k)] - coalesce(cum[tie_firsts[t] - 1], 0.0E0))
                                         / tie_sizes[t]
                                    ELSE 0.0E0 END))
                           ELSE rankkit.ordered_sum(list_transform(gains[:n_cut], lambda x, t: x / rankkit.discount(ranks[t]))) END,
               'idcg': CASE WHEN metric NOT IN ('idcg', 'ndcg', 'ndcg_rel') THEN 0.0E0
                            -- ideal := 'run': the retrieved judged documents by grade, best first
                            WHEN s.ideal = 'run'
                                THEN rankkit.ordered_sum(list_transform(list_reverse_sort(grades)[:coalesce(s.k, len(grades))],
                                                                        lambda g, pos: rankkit.gain(g, s.gain, s.gains) / rankkit.discount(pos)))
                            ELSE rankkit.ordered_sum(list_transform(ideal[:coalesce(s.k, len(ideal))],
                                                                    lambda x, pos: x / rankkit.discount(pos))) END,
               'ap_sum': CASE WHEN metric IN ('ap', 'gm_map')
                              THEN rankkit.ordered_sum(list_transform(rel_ranks, lambda r, j: j * 1.0E0 / r)) ELSE 0.0E0 END,
               'first_rel': rel_ranks[1],
               -- ERR: the chance of stopping at a document, times that of reading on past every one above it
               'err': CASE WHEN metric = 'err' THEN rankkit.ordered_sum(list_transform(stops, lambda x, t:
                          x * list_reduce(list_prepend(1.0E0, reads_on[:t - 1]), lambda a, b: a * b) / ranks[t]))
                          ELSE 0.0E0 END,
               -- bpref: each relevant document loses the share of judged non-relevant ones above it
               'bpref_sum': CASE WHEN metric IN ('bpref', 'gm_bpref') THEN rankkit.ordered_sum(list_transform(rel_rated_at, lambda u, j:
                                1.0E0 - rankkit.ratio(least(u - j, num_rel), least(num_rel, num_nonrel))))
                                ELSE 0.0E0 END
           } AS f
    FROM staged
)
SELECT i, measure, agg, metric, s, system, query_id, f FROM valued;

-- rankkit.per_query_ranked: the value stage. The arguments are rankkit.features'. One row per
-- measure spec, system and evaluated query: i, measure, agg, system, query_id, value.
-- rankkit.measure_value dispatches on every registered measure; binding that CASE costs a plan
-- tens of milliseconds, so rankkit's Python composes this query with a CASE over the measures
-- asked for only (rankkit.measures.value_dispatch).
CREATE OR REPLACE MACRO rankkit.per_query_ranked(qrels_table, ranks_table, specs, ties := 'trec',
        queries := 'both') AS TABLE
    SELECT i, measure, agg, system, query_id, rankkit.measure_value(metric, f, s) AS value
    FROM rankkit.features(qrels_table, ranks_table, specs, ties := ties, queries := queries);

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
             THEN exp(rankkit.ordered_sum(list(rankkit.geometric_term(value) ORDER BY query_id)
                                          FILTER (WHERE value IS NOT NULL)) / count(value))
         ELSE rankkit.ordered_sum(list(value ORDER BY query_id) FILTER (WHERE value IS NOT NULL)) / count(value) END;

-- rankkit.over_values: per-query values (a table or CTE named values_table, in the columns of
-- rankkit.per_query) to one row per measure and system: the mean over evaluated queries (the sum
-- for counts, as trec_eval), and how many queries it covers (empty := 'skip' leaves some out).
CREATE OR REPLACE MACRO rankkit.over_values(values_table) AS TABLE
    SELECT measure, system,
           rankkit.over_queries(agg, value, query_id) AS value,
           count(value) AS queries
    FROM query_table(values_table::VARCHAR)
    GROUP BY i, measure, system
    ORDER BY i, system;

-- rankkit.aggregate: rankkit.per_query's values, one row per measure and system (rankkit.over_values).
CREATE OR REPLACE MACRO rankkit.aggregate(qrels_table, run_table, specs, ties := 'trec',
        scores := 'double', depth := NULL, queries := 'both', validate := true, keyed := false, judged_only := false) AS TABLE
-- MATERIALIZED: see rankkit.evaluate's engine_query (DuckDB's optimizer spends seconds merging the
-- value CASE into the aggregate's input otherwise)
WITH rankkit_values AS MATERIALIZED (
    FROM rankkit.per_query(qrels_table, run_table, specs, ties := ties, scores := scores,
                           depth := depth, queries := queries, validate := validate, keyed := keyed, judged_only := judged_only)
)
FROM rankkit.over_values('rankkit_values');
