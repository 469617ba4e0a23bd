-- rankkit.run_rows / rankkit.qrels_rows: any table or view in rankkit's columns, whatever it calls
-- them. Common names are recognised (qid, topic; docno, docid; rel, grade, label; sim; run_id, tag):
-- the input is unioned BY NAME with an empty row of every such name, so a name the table lacks
-- reads as NULL, and the first name present in each list below wins (query_id before qid ...).
-- Ids become strings; a rank that is not an integer becomes NULL (only ties := 'rank' reads it).
-- A run's rankkit_key column, if any, passes through to rankkit.run_keys.
-- Python's readers (rankkit/io.py) do the same matching with errors for ambiguous or extra columns.

CREATE OR REPLACE MACRO rankkit.run_rows(run_table) AS TABLE
    SELECT coalesce(system::VARCHAR, run_id::VARCHAR, runid::VARCHAR, tag::VARCHAR, system_id::VARCHAR) AS system,
           coalesce(query_id::VARCHAR, qid::VARCHAR, queryid::VARCHAR, topic::VARCHAR, topic_id::VARCHAR) AS query_id,
           coalesce(doc_id::VARCHAR, docid::VARCHAR, docno::VARCHAR, document_id::VARCHAR) AS doc_id,
           coalesce(score::DOUBLE, sim::DOUBLE, similarity::DOUBLE) AS score,
           TRY_CAST(TRY_CAST(rank AS DOUBLE) AS BIGINT) AS given_rank,
           rankkit_key
    FROM (
        FROM query_table(run_table::VARCHAR)
        UNION ALL BY NAME
        (SELECT NULL AS system, NULL AS run_id, NULL AS runid, NULL AS tag, NULL AS system_id,
                NULL AS query_id, NULL AS qid, NULL AS queryid, NULL AS topic, NULL AS topic_id,
                NULL AS doc_id, NULL AS docid, NULL AS docno, NULL AS document_id,
                NULL AS score, NULL AS sim, NULL AS similarity, NULL AS rank, NULL::UBIGINT AS rankkit_key LIMIT 0)
    );

CREATE OR REPLACE MACRO rankkit.qrels_rows(qrels_table) AS TABLE
    SELECT coalesce(query_id::VARCHAR, qid::VARCHAR, queryid::VARCHAR, topic::VARCHAR, topic_id::VARCHAR) AS query_id,
           coalesce(doc_id::VARCHAR, docid::VARCHAR, docno::VARCHAR, document_id::VARCHAR) AS doc_id,
           coalesce(relevance::DOUBLE, rel::DOUBLE, grade::DOUBLE, label::DOUBLE, judgment::DOUBLE) AS grade
    FROM (
        FROM query_table(qrels_table::VARCHAR)
        UNION ALL BY NAME
        (SELECT NULL AS query_id, NULL AS qid, NULL AS queryid, NULL AS topic, NULL AS topic_id,
                NULL AS doc_id, NULL AS docid, NULL AS docno, NULL AS document_id,
                NULL AS relevance, NULL AS rel, NULL AS grade, NULL AS label, NULL AS judgment LIMIT 0)
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

-- rankkit.run_keys: run_rows with the arguments checked, the join key and the sort keys of the
-- tie rule: key (hash(query_id, doc_id), read from a rankkit_key column where the table has one, as
-- rankkit's parsed text does), rank_key (the given rank for ties='rank', else NULL) and score_key
-- (the score, at 32-bit precision if asked).
CREATE OR REPLACE MACRO rankkit.run_keys(run_table, ties := 'trec', scores := 'double', depth := NULL) AS TABLE
    SELECT system, query_id, doc_id, score,
           coalesce(rankkit_key, hash(query_id, doc_id)) AS key,
           CASE WHEN ties = 'rank' THEN given_rank END AS rank_key,
           CASE WHEN scores = 'float32' THEN score::FLOAT::DOUBLE ELSE score END AS score_key
    FROM rankkit.run_rows(run_table)
    WHERE CASE
        WHEN ties NOT IN ('trec', 'rank', 'average')
            THEN error('rankkit: ties must be trec, rank or average, got ''' || ties || '''')
        WHEN scores NOT IN ('double', 'float32')
            THEN error('rankkit: scores must be double or float32, got ''' || scores || '''')
        WHEN depth IS NOT NULL AND NOT depth > 0
            THEN error('rankkit: depth must be a positive integer, got ' || depth)
        ELSE true
    END;

-- Every row ranked by a window. rankkit.per_query ranks only the judged documents where it can,
-- and its window (for queries with many judged documents) orders rows exactly as this one.
-- for_queries := a list of query ids ranks just those queries: the filter runs before the window, where
-- a filter on the result would wait for the whole run to be sorted (rankkit.trace's one query).
CREATE OR REPLACE MACRO rankkit.ranked(run_table, ties := 'trec', scores := 'double', depth := NULL,
        for_queries := NULL) AS TABLE
    SELECT system, query_id, doc_id, score, rank
    FROM (
        SELECT system, query_id, doc_id, score,
               row_number() OVER (PARTITION BY system, query_id
                                  ORDER BY rank_key ASC NULLS LAST, score_key DESC NULLS LAST, doc_id DESC NULLS LAST) AS rank
        FROM rankkit.run_keys(run_table, ties := ties, scores := scores, depth := depth)
        WHERE for_queries IS NULL OR list_contains(for_queries::VARCHAR[], query_id)
    )
    WHERE depth IS NULL OR rank <= depth;
