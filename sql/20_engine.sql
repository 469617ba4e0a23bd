-- Text from the inputs as an error message quotes it (Python's rankkit.safe.terminal.visible): each
-- control character (C0, DEL, C1), line separator and bidirectional control written visibly, \n or
-- \x1b, so that a message is one line and sends no sequence to the terminal. Error path only.
CREATE OR REPLACE MACRO rankkit.visible(text) AS
    array_to_string(list_transform(string_split(text::VARCHAR, ''), lambda c:
        CASE WHEN c = chr(10) THEN '\n' WHEN c = chr(9) THEN '\t' WHEN c = chr(13) THEN '\r'
             WHEN regexp_matches(c, '[\x00-\x1f\x7f-\x9f]') THEN '\x' || lpad(lower(to_hex(ord(c))), 2, '0')
             WHEN regexp_matches(c, '[\x{2028}\x{2029}\x{200e}\x{200f}\x{202a}-\x{202e}\x{2066}-\x{2069}]')
                 THEN '\u' || lpad(lower(to_hex(ord(c))), 4, '0')
             ELSE c END), '');

-- What no query id or system name may hold: a control character (C0, DEL, C1), as the Python readers
-- refuse (rankkit.io.checks): trec_eval's text has a TAB between fields and a line per value.
CREATE OR REPLACE MACRO rankkit.has_control(text) AS regexp_matches(text, '[\x00-\x1f\x7f-\x9f]');
CREATE OR REPLACE MACRO rankkit.names_why() AS
    'refused: trec_eval''s text (a TAB between fields, a line per value) and a terminal cannot show it';

-- ' in column user_id' where a table calls rankkit's column otherwise, as Python's readers say it.
CREATE OR REPLACE MACRO rankkit.in_column(theirs, ours) AS
    CASE WHEN theirs <> ours THEN ' in column ' || theirs ELSE '' END;

-- What is wrong with a row the engine refuses, naming its query and document, and the column of a NULL id
-- (raw: its caller writes the whole message through rankkit.visible, once).
CREATE OR REPLACE MACRO rankkit.bad_row(query_id, doc_id, what, number, query_column, doc_column) AS
    CASE WHEN query_id IS NULL THEN 'a NULL query id' || rankkit.in_column(query_column, 'query_id')
                                    || ' (document ' || coalesce(doc_id, 'NULL') || ')'
         WHEN doc_id IS NULL
             THEN 'a NULL document id' || rankkit.in_column(doc_column, 'doc_id') || ' for query ' || query_id
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
-- queries := 'run'   every query of the run, those the qrels lack holding no relevant item (scored by each measure's empty rule)
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
--   positive          whether its score (at the score precision) is above 0, for the measures of scored := 'positive'
--   tie_first, tie_size  ties := 'average' only: the first rank and the size of its group of equal scores
-- and one row with rank, grade and tie columns NULL for a query that retrieved no judged document,
-- so that every query of the run is there. The arguments are rankkit.per_query's; the rows are not
-- checked (rankkit.per_query does that), the columns are (rankkit.columns_ok). rankkit.matched_ranks is the
-- same without the column check, for rankkit.per_query, whose input checks make it: a check is planned
-- wherever it is written.
-- The most judged documents a query may have retrieved and still have its ranks counted (rankkit.ranks,
-- below); rankkit.evaluate.ranks_by_window reads the number from this line.
CREATE OR REPLACE MACRO rankkit.judged_counted() AS 8;

CREATE OR REPLACE MACRO rankkit.matched_ranks(qrels_table, run_table, ties := 'trec', scores := 'double',
        depth := NULL, judged_only := false, keyed := false) AS TABLE
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
    HAVING ties <> 'trec' OR count(*) > rankkit.judged_counted() OR count(*) FILTER (WHERE score_key IS NULL) > 0
),
by_count AS (
    SELECT * FROM run_judged j
    ANTI JOIN by_window w ON w.system IS NOT DISTINCT FROM j.system AND w.query_id = j.query_id
),
-- one pass over the run: every query's length, and the rank of each document in by_count
counted AS (
    SELECT run.system, run.query_id, c.doc_id, any_value(c.grade) AS grade, any_value(c.score_key) > 0 AS positive,
           count(*) AS num_rows,
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
    SELECT ranked.system, ranked.query_id, ranked.rank, qrels.grade, ranked.score_key > 0 AS positive
    FROM ranked JOIN rankkit_qrels qrels USING (query_id, doc_id)
),
cut AS (
    SELECT system, query_id, rank, grade, positive FROM (
        SELECT system, query_id, rank, grade, positive FROM counted WHERE doc_id IS NOT NULL
        UNION ALL
        SELECT system, query_id, rank, grade, positive FROM windowed
    )
    WHERE depth IS NULL OR rank <= depth
),
-- the judged documents of the ranked run (within depth), with their ranks; judged_only := true
-- ranks the documents judged >= 0 among themselves (trec_eval -J)
judged AS (
    SELECT system, query_id, rank, grade, positive FROM cut WHERE NOT judged_only
    UNION ALL
    SELECT system, query_id, row_number() OVER (PARTITION BY system, query_id ORDER BY rank) AS rank, grade, positive
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
       tie_groups.tie_first, tie_groups.tie_size, judged.positive
FROM retrieved
LEFT JOIN judged ON judged.system IS NOT DISTINCT FROM retrieved.system AND judged.query_id = retrieved.query_id
LEFT JOIN tie_groups ON tie_groups.system IS NOT DISTINCT FROM judged.system AND tie_groups.query_id = judged.query_id
                    AND tie_groups.rank = judged.rank;

CREATE OR REPLACE MACRO rankkit.ranks(qrels_table, run_table, ties := 'trec', scores := 'double', depth := NULL,
        judged_only := false, keyed := false) AS TABLE
SELECT r.*
FROM rankkit.matched_ranks(qrels_table, run_table, ties := ties, scores := scores, depth := depth,
                           judged_only := judged_only, keyed := keyed) r
-- the rows are not checked, but a missing column is said (it would read as NULL ids or scores)
CROSS JOIN rankkit.columns_ok(qrels_table, 'qrels') qrels_columns CROSS JOIN rankkit.columns_ok(run_table, 'run') run_columns
WHERE qrels_columns.ok AND run_columns.ok;

-- rankkit.window_ranks: rankkit.ranks' rows for ties := 'trec' or 'rank', every row of the run ranked by
-- rankkit.ranked's window (the same order, depth and judged_only rules). Counting ranks (above) saves
-- sorting a large run, but its joins and its two plans cost more than one sort where most queries
-- retrieved many judged documents (a DL19 run); rankkit.evaluate.ranks_by_window says when. A query that retrieved no judged document has one row
-- with rank and grade NULL, as in rankkit.ranks; so may a query that did (a row the stages skip).
-- rankkit.window_ranks_loaded is the same over tables in rankkit's own columns, as its readers load and
-- check them (rankkit.evaluate): a run's system, query_id, doc_id, score and rank, the qrels' query_id,
-- doc_id and relevance. Neither the columns nor the arguments are checked, and no column is matched:
-- binding rankkit.run_rows' matching took longer than the plain statement of lean_floor.py runs.
CREATE OR REPLACE MACRO rankkit.window_ranks_loaded(qrels_table, run_table, ties := 'trec', scores := 'double',
        depth := NULL, judged_only := false) AS TABLE
-- (CTE names prefixed: query_table() inside the row macros would read a CTE named as the caller's table)
WITH
-- trec_eval's order, or the given rank first (ties := 'rank'): a branch each, so that the other's sort
-- key is not sorted on as a constant NULL; a literal ties
-- leaves one branch.
rankkit_ranked AS (
    SELECT system, query_id, doc_id,
           row_number() OVER (PARTITION BY system, query_id
                              ORDER BY rankkit.score_key(scores, score) DESC NULLS LAST, doc_id DESC NULLS LAST) AS rank,
           count(*) OVER (PARTITION BY system, query_id) AS num_rows, rankkit.score_key(scores, score) > 0 AS positive
    FROM query_table(run_table::VARCHAR)
    WHERE CASE WHEN ties = 'average'
               THEN error('rankkit: window_ranks ranks ties := trec or rank; rankkit.ranks takes average') ELSE ties <> 'rank' END
    UNION ALL
    SELECT system, query_id, doc_id,
           row_number() OVER (PARTITION BY system, query_id
                              ORDER BY rank ASC NULLS LAST,
                                       rankkit.score_key(scores, score) DESC NULLS LAST, doc_id DESC NULLS LAST) AS rank,
           count(*) OVER (PARTITION BY system, query_id) AS num_rows, rankkit.score_key(scores, score) > 0 AS positive
    FROM query_table(run_table::VARCHAR)
    WHERE ties = 'rank'
),
-- the judged documents within depth, and each query's first row (which keeps a query without any)
rankkit_cut AS (
    SELECT r.system, r.query_id, r.rank, least(r.num_rows, coalesce(depth, r.num_rows)) AS num_rows, q.grade, r.positive
    FROM rankkit_ranked r LEFT JOIN rankkit.loaded_qrels_rows(qrels_table) q USING (query_id, doc_id)
    WHERE (depth IS NULL OR r.rank <= depth) AND (q.grade IS NOT NULL OR r.rank = 1)
),
-- judged_only := true ranks the documents judged >= 0 among themselves (trec_eval -J)
rankkit_judged AS (
    SELECT system, query_id, num_rows AS num_ret, CASE WHEN grade IS NOT NULL THEN rank END AS rank, grade, positive
    FROM rankkit_cut WHERE NOT judged_only
    UNION ALL
    SELECT system, query_id, count(*) FILTER (WHERE grade >= 0) OVER query AS num_ret,
           CASE WHEN grade >= 0 THEN count(*) FILTER (WHERE grade >= 0) OVER (query ORDER BY rank) END AS rank,
           CASE WHEN grade >= 0 THEN grade END AS grade, positive
    FROM rankkit_cut WHERE judged_only
    WINDOW query AS (PARTITION BY system, query_id)
)
SELECT system, query_id, num_ret, rank, grade, NULL::BIGINT AS tie_first, NULL::BIGINT AS tie_size, positive
FROM rankkit_judged WHERE rank IS NOT NULL OR grade IS NULL;

-- Any tables: their columns matched and the arguments checked (rankkit.run_rows, run_keys), into rankkit's
-- columns for window_ranks_loaded, which reads the CTEs by name.
CREATE OR REPLACE MACRO rankkit.window_ranks(qrels_table, run_table, ties := 'trec', scores := 'double', depth := NULL,
        judged_only := false) AS TABLE
WITH
rankkit_window_qrels AS (SELECT query_id, doc_id, grade AS relevance FROM rankkit.qrels_rows(qrels_table)),
rankkit_window_run AS (
    SELECT system, query_id, doc_id, score, rank_key AS rank
    FROM rankkit.run_keys(run_table, ties := ties, scores := scores, depth := depth)
)
SELECT w.*
FROM rankkit.window_ranks_loaded('rankkit_window_qrels', 'rankkit_window_run', ties := ties, scores := scores,
                                 depth := depth, judged_only := judged_only) w
-- the rows are not checked, but a missing column is said, as in rankkit.ranks
CROSS JOIN rankkit.columns_ok(qrels_table, 'qrels') qrels_columns CROSS JOIN rankkit.columns_ok(run_table, 'run') run_columns
WHERE qrels_columns.ok AND run_columns.ok;

-- rankkit.input_checks: one row, ok = true, or an error naming what is wrong with the raw inputs:
-- a missing column (rankkit.columns_ok), a NULL id, score or grade, a NaN or infinite one, or
-- (validate := true) a duplicate document. Each check is an aggregate of one row (NULL: nothing wrong),
-- cross joined: as EXISTS and scalar subqueries, each read of the inputs was planned again, and the
-- checks were much of the SQL rankkit.evaluate's planning.
CREATE OR REPLACE MACRO rankkit.input_checks(qrels_table, run_table, ties := 'trec', scores := 'double',
        depth := NULL, validate := true) AS TABLE
WITH
rankkit_qrels AS NOT MATERIALIZED (FROM rankkit.qrels_rows(qrels_table)),
rankkit_run AS NOT MATERIALIZED (FROM rankkit.run_keys(run_table, ties := ties, scores := scores, depth := depth)),
-- What the Python readers refuse, refused here too: a NULL id, or a score or grade that is NULL, NaN
-- or infinite (DuckDB sorts NaN above every number: it would rank first). The first such row.
run_bad AS (
    SELECT first({'query_id': query_id, 'doc_id': doc_id, 'score': score})
               FILTER (WHERE query_id IS NULL OR doc_id IS NULL OR score IS NULL OR NOT isfinite(score)) AS bad
    FROM rankkit_run WHERE validate
),
qrels_bad AS (
    SELECT first({'query_id': query_id, 'doc_id': doc_id, 'grade': grade})
               FILTER (WHERE query_id IS NULL OR doc_id IS NULL OR grade IS NULL OR NOT isfinite(grade)) AS bad
    FROM rankkit_qrels WHERE validate
),
-- Query ids and system names (rankkit.has_control), on their distinct values: one per query and system.
-- A table that names no system has system NULL on every row; NULL beside named systems is refused.
run_names AS (
    SELECT min(query_id) FILTER (WHERE rankkit.has_control(query_id)) AS query_id,
           min(system) FILTER (WHERE rankkit.has_control(system) OR trim(system) = '') AS system,
           bool_or(system IS NULL) AND bool_or(system IS NOT NULL) AS unnamed
    FROM (SELECT DISTINCT system, query_id FROM rankkit_run WHERE validate)
),
qrels_names AS (
    SELECT min(query_id) FILTER (WHERE rankkit.has_control(query_id)) AS query_id
    FROM (SELECT DISTINCT query_id FROM rankkit_qrels WHERE validate)
),
-- Duplicates cost a hash table as large as the run, so only inputs not yet checked are checked; the
-- first by query and document is named.
run_duplicates AS (
    SELECT min({'query_id': query_id, 'doc_id': doc_id, 'system': system}) AS duplicate FROM (
        SELECT system, query_id, doc_id FROM rankkit_run WHERE validate
        GROUP BY system, query_id, doc_id HAVING count(*) > 1)
),
qrels_duplicates AS (
    SELECT min({'query_id': query_id, 'doc_id': doc_id}) AS duplicate FROM (
        SELECT query_id, doc_id FROM rankkit_qrels WHERE validate
        GROUP BY query_id, doc_id HAVING count(*) > 1)
)
-- Each problem's message is composed raw and written through rankkit.visible once: the macro is
-- written out wherever it is called, and fourteen calls were much of an evaluation's planning.
SELECT CASE WHEN problem IS NULL THEN ok ELSE error(rankkit.visible(problem)) END AS ok
FROM (
SELECT qrels_columns.ok AND run_columns.ok AS ok, CASE
    -- a column under none of its names would read as NULL ids or scores: columns_ok says which
    WHEN NOT (qrels_columns.ok AND run_columns.ok) THEN NULL
    WHEN run_bad.bad IS NOT NULL
        THEN 'rankkit: run table ' || run_table || ': '
             || rankkit.bad_row(run_bad.bad.query_id, run_bad.bad.doc_id, 'score', run_bad.bad.score,
                                run_columns.query_column, run_columns.doc_column)
    WHEN qrels_bad.bad IS NOT NULL
        THEN 'rankkit: qrels table ' || qrels_table || ': '
             || rankkit.bad_row(qrels_bad.bad.query_id, qrels_bad.bad.doc_id, 'relevance', qrels_bad.bad.grade,
                                qrels_columns.query_column, qrels_columns.doc_column)
    WHEN run_names.query_id IS NOT NULL
        THEN 'rankkit: run table ' || run_table || ': the query id ''' || run_names.query_id
             || ''' holds a control character; ' || rankkit.names_why()
    WHEN qrels_names.query_id IS NOT NULL
        THEN 'rankkit: qrels table ' || qrels_table || ': the query id ''' || qrels_names.query_id
             || ''' holds a control character; ' || rankkit.names_why()
    WHEN run_names.system IS NOT NULL
        THEN 'rankkit: run table ' || run_table || ': the system name ''' || run_names.system || ''' '
             || CASE WHEN trim(run_names.system) = '' THEN 'is empty; name each system'
                     ELSE 'holds a control character; ' || rankkit.names_why() END
    WHEN run_names.unnamed
        THEN 'rankkit: run table ' || run_table || ': the system is NULL on some rows and named on others; name each system'
    WHEN run_duplicates.duplicate IS NOT NULL
        THEN 'rankkit: duplicate document ' || run_duplicates.duplicate.doc_id || ' for query '
             || run_duplicates.duplicate.query_id
             || coalesce(' in system ' || run_duplicates.duplicate.system, '') || ' in the run'
    WHEN qrels_duplicates.duplicate IS NOT NULL
        THEN 'rankkit: duplicate document ' || qrels_duplicates.duplicate.doc_id || ' for query '
             || qrels_duplicates.duplicate.query_id || ' in the qrels'
    END AS problem
FROM rankkit.columns_ok(qrels_table, 'qrels') qrels_columns, rankkit.columns_ok(run_table, 'run') run_columns,
     run_bad, qrels_bad, run_names, qrels_names, run_duplicates, qrels_duplicates
);

-- ties := 'average': the last rank of a tie group (from first, of size) within the cutoff k.
CREATE OR REPLACE MACRO rankkit.tie_last(first, size, k) AS least(first + size - 1, coalesce(k, first + size - 1));

-- rankkit.per_query_ranked(qrels_table, ranks_table, specs, ties := 'trec', queries := 'both'): the
-- value stage. ranks_table names a table (or a CTE of the calling query) in the columns of
-- rankkit.ranks; one row per measure spec, system and evaluated query: i, measure, agg, system,
-- query_id, value. It is not written here: rankkit.macros.per_query_macro writes it from the
-- declarations of sql/features.sql and sql/metrics/*.sql (the same ones rankkit's Python composes its
-- lean statements from), and it is created after these files.

CREATE OR REPLACE MACRO rankkit.per_query(qrels_table, run_table, specs, ties := 'trec',
        scores := 'double', depth := NULL, queries := 'both', validate := true, keyed := false,
        judged_only := false) AS TABLE
-- query_table() inside per_query_ranked reads this CTE: a name no input table is expected to have
WITH rankkit_ranked_run AS (
    FROM rankkit.matched_ranks(qrels_table, run_table, ties := ties, scores := scores, depth := depth,
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
-- One ordered list a group (a list per branch cost a sort each) of the values' terms (rankkit.query_term),
-- and the value over queries from their ordered sum and number (rankkit.combined): both generated from the
-- aggregations' declaration (rankkit.measures.AGGREGATIONS) by rankkit.macros.aggregation_sql().
CREATE OR REPLACE MACRO rankkit.query_terms(agg, value, query_id) AS
    list(rankkit.query_term(agg, value) ORDER BY query_id) FILTER (WHERE value IS NOT NULL);
CREATE OR REPLACE MACRO rankkit.over_queries(agg, value, query_id) AS
    rankkit.combined(any_value(agg), rankkit.ordered_sum(rankkit.query_terms(agg, value, query_id)), count(value));

-- rankkit.over_values: per-query values (a table or CTE named values_table, in the columns of
-- rankkit.per_query) to one row per measure and system: the mean over evaluated queries (the sum
-- for counts, as trec_eval), and how many queries it covers (empty := 'skip' leaves some out).
-- over_queries in two steps: as one expression, its sum is bound once for each use in combined.
CREATE OR REPLACE MACRO rankkit.over_values(values_table) AS TABLE
    SELECT measure, system, rankkit.combined(agg, total, queries) AS value, queries
    FROM (
        SELECT i, measure, system, any_value(agg) AS agg,
               rankkit.ordered_sum(rankkit.query_terms(agg, value, query_id)) AS total, count(value) AS queries
        FROM query_table(values_table::VARCHAR)
        GROUP BY i, measure, system
    )
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
