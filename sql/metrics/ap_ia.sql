-- name:      AP-IA
-- aliases:   AP_IA, MAP-IA
-- params:    rel
-- aggregate: mean
-- summary:   intent-aware average precision (ndeval's MAP-IA): AP for each subtopic (over its relevant documents), averaged over the subtopics, over the whole ranking
-- cite:      Agrawal et al., Diversifying search results, WSDM 2009; ndeval (TREC Web track)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio(rankkit.ordered_sum(list_transform({sub_rel_ranks}, lambda rs, u:
--     rankkit.ratio(rankkit.ordered_sum(list_transform(rs, lambda r, j: j * 1.0E0 / r)), {sub_num_rel}[u]))), {sub_count})
