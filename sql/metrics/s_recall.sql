-- name:      S-recall
-- aliases:   StRecall, strec, subtopic_recall
-- params:    k, rel
-- aggregate: mean
-- summary:   subtopic recall (ndeval's strec): the share of the query's subtopics that a document in the top k is relevant to
-- cite:      Zhai, Cohen and Lafferty, Beyond independent relevance, SIGIR 2003; ndeval (TREC Web track)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio(len(list_filter({sub_cut}, lambda rs: len(rs) > 0)), {sub_count})
