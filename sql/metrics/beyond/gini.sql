-- name:      Gini
-- aliases:   GiniIndex
-- params:    k
-- level:     system
-- needs:     items, interactions
-- summary:   Gini index of the recommendations over the catalog (RecBole): 0 even, towards 1 concentrated
-- cite:      RecBole, recbole/evaluator/metrics.py, GiniIndex

-- A beyond-accuracy measure: it reads the run's top k and a side table, not the qrels, through its
-- table macro rankkit.gini (sql/80_beyond.sql), which rankkit.beyond calls.
