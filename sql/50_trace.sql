-- rankkit.trace: how one query's score was made, rank by rank (DESIGN's worked examples are its output).
--
-- FROM rankkit.trace('qrels', 'run', 'q1', k := 10) gives, per system that retrieved the query, one
-- row per rank up to k: the document, its grade (NULL when unjudged), gain, discount log2(rank+1),
-- discounted gain; the ideal ordering at the same rank (ideal_grade, ideal_gain); and, at rank r,
-- the values at cutoff r of CG, DCG, IDCG, nDCG, P (precision), R (recall), AP, RR and ERR, and what
-- the rank adds to AP, RR and ERR (their value at r less their value at r - 1). None of those columns
-- is worked out here: a measure's header (trace:) names the columns it shows, and
-- rankkit.trace_values computes them from the measures' declarations, the ones evaluate's statements
-- are composed from: the row at rank k holds evaluate's value at k, bit for bit, and the gains and
-- ideal rows shown are the ones those values add up. query may be one query id or a list of them.
--
-- Where the run retrieved fewer than k documents, rows go on with doc_id NULL (gain 0) to rank k:
-- the row at rank k always holds nDCG@k and P@k as evaluate computes them (IDCG@k counts ideal ranks
-- the run never filled; P@k divides by k). Without k the rows run to the longer of the run and the
-- ideal ordering, and the last row holds the whole-list nDCG. A query the qrels do not list has no
-- values (evaluate scores it nowhere).
-- After the ranked rows come the judged documents of positive grade the run did not retrieve
-- (within depth), rank NULL: IDCG counts them and the run missed them (their gains are the ideal rows').
--
-- The options are evaluate's: gain, gains, ideal, rel, max (ERR's scale), empty (nDCG when IDCG is
-- 0), scored (scored := 'positive': a document scored 0 or below is not relevant to precision, recall,
-- AP and RR, nor in the relevant column), ties, scores, depth. With ties := 'average' the gain of a rank is the mean gain of its group
-- of equal scores (McSherry and Najork's expected gain, as evaluate scores it), so CG, DCG and nDCG
-- are expected values; precision, recall and AP, RR and ERR are NULL, as evaluate refuses those
-- measures under that rule.

-- One query id or a list of them, as a list of strings.
CREATE OR REPLACE MACRO rankkit.id_list(ids) AS
    CASE WHEN typeof(ids) LIKE '%[]' THEN ids::VARCHAR[] ELSE [ids::VARCHAR] END;

-- rankkit.trace_loaded: rankkit.trace over tables in rankkit's own columns, as its readers load and
-- check them (the explorer's): a run's system, query_id, doc_id, score and rank, the qrels' query_id,
-- doc_id and relevance. Neither the columns nor ties and scores are checked, and no column is matched:
-- binding the matching and the checks is planning time the explorer pays at each query selection (CTE names as the caller's tables would be read instead).
CREATE OR REPLACE MACRO rankkit.trace_loaded(qrels_table, run_table, query, {{trace_defaults}},
        ties := 'trec', scores := 'double', depth := NULL) AS TABLE
WITH
-- the options (the traced measures' parameters) checked as a measure's are, by the same macros, and
-- the ranking's as rankkit.run_keys checks them. Columns named like a parameter (gain) are always qualified below: unqualified, the
-- name would read the parameter.
opt AS (SELECT {{trace_checked}}, rankkit.checked_ranking(ties, scores, depth) AS ok),
-- every option read here, so that each check runs: the values below are computed from the options as
-- given (a lambda cannot read opt), and an unread column of opt would be planned away, check and all
wanted AS (SELECT DISTINCT unnest(rankkit.id_list(query)) AS query_id FROM opt
           WHERE opt.ok AND hash({{trace_read opt}}) IS NOT NULL),
rankkit_qrels AS (
    SELECT q.query_id, q.doc_id, q.grade
    FROM rankkit.loaded_qrels_rows(qrels_table) q SEMI JOIN wanted USING (query_id)
),
-- ranked without depth (the query's rows only, filtered before the window), then cut as the engine
-- cuts (rank <= depth): under ties := 'average' a tie group reaching past the cut spreads the gains
-- of its documents within the cut over all its ranks, as rankkit.per_query does
ranked AS (
    SELECT r.system, r.query_id, r.doc_id, r.score, r.rank, rankkit.score_key(scores, r.score) AS tie_key
    FROM rankkit.ranked_loaded(run_table, ties := ties, scores := scores, for_queries := rankkit.id_list(query)) r
),
judged_ranked AS (
    SELECT ranked.*, qrels.grade, min(ranked.rank) OVER tie AS tie_first, count(*) OVER tie AS tie_size
    FROM ranked
    LEFT JOIN rankkit_qrels qrels ON qrels.query_id = ranked.query_id AND qrels.doc_id = ranked.doc_id
    WINDOW tie AS (PARTITION BY ranked.system, ranked.query_id, ranked.tie_key)
),
rankkit_run AS (
    SELECT * FROM judged_ranked
    WHERE CASE WHEN depth IS NOT NULL AND NOT depth > 0
                   THEN error('rankkit: depth must be a positive integer, got ' || depth)
               ELSE depth IS NULL OR rank <= depth END
),
-- span: the last rank of a tie group holding a document within the cut (ties := 'average' only)
lists AS (
    SELECT system, query_id, count(*) AS num_ret,
           CASE WHEN ties = 'average' THEN max(tie_first + tie_size - 1) ELSE 0 END AS span
    FROM rankkit_run run GROUP BY system, query_id
),
-- the judged documents of the query: no ideal ordering is longer (ideal := 'qrels'; ideal := 'run' is
-- no longer than the run), so that without k the rows reach its end (cut to it below)
judged AS (SELECT query_id, count(*) FILTER (WHERE grade >= 0) AS n FROM rankkit_qrels GROUP BY query_id),
positions AS (
    SELECT lists.system, lists.query_id, lists.num_ret, lists.span,
           unnest(range(1, coalesce(opt.k, greatest(lists.num_ret, lists.span, coalesce(judged.n, 0))) + 1)) AS rank
    FROM lists CROSS JOIN opt
    LEFT JOIN judged ON judged.query_id = lists.query_id
),
-- the ranks the measures read, in the columns of rankkit.ranks: the judged documents within depth,
-- their tie groups over the uncut ranking, and one row with rank NULL for a query that retrieved none
trace_ranks AS (
    SELECT lists.system, lists.query_id, lists.num_ret, run.rank, run.grade,
           CASE WHEN ties = 'average' THEN run.tie_first END AS tie_first,
           CASE WHEN ties = 'average' THEN run.tie_size END AS tie_size, rankkit.score_key(scores, run.score) > 0 AS positive
    FROM lists
    LEFT JOIN rankkit_run run ON run.system IS NOT DISTINCT FROM lists.system AND run.query_id = lists.query_id
                             AND run.grade IS NOT NULL
),
trace_qrels AS (SELECT query_id, doc_id, grade AS relevance FROM rankkit_qrels),
-- every column but the document's own comes from the measures' declarations (the headers' trace:
-- fields, the features they name): the gains and the ideal ordering are the ones the values add up.
-- The options as the caller gave them: opt has checked them (a lambda cannot read a subquery).
measured AS (
    FROM rankkit.trace_values('trace_qrels', 'trace_ranks', (SELECT max(rank) FROM positions),
                              {{trace_passed but k}}, ties := ties)
),
traced AS (
    -- qualified: an unqualified gain would read the macro's parameter of that name
    SELECT p.system, p.query_id, p.rank, run.doc_id, run.score, run.grade, {{trace_shown m}},
           -- without k, the rows go on to the longer of the run and the ideal ordering
           coalesce((SELECT k FROM opt), greatest(p.num_ret, p.span,
                    max(p.rank) FILTER (WHERE m.ideal_grade IS NOT NULL) OVER (PARTITION BY p.system, p.query_id))) AS rows_end
    FROM positions p
    LEFT JOIN rankkit_run run ON run.system IS NOT DISTINCT FROM p.system AND run.query_id = p.query_id AND run.rank = p.rank
    LEFT JOIN measured m ON m.system IS NOT DISTINCT FROM p.system AND m.query_id = p.query_id AND m.rank = p.rank
),
-- the judged documents the run missed: IDCG counts those of positive gain (their gains are the ideal
-- rows'); a document's own gain is shown where it is ranked
missed AS (
    SELECT lists.system, lists.query_id, NULL::BIGINT AS rank, qrels.doc_id, NULL::DOUBLE AS score, qrels.grade,
           qrels.grade >= opt.rel AS relevant
    FROM lists JOIN rankkit_qrels qrels USING (query_id) CROSS JOIN opt
    WHERE qrels.grade > 0
      AND NOT EXISTS (SELECT 1 FROM rankkit_run run WHERE run.system IS NOT DISTINCT FROM lists.system
                                          AND run.query_id = lists.query_id AND run.doc_id = qrels.doc_id)
)
SELECT * EXCLUDE (rows_end) FROM traced WHERE rank <= rows_end
UNION ALL BY NAME
SELECT * FROM missed
ORDER BY system NULLS FIRST, query_id, rank NULLS LAST, grade DESC, doc_id;

-- Any tables: their columns matched and checked, and the arguments checked (rankkit.run_keys), into
-- rankkit's columns for rankkit.trace_loaded (above), which reads the CTEs by name. The check gates the
-- run's rows, so that a table lacking a column is said even where no row matches the query.
CREATE OR REPLACE MACRO rankkit.trace(qrels_table, run_table, query, {{trace_defaults}},
        ties := 'trec', scores := 'double', depth := NULL) AS TABLE
WITH
rankkit_trace_checked AS (
    SELECT qrels_columns.ok AND run_columns.ok AS ok
    FROM rankkit.columns_ok(qrels_table, 'qrels') qrels_columns, rankkit.columns_ok(run_table, 'run') run_columns
),
rankkit_trace_qrels AS (SELECT query_id, doc_id, grade AS relevance FROM rankkit.qrels_rows(qrels_table)),
rankkit_trace_run AS (
    SELECT system, query_id, doc_id, score, rank_key AS rank
    FROM rankkit.run_keys(run_table, ties := ties, scores := scores, depth := depth)
    WHERE (SELECT ok FROM rankkit_trace_checked)
)
FROM rankkit.trace_loaded('rankkit_trace_qrels', 'rankkit_trace_run', query, {{trace_passed}}, ties := ties,
                          scores := scores, depth := depth);
