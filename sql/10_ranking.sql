-- rankkit.run_rows / rankkit.qrels_rows: any table or view in rankkit's columns, whatever it calls
-- them. The common names of each column are those Python's readers recognise (qid, topic; docno,
-- docid; rel, grade, label; sim; run_id, tag ...): rankkit/names.py's ALIASES, written out in place of the
-- double-brace markers when rankkit composes the script. The input is unioned BY NAME with an empty
-- row of every such name, so a name the table lacks reads as NULL, and the first name present in
-- each list wins (query_id before qid ...); rankkit.columns_ok says which column is missing.
-- Ids become strings; a rank that is not an integer becomes NULL (only ties := 'rank' reads it).
-- A run's rankkit_key column, if any, passes through to rankkit.run_keys.
-- Python's readers (rankkit/io.py) do the same matching with errors for ambiguous or extra columns.

-- A run with a rank and no score under any of its names is ranked by its rank: its score is minus
-- the rank (rank 1 highest, equal ranks tied), as Python's readers (rankkit.io.columns.RANK_SCORE)
-- read it. Whether the table has a score column is read from its columns, never row by row: a NULL
-- score beside a rank stays an error. It is read while the statement is bound (the columns the
-- lambda picks, beside rankkit_one, as a struct's type), not by a join with the table's columns, which
-- every call would plan.
CREATE OR REPLACE MACRO rankkit.run_rows(run_table) AS TABLE
    SELECT {{coalesce system VARCHAR}} AS system,
           {{coalesce query_id VARCHAR}} AS query_id,
           {{coalesce doc_id VARCHAR}} AS doc_id,
           CASE WHEN rankkit_scored THEN {{coalesce score DOUBLE}}
                ELSE -TRY_CAST(TRY_CAST(rank AS DOUBLE) AS BIGINT)::DOUBLE END AS score,
           TRY_CAST(TRY_CAST(rank AS DOUBLE) AS BIGINT) AS given_rank,
           rankkit_key
    FROM (
        -- a table's own columns of these names are spare: left out, as they would be named twice
        SELECT * EXCLUDE (rankkit_one) FROM (
            SELECT COLUMNS(lambda c: lower(c) <> 'rankkit_scored'),
                   typeof(struct_pack(*COLUMNS(lambda c: c = 'rankkit_one' OR list_contains({{names score}}, lower(c)))))
                       <> 'STRUCT(rankkit_one INTEGER)' AS rankkit_scored
            FROM (SELECT 1 AS rankkit_one, * FROM query_table(run_table::VARCHAR)))
        UNION ALL BY NAME
        (SELECT {{empty_row run}}, NULL::UBIGINT AS rankkit_key, NULL::BOOLEAN AS rankkit_scored LIMIT 0)
    );

CREATE OR REPLACE MACRO rankkit.qrels_rows(qrels_table) AS TABLE
    SELECT {{coalesce query_id VARCHAR}} AS query_id,
           {{coalesce doc_id VARCHAR}} AS doc_id,
           {{coalesce relevance DOUBLE}} AS grade
    FROM (
        FROM query_table(qrels_table::VARCHAR)
        UNION ALL BY NAME
        (SELECT {{empty_row qrels}} LIMIT 0)
    );

-- rankkit.loaded_qrels_rows: qrels_rows for a table in rankkit's own columns, as its readers load them
-- (rankkit.evaluate): no column to match, a cost of every small evaluation's planning.
CREATE OR REPLACE MACRO rankkit.loaded_qrels_rows(qrels_table) AS TABLE
    SELECT query_id, doc_id, relevance AS grade FROM query_table(qrels_table::VARCHAR);

-- rankkit.table_columns: the name and type of each column of a table, view or CTE, in order, read
-- from its type alone (a table without rows has them too). DESCRIBE would say the same, but the
-- duckdb 1.5 shell binds a DESCRIBE in a macro before the macro's parameters are substituted.
CREATE OR REPLACE MACRO rankkit.table_columns(table_name) AS TABLE
    UNPIVOT (SELECT typeof(COLUMNS(t.*))
             FROM (SELECT 1 AS rankkit_one) LEFT JOIN (FROM query_table(table_name::VARCHAR) LIMIT 1) t ON true)
    ON COLUMNS(*) INTO NAME name VALUE type;

-- rankkit.columns_ok: one row, ok = true, or an error saying, in the words of Python's readers,
-- which of rankkit's columns a qrels or run table (kind 'qrels' or 'run') lacks under every one of
-- its names (with the names recognised and the table's columns), or has under two (a run with
-- topic and query, the query's text, would otherwise read the first of them; rankkit's own name
-- and another, user_id and query_id, are two too). A run's score may be missing where it has a rank.
-- A run's items given as a list (one row per user, rankkit.io.lists in Python) are refused with the
-- SQL that reads them as rows: a list cast to text would be one document no qrels judge. Other
-- columns (a timestamp) are left alone. Columns are taken in the order Python's readers take them,
-- the first problem said. It reads the table's columns, never its rows. Beside ok, the table's names of
-- the query and document ids (query_column, doc_column), for the messages about their rows.
-- A spare column (under no name of the kind's columns) one letter, or two swapped, from a name at least
-- four letters long of a column not found was more likely meant than spare (a misspelt sytem would merge
-- every system into one): rankkit.io.columns.one_edit, Python's rule.
CREATE OR REPLACE MACRO rankkit.columns_ok(table_name, kind) AS TABLE
    SELECT CASE WHEN problem IS NULL THEN true
                ELSE error(format('rankkit: {} table {}: {}', kind, table_name, problem)) END AS ok,
           query_column, doc_column
    FROM (
        -- a table whose columns pass has one name of each: the first found is the one
        SELECT original[list_position(present, list_intersect(present, {{names query_id}})[1])] AS query_column,
               original[list_position(present, list_intersect(present, {{names doc_id}})[1])] AS doc_column,
               -- each message one format(): each || is bound as an operator of many types
               list_filter([
                   CASE WHEN len(list_intersect(c.names, present)) > 1
                            THEN format('columns {0} could each be the {1}; keep one, or rename the one meant to {1}',
                                        array_to_string([original[list_position(present, n)]
                                                         FOR n IN c.names IF list_contains(present, n)], ', '),
                                        c.column)
                        WHEN c.column = 'doc_id' AND listed IS NOT NULL
                            THEN format('column {0} holds lists ({1}); the SQL macros read a row per document: give a '
                                        || 'view of SELECT * EXCLUDE ({2}), unnest({2}) AS doc_id, '
                                        || 'generate_subscripts({2}, 1) AS rank FROM query_table(''{3}'') (rank 1 first)',
                                        listed, listed_type, listed_ident, replace(table_name, '''', ''''''))
                        WHEN list_has_any(c.names, present) THEN NULL
                        WHEN c.required AND NOT (c.column = 'score' AND list_contains(present, 'rank'))
                            THEN format('missing column {0} (also recognised: {1}); columns are {2}; rename one to {0}',
                                        c.column, array_to_string(c.names[2:], ', '), listing)
                        -- the first near miss; NULL (|| passes it on) where there is none
                        ELSE 'extra column '
                             || original[list_position(present, [n FOR n IN spare
                                                                 IF len([a FOR a IN c.names IF length(a) >= 4
                                                                         AND damerau_levenshtein(n, a) <= 1]) > 0][1])]
                             || format(', one letter from the {0}; rename it to {0}, or drop it', c.column)
                        END
                   FOR c IN columns],
               lambda p: p IS NOT NULL)[1] AS problem
        FROM (
            -- the kind's columns written once and the spare columns found once (each copy of a list in the
            -- expression is bound anew)
            SELECT *, [n FOR n IN present IF NOT list_contains(flatten([c.names FOR c IN columns]), n)] AS spare
            FROM (
                SELECT list(lower(name)) AS present, list(name) AS original,
                       first(name) FILTER (WHERE lists) AS listed, first(type) FILTER (WHERE lists) AS listed_type,
                       '"' || replace(listed, '"', '""') || '"' AS listed_ident,
                       string_agg(name || ' (' || type || ')', ', ') AS listing,
                       CASE WHEN kind = 'run' THEN {{columns run}} ELSE {{columns qrels}} END AS columns
                FROM (SELECT *, type LIKE '%[]' AND list_contains({{names doc_id}}, lower(name)) AS lists
                      FROM rankkit.table_columns(table_name))
            )
        )
    );

-- rankkit.ranked: a run with the rank every document gets, the foundation of every measure.
--
-- ties := 'trec'  order by score DESC, then doc_id DESC compared byte-wise: trec_eval's rule.
--                 The run's own rank column is ignored, as trec_eval ignores it.
-- ties := 'rank'  use the run's rank column (score and doc_id only break its ties).
-- ties := 'average' ranks as 'trec'; rankkit.per_query then averages over the orderings of equal scores.
-- scores := 'float32' compares scores at 32-bit precision, as trec_eval 9 and pytrec_eval do.
-- depth := N      keeps the top N documents of each query, as trec_eval -M N.
-- A run without a system column gets system NULL; one with a rank column keeps it for ties='rank'.

-- The sort keys of the tie rule, before doc_id DESC: the given rank (ascending) for ties := 'rank', else
-- none; then the score (descending), at 32-bit precision for scores := 'float32'.
CREATE OR REPLACE MACRO rankkit.rank_key(ties, given_rank) AS CASE WHEN ties = 'rank' THEN given_rank END;
-- A score beyond float32's range rounds to +-inf, as IEEE's cast does in torch and trec_eval 9 (DuckDB's cast refuses it).
CREATE OR REPLACE MACRO rankkit.score_key(scores, score) AS
    CASE WHEN scores <> 'float32' THEN score
         WHEN abs(score) >= 3.4028235677973366e38 THEN CASE WHEN score > 0 THEN 'inf'::DOUBLE ELSE '-inf'::DOUBLE END
         ELSE score::FLOAT::DOUBLE END;

-- rankkit.checked_ranking: true, or an error naming the ranking argument that is wrong (the tie rule,
-- the score precision, the depth), for every macro that ranks a run.
CREATE OR REPLACE MACRO rankkit.checked_ranking(ties, scores, depth) AS CASE
    WHEN ties NOT IN ('trec', 'rank', 'average')
        THEN error('rankkit: ties must be trec, rank or average, got ''' || ties || '''')
    WHEN scores NOT IN ('double', 'float32')
        THEN error('rankkit: scores must be double or float32, got ''' || scores || '''')
    WHEN depth IS NOT NULL AND NOT depth > 0
        THEN error('rankkit: depth must be a positive integer, got ' || depth)
    ELSE true
END;

-- rankkit.run_keys: run_rows with the arguments checked, the join key and the sort keys of the
-- tie rule: key (hash(query_id, doc_id), read from a rankkit_key column where the table has one, as
-- rankkit's parsed text does), rank_key (the given rank for ties='rank', else NULL) and score_key
-- (the score, at 32-bit precision if asked).
CREATE OR REPLACE MACRO rankkit.run_keys(run_table, ties := 'trec', scores := 'double', depth := NULL) AS TABLE
    SELECT system, query_id, doc_id, score,
           coalesce(rankkit_key, hash(query_id, doc_id)) AS key,
           rankkit.rank_key(ties, given_rank) AS rank_key,
           rankkit.score_key(scores, score) AS score_key
    FROM rankkit.run_rows(run_table)
    WHERE rankkit.checked_ranking(ties, scores, depth);

-- rankkit.ranked_loaded: rankkit.ranked (below) over a table in rankkit's own columns, as its readers load and
-- check them (system, query_id, doc_id, score, rank): no column matched, no argument checked: binding
-- run_rows' matching is planning time each ranking of one query pays (the explorer's ranks and rankkit.trace_loaded).
CREATE OR REPLACE MACRO rankkit.ranked_loaded(run_table, ties := 'trec', scores := 'double', depth := NULL,
        for_queries := NULL) AS TABLE
    SELECT system, query_id, doc_id, score, rank
    FROM (
        SELECT r.system, r.query_id, r.doc_id, r.score,
               row_number() OVER (PARTITION BY r.system, r.query_id
                                  ORDER BY rankkit.rank_key(ties, r.rank) ASC NULLS LAST,
                                           rankkit.score_key(scores, r.score) DESC NULLS LAST, r.doc_id DESC NULLS LAST) AS rank
        FROM query_table(run_table::VARCHAR) r
        WHERE for_queries IS NULL OR list_contains(for_queries::VARCHAR[], r.query_id)
    )
    WHERE depth IS NULL OR rank <= depth;

-- rankkit.top_loaded: the top k of each list of a loaded, checked run (rankkit's own columns, no NULL
-- score or id) by trec_eval's rule (score, then doc_id, both descending), ranked 1..k: rankkit.ranked_loaded's
-- rows with rank <= k, from a top-k aggregate that keeps k rows a list where the window sorts every row (a
-- third of the CPU and a quarter of the memory on a recommender's top 100: bench/README.md, recsys).
CREATE OR REPLACE MACRO rankkit.top_loaded(run_table, k) AS TABLE
    SELECT system, query_id, unnest(top).doc_id AS doc_id, unnest(top).score AS score,
           generate_subscripts(top, 1) AS rank
    FROM (SELECT system, query_id, max({'score': score, 'doc_id': doc_id}, k) AS top
          FROM query_table(run_table::VARCHAR) GROUP BY system, query_id);

-- Every row ranked by a window. rankkit.per_query ranks only the judged documents where it can,
-- and its window (for queries with many judged documents) orders rows exactly as this one.
-- for_queries := a list of query ids ranks just those queries: the filter runs before the window, where
-- a filter on the result would wait for the whole run to be sorted (rankkit.trace's one query).
CREATE OR REPLACE MACRO rankkit.ranked(run_table, ties := 'trec', scores := 'double', depth := NULL,
        for_queries := NULL) AS TABLE
WITH rankkit_ranked_rows AS (
    SELECT system, query_id, doc_id, score, rank_key AS rank
    FROM rankkit.run_keys(run_table, ties := ties, scores := scores, depth := depth)
)
FROM rankkit.ranked_loaded('rankkit_ranked_rows', ties := ties, scores := scores, depth := depth,
                           for_queries := for_queries);
