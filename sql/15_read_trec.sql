-- rankkit.read_trec_qrels / rankkit.read_trec_run: TREC text read as rankkit's Python readers read
-- it, for SQL users. path is a file or a glob (DuckDB's read_csv: '.gz' files are decompressed);
-- fields are split on runs of spaces and tabs, mixed as they come; blank lines and lines starting
-- with '#' are skipped. The tables have rankkit's columns and go straight to the other macros:
--
--   CREATE TABLE qrels AS FROM rankkit.read_trec_qrels('qrels.txt');   -- query_id, doc_id, relevance
--   CREATE TABLE run AS FROM rankkit.read_trec_run('runs/*.run');      -- system, query_id, doc_id, rank, score
--   CREATE TABLE subtopics AS FROM rankkit.read_trec_subtopics('div.txt');  -- query_id, subtopic, doc_id, relevance
--
-- Each run file is one system, named by its file as rankkit.read_run names it (rankkit.run_name:
-- bm25 for bm25.run.gz), so runs sharing a tag stay apart. A line without its fields, or with a score
-- or grade that is not a finite number, stops the query with an error naming the file and line.

-- A run file's name for its system: the file name without the suffixes rankkit/names.py lists, shed
-- in that order (bm25 for runs/bm25.run.gz), as Python's rankkit.io.run_name.
CREATE OR REPLACE MACRO rankkit.run_name(path) AS
    list_reduce({{run_suffixes}},
                lambda name, suffix: CASE WHEN ends_with(lower(name), suffix) AND length(name) > length(suffix)
                                          THEN left(name, length(name) - length(suffix)) ELSE name END,
                regexp_replace(path::VARCHAR, '^.*/', ''));

-- Every line of the files, numbered from 1 across them in order (n), with its fields: blank lines
-- and comments are kept (content = false) so that a line's number in its file can be counted.
-- codec is read_csv's compression ('auto': by the file's name; a parameter named compression would
-- be substituted for read_csv's own argument name). Python's reader (rankkit/io.py) reads
-- through this macro too, telling gzip from the file's first bytes. max_line: the longest line read, in
-- bytes (DuckDB's default; rankkit's readers pass RANKKIT_MAX_LINE_BYTES).
CREATE OR REPLACE MACRO rankkit.trec_lines(path, codec := 'auto', max_line := 2097152) AS TABLE
    SELECT filename, n, fields, fields[1] <> '' AND NOT starts_with(fields[1], '#') AS content
    FROM (
        SELECT filename, row_number() OVER () AS n,
               regexp_split_to_array(trim(coalesce(line, ''), E' \t\r'), E'[ \t]+') AS fields
        FROM read_csv(path, columns = {'line': 'VARCHAR'}, delim = E'\x01', header = false, quote = '',
                      escape = '', auto_detect = false, strict_mode = false, filename = true,
                      compression = codec, max_line_size = max_line)
    );

-- One row, ok = true, or an error naming the first line of kind 'qrels', 'subtopics' or 'run' that Python's
-- reader would refuse ('file:line: what is wrong', in its words). lines_table names a CTE of
-- rankkit.trec_lines; lines are counted within their file only when one is wrong. With path (the
-- files' glob), a file without a line of content is refused too: read_csv gives it no row at all.
CREATE OR REPLACE MACRO rankkit.trec_checked(lines_table, kind, path := NULL) AS TABLE
WITH
layout AS (
    SELECT CASE WHEN kind = 'run' THEN 6 ELSE 4 END AS width,
           CASE WHEN kind = 'run' THEN 5 ELSE 4 END AS number_at,
           CASE WHEN kind = 'run' THEN 'score' ELSE 'relevance' END AS number,
           CASE WHEN kind = 'run' THEN {{fields run}} WHEN kind = 'subtopics' THEN {{fields subtopics}}
                ELSE {{fields qrels}} END AS names
),
lines AS (FROM query_table(lines_table::VARCHAR)),
first_bad AS (
    SELECT lines.filename, lines.n,
           CASE WHEN len(fields) < width OR (kind <> 'run' AND len(fields) > width)
                    THEN 'expected ' || width || ' fields (' || names || '), found ' || len(fields)
                ELSE 'the ' || number || ' ''' || fields[number_at] || ''' is not a finite number'
                     -- a spreadsheet's decimal comma, said as such (rankkit.io.columns.DECIMAL_COMMA)
                     || CASE WHEN regexp_full_match(fields[number_at], '[+-]?[0-9]*,[0-9]+')
                             THEN ' (a decimal comma? numbers are written with a point, 1.5)' ELSE '' END END AS problem
    FROM lines CROSS JOIN layout
    WHERE content AND (len(fields) < width OR (kind <> 'run' AND len(fields) > width)
                       OR NOT coalesce(isfinite(TRY_CAST(fields[number_at] AS DOUBLE)), false))
    ORDER BY lines.n
    LIMIT 1
),
file_start AS (SELECT min(n) AS n, max(n) AS last FROM lines SEMI JOIN first_bad USING (filename)),
-- a file without content: empty, or (as Python's reader says) only comment lines, counted
first_empty AS (
    SELECT files.file, count(lines.n) FILTER (WHERE lines.fields[1] <> '') AS comments
    FROM glob(coalesce(path, '')) files LEFT JOIN lines ON lines.filename = files.file
    WHERE path IS NOT NULL
    GROUP BY files.file HAVING count(lines.n) FILTER (WHERE lines.content) = 0
    ORDER BY files.file LIMIT 1
)
SELECT CASE WHEN EXISTS (FROM first_empty)
                THEN error((SELECT 'rankkit: ' || file || ': '
                                   || CASE WHEN comments > 0
                                           THEN 'the file holds only comment lines (' || comments || ' line'
                                                || CASE WHEN comments > 1 THEN 's' ELSE '' END || ' starting with #)'
                                           ELSE 'the file is empty' END
                                   || ', expected TREC ' || kind || ' lines (' || names || ')'
                             FROM first_empty, layout))
            WHEN NOT EXISTS (FROM first_bad) THEN true
            -- DuckDB reads a truncated gzip (or zstd) file up to where it ends, without a word: its last line,
            -- cut short, is the only sign, said as such (a file cut at a line's end reads as a shorter file)
            ELSE error((SELECT 'rankkit: ' || filename || ':' || (first_bad.n - file_start.n + 1) || ': ' || problem
                               || CASE WHEN first_bad.n = file_start.last AND regexp_matches(lower(filename), '\.(gz|zst)$')
                                       THEN ' (the last line of a compressed file: is the file truncated? DuckDB reads '
                                            || 'a truncated file without a word; gzip -t or zstd -t tests it)'
                                       ELSE '' END
                        FROM first_bad, file_start)) END AS ok;

CREATE OR REPLACE MACRO rankkit.read_trec_qrels(path) AS TABLE
WITH rankkit_trec_lines AS MATERIALIZED (FROM rankkit.trec_lines(path))
SELECT fields[1] AS query_id, fields[3] AS doc_id, TRY_CAST(fields[4] AS DOUBLE) AS relevance
FROM rankkit_trec_lines, rankkit.trec_checked('rankkit_trec_lines', 'qrels', path := path) checked
WHERE content AND checked.ok;

-- The subtopic judgments of the diversity measures, TREC's 'query subtopic doc grade' (ndeval's qrels),
-- read as the qrels are: FROM rankkit.alpha_ndcg('subtopics', 'run', k := 10) takes the table made of them.
CREATE OR REPLACE MACRO rankkit.read_trec_subtopics(path) AS TABLE
WITH rankkit_trec_lines AS MATERIALIZED (FROM rankkit.trec_lines(path))
SELECT fields[1] AS query_id, fields[2] AS subtopic, fields[3] AS doc_id, TRY_CAST(fields[4] AS DOUBLE) AS relevance
FROM rankkit_trec_lines, rankkit.trec_checked('rankkit_trec_lines', 'subtopics', path := path) checked
WHERE content AND checked.ok;

-- Each file's system is named once: naming it on every line cost most of the reading.
CREATE OR REPLACE MACRO rankkit.read_trec_run(path) AS TABLE
WITH
rankkit_trec_lines AS MATERIALIZED (FROM rankkit.trec_lines(path)),
-- a name with a control character is refused naming its file, as Python's readers refuse it (rankkit.has_control)
files AS (
    SELECT filename, CASE WHEN rankkit.has_control(rankkit.run_name(filename))
                          THEN error('rankkit: ' || rankkit.visible(filename) || ': the system name '''
                                     || rankkit.visible(rankkit.run_name(filename)) || ''' holds a control character; '
                                     || rankkit.names_why())
                          ELSE rankkit.run_name(filename) END AS system
    FROM (SELECT DISTINCT filename FROM rankkit_trec_lines)
)
SELECT files.system, fields[1] AS query_id, fields[3] AS doc_id,
       TRY_CAST(fields[4] AS INTEGER)::BIGINT AS rank, TRY_CAST(fields[5] AS DOUBLE) AS score
FROM rankkit_trec_lines JOIN files USING (filename), rankkit.trec_checked('rankkit_trec_lines', 'run', path := path) checked
WHERE content AND checked.ok;
