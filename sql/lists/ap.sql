-- list:      ap
-- signature: rankkit.ap(grades, k, num_rel := NULL, rel := 1)
-- summary:   average precision of a list in rank order: precision at each grade >= rel within the top k (k NULL: the whole list), summed, over num_rel (the relevant documents in the qrels; NULL: those in the list)
-- example:   rankkit.ap([1, 0, 1, 0], NULL, num_rel := 3) = 0.55556
-- cite:      Harman, Overview of the First TREC Conference, TREC 1992

CREATE OR REPLACE MACRO rankkit.ap(grades, k, num_rel := NULL, rel := 1) AS
    rankkit.ratio(
        coalesce(list_sum([len([g FOR g IN grades[1:i] IF g >= rel]) * 1.0E0 / i
                           FOR i IN rankkit.list_ranks(grades, k) IF grades[i] >= rel]), 0.0E0),
        coalesce(num_rel, len([g FOR g IN grades IF g >= rel])));
