-- name:      runid
-- aliases:   
-- params:    
-- aggregate: text
-- summary:   the run's name: its system (rankkit eval prints, as trec_eval, the tag of a TREC file's last line); in the aggregate only
-- cite:      trec_eval (runid)
-- better:    none

-- Text, not a number: rankkit.evaluate refuses it, and its value here is NULL.

CREATE OR REPLACE MACRO rankkit.runid(qrels_table, run_table) AS TABLE
    SELECT DISTINCT system, system AS value
    FROM rankkit.run_rows(run_table)
    ORDER BY system;
