-- name:      Coverage
-- aliases:   ItemCoverage, catalog_coverage
-- params:    k
-- level:     system
-- needs:     items, interactions
-- summary:   share of the catalog recommended in some user's top k (the catalog: items, else the items of interactions, as Recommenders' catalog_coverage)
-- cite:      RecBole, recbole/evaluator/metrics.py, ItemCoverage; Microsoft Recommenders, catalog_coverage

-- A beyond-accuracy measure: it reads the run's top k and a side table, not the qrels, through its
-- table macro rankkit.coverage (sql/80_beyond.sql), which rankkit.beyond calls.
