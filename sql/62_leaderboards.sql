-- Do two judgment tables rank the systems alike? Two leaderboards of the same systems, one per
-- judgment table: a table (or CTE) with columns system, value_a, value_b (each system's score under
-- judgment table a and under b; rankkit.evaluate computes them). Higher values rank first. Table
-- a is the reference: tau_AP and the top k read its order.

-- rankkit.board_keys: each value of leaderboards (sample, system, value_a, value_b) with the key it
-- is ordered by: values this close (|x - y| <= 1e-12 * max(1, |x|), as rankkit.stats' TIE_TOLERANCE)
-- are one value summed in another order (DL19's TAS-B and SPLADE both have P@10 = 348/430, the
-- means 0.8093023255813953 and 0.8093023255813951): tied, not a swap. A run of such values shares the
-- smallest as its key, so ties are an equivalence (a chain of close values is one tie).
CREATE OR REPLACE MACRO rankkit.board_keys(samples_table) AS TABLE
WITH
rows_ AS (SELECT sample, system, value_a, value_b FROM query_table(samples_table::VARCHAR)),
steps AS (
    SELECT *,
           coalesce(value_a - lag(value_a) OVER (PARTITION BY sample ORDER BY value_a, system)
                    > 1e-12 * greatest(1, abs(value_a)), true)::INTEGER AS new_a,
           coalesce(value_b - lag(value_b) OVER (PARTITION BY sample ORDER BY value_b, system)
                    > 1e-12 * greatest(1, abs(value_b)), true)::INTEGER AS new_b
    FROM rows_
),
runs AS (
    SELECT *,
           sum(new_a) OVER (PARTITION BY sample ORDER BY value_a, system ROWS UNBOUNDED PRECEDING) AS run_a,
           sum(new_b) OVER (PARTITION BY sample ORDER BY value_b, system ROWS UNBOUNDED PRECEDING) AS run_b
    FROM steps
)
SELECT sample, system, value_a, value_b,
       min(value_a) OVER (PARTITION BY sample, run_a) AS key_a,
       min(value_b) OVER (PARTITION BY sample, run_b) AS key_b
FROM runs;

-- The leaderboards checked (two systems or more, one row each, every value a finite number; the rank
-- correlations below need three), with each system's place on each (1 = best; equal values share the
-- better place, ties broken by nothing: rank_a and rank_b are rank(), not row_number()).
CREATE OR REPLACE MACRO rankkit.leaderboards(boards_table) AS TABLE
WITH
boards AS (SELECT system::VARCHAR AS system, value_a::DOUBLE AS value_a, value_b::DOUBLE AS value_b
           FROM query_table(boards_table::VARCHAR)),
problems AS (
    SELECT CASE
        WHEN count(*) < 2
            THEN 'a leaderboard orders 2 systems or more, got ' || count(*)
                 || coalesce(' (' || string_agg(system, ', ' ORDER BY system) || ')', '')
        WHEN count(DISTINCT system) < count(*)
            THEN 'system ' || (SELECT min(system) FROM boards GROUP BY system HAVING count(*) > 1) || ' is listed twice'
        WHEN count(*) FILTER (system IS NULL OR value_a IS NULL OR value_b IS NULL
                              OR NOT isfinite(value_a) OR NOT isfinite(value_b)) > 0
            THEN 'system ' || (SELECT coalesce(min(system), 'NULL') FROM boards
                               WHERE system IS NULL OR NOT isfinite(coalesce(value_a, 'nan')) OR NOT isfinite(coalesce(value_b, 'nan')))
                 || ' has no finite value on both leaderboards'
        END AS problem
    FROM boards
),
rankkit_checked_boards AS (
    SELECT 0 AS sample, system, value_a, value_b FROM boards, problems
    WHERE CASE WHEN problem IS NULL THEN true ELSE error('rankkit: leaderboards: ' || problem) END
)
SELECT system, value_a, value_b,
       rank() OVER (ORDER BY key_a DESC) AS rank_a,
       rank() OVER (ORDER BY key_b DESC) AS rank_b
FROM rankkit.board_keys('rankkit_checked_boards')
ORDER BY rank_a, system;

