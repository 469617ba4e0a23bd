-- name:      NumNonRelJudgedRet
-- aliases:   num_nonrel_judged_ret
-- params:    rel
-- aggregate: sum
-- summary:   number of judged non-relevant documents retrieved (grade from 0 to below rel)
-- cite:      trec_eval (num_nonrel_judged_ret)

-- The definition rankkit.compose writes the statement from (shared features: sql/features.sql):
-- value: {nonrel_ret} * 1.0E0

CREATE OR REPLACE MACRO rankkit.num_nonrel_judged_ret_value(f, s) AS
    f.nonrel_ret * 1.0E0;

CREATE OR REPLACE MACRO rankkit.num_nonrel_judged_ret(qrels_table, run_table, rel := 1, ties := 'trec', scores := 'double', depth := NULL, queries := 'both', judged_only := false) AS TABLE
    SELECT system, query_id, value
    FROM rankkit.per_query(qrels_table, run_table,
        [rankkit.spec('num_nonrel_judged_ret', 'NumNonRelJudgedRet', 'sum', rel := rel)],
        ties := ties, scores := scores, depth := depth, queries := queries, judged_only := judged_only)
    ORDER BY system, query_id;
