-- name:      RR
-- aliases:   recip_rank, MRR
-- params:    k, rel
-- aggregate: mean
-- summary:   reciprocal rank of the first relevant document within k (0 if none); its mean is MRR
-- cite:      Voorhees, The TREC-8 Question Answering Track Report, TREC 1999
-- trace:     rr; relevant, rr_contribution

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio(1, {first_rel})
