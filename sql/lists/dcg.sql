-- list:      dcg
-- signature: rankkit.dcg(grades, k, gain := 'linear')
-- summary:   discounted cumulative gain of a list of grades in rank order: gain / log2(rank + 1) summed over the top k
-- example:   rankkit.dcg([3, 2, 3, 0, 1, 2], 6) = 6.86113
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002

CREATE OR REPLACE MACRO rankkit.dcg(grades, k, gain := 'linear') AS
    coalesce(list_sum([rankkit.gain(grades[i], gain) / rankkit.discount(i)
                       FOR i IN rankkit.list_ranks(grades, k)]), 0.0E0);
