-- name:      nERR-IA
-- aliases:   nERR_IA
-- params:    k, rel, alpha
-- aggregate: mean
-- summary:   intent-aware ERR normalised by the ideal ordering (ndeval's nERR-IA): the gains of alpha-nDCG over rank instead of log2(rank + 1), over the same of ndeval's greedy ideal ordering
-- cite:      Chapelle et al., Intent-based diversification of web search results: metrics and algorithms, Information Retrieval 14(6), 2011; ndeval (TREC Web track)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: CASE WHEN {ia_err} > 0 THEN {ia_err} / {ideal_ia_err} ELSE 0.0E0 END