-- rankkit.sample_correlations: rankkit.rank_correlation (below) for many pairs of leaderboards at once, one per value
-- of a sample column (sample, system, value_a, value_b: the leaderboards of resampled query sets,
-- say), unchecked: one row per sample.
CREATE OR REPLACE MACRO rankkit.sample_correlations(samples_table, top := NULL) AS TABLE
WITH
-- orders and ties read the keys (rankkit.board_keys: float noise is a tie), Pearson the values
boards AS (
    SELECT *,
           rank() OVER (PARTITION BY sample ORDER BY key_a DESC) AS rank_a,
           rank() OVER (PARTITION BY sample ORDER BY key_b DESC) AS rank_b
    FROM rankkit.board_keys(samples_table)
),
-- the places among the systems kept (top := k): windows run after WHERE, so rank_b is the place on b
-- among those systems, as tau_AP's divisor needs, not on the whole of b (five systems in one order on
-- both sides gave tau_AP 0.36 where a system not kept stood first on b)
places AS (
    SELECT * REPLACE (rank() OVER (PARTITION BY sample ORDER BY key_b DESC) AS rank_b),
           rank() OVER (PARTITION BY sample ORDER BY key_a)
               + (count(*) OVER (PARTITION BY sample, key_a) - 1) / 2 AS place_a,
           rank() OVER (PARTITION BY sample ORDER BY key_b)
               + (count(*) OVER (PARTITION BY sample, key_b) - 1) / 2 AS place_b,
           count(*) OVER (PARTITION BY sample, key_a) > 1 OR count(*) OVER (PARTITION BY sample, key_b) > 1 AS tied
    FROM boards WHERE top IS NULL OR rank_a <= top
),
pairs AS (
    SELECT x.sample, sign(x.key_a - y.key_a) AS order_a, sign(x.key_b - y.key_b) AS order_b
    FROM places x JOIN places y ON x.sample = y.sample AND x.system < y.system
),
-- tau_AP: each system of b below the first, with how many systems above it on b are above it on a
above AS (
    SELECT x.sample, x.system, x.rank_b, count(y.system) FILTER (y.key_a > x.key_a) AS right_above
    FROM places x LEFT JOIN places y ON y.sample = x.sample AND y.rank_b < x.rank_b
    GROUP BY ALL
),
by_places AS (
    SELECT sample, count(*) AS systems, bool_or(tied) AS tied,
           corr(place_a, place_b) AS spearman, corr(value_a, value_b) AS pearson
    FROM places GROUP BY sample
),
by_pairs AS (
    SELECT sample, sum(order_a * order_b) / sqrt(count(*) FILTER (order_a <> 0) * count(*) FILTER (order_b <> 0))
               AS kendall_tau_b,
           count(*) FILTER (order_a * order_b < 0) AS swaps
    FROM pairs GROUP BY sample
),
by_above AS (
    SELECT sample, 2 / (count(*) - 1) * sum(right_above / (rank_b - 1)) FILTER (rank_b > 1) - 1 AS tau_ap
    FROM above GROUP BY sample
)
SELECT sample, systems, kendall_tau_b, CASE WHEN NOT tied THEN tau_ap END AS tau_ap, spearman, pearson,
       coalesce(swaps, 0) AS swaps
FROM by_places LEFT JOIN by_pairs USING (sample) LEFT JOIN by_above USING (sample)
ORDER BY sample;

-- rankkit.rank_correlation: how alike the two leaderboards are, over every system or (top := k)
-- over the k best systems of leaderboard a (ties at the k-th place kept):
--   systems        the systems compared
--   kendall_tau_b  Kendall's tau-b (ties on either side counted as scipy.stats.kendalltau counts them)
--   tau_ap         AP rank correlation (Yilmaz, Aslam and Robertson, SIGIR 2008): leaderboard b read
--                  from its top, each system asked which of the systems above it a also puts above;
--                  swaps near the top cost more. NULL where a leaderboard has tied values (the
--                  definition has no ties)
--   spearman, pearson   on the places (average places for ties) and on the values
--   swaps          pairs of systems that a puts in one order and b in the other
CREATE OR REPLACE MACRO rankkit.rank_correlation(boards_table, top := NULL) AS TABLE
WITH
rankkit_one_sample AS (SELECT 0 AS sample, system, value_a, value_b FROM rankkit.leaderboards(boards_table)),
kept AS (FROM rankkit.leaderboards(boards_table) WHERE top IS NULL OR rank_a <= top),
checked AS (
    SELECT CASE WHEN top IS NOT NULL AND NOT top >= 2
                    THEN error('rankkit: top must be 2 or more, got ' || top)
                WHEN (SELECT count(*) FROM kept) < 3
                    THEN error('rankkit: rank correlations need 3 systems or more, got '
                               || (SELECT count(*) || coalesce(' among the top ' || top || ' of leaderboard a', '')
                                          || ' (' || string_agg(system, ', ' ORDER BY system) || ')' FROM kept))
                ELSE true END AS ok
)
SELECT c.* EXCLUDE (sample) FROM rankkit.sample_correlations('rankkit_one_sample', top := top) c, checked WHERE ok;

-- rankkit.system_swaps: the pairs of systems the two leaderboards put in opposite orders: system
-- above on leaderboard a, below on b, with the values of each under a and under b.
CREATE OR REPLACE MACRO rankkit.system_swaps(boards_table) AS TABLE
WITH boards AS (FROM rankkit.leaderboards(boards_table))
SELECT x.system AS above_a, y.system AS below_a,
       x.value_a AS above_value_a, y.value_a AS below_value_a, x.value_b AS above_value_b, y.value_b AS below_value_b
FROM boards x JOIN boards y ON x.rank_a < y.rank_a AND x.rank_b > y.rank_b  -- the places: float noise is a tie
ORDER BY x.rank_a, y.rank_a, x.system, y.system;
