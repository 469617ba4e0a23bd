-- name:      P-IA
-- aliases:   P_IA
-- params:    k, rel
-- aggregate: mean
-- summary:   intent-aware precision (ndeval's P-IA): the precision at k for each subtopic, averaged over the subtopics (k even when fewer were retrieved); needs a cutoff (P-IA@10)
-- cite:      Agrawal et al., Diversifying search results, WSDM 2009; ndeval (TREC Web track)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: CASE WHEN {s.k} IS NULL THEN error('rankkit: P-IA needs a cutoff, as in ndeval (P-IA@10)')
--     ELSE rankkit.ratio(len(flatten({sub_cut})), {s.k} * {sub_count}) END
