-- name:      nNRBP
-- aliases:   
-- params:    rel, alpha, patience
-- aggregate: mean
-- summary:   NRBP normalised by the ideal ordering (ndeval's nNRBP): NRBP's sum over that of ndeval's greedy ideal ordering of every judged document; a query with no relevant subtopic scores 0 (ndeval: nan)
-- cite:      Clarke, Kolla and Vechtomova, An effectiveness measure for ambiguous and underspecified queries, ICTIR 2009; ndeval (TREC Web track)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({nrbp_sum}, {ideal_nrbp})
