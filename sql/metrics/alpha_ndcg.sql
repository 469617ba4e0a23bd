-- name:      alpha-nDCG
-- aliases:   alpha_nDCG
-- params:    k, rel, alpha
-- aggregate: mean
-- summary:   alpha-nDCG (diversity, over subtopic judgments): each document gains, for every subtopic it is relevant to, (1 - alpha)^(documents above it relevant to that subtopic), discounted by log2(rank + 1); over the same of ndeval's greedy ideal ordering; ndeval's alpha = 0.5
-- cite:      Clarke et al., Novelty and diversity in information retrieval evaluation, SIGIR 2008; ndeval (TREC Web track)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: CASE WHEN {alpha_dcg} > 0 THEN {alpha_dcg} / {ideal_alpha_dcg} ELSE 0.0E0 END
