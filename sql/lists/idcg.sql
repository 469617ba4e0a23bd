-- list:      idcg
-- signature: rankkit.idcg(grades, k, gain := 'linear')
-- summary:   ideal DCG: the DCG@k of the same grades sorted best first
-- example:   rankkit.idcg([3, 2, 3, 0, 1, 2, 3, 2], 6) = 8.74026
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002

CREATE OR REPLACE MACRO rankkit.idcg(grades, k, gain := 'linear') AS
    rankkit.dcg(list_sort(grades, 'DESC', 'NULLS LAST'), k, gain := gain);
