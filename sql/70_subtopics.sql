-- The subtopic judgments of the diversity measures (alpha-nDCG, ERR-IA, NRBP, P-IA, AP-IA, S-recall):
-- TREC's 'query subtopic doc grade', ndeval's qrels, as a table in any of the common column names
-- (rankkit/names.py's ALIASES; ir_measures keeps the subtopic in a column called iteration).

-- rankkit.subtopic_rows: any table or view of subtopic judgments in rankkit's columns, matched as
-- rankkit.qrels_rows matches a qrels table's (the first name present wins); ids become strings.
CREATE OR REPLACE MACRO rankkit.subtopic_rows(subtopics_table) AS TABLE
    SELECT {{coalesce query_id VARCHAR}} AS query_id,
           {{coalesce subtopic VARCHAR}} AS subtopic,
           {{coalesce doc_id VARCHAR}} AS doc_id,
           {{coalesce relevance DOUBLE}} AS grade
    FROM (
        FROM query_table(subtopics_table::VARCHAR)
        UNION ALL BY NAME
        (SELECT {{empty_row subtopics}} LIMIT 0)
    );

-- rankkit.subtopic_ranks: per system, query and subtopic, the rank of each retrieved document judged
-- for that subtopic and its grade there, ranked as rankkit.ranked ranks (the same tie rule and depth
-- as the run's other measures). The diversity measures' inputs sub_ranks and sub_grades are read from
-- it (rankkit.compose).
CREATE OR REPLACE MACRO rankkit.subtopic_ranks(subtopics_table, run_table, ties := 'trec', scores := 'double',
        depth := NULL) AS TABLE
    SELECT r.system, r.query_id, s.subtopic, r.rank, s.grade
    FROM rankkit.ranked(run_table, ties := ties, scores := scores, depth := depth) r
    JOIN rankkit.subtopic_rows(subtopics_table) s USING (query_id, doc_id);
