-- name:      bpref
-- aliases:   
-- params:    rel
-- aggregate: mean
-- summary:   binary preference: for each relevant document retrieved, 1 minus the share of judged non-relevant documents ranked above it, over the number of relevant documents; unjudged and negative grades are skipped
-- cite:      Buckley and Voorhees, Retrieval evaluation with incomplete information, SIGIR 2004

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: rankkit.ratio({bpref_sum}, {num_rel})
