-- name:      IDCG
-- aliases:   
-- params:    k, gain, gains, ideal
-- aggregate: mean
-- summary:   ideal DCG: the DCG@k of the judged documents in descending grade order
-- cite:      Järvelin and Kekäläinen, ACM TOIS 20(4), 2002
-- ties:      trec, rank, average

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {idcg}

CREATE OR REPLACE MACRO rankkit.idcg_value(f, s) AS
    f.idcg;

CREATE OR REPLACE MACRO rankkit.idcg(qrels_table, run_table, k := NULL, gain := 'linear', gains := NULL, ideal := 'qrels', ties := 'trec', scores := 'double', depth := NULL, queries := 'both') AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('idcg', 'IDCG', 'mean', k := k, gain := gain, gains := gains, ideal := ideal)],
        ties := ties, scores := scores, depth := depth, queries := queries)
    ORDER BY system, query_id;
