-- list:      rr
-- signature: rankkit.rr(grades, k, rel := 1)
-- summary:   reciprocal rank of the first grade >= rel within the top k of a list in rank order (0 if none; k NULL: the whole list)
-- example:   rankkit.rr([0, 0, 1, 0], NULL) = 0.33333
-- cite:      Voorhees, The TREC-8 Question Answering Track Report, TREC 1999

CREATE OR REPLACE MACRO rankkit.rr(grades, k, rel := 1) AS
    rankkit.ratio(1, [i FOR i IN rankkit.list_ranks(grades, k) IF grades[i] >= rel][1]);
