-- list:      ndcg
-- signature: rankkit.ndcg(grades, k, gain := 'linear', ideal := NULL)
-- summary:   DCG@k of the grades in rank order over the IDCG@k of ideal (every judged grade of the query, as trec_eval; NULL: the grades themselves, as scikit-learn); 0 when the ideal DCG is 0
-- example:   rankkit.ndcg([3, 2, 3, 0, 1, 2], 6, ideal := [3, 2, 3, 0, 1, 2, 3, 2]) = 0.78500
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002

CREATE OR REPLACE MACRO rankkit.ndcg(grades, k, gain := 'linear', ideal := NULL) AS
    rankkit.ratio(rankkit.dcg(grades, k, gain := gain),
                  rankkit.idcg(coalesce(ideal, grades), k, gain := gain));
