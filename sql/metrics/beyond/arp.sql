-- name:      ARP
-- aliases:   AveragePopularity
-- params:    k
-- level:     user
-- needs:     interactions
-- summary:   average popularity (interactions in the log) of the user's top k (RecBole)
-- cite:      RecBole, recbole/evaluator/metrics.py, AveragePopularity

-- A beyond-accuracy measure: it reads the run's top k and the interactions, not the qrels, through its
-- table macro rankkit.arp (sql/80_beyond.sql), which rankkit.beyond calls.
