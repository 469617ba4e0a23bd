-- The beyond-accuracy measures of recommender evaluation (issue 35): they read the run's top k and two
-- side tables instead of the qrels,
--   items:        the catalog, one row per item: an id (item_id, item, product_id, doc_id ...), optionally
--                 a feature vector (features, vector, embedding: a LIST/ARRAY of numbers) or a category
--   interactions: the training log that defines popularity, one row per interaction: user and item
--                 (user_id, item_id ...), optionally a popularity weight (popularity; default 1 a row)
-- Each measure is a table macro taking the tables' names, as SQL users call them:
--   FROM rankkit.coverage('run', 'items', k := 10)
-- System-level (one value per system; columns system, value, users): coverage, entropy, gini.
-- Per user (columns system, query_id, value; evaluate averages them over users): novelty, arp,
-- tail_share, ild_features, ild_category, ild_cooccurrence.
-- The definitions follow Microsoft Recommenders (recommenders/evaluation/python_evaluation.py) and RecBole
-- (recbole/evaluator/metrics.py); where they differ the choice is a parameter, and the default is named.
-- Items recommended that the catalog lacks: Coverage and Gini leave them out (RecBole's ids are the
-- catalog's, so it has none; Recommenders' catalog_coverage would count them above the catalog's
-- size), rankkit.absent_items counts them and Python warns with that number. An item without
-- interactions has popularity 0: ARP counts 0 for it (RecBole's item_count.get(item, 0)), Novelty 0
-- (Recommenders' novelty inner-joins the popularity, so it adds nothing while the recommendation counts).

-- The measures by name, as evaluate() and `rankkit eval` take them, are declared as every measure is, one
-- file each under sql/metrics/beyond/ (name, aliases, parameters, level, the side tables it reads),
-- read by the registry (rankkit.measures.beyond_measures); rankkit.beyond calls the macros below. A
-- parameter's check and its refusal's words are its declaration's, written out where a macro reads
-- {{checked <name>}} (rankkit.macros.fill).

-- rankkit.catalog_rows: the catalog's distinct items, features as DOUBLE[]; a row without an id, or
-- vectors of mixed lengths, is an error naming the table and column.
CREATE OR REPLACE MACRO rankkit.catalog_rows(items_table) AS TABLE
    WITH rankkit_items AS (
        SELECT {{coalesce item_id VARCHAR}} AS item_id,
               {{coalesce features DOUBLE[]}} AS features,
               {{coalesce category VARCHAR}} AS category
        FROM (FROM query_table(items_table::VARCHAR) UNION ALL BY NAME (SELECT {{empty_row items}} LIMIT 0))
    )
    SELECT DISTINCT
        CASE WHEN item_id IS NULL
             THEN error('items ' || items_table || ': a row has no item id (column item_id, or one of ' ||
                        array_to_string({{names item_id}}, ', ') || ')')
             WHEN (SELECT count(DISTINCT len(features)) FROM rankkit_items) > 1
             THEN error('items ' || items_table || ': column features: vectors of mixed lengths (' ||
                        (SELECT string_agg(DISTINCT len(features)::VARCHAR, ', ' ORDER BY len(features)::VARCHAR) FROM rankkit_items) ||
                        '); every item needs a vector of the same length')
             ELSE item_id END AS item_id,
        features, category
    FROM rankkit_items;

-- rankkit.interaction_rows: the training log's (user_id, item_id, weight); a row without a user or an
-- item, or a negative popularity, is an error naming the table and column.
CREATE OR REPLACE MACRO rankkit.interaction_rows(interactions_table) AS TABLE
    SELECT CASE WHEN user_id IS NULL
                THEN error('interactions ' || interactions_table || ': a row has no user id (column user_id, or one of ' ||
                           array_to_string({{names user_id}}, ', ') || ')') ELSE user_id END AS user_id,
           CASE WHEN item_id IS NULL
                THEN error('interactions ' || interactions_table || ': a row has no item id (column item_id, or one of ' ||
                           array_to_string({{names item_id}}, ', ') || ')') ELSE item_id END AS item_id,
           CASE WHEN weight < 0 OR NOT isfinite(weight)
                THEN error('interactions ' || interactions_table || ': column popularity: ' || weight::VARCHAR ||
                           ' is not a popularity; expected a number >= 0')
                ELSE weight END AS weight
    FROM (
        SELECT {{coalesce user_id VARCHAR}} AS user_id, {{coalesce item_id VARCHAR}} AS item_id,
               coalesce({{coalesce popularity DOUBLE}}, 1.0E0) AS weight
        FROM (FROM query_table(interactions_table::VARCHAR) UNION ALL BY NAME (SELECT {{empty_row interactions}} LIMIT 0))
    );

-- rankkit.item_popularity: per item of the log, its popularity (its interactions, RecBole's
-- data.count_items) and the log's total (Recommenders' n_records).
CREATE OR REPLACE MACRO rankkit.item_popularity(interactions_table) AS TABLE
    SELECT item_id, sum(weight) AS popularity, sum(sum(weight)) OVER () AS total
    FROM rankkit.interaction_rows(interactions_table)
    WHERE user_id IS NOT NULL  -- read, so that a log without users is refused though popularity needs none
    GROUP BY item_id;

-- rankkit.top_items: each system's and user's recommended items of rank <= k, ranked as every measure
-- ranks a run (rankkit.ranked: the tie rule, score precision).
-- rankkit.whole_k: a cutoff k checked (a whole number >= 1).
CREATE OR REPLACE MACRO rankkit.whole_k(k) AS
    CASE WHEN k >= 1 AND k = round(k) THEN k
         ELSE error('k must be a whole number >= 1, got ' || coalesce(k::VARCHAR, 'NULL')) END;

-- ranked := true: run_table is a top table already (rankkit.top_loaded's, or rankkit.ranked's rows of rank <= k:
-- its rank column the rank by the rule asked): its rows of rank <= k are read as they are, where ranking
-- them again gave the same rows (Coverage@10 and Novelty@10's window over 1M rows at 100,000 users: bench/README.md).
CREATE OR REPLACE MACRO rankkit.top_items(run_table, k := 10, ties := 'trec', scores := 'double',
        ranked := false) AS TABLE
    SELECT system, query_id, doc_id AS item_id, rank
    FROM rankkit.ranked(run_table, ties := ties, scores := scores)
    WHERE NOT ranked AND rank <= rankkit.whole_k(k)
    UNION ALL
    SELECT system, query_id, doc_id AS item_id, given_rank AS rank
    FROM rankkit.run_rows(run_table)
    -- a row without a rank (a run with no rank column) refused: dropped, it left the measure no row at all
    WHERE CASE WHEN ranked IS NULL THEN error('rankkit: ranked must be true or false, got NULL')
               WHEN NOT ranked THEN false
               WHEN given_rank IS NULL THEN error('rankkit: ranked := true reads the run''s rank column (a top table''s), '
                   || 'and user ''' || query_id || ''' has an item that has no rank: leave ranked out to rank the run')
               ELSE given_rank <= rankkit.whole_k(k) END;

-- rankkit.absent_items: per system, the distinct items recommended in some top k that the catalog lacks.
CREATE OR REPLACE MACRO rankkit.absent_items(run_table, items_table, k := 10, ties := 'trec', scores := 'double',
        ranked := false) AS TABLE
    SELECT system, count(DISTINCT t.item_id) AS absent
    FROM rankkit.top_items(run_table, k := k, ties := ties, scores := scores, ranked := ranked) t
    WHERE t.item_id NOT IN (SELECT item_id FROM rankkit.catalog_rows(items_table))
    GROUP BY system;

-- Coverage@k: the share of the catalog recommended in some user's top k.
-- cite: RecBole, recbole/evaluator/metrics.py, ItemCoverage.get_coverage (unique items / num_items);
-- Microsoft Recommenders, recommenders/evaluation/python_evaluation.py, catalog_coverage, divides by the
-- distinct items of the training log instead: give the interactions table as the catalog for that.
CREATE OR REPLACE MACRO rankkit.coverage(run_table, items_table, k := 10, ties := 'trec', scores := 'double',
        ranked := false) AS TABLE
    WITH rankkit_catalog AS (  -- read once (its count and the join), a third of Coverage@10 at 100,000 users
        SELECT DISTINCT item_id FROM rankkit.catalog_rows(items_table)
    )
    SELECT t.system,
           count(DISTINCT t.item_id) FILTER (WHERE c.item_id IS NOT NULL) / (SELECT count(*) FROM rankkit_catalog) AS value,
           count(DISTINCT t.query_id) AS users
    FROM rankkit.top_items(run_table, k := k, ties := ties, scores := scores, ranked := ranked) t
    LEFT JOIN rankkit_catalog c ON c.item_id = t.item_id
    GROUP BY t.system;

-- Entropy@k: the distributional coverage, the entropy of how often each item is recommended over all
-- recommendations (p(i) = its recommendations / all recommendations of rank <= k).
-- cite: Microsoft Recommenders, recommenders/evaluation/python_evaluation.py, distributional_coverage:
-- -sum p(i) log2 p(i) (the default, formula := 'recommenders'); RecBole, recbole/evaluator/metrics.py,
-- ShannonEntropy.get_entropy: -sum p(i) ln p(i) divided by the number of distinct items recommended
-- (formula := 'recbole'). Both count the recommendations there are (RecBole's matrix always has k a user).
CREATE OR REPLACE MACRO rankkit.entropy(run_table, k := 10, ties := 'trec', scores := 'double',
        formula := 'recommenders', ranked := false) AS TABLE
    WITH rankkit_counts AS (
        SELECT system, item_id, count(*) AS n, list(DISTINCT query_id) AS users
        FROM rankkit.top_items(run_table, k := k, ties := ties, scores := scores, ranked := ranked)
        GROUP BY system, item_id
    ), rankkit_shares AS (
        SELECT system, n / sum(n) OVER (PARTITION BY system) AS p, users FROM rankkit_counts
    )
    SELECT system,
           CASE {{checked formula}}
                WHEN 'recommenders' THEN -sum(p * log2(p))
                WHEN 'recbole' THEN -sum(p * ln(p)) / count(*) END AS value,
           len(list_distinct(flatten(list(users)))) AS users
    FROM rankkit_shares
    GROUP BY system;

-- Gini@k: the Gini index of how the recommendations (of catalog items, rank <= k) spread over the
-- catalog: 0 when every item is recommended equally often, towards 1 when a few items take them all.
-- cite: RecBole, recbole/evaluator/metrics.py, GiniIndex.get_gini: counts sorted ascending, the j-th of
-- the m items recommended weighted 2 (n - m + j) - n - 1, summed, / the recommendations / n (the catalog's
-- size, items never recommended counting 0). Microsoft Recommenders has no Gini index.
CREATE OR REPLACE MACRO rankkit.gini(run_table, items_table, k := 10, ties := 'trec', scores := 'double',
        ranked := false) AS TABLE
    WITH rankkit_catalog AS (
        SELECT DISTINCT item_id FROM rankkit.catalog_rows(items_table)
    ), rankkit_counts AS (
        SELECT t.system, t.item_id, count(*) AS c, list(DISTINCT t.query_id) AS users
        FROM rankkit.top_items(run_table, k := k, ties := ties, scores := scores, ranked := ranked) t
        SEMI JOIN rankkit_catalog USING (item_id)
        GROUP BY t.system, t.item_id
    ), rankkit_sorted AS (
        SELECT system, c, users, (SELECT count(*) FROM rankkit_catalog) AS n,
               row_number() OVER (PARTITION BY system ORDER BY c) AS j,
               count(*) OVER (PARTITION BY system) AS m,
               sum(c) OVER (PARTITION BY system) AS total
        FROM rankkit_counts
    )
    SELECT system, sum((2 * (n - m + j) - n - 1) * c) / any_value(total) / any_value(n) AS value,
           len(list_distinct(flatten(list(users)))) AS users
    FROM rankkit_sorted
    GROUP BY system;

-- Novelty@k, per user: the mean self-information -log2(popularity / total) of the user's top k.
-- cite: Microsoft Recommenders, recommenders/evaluation/python_evaluation.py, historical_item_novelty and
-- novelty (Castells, Vargas and Wang, ECIR 2011): an item without interactions adds 0. Recommenders
-- averages over all recommendations at once; rankkit over each user's, then over users (the same number
-- when every user has as many items), so that intervals and paired tests see one value a user.
CREATE OR REPLACE MACRO rankkit.novelty(run_table, interactions_table, k := 10, ties := 'trec', scores := 'double',
        ranked := false) AS TABLE
    SELECT t.system, t.query_id, coalesce(sum(-log2(p.popularity / p.total)), 0.0E0) / count(*) AS value
    FROM rankkit.top_items(run_table, k := k, ties := ties, scores := scores, ranked := ranked) t
    LEFT JOIN rankkit.item_popularity(interactions_table) p ON p.item_id = t.item_id AND p.popularity > 0
    GROUP BY t.system, t.query_id;

-- ARP@k, per user: the average popularity (interactions in the log) of the user's top k.
-- cite: RecBole, recbole/evaluator/metrics.py, AveragePopularity.get_pop and metric_info (an item the
-- log lacks counts 0); divided by the items the user has in the top k (RecBole's matrix always has k).
CREATE OR REPLACE MACRO rankkit.arp(run_table, interactions_table, k := 10, ties := 'trec', scores := 'double',
        ranked := false) AS TABLE
    SELECT t.system, t.query_id, coalesce(sum(p.popularity), 0.0E0) / count(*) AS value
    FROM rankkit.top_items(run_table, k := k, ties := ties, scores := scores, ranked := ranked) t
    LEFT JOIN rankkit.item_popularity(interactions_table) p ON p.item_id = t.item_id
    GROUP BY t.system, t.query_id;

-- TailShare@k, per user: the share of the user's top k that is long-tail.
-- cite: RecBole, recbole/evaluator/metrics.py, TailPercentage.get_tail: tail := 0.1 (its default
-- tail_ratio) is the least popular tenth of the log's items (sorted by popularity, then id; at least one
-- item); a tail above 1 is a popularity: the items with popularity <= tail. Items the log lacks are not
-- tail. Microsoft Recommenders has no such measure.
CREATE OR REPLACE MACRO rankkit.tail_share(run_table, interactions_table, k := 10, ties := 'trec', scores := 'double',
        tail := 0.1, ranked := false) AS TABLE
    WITH rankkit_tail AS (
        SELECT item_id FROM (
            SELECT item_id, popularity, row_number() OVER (ORDER BY popularity, item_id) AS position,
                   count(*) OVER () AS items
            FROM rankkit.item_popularity(interactions_table))
        WHERE CASE WHEN {{checked tail}} > 1 THEN popularity <= tail
                   ELSE position <= greatest(floor(items * tail), 1) END
    )
    SELECT t.system, t.query_id, count(s.item_id) / count(*) AS value
    FROM rankkit.top_items(run_table, k := k, ties := ties, scores := scores, ranked := ranked) t
    LEFT JOIN rankkit_tail s ON s.item_id = t.item_id
    GROUP BY t.system, t.query_id;

-- ILD@k, per user: intra-list diversity, 1 - the mean similarity of the distinct pairs of the user's top
-- k; NULL for a user with fewer than two items (Recommenders has no row for them). A pair whose
-- similarity is unknown (an item the catalog or the log lacks, items never seen together) counts 0.
-- cite: Microsoft Recommenders, recommenders/evaluation/python_evaluation.py, _get_intralist_similarity and
-- user_diversity (Ziegler et al. 2005; Zhang et al., Auralist, WSDM 2012), with the similarity of
-- _get_item_feature_similarity (cosine of the feature vectors: rankkit.ild_features), of
-- _get_cooccurrence_similarity (users who have both / sqrt(interactions of each): rankkit.ild_cooccurrence),
-- or, for a category column, 1 for the same category and 0 otherwise (the cosine of one-hot vectors:
-- rankkit.ild_category). RecBole has no intra-list diversity.
CREATE OR REPLACE MACRO rankkit.item_pairs(run_table, k := 10, ties := 'trec', scores := 'double',
        ranked := false) AS TABLE
    SELECT a.system, a.query_id, b.item_id AS other, a.item_id
    FROM rankkit.top_items(run_table, k := k, ties := ties, scores := scores, ranked := ranked) a
    LEFT JOIN rankkit.top_items(run_table, k := k, ties := ties, scores := scores, ranked := ranked) b
        ON b.system IS NOT DISTINCT FROM a.system AND b.query_id = a.query_id AND b.item_id > a.item_id;

-- A zero vector has no direction: its cosine is undefined (Recommenders' would be NaN), so it is refused.
CREATE OR REPLACE MACRO rankkit.ild_features(run_table, items_table, k := 10, ties := 'trec', scores := 'double',
        ranked := false) AS TABLE
    SELECT p.system, p.query_id,
           1.0E0 - avg(coalesce(CASE WHEN list_dot_product(x.features, x.features) = 0 OR list_dot_product(y.features, y.features) = 0
               THEN error('items ' || items_table || ': column features: item ' ||
                          CASE WHEN list_dot_product(x.features, x.features) = 0 THEN x.item_id ELSE y.item_id END ||
                          ' has a zero vector, whose cosine similarity is undefined')
               ELSE list_cosine_similarity(x.features, y.features) END, 0.0E0)) FILTER (WHERE p.other IS NOT NULL) AS value
    FROM rankkit.item_pairs(run_table, k := k, ties := ties, scores := scores, ranked := ranked) p
    LEFT JOIN rankkit.catalog_rows(items_table) x ON x.item_id = p.item_id
    LEFT JOIN rankkit.catalog_rows(items_table) y ON y.item_id = p.other
    GROUP BY p.system, p.query_id;

CREATE OR REPLACE MACRO rankkit.ild_category(run_table, items_table, k := 10, ties := 'trec', scores := 'double',
        ranked := false) AS TABLE
    SELECT p.system, p.query_id,
           1.0E0 - avg(CASE WHEN x.category = y.category THEN 1.0E0 ELSE 0.0E0 END) FILTER (WHERE p.other IS NOT NULL) AS value
    FROM rankkit.item_pairs(run_table, k := k, ties := ties, scores := scores, ranked := ranked) p
    LEFT JOIN rankkit.catalog_rows(items_table) x ON x.item_id = p.item_id
    LEFT JOIN rankkit.catalog_rows(items_table) y ON y.item_id = p.other
    GROUP BY p.system, p.query_id;

CREATE OR REPLACE MACRO rankkit.ild_cooccurrence(run_table, interactions_table, k := 10, ties := 'trec',
        scores := 'double', ranked := false) AS TABLE
    WITH rankkit_pairs AS (
        FROM rankkit.item_pairs(run_table, k := k, ties := ties, scores := scores, ranked := ranked)
    ), rankkit_log AS (
        SELECT DISTINCT user_id, item_id FROM rankkit.interaction_rows(interactions_table)
    ), rankkit_counts AS (
        SELECT item_id, count(*) AS n FROM rankkit.interaction_rows(interactions_table) GROUP BY item_id
    ), rankkit_together AS (
        SELECT x.item_id, y.item_id AS other, count(*) AS n
        FROM rankkit_log x JOIN rankkit_log y ON y.user_id = x.user_id AND y.item_id > x.item_id
        SEMI JOIN (SELECT DISTINCT item_id, other FROM rankkit_pairs) q ON q.item_id = x.item_id AND q.other = y.item_id
        GROUP BY x.item_id, y.item_id
    )
    SELECT p.system, p.query_id,
           1.0E0 - avg(coalesce(g.n / sqrt(a.n * b.n), 0.0E0)) FILTER (WHERE p.other IS NOT NULL) AS value
    FROM rankkit_pairs p
    LEFT JOIN rankkit_together g ON g.item_id = p.item_id AND g.other = p.other
    LEFT JOIN rankkit_counts a ON a.item_id = p.item_id
    LEFT JOIN rankkit_counts b ON b.item_id = p.other
    GROUP BY p.system, p.query_id;
