-- list:      rr
-- signature: rankkit.rr(grades, rel := 1)
-- summary:   reciprocal rank of the first grade >= rel in a list in rank order (0 if none)
-- example:   rankkit.rr([0, 0, 1, 0]) = 0.33333
-- cite:      Voorhees, The TREC-8 Question Answering Track Report, TREC 1999

CREATE OR REPLACE MACRO rankkit.rr(grades, rel := 1) AS
    rankkit.ratio(1, [i FOR i IN rankkit.list_ranks(grades, NULL) IF grades[i] >= rel][1]);
