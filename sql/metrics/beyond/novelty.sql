-- name:      Novelty
-- aliases:
-- params:    k
-- level:     user
-- needs:     interactions
-- summary:   mean self-information -log2(popularity share) of the user's top k (Recommenders)
-- cite:      Microsoft Recommenders, novelty (Castells, Vargas and Wang, ECIR 2011)

-- A beyond-accuracy measure: it reads the run's top k and the interactions, not the qrels, through its
-- table macro rankkit.novelty (sql/80_beyond.sql), which rankkit.beyond calls.
