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
-- ties := 'trec' or 'rank' orders equal scores by that rule; 'w', 'a' or 'b' leaves them tied, as
-- Corsi and Urbano (SIGIR 2024) define RBO over ties (rankkit.rbo, below).
-- A query only one run retrieves for is listed by rankkit.overlap_queries, not here.

-- Each query's documents in both runs' orders, with the query's lengths: s the shorter, l the longer;
-- the runs checked (one system each, a query in common).
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
SELECT query_id, doc_id, a.rank AS rank_a, b.rank AS rank_b, length_a, length_b, s, l
FROM a FULL JOIN b USING (query_id, doc_id)
JOIN lengths USING (query_id)
CROSS JOIN checks
WHERE checks.ok;

-- rankkit.overlap_queries: every query of either run, the documents each ranks, and whether the other
-- run ranks any for it (a query one run retrieves for only has no overlap to measure).
CREATE OR REPLACE MACRO rankkit.overlap_queries(run_a, run_b, ties := 'trec', depth := NULL) AS TABLE
    SELECT query_id, count(a.doc_id) AS length_a, count(b.doc_id) AS length_b,
           CASE WHEN count(a.doc_id) = 0 THEN 'b' WHEN count(b.doc_id) = 0 THEN 'a' ELSE 'both' END AS side
    FROM rankkit.ranked(run_a, ties := CASE WHEN ties IN ('w', 'a', 'b') THEN 'trec' ELSE ties END, depth := depth) a
    FULL JOIN rankkit.ranked(run_b, ties := CASE WHEN ties IN ('w', 'a', 'b') THEN 'trec' ELSE ties END, depth := depth) b
        USING (query_id, doc_id)
    GROUP BY query_id
    ORDER BY query_id;

-- ties := 'w', 'a' or 'b': RBO with equal scores tied (see rankkit.rbo); the top k then follow the
-- trec rule's order.
CREATE OR REPLACE MACRO rankkit.overlap(run_a, run_b, p := 0.9, k := 10, ties := 'trec', depth := NULL) AS TABLE
WITH
ranks AS MATERIALIZED (
    FROM rankkit.overlap_ranks(run_a, run_b, ties := CASE WHEN ties IN ('w', 'a', 'b') THEN 'trec' ELSE ties END,
                               depth := depth)
),
checked AS (
    SELECT CASE WHEN NOT k >= 1 THEN error('rankkit: k must be a positive integer, got ' || k) ELSE true END AS ok
),
top_k AS (
    SELECT query_id, any_value(length_a) AS length_a, any_value(length_b) AS length_b,
           count(*) FILTER (rank_a <= k AND rank_b <= k) AS both_k,
           count(*) FILTER (rank_a <= k OR rank_b <= k) AS either_k
    FROM ranks GROUP BY query_id
)
SELECT query_id, length_a, length_b,
       both_k / k AS overlap_at_k,
       CASE WHEN either_k > 0 THEN both_k / either_k END AS jaccard_at_k,
       rbo_min, rbo_max, rbo_res, rbo_ext
FROM top_k
JOIN rankkit.rbo(run_a, run_b, p := p, ties := ties, depth := depth) USING (query_id), checked
WHERE checked.ok
ORDER BY query_id;

