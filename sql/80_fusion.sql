-- Fusion: the rankings several systems give the same queries made one ranking (hybrid search: a
-- lexical, a dense and a reranked run fused). One run table holds the systems, named by its system
-- column; the fused run is a run (system, query_id, doc_id, score) that every measure reads.
--
-- rankkit.fuse(run_table, method := 'rrf', k := 60, norm := NULL, weights := NULL, depth := NULL)
-- (label := TEXT names the runs in messages, in place of the table's name)
-- rankkit.fuse_grid(run_table, grid_table, method := 'wsum', ...) fuses at every point of a grid at once
-- (rankkit.fusion_sweep's statement, below).
--
-- Ranks are rankkit.ranked's: 1-based, equal scores ordered by trec_eval's rule (doc_id descending),
-- so a run's ties never depend on the order of its rows (ranx follows the order its dictionaries
-- hold). depth := N keeps each system's top N documents of each query before fusing.
-- A document a system does not rank for a query gets nothing from that system: no made-up rank and
-- no score, so it adds 0 to rrf, isr, combsum and wsum and is not counted by combmnz, combanz,
-- combmed, combmin, combmax and wmnz. Only the Borda norm (and borda) gives it points, as Borda
-- counts do. A query some system does not rank is fused from the systems that rank it (ranx refuses
-- runs whose queries differ).
--
-- Methods (ranx's names, Bassani and Romelli, CIKM 2022, are accepted too, in brackets):
--   rrf        sum over systems of w / (k + rank), k := 60, each w 1 unless weights are given
--              (Cormack, Clarke and Büttcher, SIGIR 2009)
--   isr        sum of 1 / rank^2, times the number of systems ranking the document
--              (Mourão, Martins and Magalhães, Computerized Medical Imaging and Graphics 39, 2015)
--   combsum [sum], combmnz [mnz] (the sum times the systems ranking the document), combmax [max],
--   combmin [min], combmed [med] (the median), combanz [anz] (the sum over those systems), of the
--              normalised scores (Fox and Shaw, TREC-2, NIST SP 500-215, 1993)
--   wsum       sum of w * score, a linear combination (Vogt and Cottrell, Information Retrieval 1(3), 1999)
--   wmnz       the sum of the scores times the sum of the weights of the systems ranking the document
--              (Wu and Crestani, CIKM 2002)
--   borda [bordafuse]  Borda count (Aslam and Montague, SIGIR 2001): with c candidates (documents
--              any system ranks for the query), a system gives c - rank + 1 points to each document
--              it ranks and (c - n + 1) / 2 to each of the others, n the documents it ranks
--   condorcet  Condorcet fuse (Montague and Aslam, CIKM 2002): a document beats another when more
--              systems rank it above the other than below (a system ranking neither abstains; a
--              ranked document is above an unranked one); its score is 1 + its wins + half its
--              draws (Copeland's count), the rank ranx's sort gives when the majority has no cycle
-- weights := MAP {system: weight, ...}: one finite weight for each system (wsum and wmnz need them,
-- rrf takes them, the others none).
--
-- Normalisations, per system and query before fusing, as ranx's (its denominators at least 1e-9):
--   none     the scores as they are
--   min-max  (s - min) / (max - min)          [ranx: min-max, min_max]
--   max      s / max
--   sum      (s - min) / (sum - n * min)
--   zmuv     (s - mean) / sd, sd the population standard deviation (z-score)
--   rank     1 - (rank - 1) / n
--   borda    1 - (rank - 1) / c for a ranked document, 0.5 - (n - 1) / (2c) for a candidate the system
--            does not rank, c and n as for borda above (every system then holds every candidate)
--   dbsf     (s - (mean - 3 sd)) / (6 sd), sd the sample standard deviation; 0.5 for a list of one
--            score or of equal scores (Qdrant 1.11's distribution-based score fusion, after
--            Mazzeschi 2023; ranx has no dbsf)
-- norm := NULL is min-max for the score methods, as ranx's fuse; rrf, isr, borda and condorcet read
-- ranks (borda its own norm), so a norm is refused with them.

-- The method's name as rankkit writes it (ranx's names accepted), lowercase.
CREATE OR REPLACE MACRO rankkit.fusion_method(method) AS CASE lower(method)
    WHEN 'sum' THEN 'combsum' WHEN 'mnz' THEN 'combmnz' WHEN 'max' THEN 'combmax' WHEN 'min' THEN 'combmin'
    WHEN 'med' THEN 'combmed' WHEN 'anz' THEN 'combanz' WHEN 'bordafuse' THEN 'borda' ELSE lower(method) END;

-- The normalisation a method reads: its own for the rank methods, min-max unless another is named.
CREATE OR REPLACE MACRO rankkit.fusion_norm(method, norm) AS CASE
    WHEN rankkit.fusion_method(method) = 'borda' THEN 'borda'
    WHEN rankkit.fusion_method(method) IN ('rrf', 'isr', 'condorcet') THEN 'none'
    WHEN norm IS NULL THEN 'min-max'
    WHEN lower(norm) = 'min_max' THEN 'min-max'
    ELSE lower(norm) END;

-- true, or an error naming the argument that is wrong: the method, the normalisation, k.
CREATE OR REPLACE MACRO rankkit.checked_fusion(method, k, norm) AS CASE
    WHEN method IS NULL OR rankkit.fusion_method(method) NOT IN ('rrf', 'isr', 'combsum', 'combmnz', 'combmax',
            'combmin', 'combmed', 'combanz', 'wsum', 'wmnz', 'borda', 'condorcet')
        THEN error('rankkit: method must be one of rrf, isr, combsum, combmnz, combmax, combmin, combmed, combanz, '
                   || 'wsum, wmnz, borda, condorcet, got ' || coalesce('''' || rankkit.visible(method) || '''', 'NULL'))
    WHEN norm IS NOT NULL AND lower(norm) NOT IN ('none', 'min-max', 'min_max', 'max', 'sum', 'zmuv', 'rank', 'borda', 'dbsf')
        THEN error('rankkit: norm must be one of none, min-max, max, sum, zmuv, rank, borda, dbsf, got '''
                   || rankkit.visible(norm) || '''')
    WHEN norm IS NOT NULL AND lower(norm) <> 'none' AND rankkit.fusion_method(method) IN ('rrf', 'isr', 'borda', 'condorcet')
        THEN error('rankkit: ' || rankkit.fusion_method(method) || ' fuses ranks, not scores: norm ''' || rankkit.visible(norm)
                   || ''' does not apply to it; leave norm out')
    WHEN rankkit.fusion_method(method) = 'rrf' AND NOT coalesce(k >= 0, false)
        THEN error('rankkit: k must be a number, 0 or more (rrf adds 1 / (k + rank)), got ' || coalesce(k::VARCHAR, 'NULL'))
    ELSE true
END;

-- rankkit.fusion_inputs: the run table's rows checked for fusing, ranked, with each system's weight
-- (1 without weights). Refused, with the table named: bad arguments, a missing column, fewer than two
-- systems, rows without a system, a document listed twice for a query by one system, a row without
-- a score, weights that do not name each system once with a finite number. Messages name the table,
-- or label (what the caller calls it: rankkit.fuse in Python names the runs it read).
-- gridded := true: the weights come from a grid (rankkit.fuse_grid), not from weights.
CREATE OR REPLACE MACRO rankkit.fusion_inputs(run_table, method := 'rrf', k := 60, norm := NULL, weights := NULL,
        depth := NULL, label := NULL, gridded := false) AS TABLE
WITH
ranked AS MATERIALIZED (
    SELECT r.system, r.query_id, r.doc_id, r.score, r.rank
    FROM rankkit.columns_ok(run_table, 'run') columns, rankkit.ranked(run_table, depth := depth) r
    WHERE columns.ok AND rankkit.checked_fusion(method, k, norm)
),
systems AS (SELECT system, count(*) FILTER (score IS NULL) AS unscored FROM ranked GROUP BY system),
listing AS (SELECT string_agg(rankkit.visible(system), ', ' ORDER BY system) AS names, count(*) AS n FROM systems),
duplicate AS (SELECT system, query_id, doc_id FROM ranked GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL LIMIT 1),
given AS (
    SELECT unnest(CASE WHEN weights IS NULL THEN []::VARCHAR[] ELSE map_keys(weights)::VARCHAR[] END) AS system,
           unnest(CASE WHEN weights IS NULL THEN []::DOUBLE[] ELSE map_values(weights)::DOUBLE[] END) AS weight
),
said AS (SELECT 'rankkit: ' || coalesce(label, 'run table ' || rankkit.visible(run_table)) AS table_said),
checks AS (
    SELECT CASE
        WHEN (SELECT count(*) FROM systems WHERE system IS NULL) > 0 AND (SELECT n FROM listing) > 1
            THEN error(table_said || ': some rows have no system; every row needs one to be fused')
        WHEN (SELECT n FROM listing) < 2
            THEN error(table_said || ': ' || (SELECT n FROM listing) || ' system'
                       || CASE WHEN (SELECT n FROM listing) = 1 THEN '' ELSE 's' END
                       || '; fusion combines two or more (several runs, or a table whose system column names them)')
        WHEN EXISTS (FROM duplicate)
            THEN (SELECT error(table_said || ': system ' || rankkit.visible(system) || ' lists document '
                               || rankkit.visible(doc_id) || ' twice for query ' || rankkit.visible(query_id)
                               || '; a document is ranked once per query') FROM duplicate)
        WHEN (SELECT sum(unscored) FROM systems) > 0
            THEN (SELECT error(table_said || ': system ' || rankkit.visible(system) || ' has ' || unscored
                               || ' rows without a score') FROM systems WHERE unscored > 0 ORDER BY system LIMIT 1)
        WHEN rankkit.fusion_method(method) IN ('wsum', 'wmnz') AND weights IS NULL AND NOT gridded
            THEN error('rankkit: ' || rankkit.fusion_method(method) || ' needs weights, one for each system: '
                       || (SELECT names FROM listing))
        WHEN weights IS NOT NULL AND rankkit.fusion_method(method) NOT IN ('rrf', 'wsum', 'wmnz')
            THEN error('rankkit: ' || rankkit.fusion_method(method) || ' takes no weights (rrf, wsum and wmnz do)')
        WHEN weights IS NOT NULL AND EXISTS (FROM systems ANTI JOIN given USING (system))
            THEN (SELECT error('rankkit: weights: no weight for system ' || rankkit.visible(system)
                               || '; the systems are ' || (SELECT names FROM listing))
                  FROM systems ANTI JOIN given USING (system) ORDER BY system LIMIT 1)
        WHEN EXISTS (FROM given ANTI JOIN systems USING (system))
            THEN (SELECT error('rankkit: weights: ''' || rankkit.visible(system) || ''' is no system fused; '
                               || 'the systems are ' || (SELECT names FROM listing))
                  FROM given ANTI JOIN systems USING (system) ORDER BY system LIMIT 1)
        WHEN EXISTS (FROM given WHERE NOT coalesce(isfinite(weight), false))
            THEN (SELECT error('rankkit: weights: the weight of system ' || rankkit.visible(system)
                               || ' must be a finite number, got ' || coalesce(weight::VARCHAR, 'NULL'))
                  FROM given WHERE NOT coalesce(isfinite(weight), false) ORDER BY system LIMIT 1)
        ELSE true END AS ok
    FROM said
)
SELECT system, query_id, doc_id, score, rank, coalesce(given.weight, 1.0E0) AS weight
FROM ranked LEFT JOIN given USING (system), checks
WHERE checks.ok;

-- A system's normalised score of a document (see the normalisations above) from the system's scores
-- for the query: n of them, lo the least, hi the largest, total their sum, mean, sd_pop and sd their
-- population and sample standard deviations; c the query's candidates (the Borda norm's).
CREATE OR REPLACE MACRO rankkit.fusion_x(norm, score, rank, n, lo, hi, total, mean, sd_pop, sd, c) AS CASE norm
    WHEN 'none' THEN score
    WHEN 'min-max' THEN (score - lo) / greatest(hi - lo, 1.0E-9)
    WHEN 'max' THEN score / greatest(hi, 1.0E-9)
    WHEN 'sum' THEN (score - lo) / greatest(total - n * lo, 1.0E-9)
    WHEN 'zmuv' THEN (score - mean) / greatest(sd_pop, 1.0E-9)
    WHEN 'rank' THEN 1.0E0 - (rank - 1) / n
    WHEN 'borda' THEN 1.0E0 - (rank - 1) / c
    WHEN 'dbsf' THEN CASE WHEN n > 1 AND sd > 0 THEN (score - (mean - 3 * sd)) / (6 * sd) ELSE 0.5E0 END
END;

-- A document's fused score by each method (see the methods above): an aggregate over what the
-- systems give it, a row each (its weight, rank and normalised score x), grouped by query and document.
CREATE OR REPLACE MACRO rankkit.fused_score(method, k, weight, rank, x, c) AS CASE rankkit.fusion_method(method)
    WHEN 'rrf' THEN sum(weight / (k + rank))
    WHEN 'isr' THEN sum(1.0E0 / (rank * rank)) * count(*)
    WHEN 'combsum' THEN sum(x)
    WHEN 'combmnz' THEN sum(x) * count(*)
    WHEN 'combmax' THEN max(x)
    WHEN 'combmin' THEN min(x)
    WHEN 'combmed' THEN median(x)
    WHEN 'combanz' THEN sum(x) / count(*)
    WHEN 'wsum' THEN sum(weight * x)
    WHEN 'wmnz' THEN sum(x) * sum(weight)
    WHEN 'borda' THEN sum(x) * any_value(c)
END;

-- rankkit.fusion_normalised: each system's documents of each query with the normalised score x
-- (see the normalisations above) and rank; with the Borda norm, also each candidate a system does
-- not rank (rank NULL). c is the query's candidates, n the documents the system ranks for it.
CREATE OR REPLACE MACRO rankkit.fusion_normalised(inputs_table, norm) AS TABLE
WITH
stats AS (
    SELECT *,
           count(*) OVER w AS n, min(score) OVER w AS lo, max(score) OVER w AS hi, sum(score) OVER w AS total,
           avg(score) OVER w AS mean, stddev_pop(score) OVER w AS sd_pop, stddev_samp(score) OVER w AS sd
    FROM query_table(inputs_table::VARCHAR)
    WINDOW w AS (PARTITION BY system, query_id)
),
candidates AS (
    SELECT query_id, doc_id, count(*) OVER (PARTITION BY query_id) AS c
    FROM (SELECT DISTINCT query_id, doc_id FROM query_table(inputs_table::VARCHAR) WHERE norm = 'borda')
),
ranked AS (
    SELECT system, query_id, doc_id, rank, weight, candidates.c,
           rankkit.fusion_x(norm, score, rank, n, lo, hi, total, mean, sd_pop, sd, candidates.c) AS x
    FROM stats LEFT JOIN candidates USING (query_id, doc_id)
),
-- the Borda norm's points for a candidate a system does not rank (a system without the query: n = 0)
unranked AS (
    SELECT s.system, c.query_id, c.doc_id, NULL::BIGINT AS rank, s.weight, c.c,
           0.5E0 - (coalesce(lengths.n, 0) - 1) / (2.0E0 * c.c) AS x
    FROM candidates c
    CROSS JOIN (SELECT DISTINCT system, weight FROM query_table(inputs_table::VARCHAR)) s
    LEFT JOIN (SELECT system, query_id, count(*) AS n FROM query_table(inputs_table::VARCHAR) GROUP BY ALL) lengths
        ON lengths.system = s.system AND lengths.query_id = c.query_id
    ANTI JOIN query_table(inputs_table::VARCHAR) r ON r.system = s.system AND r.query_id = c.query_id AND r.doc_id = c.doc_id
)
FROM ranked
UNION ALL
FROM unranked;

-- rankkit.condorcet_scores: each candidate's Copeland count over the systems' pairwise votes (see
-- condorcet above): every pair of candidates of a query, so quadratic in them (depth := N bounds it).
CREATE OR REPLACE MACRO rankkit.condorcet_scores(inputs_table) AS TABLE
WITH
candidates AS (SELECT DISTINCT query_id, doc_id FROM query_table(inputs_table::VARCHAR)),
placed AS (
    SELECT s.system, c.query_id, c.doc_id, r.rank
    FROM candidates c
    CROSS JOIN (SELECT DISTINCT system FROM query_table(inputs_table::VARCHAR)) s
    LEFT JOIN query_table(inputs_table::VARCHAR) r ON r.system = s.system AND r.query_id = c.query_id AND r.doc_id = c.doc_id
),
duels AS (
    SELECT a.query_id, a.doc_id,
           count(*) FILTER (a.rank < b.rank OR (a.rank IS NOT NULL AND b.rank IS NULL)) AS won,
           count(*) FILTER (b.rank < a.rank OR (b.rank IS NOT NULL AND a.rank IS NULL)) AS lost
    FROM placed a JOIN placed b ON a.system = b.system AND a.query_id = b.query_id AND a.doc_id <> b.doc_id
    GROUP BY a.query_id, a.doc_id, b.doc_id
)
SELECT query_id, doc_id,
       1 + count(*) FILTER (won > lost) + 0.5E0 * count(*) FILTER (won = lost AND won IS NOT NULL) AS score
FROM candidates LEFT JOIN duels USING (query_id, doc_id)
GROUP BY query_id, doc_id;

-- rankkit.fusion_name: the fused run's system, the method and what it was given: rrf(k=60),
-- combsum(norm=min-max), wsum(norm=min-max;weights=0.3/0.7) (the weights in the order of the systems'
-- names), isr, borda, condorcet. No comma and no space: the name is a TREC run's tag, and rankkit's
-- readers take a first line with a comma outside the score for a CSV header.
CREATE OR REPLACE MACRO rankkit.fusion_name(method, k, norm, weights_text) AS
    rankkit.fusion_method(method) || CASE
        WHEN rankkit.fusion_method(method) = 'rrf' THEN '(k=' || k || coalesce(';weights=' || weights_text, '') || ')'
        WHEN rankkit.fusion_method(method) IN ('isr', 'borda', 'condorcet') THEN ''
        ELSE '(norm=' || rankkit.fusion_norm(method, norm) || coalesce(';weights=' || weights_text, '') || ')' END;

CREATE OR REPLACE MACRO rankkit.fuse(run_table, method := 'rrf', k := 60, norm := NULL, weights := NULL,
        depth := NULL, label := NULL) AS TABLE
WITH
inputs AS MATERIALIZED (
    FROM rankkit.fusion_inputs(run_table, method := method, k := k, norm := norm, weights := weights, depth := depth,
                               label := label)
),
normalised AS (FROM rankkit.fusion_normalised('inputs', rankkit.fusion_norm(method, norm))),
fused AS (
    SELECT query_id, doc_id, rankkit.fused_score(method, k, weight, rank, x, c) AS score
    FROM normalised
    WHERE rankkit.fusion_method(method) <> 'condorcet'
    GROUP BY query_id, doc_id
),
condorcet AS (FROM rankkit.condorcet_scores('inputs') WHERE rankkit.fusion_method(method) = 'condorcet'),
named AS (
    SELECT rankkit.fusion_name(method, k, norm, CASE WHEN weights IS NOT NULL THEN
               (SELECT string_agg(weight::VARCHAR, '/' ORDER BY system) FROM (SELECT DISTINCT system, weight FROM inputs)) END)
           AS system
)
SELECT named.system, query_id, doc_id, score
FROM (FROM fused UNION ALL FROM condorcet), named
ORDER BY query_id, score DESC, doc_id DESC;

-- rankkit.fuse_grid: rankkit.fuse at every point of a grid, in one statement, for the methods whose
-- arguments a grid varies: rrf (k, weights), wsum and wmnz (weights). grid_table holds point, system,
-- weight, k: a row per point and system. The systems are ranked and normalised once, and each
-- document of a query gathered once with what each system gives it (a list in the systems' order);
-- each point's score is then one expression over two lists, not a join and an aggregation of every
-- point with every row (two billion rows at MS MARCO dev size). The fused runs are named by their point.
-- top := N keeps each point's top N documents of each query (score, then doc_id descending: rankkit's
-- tie rule, so a measure at cutoff N or less reads the same ranks as from the whole fused run).
CREATE OR REPLACE MACRO rankkit.fuse_grid(run_table, grid_table, method := 'wsum', norm := NULL, depth := NULL,
        label := NULL, top := NULL) AS TABLE
WITH
inputs AS MATERIALIZED (
    FROM rankkit.fusion_inputs(run_table, method := method, norm := norm, depth := depth, label := label, gridded := true)
    WHERE CASE WHEN rankkit.fusion_method(method) IN ('rrf', 'wsum', 'wmnz') THEN true
               ELSE error('rankkit: a grid varies the weights of rrf, wsum or wmnz, or the k of rrf; '
                          || rankkit.fusion_method(method) || ' has neither') END
      AND CASE WHEN top IS NULL OR (top >= 1 AND top = floor(top)) THEN true
               ELSE error('rankkit: top must be a whole number, 1 or more (the documents kept per point and '
                          || 'query), got ' || top::VARCHAR) END
),
systems AS (SELECT list(DISTINCT system ORDER BY system) AS names FROM inputs),
normalised AS (
    SELECT n.query_id, n.doc_id, n.x, n.rank, list_position(systems.names, n.system) AS s
    FROM rankkit.fusion_normalised('inputs', rankkit.fusion_norm(method, norm)) n, systems
),
-- x: each system's normalised score, 0 where it does not rank the document (adding 0 changes no sum);
-- ranked: 1 where it does, else 0; rank: its rank, NULL where it does not
-- q and o: the query and the document as numbers (o in doc_id's order within the query), so that
-- keeping each point's top documents compares numbers, not text (comparing text was most of its time)
documents AS MATERIALIZED (
    SELECT query_id, doc_id, dense_rank() OVER (ORDER BY query_id) AS q,
           row_number() OVER (PARTITION BY query_id ORDER BY doc_id) AS o,
           list_transform(range(1, len(names) + 1), lambda i: coalesce(xs[list_position(ss, i)], 0.0E0)) AS x,
           list_transform(range(1, len(names) + 1), lambda i: CASE WHEN list_contains(ss, i) THEN 1.0E0 ELSE 0.0E0 END) AS ranked,
           list_transform(range(1, len(names) + 1), lambda i: ranks[list_position(ss, i)]) AS rank
    FROM (SELECT query_id, doc_id, list(s) AS ss, list(x::DOUBLE) AS xs, list(rank) AS ranks FROM normalised GROUP BY ALL),
         systems
),
points AS (
    SELECT point::VARCHAR AS point, any_value(k::DOUBLE) AS k,
           list_transform(range(1, len(any_value(names)) + 1),
                          lambda i: coalesce(list_extract(list(weight::DOUBLE), list_position(list(s), i)), 0.0E0)) AS w
    FROM (SELECT g.point, g.weight, g.k, list_position(systems.names, g.system::VARCHAR) AS s, systems.names
          FROM query_table(grid_table::VARCHAR) g, systems)
    GROUP BY point
),
-- wsum's bar, when only each point's top documents are kept: a document whose best x times a point's
-- weight total is below the point's top-th score among the systems' own top documents cannot be in
-- that point's top (non-negative weights: w . x <= total * max x), at any point of the grid: it is left
-- out before scoring (a margin of 1e-9 of the query's largest |x| covers the sums' rounding).
seeded AS (
    SELECT p.point, d.query_id, list_sum(p.w) AS total, list_min(p.w) AS least,
           CASE WHEN count(*) >= top THEN list_min(max(list_dot_product(p.w, d.x), top)) END AS tau
    FROM documents d SEMI JOIN (SELECT query_id, doc_id FROM normalised WHERE rank <= top) seeds USING (query_id, doc_id),
         points p
    WHERE top IS NOT NULL AND rankkit.fusion_method(method) = 'wsum'
    GROUP BY p.point, d.query_id, p.w
),
bars AS (
    SELECT query_id, CASE WHEN bool_and(least >= 0 AND total > 0 AND tau IS NOT NULL)
                          THEN min(tau / total) - 1.0E-9 * any_value(largest) END AS bar
    FROM seeded JOIN (SELECT query_id, max(list_max(list_transform(x, lambda v: abs(v)))) AS largest
                      FROM documents GROUP BY query_id) sizes USING (query_id)
    GROUP BY query_id
),
scored AS (
    SELECT p.point, d.query_id, d.doc_id, d.q, d.o, CASE rankkit.fusion_method(method)
               WHEN 'rrf' THEN list_sum(list_transform(range(1, len(p.w) + 1),
                                                       lambda i: coalesce(p.w[i] / (p.k + d.rank[i]), 0.0E0)))
               WHEN 'wsum' THEN list_dot_product(p.w, d.x)
               WHEN 'wmnz' THEN list_sum(d.x) * list_dot_product(p.w, d.ranked)
           END AS score
    FROM documents d LEFT JOIN bars USING (query_id), points p
    WHERE bars.bar IS NULL OR list_max(d.x) >= bars.bar
)
SELECT point AS system, query_id, doc_id, score FROM scored WHERE top IS NULL
UNION ALL
SELECT kept.point AS system, d.query_id, d.doc_id, kept.score
FROM (SELECT point, q, unnest(max_by({'o': o, 'score': score}, {'score': score, 'o': o}, top), recursive := true)
      FROM scored WHERE top IS NOT NULL GROUP BY point, q) kept
JOIN documents d USING (q, o);
