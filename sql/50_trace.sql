-- rankkit.trace: how one query's score was made, rank by rank (DESIGN's worked examples are its output).
--
-- FROM rankkit.trace('qrels', 'run', 'q1', k := 10) gives, per system that retrieved the query, one
-- row per rank up to k: the document, its grade (NULL when unjudged), gain, discount log2(rank+1),
-- discounted gain, running CG and DCG; the ideal ordering at the same rank (ideal_grade,
-- ideal_gain) with running IDCG; running nDCG, precision and recall; and what the rank adds to AP,
-- RR and ERR. Summed (or read at rank k) they are evaluate's AP@k, RR@k, ERR@k and nDCG@k.
-- query may be one query id or a list of them.
--
-- Where the run retrieved fewer than k documents, rows go on with doc_id NULL (gain 0) to rank k:
-- the row at rank k always holds nDCG@k and P@k as evaluate computes them (IDCG@k counts ideal ranks
-- the run never filled; P@k divides by k). Without k the rows run to the longer of the run and the
-- ideal ordering, and the last row holds the whole-list nDCG.
-- After the ranked rows come the judged documents of positive grade the run did not retrieve
-- (within depth), rank NULL: IDCG counts them and the run missed them.
--
-- The options are evaluate's: gain, ideal, rel, max (ERR's scale), empty (nDCG when IDCG is 0), ties,
-- scores, depth. With ties := 'average' the gain of a rank is the mean gain of its group of equal
-- scores (McSherry and Najork's expected gain, as evaluate scores it), so CG, DCG and nDCG are
-- expected values; precision, recall and the AP, RR and ERR columns are NULL, as evaluate refuses
-- those measures under that rule.

-- One query id or a list of them, as a list of strings.
CREATE OR REPLACE MACRO rankkit.id_list(ids) AS
    CASE WHEN typeof(ids) LIKE '%[]' THEN ids::VARCHAR[] ELSE [ids::VARCHAR] END;

CREATE OR REPLACE MACRO rankkit.trace(qrels_table, run_table, query, k := NULL, gain := 'linear', rel := 1,
        ideal := 'qrels', max := 4, empty := 'zero', ties := 'trec', scores := 'double', depth := NULL) AS TABLE
WITH
-- the options checked as a measure's are, by the same macros. Columns named like a parameter (gain)
-- are always qualified below: unqualified, the name would read the parameter.
opt AS (SELECT rankkit.checked_k(k, 'trace') AS k, rankkit.checked_rel(rel, 'trace') AS rel,
               rankkit.checked_gain(gain, 'trace') AS gain, rankkit.checked_ideal(ideal, 'trace') AS ideal,
               rankkit.checked_empty(empty, 'trace') AS empty, rankkit.checked_max(max, 'trace') AS max,
               qrels_columns.ok AND run_columns.ok AS columns_ok
        FROM rankkit.columns_ok(qrels_table, 'qrels') qrels_columns, rankkit.columns_ok(run_table, 'run') run_columns),
wanted AS (SELECT DISTINCT unnest(rankkit.id_list(query)) AS query_id FROM opt WHERE opt.columns_ok),
rankkit_qrels AS (
    SELECT q.query_id, q.doc_id, q.grade
    FROM rankkit.qrels_rows(qrels_table) q SEMI JOIN wanted USING (query_id)
),
-- ranked without depth, then cut as the engine cuts (rank <= depth): under ties := 'average' a tie
-- group reaching past the cut spreads the gains of its documents within the cut over all its ranks,
-- as rankkit.per_query does
ranked AS (
    SELECT r.system, r.query_id, r.doc_id, r.score, r.rank,
           CASE WHEN scores = 'float32' THEN r.score::FLOAT::DOUBLE ELSE r.score END AS tie_key
    FROM rankkit.ranked(run_table, ties := ties, scores := scores, for_queries := rankkit.id_list(query)) r
),
judged_ranked AS (
    SELECT ranked.*, qrels.grade,
           coalesce(sum(rankkit.gain(qrels.grade, opt.gain)) FILTER (WHERE depth IS NULL OR ranked.rank <= depth) OVER tie,
                    0.0E0) / count(*) OVER tie AS tie_gain,
           max(ranked.rank) OVER tie AS tie_end
    FROM ranked CROSS JOIN opt
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
           CASE WHEN ties = 'average' THEN max(tie_end) ELSE 0 END AS span
    FROM rankkit_run run GROUP BY system, query_id
),
num_rel AS (
    SELECT qrels.query_id, count(*) FILTER (WHERE qrels.grade >= opt.rel) AS num_rel
    FROM rankkit_qrels qrels CROSS JOIN opt GROUP BY qrels.query_id
),
-- the ideal ordering, best grade first: every positive judged document (ideal := 'qrels', trec_eval's),
-- or the judged documents the system retrieved (ideal := 'run', scikit-learn's)
ideal_list AS (
    SELECT lists.system, lists.query_id, qrels.grade,
           row_number() OVER (PARTITION BY lists.system, lists.query_id ORDER BY qrels.grade DESC) AS pos
    FROM lists JOIN rankkit_qrels qrels USING (query_id) CROSS JOIN opt
    WHERE opt.ideal = 'qrels' AND qrels.grade > 0
    UNION ALL
    SELECT run.system, run.query_id, run.grade,
           row_number() OVER (PARTITION BY run.system, run.query_id ORDER BY run.grade DESC) AS pos
    FROM rankkit_run run CROSS JOIN opt
    WHERE opt.ideal = 'run' AND run.grade IS NOT NULL
),
ideal_length AS (
    SELECT system, query_id, count(*) AS n FROM ideal_list GROUP BY system, query_id
),
positions AS (
    SELECT lists.system, lists.query_id,
           unnest(range(1, coalesce(opt.k, greatest(lists.num_ret, lists.span, coalesce(ideal_length.n, 0))) + 1)) AS rank
    FROM lists CROSS JOIN opt
    LEFT JOIN ideal_length ON ideal_length.system IS NOT DISTINCT FROM lists.system
                          AND ideal_length.query_id = lists.query_id
),
rows AS (
    SELECT p.system, p.query_id, p.rank, run.doc_id, run.score, run.grade,
           coalesce(run.grade >= opt.rel, false) AS relevant,
           coalesce(CASE WHEN ties = 'average' THEN uncut.tie_gain ELSE rankkit.gain(run.grade, opt.gain) END, 0.0E0) AS gain,
           rankkit.discount(p.rank) AS discount,
           ideal_list.grade AS ideal_grade,
           rankkit.gain(ideal_list.grade, opt.gain) AS ideal_gain,
           rankkit.stop_probability(run.grade, opt.max) AS p_stop,
           coalesce(num_rel.num_rel, 0) AS num_rel
    FROM positions p CROSS JOIN opt
    LEFT JOIN rankkit_run run ON run.system IS NOT DISTINCT FROM p.system AND run.query_id = p.query_id AND run.rank = p.rank
    LEFT JOIN judged_ranked uncut ON uncut.system IS NOT DISTINCT FROM p.system AND uncut.query_id = p.query_id
                                 AND uncut.rank = p.rank
    LEFT JOIN ideal_list ON ideal_list.system IS NOT DISTINCT FROM p.system AND ideal_list.query_id = p.query_id
                        AND ideal_list.pos = p.rank
    LEFT JOIN num_rel ON num_rel.query_id = p.query_id
),
running AS (
    SELECT *,
           rows.gain / discount AS discounted_gain,
           sum(rows.gain) OVER down AS cg,
           sum(rows.gain / discount) OVER down AS dcg,
           sum(ideal_gain / discount) OVER down AS idcg,
           count(*) FILTER (WHERE relevant) OVER down AS relevant_so_far,
           coalesce(product(1.0E0 - p_stop) OVER above, 1.0E0) AS p_reach
    FROM rows
    WINDOW down AS (PARTITION BY system, query_id ORDER BY rank ROWS UNBOUNDED PRECEDING),
           above AS (PARTITION BY system, query_id ORDER BY rank ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
-- measures other than the gain-based ones are not defined under ties := 'average'
traced AS (
    -- qualified: an unqualified gain would read the macro's parameter of that name
    SELECT system, query_id, rank, doc_id, score, grade, relevant, running.gain, discount, discounted_gain, cg, dcg,
           ideal_grade, ideal_gain, idcg,
           rankkit.ratio(dcg, idcg, CASE WHEN empty = 'skip' THEN NULL ELSE 0.0E0 END) AS ndcg,
           CASE WHEN ties <> 'average' THEN relevant_so_far * 1.0E0 / rank END AS precision,
           CASE WHEN ties <> 'average' THEN rankkit.ratio(relevant_so_far, num_rel) END AS recall,
           CASE WHEN ties <> 'average' THEN
               CASE WHEN relevant THEN rankkit.ratio(relevant_so_far * 1.0E0 / rank, num_rel) ELSE 0.0E0 END
           END AS ap_contribution,
           CASE WHEN ties <> 'average' THEN
               CASE WHEN relevant AND relevant_so_far = 1 THEN 1.0E0 / rank ELSE 0.0E0 END
           END AS rr_contribution,
           CASE WHEN ties <> 'average' THEN p_stop * p_reach / rank END AS err_contribution
    FROM running
),
missed AS (
    SELECT lists.system, lists.query_id, NULL::BIGINT AS rank, qrels.doc_id, NULL::DOUBLE AS score, qrels.grade,
           qrels.grade >= opt.rel AS relevant, rankkit.gain(qrels.grade, opt.gain) AS gain
    FROM lists JOIN rankkit_qrels qrels USING (query_id) CROSS JOIN opt
    WHERE qrels.grade > 0
      AND NOT EXISTS (SELECT 1 FROM rankkit_run run WHERE run.system IS NOT DISTINCT FROM lists.system
                                          AND run.query_id = lists.query_id AND run.doc_id = qrels.doc_id)
)
SELECT * FROM traced
UNION ALL BY NAME
SELECT * FROM missed
ORDER BY system NULLS FIRST, query_id, rank NULLS LAST, grade DESC, doc_id;