-- rankkit.rbo: rank-biased overlap where equal scores tie (Corsi and Urbano, "The Treatment of Ties
-- in Rank-Biased Overlap", SIGIR 2024). ties := 'w' (a tie is equality: sports rankings), 'a' (a tie
-- is uncertainty: the mean over the orderings of each tie) or 'b' ('a' corrected for what the ties
-- hide); 'trec' or 'rank' break ties by that rule first (no ties left: every variant is Webber's).
-- Per query both runs rank documents for: rbo_min, rbo_max, rbo_res, rbo_ext.
--
-- Each document contributes to the overlap at depth d (a column j = d - 1) from the top of its tie
-- group on: in full below the group's bottom, in part (the share of the group seen) within it for
-- 'a' and 'b', in full from the group's top for 'w'. The sums over documents are counts of full
-- contributions (a cumulative histogram) plus the partial ones, which span tie groups only.
CREATE OR REPLACE MACRO rankkit.tie_contribution(variant, t, b, j) AS
    CASE WHEN t IS NULL OR j < t THEN 0.0
         WHEN variant = 'w' OR j >= b THEN 1.0
         ELSE (j - t + 1) / (b - t + 1) END;

-- The agreement of an overlap x at depth d past the shorter list's end (S has all its d documents).
CREATE OR REPLACE MACRO rankkit.tie_agreement(variant, x, d, sum_l, sq_l) AS
    CASE WHEN variant = 'w' THEN 2 * x / (d + sum_l) WHEN variant = 'a' THEN x / d
         ELSE x / sqrt(d) / sqrt(sq_l) END;

CREATE OR REPLACE MACRO rankkit.tie_groups(run_table, ties := 'a', depth := NULL) AS TABLE
    SELECT query_id, doc_id,
           CASE WHEN ties IN ('w', 'a', 'b') THEN min(rank) OVER g ELSE rank END - 1 AS t,
           CASE WHEN ties IN ('w', 'a', 'b') THEN max(rank) OVER g ELSE rank END - 1 AS b
    FROM rankkit.ranked(run_table, ties := CASE WHEN ties IN ('w', 'a', 'b') THEN 'trec' ELSE ties END, depth := depth)
    WINDOW g AS (PARTITION BY system, query_id, score);

CREATE OR REPLACE MACRO rankkit.rbo(run_a, run_b, p := 0.9, ties := 'a', depth := NULL) AS TABLE
WITH
checked AS (
    SELECT CASE WHEN NOT (p > 0 AND p < 1) THEN error('rankkit: p must be between 0 and 1 (exclusive), got ' || p)
                WHEN ties NOT IN ('w', 'a', 'b', 'trec', 'rank')
                    THEN error('rankkit: ties must be w, a, b (Corsi and Urbano''s variants), trec or rank, got ''' || ties || '''')
                ELSE true END AS ok
),
-- overlap_ranks checks the runs (one system each, a query in common)
shared AS (SELECT DISTINCT query_id FROM rankkit.overlap_ranks(run_a, run_b, ties := CASE WHEN ties IN ('trec', 'rank') THEN ties ELSE 'trec' END, depth := depth)),
ga AS (FROM rankkit.tie_groups(run_a, ties := ties, depth := depth) WHERE query_id IN (FROM shared)),
gb AS (FROM rankkit.tie_groups(run_b, ties := ties, depth := depth) WHERE query_id IN (FROM shared)),
lengths AS (
    SELECT query_id, na.n AS na, nb.n AS nb, least(na.n, nb.n) AS s, greatest(na.n, nb.n) AS l,
           CASE WHEN ties IN ('a', 'b') THEN ties ELSE 'w' END AS variant
    FROM (SELECT query_id, count(*) AS n FROM ga GROUP BY ALL) na JOIN (SELECT query_id, count(*) AS n FROM gb GROUP BY ALL) nb USING (query_id)
),
-- S, the shorter list (b where both are as long, as Corsi and Urbano's code takes it), and L
docs AS (
    SELECT query_id, doc_id, variant, s, l,
           CASE WHEN na >= nb THEN gb.t ELSE ga.t END AS ts, CASE WHEN na >= nb THEN gb.b ELSE ga.b END AS bs,
           CASE WHEN na >= nb THEN ga.t ELSE gb.t END AS tl, CASE WHEN na >= nb THEN ga.b ELSE gb.b END AS bl
    FROM ga FULL JOIN gb USING (query_id, doc_id) JOIN lengths USING (query_id)
),
-- the documents only L ranks, in L's order (k from 0): the max bound lets the k-th of them count from
-- depth s + k + 1 on
unique_l AS (
    SELECT *, row_number() OVER (PARTITION BY query_id ORDER BY tl, doc_id) - 1 AS k FROM docs WHERE ts IS NULL
),
-- where each kind of contribution becomes full (1 from column f on), and its partial values before
fulls AS (
    SELECT query_id, 'sum_s' AS kind, CASE WHEN variant = 'w' THEN ts ELSE bs END AS f FROM docs WHERE ts IS NOT NULL
    UNION ALL SELECT query_id, 'sum_l', CASE WHEN variant = 'w' THEN tl ELSE bl END FROM docs WHERE tl IS NOT NULL
    UNION ALL SELECT query_id, 'x', greatest(CASE WHEN variant = 'w' THEN ts ELSE bs END, CASE WHEN variant = 'w' THEN tl ELSE bl END)
              FROM docs WHERE ts IS NOT NULL AND tl IS NOT NULL
    UNION ALL SELECT query_id, 'unseen_max', greatest(CASE WHEN variant = 'w' THEN tl ELSE bl END, s + k) FROM unique_l
    UNION ALL SELECT query_id, 'unseen_sum', CASE WHEN variant = 'w' THEN tl ELSE bl END FROM unique_l
    UNION ALL SELECT query_id, 'unseen_count', tl FROM unique_l
),
partials AS (
    SELECT query_id, 'sum_s' AS kind, j, rankkit.tie_contribution(variant, ts, bs, j) AS v, 1 AS side
    FROM docs, range(ts, bs) r(j) WHERE variant <> 'w' AND ts IS NOT NULL
    UNION ALL SELECT query_id, 'sum_l', j, rankkit.tie_contribution(variant, tl, bl, j), 2
    FROM docs, range(tl, bl) r(j) WHERE variant <> 'w' AND tl IS NOT NULL
    UNION ALL SELECT query_id, 'x', j, rankkit.tie_contribution(variant, ts, bs, j) * rankkit.tie_contribution(variant, tl, bl, j), 0
    FROM docs, range(greatest(ts, tl), greatest(bs, bl)) r(j) WHERE variant <> 'w' AND ts IS NOT NULL AND tl IS NOT NULL
    UNION ALL SELECT query_id, 'unseen_max', j, rankkit.tie_contribution(variant, tl, bl, j), 0
    FROM unique_l, range(greatest(tl, s + k), bl) r(j) WHERE variant <> 'w'
    UNION ALL SELECT query_id, 'unseen_sum', j, rankkit.tie_contribution(variant, tl, bl, j), 0
    FROM unique_l, range(tl, bl) r(j) WHERE variant <> 'w'
),
events AS (
    SELECT query_id, f AS j, kind, count(*) AS starts, 0.0 AS part, 0.0 AS part_sq FROM fulls GROUP BY ALL
    UNION ALL
    SELECT query_id, j, kind, 0, sum(v), sum(v * v) FROM partials GROUP BY ALL
),
grid AS (SELECT query_id, s, l, variant, j FROM lengths, range(0, l) r(j)),
pivoted AS (
    SELECT query_id, j,
           sum(starts) FILTER (kind = 'sum_s') AS st_s, sum(part) FILTER (kind = 'sum_s') AS pt_s,
           sum(part_sq) FILTER (kind = 'sum_s') AS pq_s,
           sum(starts) FILTER (kind = 'sum_l') AS st_l, sum(part) FILTER (kind = 'sum_l') AS pt_l,
           sum(part_sq) FILTER (kind = 'sum_l') AS pq_l,
           sum(starts) FILTER (kind = 'x') AS st_x, sum(part) FILTER (kind = 'x') AS pt_x,
           sum(starts) FILTER (kind = 'unseen_max') AS st_m, sum(part) FILTER (kind = 'unseen_max') AS pt_m,
           sum(starts) FILTER (kind = 'unseen_sum') AS st_u, sum(part) FILTER (kind = 'unseen_sum') AS pt_u,
           sum(starts) FILTER (kind = 'unseen_count') AS st_c
    FROM events GROUP BY ALL
),
columns_ AS (
    SELECT g.query_id, g.s, g.l, g.variant, g.j, g.j + 1 AS d,
           sum(coalesce(st_s, 0)) OVER w + coalesce(pt_s, 0) AS sum_s,
           sum(coalesce(st_s, 0)) OVER w + coalesce(pq_s, 0) AS sq_s,
           sum(coalesce(st_l, 0)) OVER w + coalesce(pt_l, 0) AS sum_l,
           sum(coalesce(st_l, 0)) OVER w + coalesce(pq_l, 0) AS sq_l,
           sum(coalesce(st_x, 0)) OVER w + coalesce(pt_x, 0) AS x,
           sum(coalesce(st_m, 0)) OVER w + coalesce(pt_m, 0) AS unseen_max,
           sum(coalesce(st_u, 0)) OVER w + coalesce(pt_u, 0) AS unseen_sum,
           sum(coalesce(st_c, 0)) OVER w AS unseen_count
    FROM grid g LEFT JOIN pivoted USING (query_id, j)
    WINDOW w AS (PARTITION BY g.query_id ORDER BY g.j)
),
-- the agreement at each depth d of the shorter list, and at its end (a_s), which ext carries on
seen AS (
    SELECT *, CASE WHEN variant = 'w' THEN 2 * x / (sum_s + sum_l) WHEN variant = 'a' THEN x / d
                   ELSE x / sqrt(sq_s) / sqrt(sq_l) END AS a_seen
    FROM columns_
),
agreements AS (
    SELECT *, max(a_seen) FILTER (j = s - 1) OVER (PARTITION BY query_id) AS a_s,
           max(x) FILTER (j = l - 1) OVER (PARTITION BY query_id) AS x_l
    FROM seen
),
-- past the shorter list's end (d > s) the agreement of an overlap X, as each variant divides it
beyond AS (
    SELECT *,
           x + coalesce(unseen_max, 0) AS x_max,
           x + (j - s + 1) * a_s * unseen_sum / nullif(unseen_count, 0) AS x_ext
    FROM agreements
),
sums AS (
    SELECT query_id, s, l, any_value(x_l) AS x_l, any_value(a_s) AS a_s,
           sum(p ^ d * CASE WHEN j < s THEN a_seen ELSE rankkit.tie_agreement(variant, x, d, sum_l, sq_l) END) AS min_sum,
           sum(p ^ d * CASE WHEN j < s THEN a_seen ELSE rankkit.tie_agreement(variant, x_max, d, sum_l, sq_l) END) AS max_sum,
           sum(p ^ d * CASE WHEN j < s THEN a_seen ELSE rankkit.tie_agreement(variant, x_ext, d, sum_l, sq_l) END) AS ext_sum,
           sum(p ^ d / d) AS harmonic
    FROM beyond GROUP BY query_id, s, l
),
bounds AS (
    SELECT query_id,
           (1 - p) / p * (min_sum + x_l * (ln(1 / (1 - p)) - harmonic)) AS rbo_min,
           -- below depth l as much agrees as the unseen documents of both lists allow, up to depth
           -- f = l + s - X_l, after which everything does
           (1 - p) / p * (max_sum
               + (SELECT coalesce(sum((2 * d - l - s + x_l) / d * p ^ d), 0)
                  FROM range(l + 1, ceil(l + s - x_l + 1)::BIGINT) t(d))
               + p ^ (l + s - x_l + 1) / (1 - p)) AS rbo_max,
           (1 - p) / p * (ext_sum + (x_l + (l - s) * a_s) / l * p ^ (l + 1) / (1 - p)) AS rbo_ext
    FROM sums
)
SELECT query_id, rbo_min, rbo_max, rbo_max - rbo_min AS rbo_res, rbo_ext
FROM bounds, checked
WHERE checked.ok
ORDER BY query_id;
