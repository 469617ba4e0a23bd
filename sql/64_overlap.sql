-- How alike are two rankings of the same queries (a reranker against its first stage, today's
-- system against last week's)? Two run tables, one system each, ranked by rankkit.ranked's rule.
--
-- rankkit.overlap(run_a, run_b, p := 0.9, k := 10) gives, per query both runs retrieve for:
--   length_a, length_b        documents each run ranks (after depth := N, if given)
--   overlap_at_k              documents in both top k, over k
--   jaccard_at_k              documents in both top k, over the documents in either top k
--   rbo_min, rbo_max, rbo_res, rbo_ext   rank-biased overlap with persistence p (Webber, Moffat
--       and Zobel, ACM TOIS 28(4), 2010): its lower bound (nothing below the seen depth agrees), its
--       upper bound (everything there agrees as far as it can), the residual max - min, and the
--       extrapolation (the agreement at the shorter list's end holds below it). Lists of uneven
--       length as in their section 4.1 and as Corsi and Urbano (SIGIR 2024) compute them.
-- Rankings here have no ties: equal scores are ordered by the tie rule (ties := 'trec' or 'rank').
-- A query only one run retrieves for is listed by rankkit.overlap_queries, not here.

-- Each query's documents in both runs' orders, with the query's lengths: s the shorter, l the longer.
CREATE OR REPLACE MACRO rankkit.overlap_ranks(run_a, run_b, ties := 'trec', depth := NULL) AS TABLE
WITH
a AS (FROM rankkit.ranked(run_a, ties := ties, depth := depth)),
b AS (FROM rankkit.ranked(run_b, ties := ties, depth := depth)),
checks AS (
    SELECT CASE
        WHEN (SELECT count(DISTINCT system) FROM a) > 1
            THEN error('rankkit: run table ' || run_a::VARCHAR || ' holds ' || (SELECT count(DISTINCT system) FROM a)
                       || ' systems; overlap compares one ranking with one: filter one system')
        WHEN (SELECT count(DISTINCT system) FROM b) > 1
            THEN error('rankkit: run table ' || run_b::VARCHAR || ' holds ' || (SELECT count(DISTINCT system) FROM b)
                       || ' systems; overlap compares one ranking with one: filter one system')
        WHEN NOT EXISTS (SELECT 1 FROM a JOIN b USING (query_id))
            THEN error('rankkit: run tables ' || run_a::VARCHAR || ' and ' || run_b::VARCHAR || ' have no query in common')
        ELSE true END AS ok
),
lengths AS (
    SELECT query_id, na.n AS length_a, nb.n AS length_b, least(na.n, nb.n) AS s, greatest(na.n, nb.n) AS l
    FROM (SELECT query_id, count(*) AS n FROM a GROUP BY query_id) na
    JOIN (SELECT query_id, count(*) AS n FROM b GROUP BY query_id) nb USING (query_id)
)
SELECT query_id, doc_id, a.rank AS rank_a, b.rank AS rank_b, length_a, length_b, s, l,
       -- the longer list's rank (the a list's where both are as long)
       CASE WHEN length_b > length_a THEN b.rank ELSE a.rank END AS rank_long,
       CASE WHEN length_b > length_a THEN a.rank ELSE b.rank END AS rank_short
FROM a FULL JOIN b USING (query_id, doc_id)
JOIN lengths USING (query_id)
CROSS JOIN checks
WHERE checks.ok;

-- rankkit.overlap_queries: every query of either run, the documents each ranks, and whether the other
-- run ranks any for it (a query one run retrieves for only has no overlap to measure).
CREATE OR REPLACE MACRO rankkit.overlap_queries(run_a, run_b, ties := 'trec', depth := NULL) AS TABLE
    SELECT query_id, count(a.doc_id) AS length_a, count(b.doc_id) AS length_b,
           CASE WHEN count(a.doc_id) = 0 THEN 'b' WHEN count(b.doc_id) = 0 THEN 'a' ELSE 'both' END AS side
    FROM rankkit.ranked(run_a, ties := ties, depth := depth) a
    FULL JOIN rankkit.ranked(run_b, ties := ties, depth := depth) b USING (query_id, doc_id)
    GROUP BY query_id
    ORDER BY query_id;

CREATE OR REPLACE MACRO rankkit.overlap(run_a, run_b, p := 0.9, k := 10, ties := 'trec', depth := NULL) AS TABLE
WITH
ranks AS MATERIALIZED (FROM rankkit.overlap_ranks(run_a, run_b, ties := ties, depth := depth)),
checked AS (
    SELECT CASE WHEN NOT (p > 0 AND p < 1) THEN error('rankkit: p must be between 0 and 1 (exclusive), got ' || p)
                WHEN NOT k >= 1 THEN error('rankkit: k must be a positive integer, got ' || k)
                ELSE true END AS ok
),
queries AS (SELECT DISTINCT query_id, length_a, length_b, s, l FROM ranks),
-- X_d, the documents in both prefixes of depth d, and (for rbo_max) the documents of the longer
-- list's prefix that the shorter list does not rank at all
seen AS (SELECT query_id, greatest(rank_a, rank_b) AS d, count(*) AS n FROM ranks
         WHERE rank_a IS NOT NULL AND rank_b IS NOT NULL GROUP BY ALL),
unshared AS (SELECT query_id, rank_long AS d, count(*) AS n FROM ranks WHERE rank_short IS NULL AND rank_long IS NOT NULL GROUP BY ALL),
depths AS (
    SELECT q.query_id, q.s, q.l, r.d,
           sum(coalesce(seen.n, 0)) OVER (PARTITION BY q.query_id ORDER BY r.d)::BIGINT AS x,
           sum(coalesce(unshared.n, 0)) OVER (PARTITION BY q.query_id ORDER BY r.d)::BIGINT AS m
    FROM queries q
    CROSS JOIN LATERAL (SELECT range AS d FROM range(1, q.l + 1)) r
    LEFT JOIN seen ON seen.query_id = q.query_id AND seen.d = r.d
    LEFT JOIN unshared ON unshared.query_id = q.query_id AND unshared.d = r.d
),
sums AS (
    SELECT query_id, s, l,
           max(x) FILTER (d = l) AS x_l, max(x) FILTER (d = s) AS x_s,
           sum(x / d * p ^ d) AS seen_sum,
           sum(CASE WHEN d <= s THEN x ELSE x + least(d - s, m) END / d * p ^ d) AS max_sum,
           sum(p ^ d / d) AS harmonic
    FROM depths GROUP BY query_id, s, l
),
top_k AS (
    SELECT query_id, count(*) FILTER (rank_a <= k AND rank_b <= k) AS both_k,
           count(*) FILTER (rank_a <= k OR rank_b <= k) AS either_k
    FROM ranks GROUP BY query_id
),
bounds AS (
    SELECT sums.*, both_k, either_k,
           (1 - p) / p * (seen_sum + x_l * (ln(1 / (1 - p)) - harmonic)) AS rbo_min,
           (1 - p) / p * (max_sum
               + (SELECT coalesce(sum((2 * d - l - s + x_l) / d * p ^ d), 0) FROM range(l + 1, l + s - x_l + 1) t(d))
               + p ^ (l + s - x_l + 1) / (1 - p)) AS rbo_max,
           -- below the shorter list's end, each depth d of the longer one is taken to agree as the
           -- prefix of depth s did: (d - s) * X_s / s more documents in common
           (1 - p) / p * (seen_sum
               + (SELECT coalesce(sum((d - s) * x_s / s / d * p ^ d), 0) FROM range(s + 1, l + 1) t(d))
               + (x_l + (l - s) * x_s / s) / l * p ^ (l + 1) / (1 - p)) AS rbo_ext
    FROM sums JOIN top_k USING (query_id)
)
SELECT query_id, q.length_a, q.length_b,
       both_k / k AS overlap_at_k,
       CASE WHEN either_k > 0 THEN both_k / either_k END AS jaccard_at_k,
       rbo_min, rbo_max, rbo_max - rbo_min AS rbo_res, rbo_ext
FROM bounds JOIN queries q USING (query_id), checked
WHERE checked.ok
ORDER BY query_id;
