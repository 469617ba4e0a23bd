-- list:      err
-- signature: rankkit.err(grades, k, max := 4)
-- summary:   expected reciprocal rank of a list in rank order: sum over r <= k of (1/r) R_r prod_{i<r} (1 - R_i), R = (2^grade - 1) / 2^max
-- example:   rankkit.err([4, 0, 2], 3) = 0.94141
-- cite:      Chapelle et al., Expected reciprocal rank for graded relevance, CIKM 2009; gdeval.pl

CREATE OR REPLACE MACRO rankkit.err(grades, k, max := 4) AS
    coalesce(list_sum([
        rankkit.stop_probability(grades[r], max) / r
        * coalesce(list_product([1.0E0 - rankkit.stop_probability(g, max) FOR g IN grades[1:r - 1]]), 1.0E0)
        FOR r IN rankkit.list_ranks(grades, k)]), 0.0E0);
