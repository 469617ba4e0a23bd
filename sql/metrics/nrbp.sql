-- name:      NRBP
-- aliases:   
-- params:    rel, alpha, patience
-- aggregate: mean
-- summary:   novelty- and rank-biased precision (ndeval's NRBP, collection-independent): the gains of alpha-nDCG weighted patience^(rank - 1) over the whole ranking, times (1 - (1 - alpha) x patience) over the number of subtopics; ndeval's alpha = patience = 0.5 (ir_measures' NRBP(beta=...) is patience)
-- cite:      Clarke, Kolla and Vechtomova, An effectiveness measure for ambiguous and underspecified queries, ICTIR 2009; ndeval (TREC Web track)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio((1.0E0 - (1.0E0 - {s.alpha}) * {s.patience}) * {nrbp_sum}, {sub_count})
