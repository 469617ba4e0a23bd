-- name:      AP
-- aliases:   map, map_cut_{k}, MAP
-- params:    k, rel, denom
-- aggregate: mean
-- summary:   average precision: the precision at each relevant document retrieved within k, summed, over the number of relevant documents; its mean is MAP
-- cite:      Harman, Overview of the First TREC Conference, TREC 1992
-- trace:     ap; relevant, precision, ap_contribution

-- Its own parameter: what the sum is divided by, where the libraries part (docs/conventions.md, packs)
-- param: denom  VARCHAR := 'all'     AP's denominator: all (every relevant document in the qrels, trec_eval's), min (min(k, relevant documents): RecBole, Spark MLlib, Microsoft Recommenders) or retrieved (the relevant documents retrieved within k: torchmetrics)
--     values: all, min, retrieved

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({ap_sum}, CASE {s.denom} WHEN 'min' THEN least({num_rel}, coalesce({s.k}, {num_rel}))
--     WHEN 'retrieved' THEN {rel_ret} ELSE {num_rel} END)
