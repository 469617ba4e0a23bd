-- name:      P
-- aliases:   P_{k}, precision, set_P, SetP
-- params:    k, rel, short, empty, scored
-- aggregate: mean
-- summary:   precision: relevant documents in the top k over k (k even when fewer were retrieved, as trec_eval; short=retrieved: over those retrieved, as LensKit); no cutoff (SetP, P(rel=2)): over the number retrieved, but the name P alone is trec_eval's family, P@5 ... P@1000
-- cite:      trec_eval (P_k, set_P)
-- top_k:     yes
-- trace:     precision; relevant

-- Its own parameter: a list shorter than k, where the libraries part (docs/conventions.md, packs)
-- param: short  VARCHAR := 'k'       what P@k divides by when fewer than k documents were retrieved: k (trec_eval's, RecBole's, torchmetrics') or retrieved (the documents retrieved: LensKit's)
--     values: k, retrieved

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: CASE WHEN {num_rel} > 0 THEN CASE WHEN {s.k} IS NULL OR {s.short} = 'retrieved' THEN rankkit.ratio({rel_ret}, {ret_k}) ELSE {rel_ret} * 1.0E0 / {s.k} END
--     ELSE rankkit.empty_value({s.empty}, {query_id}) END
