-- list:      p
-- signature: rankkit.p(grades, k, rel := 1)
-- summary:   precision: grades >= rel among the top k of a list in rank order, over k (even when the list is shorter, as trec_eval; k NULL: over the list's length)
-- example:   rankkit.p([1, 0, 2], 5) = 0.4
-- cite:      trec_eval (P_k)

CREATE OR REPLACE MACRO rankkit.p(grades, k, rel := 1) AS
    rankkit.ratio(len([i FOR i IN rankkit.list_ranks(grades, k) IF grades[i] >= rel]),
                  coalesce(rankkit.list_cutoff(k), len(grades)));
